"""Registry answers in the DaData `findById/party` format, shared by the unit, integration and flow
tests and the bench's local registry server."""

from __future__ import annotations

import json


def party(
    inn: str,
    ogrn: str,
    *,
    status: str = "ACTIVE",
    branch_type: str | None = "MAIN",
    kind: str = "LEGAL",
    name: str = "ПАО СБЕРБАНК",
    kpp: str | None = "773601001",
) -> dict:
    data = {
        "inn": inn,
        "ogrn": ogrn,
        "kpp": kpp if kind == "LEGAL" else None,
        "branch_type": branch_type if kind == "LEGAL" else None,
        "type": kind,
        "state": {"status": status, "actuality_date": 1700000000000},
    }
    if kind == "LEGAL":
        data["name"] = {"short_with_opf": name, "full_with_opf": name}
    else:
        surname, first, patronymic = name.split(" ")
        data["name"] = {"short_with_opf": None}
        data["fio"] = {"surname": surname, "name": first, "patronymic": patronymic}
    return {"value": name, "unrestricted_value": name, "data": data}


def answer(*suggestions: dict) -> str:
    return json.dumps({"suggestions": list(suggestions)}, ensure_ascii=False)


def inn10(n: int) -> str:
    """The n-th legal entity INN with a correct check digit (region 77, made up)."""
    body = f"77{n:07d}"
    weights = (2, 4, 10, 3, 5, 9, 4, 6, 8)
    return body + str(sum(int(d) * w for d, w in zip(body, weights, strict=True)) % 11 % 10)


def ogrn13(n: int) -> str:
    """The n-th OGRN with a correct check digit (made up)."""
    body = f"1027{n:08d}"
    return body + str(int(body) % 11 % 10)
