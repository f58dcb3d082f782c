"""The owner's console over `/api/v1` (flows/web/api/owner.py, issue 39): the club's profile, its staff,
its blind structures and its tournaments, over a real server and PostgreSQL. Each answer is read back
whole; each refusal writes nothing (no row of any table, the audit trail's neither); another club's
object is not found, exactly as a missing one (AC-2); each change is one audit row (AC-3)."""

from __future__ import annotations

import email
import re
import time
from datetime import UTC, datetime, timedelta
from email import policy

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domain.access.tables import Account, AuditRecord
from domain.poker.tables.tournaments import Tournament
from domain.series.tables import Series
from domain.store.db import unit_of_work
from tests.support.db import contents
from tests.support.world import access_world, poker

CREDENTIALS = ("account_tokens", "account_sessions")  # a call's token use is written, whatever it does
CSV = "small_blind,big_blind,ante,minutes,break\n100,200,0,20,no\n200,400,400,20,no\n,,,10,yes\n300,600,600,20,no\n"
LEVELS = [
    {"small_blind": 100, "big_blind": 200, "ante": 0, "minutes": 20, "break": False},
    {"small_blind": 200, "big_blind": 400, "ante": 400, "minutes": 20, "break": False},
    {"small_blind": 0, "big_blind": 0, "ante": 0, "minutes": 10, "break": True},
    {"small_blind": 300, "big_blind": 600, "ante": 600, "minutes": 20, "break": False},
]


@pytest.fixture
def world(web, committed):
    return access_world(committed)


def _call(http, world, who: str, method: str, path: str, body=None):
    return http.request(method, "/api/v1" + path, json=body, headers=world.headers(who))


def _rows(engine) -> dict:
    with Session(engine) as session:
        return {k: v for k, v in contents(session).items() if k not in CREDENTIALS}


def _trail(engine) -> list[tuple[str, str]]:
    with Session(engine) as session:
        return [
            (r.action, r.target) for r in session.scalars(select(AuditRecord).order_by(AuditRecord.id.desc()).limit(5))
        ]


def _codes(response) -> list[str]:
    return [p["code"] for p in response.json().get("problems", [])] or [response.json()["code"]]


def _refused(http, world, committed, who, method, path, body, status, codes):
    """The call is refused with `status` and exactly those problem codes, writing nothing."""
    before = _rows(committed)
    r = _call(http, world, who, method, path, body)
    assert r.status_code == status, r.text
    assert _codes(r) == codes, r.text
    assert _rows(committed) == before
    return r


def _same_as_missing(http, world, committed, method, path_b, path_missing, body, given_b, given_missing):
    """AC-2: the owner of club A naming club B's object gets the missing object's answer (the id aside)."""
    before = _rows(committed)
    b = _call(http, world, "owner", method, path_b, body)
    missing = _call(http, world, "owner", method, path_missing, body)
    assert b.status_code == missing.status_code == 404, (b.text, missing.text)
    assert b.json()["code"] == missing.json()["code"]
    assert b.json()["detail"].replace(str(given_b), "<id>") == missing.json()["detail"].replace(
        str(given_missing), "<id>"
    )
    assert _rows(committed) == before


# -- the profile --------------------------------------------------------------------------------------


def test_ac_3_the_owner_reads_and_edits_the_club_s_profile(http, committed, world):
    """Issue 39, DOC-4: name, the documents' e-mail, timezone and language; only what is given changes;
    every problem at once with its code, nothing written; the same again is 204; one audit row."""
    c = world.club_a
    read = _call(http, world, "owner", "GET", f"/clubs/{c}/profile")
    assert read.status_code == 200, read.text
    assert read.json() == {
        "id": c,
        "name": read.json()["name"],
        "contact_email": "floor@example.org",
        "timezone": "Europe/Moscow",
        "locale": "ru",
        "listing_status": "listed",
        "verification_status": "unverified",
    }
    _refused(
        http,
        world,
        committed,
        "owner",
        "POST",
        f"/clubs/{c}/profile",
        {"name": "  ", "contact_email": "not mail", "timezone": "Europe/Atlantis", "locale": "de"},
        409,
        ["name-missing", "email-invalid", "timezone-unknown", "bad-locale"],
    )
    changed = _call(
        http,
        world,
        "owner",
        "POST",
        f"/clubs/{c}/profile",
        {"name": " Клуб «Пик» ", "timezone": "Asia/Yekaterinburg", "locale": "en", "contact_email": "docs@pik.example"},
    )
    assert changed.status_code == 200, changed.text
    assert changed.json() | {"listing_status": None} == {
        "id": c,
        "name": "Клуб «Пик»",
        "contact_email": "docs@pik.example",
        "timezone": "Asia/Yekaterinburg",
        "locale": "en",
        "listing_status": None,
        "verification_status": "unverified",
    }
    assert _trail(committed)[0] == ("club.edit-profile", f"club {c}")
    before = _rows(committed)
    again = _call(http, world, "owner", "POST", f"/clubs/{c}/profile", {"name": "Клуб «Пик»", "locale": "en"})
    assert (again.status_code, again.content) == (204, b"")
    assert _rows(committed) == before
    only = _call(http, world, "owner", "POST", f"/clubs/{c}/profile", {"locale": "ru"})
    assert only.status_code == 200 and only.json()["locale"] == "ru" and only.json()["timezone"] == "Asia/Yekaterinburg"
    # the floor and another club's owner: not found, as a missing club
    for who in ("floor", "owner_b"):
        r = _refused(
            http, world, committed, who, "POST", f"/clubs/{c}/profile", {"locale": "en"}, 404, ["club-not-found"]
        )
        assert r.json()["detail"] == f"no club {c}"


# -- the staff ----------------------------------------------------------------------------------------


def _link(web, to: str, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in sorted((web.outbox / "accounts").glob("*.eml"), reverse=True):
            msg = email.message_from_bytes(path.read_bytes(), policy=policy.default)
            if msg["To"] == to:
                return re.search(r"/reset/([A-Za-z0-9_-]+)", msg.get_content()).group(1)
        time.sleep(0.05)
    raise AssertionError(f"no letter to {to}")


def test_ac_1_the_owner_invites_by_e_mail_changes_roles_and_removes_staff(http, committed, world, web):
    """Issue 39, AC-1, AC-3, AC-4: a new address gets an account in the club's language and the welcome
    letter whose link sets the password (the sign-up's path); an existing account is granted; the same
    invitation again is 204; roles change; the last owner stays; removed, the account is off the staff."""
    c, staff = world.club_a, f"/clubs/{world.club_a}/staff"
    made = _call(
        http, world, "owner", "POST", f"/clubs/{c}/invitations", {"email": "Nina@Pik.example", "role": "floor"}
    )
    assert made.status_code == 200, made.text
    nina = made.json()["account_id"]
    assert made.json() == {
        "account_id": nina,
        "email": "Nina@Pik.example",
        "role": "floor",
        "club_id": c,
        "letter": True,
    }
    secret = _link(web, "Nina@Pik.example")
    assert len(secret) >= 20
    with Session(committed) as session:
        account = session.get(Account, nina)
        assert (account.locale, account.password_hash) == ("ru", None)
        assert secret not in str(session.scalars(select(AuditRecord.data)).all())  # never the link (AC-3)
    assert _trail(committed)[0] == ("club.invite", "floor Nina@Pik.example")
    # the link sets the password, as a sign-up's does
    done = http.post(
        "/api/v1/password", json={"link": secret, "password": "a fine passphrase", "repeated": "a fine passphrase"}
    )
    assert done.status_code == 200, done.text

    existing = _call(
        http, world, "owner", "POST", f"/clubs/{c}/invitations", {"email": "spare@example.org", "role": "cashier"}
    )
    assert existing.status_code == 200, existing.text
    spare = world.account_ids["spare"]
    assert existing.json() == {
        "account_id": spare,
        "email": "spare@example.org",
        "role": "cashier",
        "club_id": c,
        "letter": True,
    }
    before = _rows(committed)
    again = _call(
        http, world, "owner", "POST", f"/clubs/{c}/invitations", {"email": "nina@pik.example", "role": "floor"}
    )
    assert (again.status_code, again.content) == (204, b"")  # held, the password set: nothing to do
    assert _rows(committed) == before
    _refused(
        http,
        world,
        committed,
        "owner",
        "POST",
        f"/clubs/{c}/invitations",
        {"email": "no mail", "role": "floor"},
        409,
        ["bad-email"],
    )

    listed = {m["email"]: m["roles"] for m in _call(http, world, "owner", "GET", staff).json()}
    assert listed["Nina@Pik.example"] == [f"floor@{c}"] and listed["spare@example.org"] == [f"cashier@{c}"]
    roles = _call(http, world, "owner", "POST", f"{staff}/{nina}/roles", {"roles": ["cashier", "floor"]})
    assert roles.status_code == 200, roles.text
    assert roles.json() == {
        "account_id": nina,
        "email": "Nina@Pik.example",
        "club_id": c,
        "roles": ["cashier", "floor"],
    }
    same = _call(http, world, "owner", "POST", f"{staff}/{nina}/roles", {"roles": ["floor", "cashier"]})
    assert same.status_code == 204
    owner = world.account_ids["owner"]
    _refused(
        http, world, committed, "owner", "POST", f"{staff}/{owner}/roles", {"roles": ["floor"]}, 409, ["last-owner"]
    )
    _refused(http, world, committed, "owner", "DELETE", f"{staff}/{owner}", None, 409, ["last-owner"])
    gone = _call(http, world, "owner", "DELETE", f"{staff}/{nina}")
    assert gone.status_code == 200, gone.text
    assert gone.json() == {"account_id": nina, "email": "Nina@Pik.example", "club_id": c, "roles": []}
    assert "Nina@Pik.example" not in {m["email"] for m in _call(http, world, "owner", "GET", staff).json()}
    # off the staff, or another club's staff, or no account: not found alike
    floor_b = world.account_ids["owner_b"]
    for account in (nina, floor_b, 900_000_001):
        r = _refused(
            http,
            world,
            committed,
            "owner",
            "POST",
            f"{staff}/{account}/roles",
            {"roles": ["floor"]},
            404,
            ["account-not-found"],
        )
        assert r.json()["detail"] == f"no account {account} on the club's staff"
    _refused(
        http,
        world,
        committed,
        "cashier",
        "POST",
        f"/clubs/{c}/invitations",
        {"email": "x@pik.example", "role": "floor"},
        404,
        ["club-not-found"],
    )


# -- blind structures ---------------------------------------------------------------------------------


def test_sp_3_5_the_owner_creates_imports_exports_edits_and_copies_structures(http, committed, world):
    """Issue 39, 3.5: a structure from levels; every bad level named by its number; the CLI's CSV
    imported and exported back the same; edited while no tournament past its draft uses it, refused
    after (`structure-in-use`: copy it); copied; another club's structure not found as a missing one."""
    c = world.club_a
    made = _call(
        http,
        world,
        "owner",
        "POST",
        f"/clubs/{c}/structures",
        {"name": "Турбо 10", "ante_type": "bb_ante", "levels": LEVELS},
    )
    assert made.status_code == 201, made.text
    sid = made.json()["id"]
    assert made.json() == {
        "id": sid,
        "club_id": c,
        "name": "Турбо 10",
        "ante_type": "bb_ante",
        "total_minutes": 70,
        "levels": [{"level": n} | lv for n, lv in enumerate(LEVELS, 1)],
        "csv": CSV.replace("\n,,,10,yes", "\n,,,10,yes"),
        "editable": True,
        "used_by": [],
    }
    assert _trail(committed)[0] == ("club.add-structure", "structure Турбо 10")
    bad = [
        dict(LEVELS[0]),
        {"small_blind": 300, "big_blind": 100, "minutes": 20},
        {"small_blind": 5, "big_blind": 10, "minutes": 10, "break": True},
    ]
    _refused(
        http, world, committed, "owner", "POST", f"/clubs/{c}/structures",
        {"name": "Плохая", "ante_type": "weird", "levels": bad}, 409,
        ["ante-type-unknown", "blinds-invalid", "break-with-blinds"],
    )  # fmt: skip
    _refused(
        http,
        world,
        committed,
        "owner",
        "POST",
        f"/clubs/{c}/structures",
        {"name": "Турбо 10", "levels": LEVELS},
        409,
        ["structure-exists"],
    )

    imported = _call(
        http,
        world,
        "owner",
        "POST",
        f"/clubs/{c}/structure-imports",
        {"name": "Из файла", "ante_type": "bb_ante", "content": CSV},
    )
    assert imported.status_code == 201, imported.text
    assert imported.json()["levels"] == made.json()["levels"] and imported.json()["csv"] == CSV  # export == import
    _refused(
        http, world, committed, "owner", "POST", f"/clubs/{c}/structure-imports",
        {"name": "Битый", "content": "small_blind,big_blind,ante,minutes,break\nx,200,0,20,no\n"}, 409, ["level-field-not-whole"],
    )  # fmt: skip

    edited = _call(
        http, world, "owner", "POST", f"/clubs/{c}/structures/{sid}",
        {"name": "Турбо 12", "ante_type": "classic", "levels": [*LEVELS, {"small_blind": 400, "big_blind": 800, "ante": 100, "minutes": 15}]},
    )  # fmt: skip
    assert edited.status_code == 200, edited.text
    assert (edited.json()["name"], edited.json()["ante_type"], edited.json()["total_minutes"]) == (
        "Турбо 12",
        "classic",
        85,
    )
    assert edited.json()["levels"][-1] == {
        "level": 5,
        "small_blind": 400,
        "big_blind": 800,
        "ante": 100,
        "minutes": 15,
        "break": False,
    }
    before = _rows(committed)
    same = _call(
        http,
        world,
        "owner",
        "POST",
        f"/clubs/{c}/structures/{sid}",
        {
            "name": "Турбо 12",
            "ante_type": "classic",
            "levels": [*LEVELS, {"small_blind": 400, "big_blind": 800, "ante": 100, "minutes": 15}],
        },
    )
    assert (same.status_code, same.content) == (204, b"")
    assert _rows(committed) == before

    listed = _call(http, world, "owner", "GET", f"/clubs/{c}/structures").json()
    names = {s["name"]: s for s in listed}
    assert names["Турбо 12"] == {
        "id": sid,
        "club_id": c,
        "name": "Турбо 12",
        "ante_type": "classic",
        "levels": 5,
        "total_minutes": 85,
        "editable": True,
    }
    used = [s for s in listed if not s["editable"]]  # the running tournament's structure
    assert len(used) == 1
    r = _refused(
        http,
        world,
        committed,
        "owner",
        "POST",
        f"/clubs/{c}/structures/{used[0]['id']}",
        {"name": "x", "levels": LEVELS},
        409,
        ["structure-in-use"],
    )
    assert f"использует турнир {world.tournament_a} " in r.json()["detail"]  # in the club's language
    shown = _call(http, world, "owner", "GET", f"/clubs/{c}/structures/{used[0]['id']}").json()
    assert shown["used_by"] == [{"id": world.tournament_a, "name": shown["used_by"][0]["name"], "status": "running"}]

    copy = _call(http, world, "owner", "POST", f"/clubs/{c}/structures/{used[0]['id']}/copies", {"name": "Копия"})
    assert copy.status_code == 201, copy.text
    assert (
        copy.json()["levels"] == shown["levels"]
        and copy.json()["editable"] is True
        and copy.json()["id"] != used[0]["id"]
    )

    with unit_of_work(committed) as session:
        theirs = poker.structure(session, club_id=world.club_b).id
    for method, tail, body in (
        ("GET", "", None),
        ("POST", "", {"name": "x", "levels": LEVELS}),
        ("POST", "/copies", {"name": "Чужая"}),
    ):
        _same_as_missing(
            http, world, committed, method, f"/clubs/{c}/structures/{theirs}{tail}",
            f"/clubs/{c}/structures/900000001{tail}", body, theirs, 900000001,
        )  # fmt: skip
    assert sid not in {
        s["id"] for s in _call(http, world, "owner_b", "GET", f"/clubs/{world.club_b}/structures").json()
    }


# -- tournaments --------------------------------------------------------------------------------------


def _start(days: int = 3) -> datetime:
    return (datetime.now(UTC) + timedelta(days=days)).replace(hour=16, minute=0, second=0, microsecond=0)


def _structure(http, world, name="Вечер") -> int:
    r = _call(http, world, "owner", "POST", f"/clubs/{world.club_a}/structures", {"name": name, "levels": LEVELS})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def test_sp_1_13_the_owner_creates_edits_prizes_opens_and_cancels_a_tournament(http, committed, world):
    """Issue 39, 3.4, 3.9, SP-1..SP-13: a draft from nothing with late registration, top-up limits, a
    mystery bounty, ITM, a seat cap and a void window; every problem of bad settings at once; an edit;
    prize lines checked without saving (SP-4, each problem with its line), then saved; a money line
    refused writing nothing; the mystery table; opened; edited while open; cancelled; a running
    tournament's settings frozen; another club's tournament not found as a missing one."""
    c, sid, start = world.club_a, _structure(http, world), _start()
    body = {
        "name": "Пятничный мистери",
        "scheduled_start": start.isoformat(),
        "structure_id": sid,
        "starting_stack": 20000,
        "currency": "RUB",
        "buy_in": 150000,
        "format": "rebuy",
        "bounty_type": "mystery",
        "mystery_draw": True,
        "seat_cap": 8,
        "late_reg_deadline": (start + timedelta(hours=1)).isoformat(),
        "rebuy_amount": 100000,
        "rebuy_until_level": 4,
        "rebuy_limit": 2,
        "itm_percent": 20,
        "mystery_phase": "itm",
        "void_window_minutes": 3,
    }
    made = _call(http, world, "owner", "POST", f"/clubs/{c}/tournaments", body)
    assert made.status_code == 201, made.text
    t = made.json()["id"]
    view = made.json()
    assert {k: view[k] for k in ("status", "structure_id", "seat_cap", "rebuy_limit", "rebuy_until_level", "itm_percent", "mystery_phase", "void_window_minutes", "prizes", "mystery_prizes", "registrations")} == {
        "status": "draft", "structure_id": sid, "seat_cap": 8, "rebuy_limit": 2, "rebuy_until_level": 4, "itm_percent": 20,
        "mystery_phase": "itm", "void_window_minutes": 3, "prizes": [], "mystery_prizes": [], "registrations": 0,
    }  # fmt: skip
    assert datetime.fromisoformat(view["late_reg_deadline"]) == start + timedelta(hours=1)
    assert datetime.fromisoformat(view["window_end"]) == start + timedelta(minutes=70)
    assert _trail(committed)[0] == ("club.create-tournament", "tournament Пятничный мистери")

    bad = body | {
        "seat_cap": 11,
        "currency": "XYZ",
        "late_reg_deadline": (start - timedelta(hours=1)).isoformat(),
        "pko_head": 50,
    }
    _refused(
        http, world, committed, "owner", "POST", f"/clubs/{c}/tournaments", bad, 409,
        ["pko-head-without-pko", "seat-cap-out-of-range", "currency-unknown", "late-registration-before-start"],
    )  # fmt: skip
    _refused(
        http,
        world,
        committed,
        "owner",
        "POST",
        f"/clubs/{c}/tournaments",
        {"name": "Без всего", "scheduled_start": start.isoformat()},
        409,
        ["setting-missing"],
    )

    edited = _call(
        http,
        world,
        "owner",
        "POST",
        f"/tournaments/{t}/settings",
        {"seat_cap": 9, "reentry_limit": 1, "late_reg_deadline": None},
    )
    assert edited.status_code == 200, edited.text
    assert (edited.json()["seat_cap"], edited.json()["reentry_limit"], edited.json()["late_reg_deadline"]) == (
        9,
        1,
        None,
    )
    assert (_call(http, world, "owner", "POST", f"/tournaments/{t}/settings", {"seat_cap": 9}).status_code) == 204

    before = _rows(committed)
    checked = _call(
        http, world, "owner", "POST", f"/clubs/{c}/prize-checks", {"lines": ["Кубок", "5 000 р", "", "Ужин на двоих"]}
    )
    assert checked.status_code == 200, checked.text
    assert checked.json()["ok"] is False
    assert [(p["line"], p["code"]) for p in checked.json()["problems"]] == [
        (2, "money-wording"),
        (3, "prize-line-empty"),
    ]
    assert checked.json()["problems"][0]["message"].startswith("prize line 2 называет деньги: 'р'")
    mystery_check = _call(
        http, world, "owner", "POST", f"/clubs/{c}/prize-checks", {"lines": ["Худи", "cash"], "kind": "mystery"}
    )
    assert [(p["line"], p["code"]) for p in mystery_check.json()["problems"]] == [(2, "money-wording")]
    ok = _call(http, world, "owner", "POST", f"/clubs/{c}/prize-checks", {"lines": ["Кубок клуба", "Рублёвка: ужин"]})
    assert ok.json() == {"ok": True, "problems": []}
    assert _rows(committed) == before  # a check writes nothing

    _refused(
        http,
        world,
        committed,
        "owner",
        "POST",
        f"/tournaments/{t}/prizes",
        {"lines": ["Кубок", "5 000 р"]},
        409,
        ["money-wording"],
    )
    prizes = _call(
        http, world, "owner", "POST", f"/tournaments/{t}/prizes", {"lines": [" Кубок и бесплатный вход ", "Медаль"]}
    )
    assert prizes.status_code == 200, prizes.text
    assert prizes.json()["prizes"] == ["Кубок и бесплатный вход", "Медаль"]
    assert (
        _call(
            http, world, "owner", "POST", f"/tournaments/{t}/prizes", {"lines": ["Кубок и бесплатный вход", "Медаль"]}
        ).status_code
        == 204
    )
    table = _call(
        http, world, "owner", "POST", f"/tournaments/{t}/mystery-table", {"lines": ["Худи", "Кепка", "Ужин на двоих"]}
    )
    assert table.status_code == 200, table.text
    assert table.json()["mystery_prizes"] == ["Худи", "Кепка", "Ужин на двоих"]

    opened = _call(http, world, "owner", "POST", f"/tournaments/{t}/open")
    assert opened.status_code == 200 and opened.json() == {"id": t, "status": "registration_open"}
    _refused(http, world, committed, "owner", "POST", f"/tournaments/{t}/open", None, 409, ["cannot-open"])
    assert (
        _call(http, world, "owner", "POST", f"/tournaments/{t}/settings", {"itm_percent": 25}).json()["itm_percent"]
        == 25
    )
    _refused(
        http,
        world,
        committed,
        "owner",
        "POST",
        f"/tournaments/{world.tournament_a}/settings",
        {"seat_cap": 6},
        409,
        ["settings-frozen"],
    )
    # a running tournament's structure is not another club's to pick: a structure of club B is refused
    with unit_of_work(committed) as session:
        theirs = poker.structure(session, club_id=world.club_b).id
    _refused(
        http,
        world,
        committed,
        "owner",
        "POST",
        f"/tournaments/{t}/settings",
        {"structure_id": theirs},
        409,
        ["structure-other-club"],
    )
    cancelled = _call(http, world, "owner", "POST", f"/tournaments/{t}/cancel")
    assert cancelled.json() == {"id": t, "status": "cancelled"}
    _refused(http, world, committed, "owner", "POST", f"/tournaments/{t}/cancel", None, 409, ["cannot-cancel"])

    read = _call(http, world, "owner", "GET", f"/tournaments/{t}/settings")
    assert read.status_code == 200 and read.json()["status"] == "cancelled"
    for method, tail, body in (
        ("GET", "settings", None),
        ("POST", "settings", {"seat_cap": 6}),
        ("POST", "open", None),
        ("POST", "prizes", {"lines": []}),
    ):
        _same_as_missing(
            http, world, committed, method, f"/tournaments/{world.tournament_b}/{tail}", f"/tournaments/900000001/{tail}",
            body, world.tournament_b, 900000001,
        )  # fmt: skip
    _refused(
        http,
        world,
        committed,
        "floor",
        "POST",
        f"/tournaments/{world.tournament_a}/open",
        None,
        404,
        ["tournament-not-found"],
    )


def test_sp_9_a_tournament_from_a_series_template_or_as_a_copy_of_another(http, committed, world):
    """Issue 39: from a poker series' template (its structure and settings, the deadlines its minutes
    after the start) or as a copy of another tournament (settings, prizes, mystery table, void window;
    the deadlines moved with the start); another club's series or tournament not found."""
    c, sid, start = world.club_a, _structure(http, world), _start()
    with unit_of_work(committed) as session:
        now = datetime.now(UTC)
        template = {
            "structure_id": sid,
            "starting_stack": 25000,
            "currency": "RUB",
            "buy_in": 200000,
            "late_reg_minutes": 90,
            "seat_cap": 6,
            "bounty_type": "pko",
            "pko_head": 100,
        }
        series = Series(
            club_id=c,
            name="Пятница",
            kind="poker",
            cron="0 19 * * fri",
            timezone="Europe/Moscow",
            horizon_days=14,
            opens_before_minutes=1440,
            template=template,
            status="active",
            created_at=now,
            updated_at=now,
        )
        other = Series(
            club_id=world.club_b,
            name="Чужая",
            kind="poker",
            cron="0 19 * * fri",
            timezone="Europe/Moscow",
            horizon_days=14,
            opens_before_minutes=1440,
            template=template,
            status="active",
            created_at=now,
            updated_at=now,
        )
        session.add_all([series, other])
        session.flush()
        series_id, other_id = series.id, other.id
    listed = _call(http, world, "owner", "GET", f"/clubs/{c}/templates")
    assert listed.json() == [
        {"series_id": series_id, "name": "Пятница", "status": "active", "structure_id": sid, "settings": template}
    ]
    made = _call(
        http,
        world,
        "owner",
        "POST",
        f"/clubs/{c}/tournaments",
        {"name": "Пятница 1", "scheduled_start": start.isoformat(), "series_id": series_id, "seat_cap": 7},
    )
    assert made.status_code == 201, made.text
    v = made.json()
    assert (v["structure_id"], v["starting_stack"], v["bounty_type"], v["pko_head"], v["seat_cap"]) == (
        sid,
        25000,
        "pko",
        100,
        7,
    )
    assert datetime.fromisoformat(v["late_reg_deadline"]) == start + timedelta(minutes=90)

    t = v["id"]
    assert (
        _call(http, world, "owner", "POST", f"/tournaments/{t}/prizes", {"lines": ["Кубок", "Медаль"]}).status_code
        == 200
    )
    assert (
        _call(http, world, "owner", "POST", f"/tournaments/{t}/settings", {"void_window_minutes": 7}).json()[
            "void_window_minutes"
        ]
        == 7
    )
    later = start + timedelta(days=7)
    copy = _call(
        http,
        world,
        "owner",
        "POST",
        f"/clubs/{c}/tournaments",
        {"name": "Пятница 2", "scheduled_start": later.isoformat(), "copy_of": t},
    )
    assert copy.status_code == 201, copy.text
    cv = copy.json()
    assert (cv["seat_cap"], cv["pko_head"], cv["prizes"], cv["void_window_minutes"], cv["status"]) == (
        7,
        100,
        ["Кубок", "Медаль"],
        7,
        "draft",
    )
    assert datetime.fromisoformat(cv["late_reg_deadline"]) == later + timedelta(minutes=90)

    for key, theirs, code in (
        ("series_id", other_id, "series-not-found"),
        ("copy_of", world.tournament_b, "tournament-not-found"),
    ):
        b = _refused(
            http,
            world,
            committed,
            "owner",
            "POST",
            f"/clubs/{c}/tournaments",
            {"name": "x", "scheduled_start": start.isoformat(), key: theirs},
            404,
            [code],
        )
        missing = _call(
            http,
            world,
            "owner",
            "POST",
            f"/clubs/{c}/tournaments",
            {"name": "x", "scheduled_start": start.isoformat(), key: 900000001},
        )
        assert b.json()["code"] == missing.json()["code"]
        assert b.json()["detail"].replace(str(theirs), "<id>") == missing.json()["detail"].replace("900000001", "<id>")
    with Session(committed) as session:
        assert (
            session.scalar(select(func.count()).where(Tournament.club_id == c, Tournament.name.like("Пятница%"))) == 2
        )
