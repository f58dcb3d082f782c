"""CL-2: reading a registry answer (DaData-style `findById/party`) and deciding an application from it.

The answer is `{"suggestions": [{"value": ..., "data": {...}}, ...]}`; each `data` carries `inn`,
`ogrn`, `kpp`, `branch_type` (MAIN | BRANCH; empty for entrepreneurs), `type` (LEGAL | INDIVIDUAL),
`state.status` and `name.short_with_opf` (or `fio` for entrepreneurs).

Outcomes: VERIFY only for the head-office record with that INN and that OGRN in ACTIVE state; REFUSE
with the reason when the registry says otherwise; MODERATE when the answer is malformed or
contradicts the request (it never verifies).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum

from domain.clubs.rules.status import LegalForm

ACTIVE = "ACTIVE"
NOT_ACTIVE = {
    "LIQUIDATING": "is being liquidated",
    "LIQUIDATED": "has been liquidated",
    "BANKRUPT": "is bankrupt",
    "REORGANIZING": "is being reorganised",
}
_TYPE_OF_FORM = {LegalForm.LEGAL_ENTITY: "LEGAL", LegalForm.ENTREPRENEUR: "INDIVIDUAL"}


class Outcome(StrEnum):
    VERIFY = "verify"
    REFUSE = "refuse"
    MODERATE = "moderate"


@dataclass(frozen=True)
class Record:
    inn: str
    ogrn: str | None
    kpp: str | None
    branch_type: str | None
    type: str | None
    status: str | None
    name: str | None

    @property
    def head_office(self) -> bool:
        return self.branch_type == "MAIN" or (self.type == "INDIVIDUAL" and self.branch_type in (None, ""))


@dataclass(frozen=True)
class Decision:
    outcome: Outcome
    reason: str


class MalformedAnswer(ValueError):
    """The body is not a `findById/party` answer."""


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def parse_party(raw: str) -> tuple[Record, ...]:
    """Every record in a `findById/party` answer; MalformedAnswer says what is wrong with it."""
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MalformedAnswer(f"not JSON ({exc.msg} at position {exc.pos})") from None
    if not isinstance(body, dict) or not isinstance(body.get("suggestions"), list):
        raise MalformedAnswer("no 'suggestions' list")
    records = []
    for index, suggestion in enumerate(body["suggestions"]):
        data = suggestion.get("data") if isinstance(suggestion, dict) else None
        if not isinstance(data, dict) or not isinstance(data.get("inn"), str):
            raise MalformedAnswer(f"suggestion {index} has no data.inn")
        state = data.get("state")
        name = data.get("name")
        fio = data.get("fio")
        if isinstance(name, dict) and name.get("short_with_opf"):
            shown = _text(name["short_with_opf"])
        elif isinstance(fio, dict):
            shown = " ".join(str(fio[k]) for k in ("surname", "name", "patronymic") if fio.get(k))
        else:
            shown = _text(suggestion.get("value"))
        records.append(
            Record(
                inn=data["inn"],
                ogrn=_text(data.get("ogrn")),
                kpp=_text(data.get("kpp")),
                branch_type=_text(data.get("branch_type")),
                type=_text(data.get("type")),
                status=_text(state.get("status")) if isinstance(state, dict) else None,
                name=shown or None,
            )
        )
    return tuple(records)


def decide(legal_form: str, inn: str, ogrn: str, raw: str) -> Decision:
    """CL-2: the decision on an application (a valid INN/OGRN pair) from the registry's raw answer."""
    try:
        records = parse_party(raw)
    except MalformedAnswer as exc:
        return Decision(Outcome.MODERATE, f"the registry's answer is malformed: {exc}")
    if not records:
        return Decision(Outcome.REFUSE, f"INN {inn} is not found in the registry")
    strangers = sorted({r.inn for r in records if r.inn != inn})
    if strangers:
        return Decision(
            Outcome.MODERATE,
            f"the registry answered for INN {', '.join(strangers)} when asked for INN {inn}",
        )
    heads = [r for r in records if r.head_office]
    if not heads:
        return Decision(Outcome.REFUSE, f"the registry has only branch records for INN {inn}, no head office")
    if len(heads) > 1:
        return Decision(Outcome.MODERATE, f"the registry has {len(heads)} head-office records for INN {inn}")
    head = heads[0]
    expected_type = _TYPE_OF_FORM.get(LegalForm(legal_form))
    if head.type != expected_type:
        return Decision(
            Outcome.MODERATE,
            f"the registry's record for INN {inn} is of type {head.type or 'none'}, expected {expected_type}",
        )
    if head.ogrn != ogrn:
        return Decision(
            Outcome.REFUSE,
            f"OGRN {ogrn} belongs to another entity: the registry lists INN {inn} with OGRN {head.ogrn or 'none'}",
        )
    if head.status == ACTIVE:
        return Decision(Outcome.VERIFY, f"matches the registry: {head.name or inn}, ACTIVE")
    if head.status in NOT_ACTIVE:
        return Decision(Outcome.REFUSE, f"{head.name or 'INN ' + inn} {NOT_ACTIVE[head.status]} ({head.status})")
    return Decision(Outcome.MODERATE, f"the registry gives an unknown state '{head.status}' for INN {inn}")
