"""The owner's console (issue 39, docs/console.md): what a club's owner sets up without the operator.
The club's profile (name, timezone, language, the e-mail its documents go to), its staff (invite by
e-mail, change roles, remove), its blind structures (list, create, edit, copy, import and export as the
CLI's CSV) and its tournaments (create from scratch, from a series' template or as a copy of another,
edit the settings while the rules allow, prize lines and the mystery table with the SP-4 check, open
registration, cancel).

Each operation is one action of the policy (`club.*`, the owner's alone), runs `Op.run` (the policy,
the use case, the audit row, AC-3) and calls the use cases the CLI calls. A write that would change
nothing writes nothing and answers 204. The console's pages (flows/web/club.py) take the same use cases:
each `*_use` below returns the `do(session, actor, now)` both doors run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any, Literal
from zoneinfo import ZoneInfo

from fastapi import BackgroundTasks
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from domain.access.rules import credentials
from domain.access.rules.policy import CLUB_ROLES, Role
from domain.access.services import accounts
from domain.access.services.gate import UNCHANGED
from domain.access.services.signup import Letter
from domain.access.tables import Account, Grant
from domain.clubs.rules.catalog import profile_problems
from domain.clubs.services import clubs as club_service
from domain.documents.rules.model import locale_problem
from domain.documents.services import locales
from domain.errors import DomainError, NotFound, Problem, raise_problems
from domain.poker.rules import mystery as mystery_rules
from domain.poker.rules.prizes import MAX_LINES, prize_line_problem
from domain.poker.rules.settings import EARLIEST_TIME, LATEST_TIME, OPTIONAL, SETTING_FIELDS, TournamentSettings
from domain.poker.rules.structures import LevelSpec, levels_csv, parse_levels
from domain.poker.services import knockouts, listings, mystery, results, structures
from domain.poker.services import tournaments as tournament_service
from domain.poker.tables.tournaments import Tournament
from domain.series.rules.templates import poker_settings
from domain.series.tables import Series
from flows.web import refusals
from flows.web.api.core import ID_MAX, PAGED, Cursor, Id, Limit, Op, Operations, Strict, club_of, tournament_of

ops = Operations("owner")
router = ops.router

ClubRole = Literal[tuple(r.value for r in CLUB_ROLES)]  # type: ignore[valid-type]  (owner, floor, cashier)
Name = Field(min_length=1, max_length=200)
Do = Callable[[Session, Any, datetime], Any]
TIME_FIELDS = ("scheduled_start", "late_reg_deadline", "reentry_deadline", "addon_deadline", "rebuy_until")


# -- the club's profile ------------------------------------------------------------------------------


class ClubProfile(BaseModel):
    id: int
    name: str
    contact_email: str = Field(description="where the results sheets and certificates go")
    timezone: str = Field(description="IANA name: the club's times (documents, pages, deadlines typed)")
    locale: Literal["ru", "en"] = Field(description="the language of the club's documents and pages (DOC-4)")
    listing_status: str
    verification_status: str


class ProfileBody(Strict):
    """Only what is given changes; every problem at once (409: `name-missing`, `name-too-long`,
    `email-invalid`, `timezone-unknown`, `bad-locale`)."""

    name: str | None = Field(None, max_length=1000, examples=["Клуб «Пик»"])
    contact_email: str | None = Field(None, max_length=1000, examples=["docs@pik.example"])
    timezone: str | None = Field(None, max_length=100, examples=["Europe/Moscow"])
    locale: str | None = Field(None, max_length=10, examples=["ru"])


def profile(s: Session, club_id: int) -> dict:
    club = club_service.get_club(s, club_id)
    return {
        "id": club.id,
        "name": club.name,
        "contact_email": club.contact_email,
        "timezone": club.timezone,
        "locale": locales.club_locale(s, club_id),
        "listing_status": club.listing_status,
        "verification_status": club.verification_status,
    }


def edit_profile_use(club_id: int, given: dict[str, str]) -> Do:
    """The profile with the fields `given` changed, every problem at once (the club's own and the
    language's), else saved; UNCHANGED when it is so already."""

    def do(s, actor, now):
        before = profile(s, club_id)
        new = before | {k: v for k, v in given.items() if v is not None}
        problems = profile_problems(new["name"], new["contact_email"], new["timezone"])
        if locale_problem(new["locale"]):
            problems.append(Problem("bad-locale", locale_problem(new["locale"])))
        raise_problems(problems)
        changed = club_service.edit_profile(
            s, club_id, now, name=new["name"], contact_email=new["contact_email"], timezone=new["timezone"]
        )
        if new["locale"] != before["locale"]:
            locales.set_locale(s, "club", club_id, new["locale"], now)
            changed = True
        return profile(s, club_id) if changed else UNCHANGED

    return do


@ops.get("/clubs/{club_id}/profile", "club.profile", response=ClubProfile)
def club_profile(op: Op, club_id: Id):
    """The club's profile: name, the documents' e-mail, timezone and language, its listing."""
    return op.run(club_of(club_id), lambda s, actor, now: profile(s, club_id), describe=f"club {club_id}")


@ops.post("/clubs/{club_id}/profile", "club.edit-profile", response=ClubProfile, unchanged=True)
def club_edit_profile(op: Op, club_id: Id, body: ProfileBody):
    """Change the club's name, documents' e-mail, timezone or language.
    Only the fields given change; all as they are already: 204, nothing written."""
    given = body.model_dump(exclude_none=True)
    return op.run(club_of(club_id), edit_profile_use(club_id, given), describe=f"club {club_id}", data=given)


# -- the staff ---------------------------------------------------------------------------------------


class InviteBody(Strict):
    email: str = Field(min_length=3, max_length=254, examples=["floor@pik.example"])
    role: ClubRole


class Invited(BaseModel):
    account_id: int
    email: str
    role: ClubRole
    club_id: int
    letter: bool = Field(
        description="a letter went with a link that sets the password: a new account, or one whose "
        "password is not set yet (invited again: a fresh link)"
    )


class RolesBody(Strict):
    roles: list[ClubRole] = Field(max_length=3, description="the account's roles in the club; none: off the staff")


class StaffRoles(BaseModel):
    account_id: int
    email: str
    club_id: int
    roles: list[ClubRole]


def invite_use(club_id: int, email: str, role: str, letters: list[Letter]) -> Do:
    """A role in the club for the person at `email`: an existing account is granted it; a new address
    gets an account (in the club's language) and a welcome letter whose link sets the password (the
    sign-up's path); an account whose password is not set yet gets a fresh link. The letter is put in
    `letters`, to send after the commit (never in the answer, the audit or the idempotency record)."""

    def do(s, actor, now):
        raise_problems(credentials.email_problems(email))
        key = credentials.email_key(email)
        s.execute(text("SELECT pg_advisory_xact_lock(hashtext('account:' || :key))"), {"key": key})
        account = s.scalar(select(Account).where(Account.email_key == key).with_for_update())
        new = account is None
        if new:
            account = accounts.add(s, email, now, locale=locales.club_locale(s, club_id))
        granted = accounts.grant(s, account, role, club_id, now)
        letter = new or (account.password_hash is None and account.blocked_at is None)
        if not granted and not letter:
            return UNCHANGED
        if letter:
            letters.append(
                Letter(account.email, account.locale, "welcome", accounts.issue_link(s, account, "reset", now))
            )
        return {"account_id": account.id, "email": account.email, "role": role, "club_id": club_id, "letter": letter}

    return do


def _club_roles(s: Session, account_id: int, club_id: int) -> set[str]:
    return {r.value for r, c in accounts.roles_of(s, account_id) if c == club_id}


def set_roles_use(club_id: int, account_id: int, roles: list[str]) -> Do:
    """The account's roles in the club become `roles` (none: off the staff). An account that is not on
    the club's staff is not found (new staff are invited by e-mail); the club keeps an owner
    (`last-owner`). The club's row is locked, so two owners taking each other's role one after the other
    cannot leave it with none."""

    def do(s, actor, now):
        club_service.get_club(s, club_id, lock=True)
        account = s.get(Account, account_id)
        held = _club_roles(s, account_id, club_id) if account is not None else set()
        if not held:
            raise NotFound("account-not-found", f"no account {account_id} on the club's staff")
        want = set(roles)
        if want == held:
            return UNCHANGED
        if Role.OWNER in held and Role.OWNER not in want:
            others = s.scalar(
                select(func.count()).where(
                    Grant.club_id == club_id, Grant.role == Role.OWNER.value, Grant.account_id != account_id
                )
            )
            if not others:
                raise DomainError("last-owner", "The club keeps at least one owner: make someone else its owner first.")
        for role in sorted(want - held):
            accounts.grant(s, account, role, club_id, now)
        for role in sorted(held - want):
            accounts.revoke(s, account, role, club_id)
        return {"account_id": account.id, "email": account.email, "club_id": club_id, "roles": sorted(want)}

    return do


@ops.post("/clubs/{club_id}/invitations", "club.invite", response=Invited, unchanged=True)
def club_invite(op: Op, club_id: Id, body: InviteBody, background: BackgroundTasks):
    """Invite a person to the club's staff by e-mail, with a role.
    An existing account is granted the role; a new address gets an account and a letter whose link
    (one hour, once) sets the password. The role held already and the password set: 204, nothing
    written. A bad address: 409 `bad-email`."""
    letters: list[Letter] = []
    answer = op.run(
        club_of(club_id),
        invite_use(club_id, body.email, body.role, letters),
        describe=f"{body.role} {body.email.strip()}",
        data=body.model_dump(),
    )
    door = op.request.app.state.sign_up
    for letter in letters:
        if door is not None:
            background.add_task(door.deliver, letter)
    return answer


@ops.post("/clubs/{club_id}/staff/{account_id}/roles", "club.set-roles", response=StaffRoles, unchanged=True)
def club_set_roles(op: Op, club_id: Id, account_id: Id, body: RolesBody):
    """Set a staff member's roles in the club (owner, floor, cashier; none: off the staff).
    An account not on the club's staff: 404. The last owner's owner role: 409 `last-owner`. The roles
    as they are: 204, nothing written."""
    return op.run(
        club_of(club_id),
        set_roles_use(club_id, account_id, body.roles),
        describe=f"roles of account {account_id}",
        data=body.model_dump(),
    )


@ops.delete("/clubs/{club_id}/staff/{account_id}", "club.remove-staff", response=StaffRoles)
def club_remove_staff(op: Op, club_id: Id, account_id: Id):
    """Take every role in the club away from an account: it is off the staff.
    Not on the staff: 404. The club's last owner: 409 `last-owner`."""
    return op.run(club_of(club_id), set_roles_use(club_id, account_id, []), describe=f"account {account_id}")


# -- blind structures --------------------------------------------------------------------------------


class LevelBody(Strict):
    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0
    minutes: int = Field(description="whole minutes")
    is_break: bool = Field(False, alias="break", description="a break: no blinds, no ante")

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class LevelRow(BaseModel):
    level: int
    small_blind: int
    big_blind: int
    ante: int
    minutes: int
    is_break: bool = Field(alias="break")

    model_config = ConfigDict(populate_by_name=True)


class StructureBody(Strict):
    """Every bad level is named by its number (409: `blinds-invalid`, `break-with-blinds`,
    `level-duration-not-positive`, …); `ante_type` is none, classic or bb_ante (`ante-type-unknown`)."""

    name: str = Name
    ante_type: str = Field("none", max_length=20, examples=["bb_ante"])
    levels: list[LevelBody] = Field(max_length=500)


IMPORT_CHARS = 40_000  # a file of 500 levels; escaped (12 bytes a character at most) its body is under IMPORT_BODY
IMPORT_BODY = 512 * 1024  # so that any file a character too long is a 422 (maxLength), not the edge's 413


class ImportBody(Strict):
    name: str = Name
    ante_type: str = Field("none", max_length=20)
    content: str = Field(
        max_length=IMPORT_CHARS,
        description="the file: CSV `small_blind,big_blind,ante,minutes,break` (a header row), or JSON",
        examples=["small_blind,big_blind,ante,minutes,break\n100,200,0,20,no\n,,,10,yes\n200,400,400,20,no\n"],
    )
    kind: Literal["csv", "json"] = "csv"


class CopyBody(Strict):
    name: str = Name


class StructureRow(BaseModel):
    id: int
    club_id: int
    name: str
    ante_type: str
    levels: int
    total_minutes: int
    editable: bool = Field(description="no tournament past its draft uses it (3.5): its levels may change")


class StructureUser(BaseModel):
    id: int
    name: str
    status: str


class StructureView(BaseModel):
    id: int
    club_id: int
    name: str
    ante_type: str
    total_minutes: int
    levels: list[LevelRow]
    csv: str = Field(description="the levels as the CSV `tourney poker structure import` reads")
    editable: bool
    used_by: list[StructureUser]


def _users(s: Session, structure_ids: list[int]) -> dict[int, list[dict]]:
    found: dict[int, list[dict]] = {}
    for sid, tid, name, status in s.execute(
        select(Tournament.structure_id, Tournament.id, Tournament.name, Tournament.status)
        .where(Tournament.structure_id.in_(structure_ids))
        .order_by(Tournament.scheduled_start, Tournament.id)
    ):
        found.setdefault(sid, []).append({"id": tid, "name": name, "status": status})
    return found


def structure_list(s: Session, club_id: int) -> list[dict]:
    rows = listings.structures(s, club_id)
    users = _users(s, [r["id"] for r in rows])
    return [r | {"editable": all(u["status"] == "draft" for u in users.get(r["id"], []))} for r in rows]


def structure_full(s: Session, club_id: int, structure_id: int) -> dict:
    structures.club_structure(s, club_id, structure_id)
    view = structures.structure_view(s, structure_id)
    used = _users(s, [structure_id]).get(structure_id, [])
    return view | {
        "csv": levels_csv(structures.structure_levels(s, structure_id)),
        "editable": all(u["status"] == "draft" for u in used),
        "used_by": used,
    }


def level_specs(levels: list[LevelBody]) -> list[LevelSpec]:
    return [LevelSpec(lv.small_blind, lv.big_blind, lv.ante, lv.minutes * 60, lv.is_break) for lv in levels]


def add_structure_use(club_id: int, name: str, ante_type: str, levels: list[LevelSpec]) -> Do:
    def do(s, actor, now):
        made = structures.import_structure(s, club_id, name, ante_type, levels, now)
        return structure_full(s, club_id, made.id)

    return do


def import_structure_use(club_id: int, name: str, ante_type: str, content: str, kind: str) -> Do:
    """The CLI's import (`tourney poker structure import`): the file's levels, every problem at once."""

    def do(s, actor, now):
        levels, problems = parse_levels(content, kind)
        raise_problems(problems)
        return add_structure_use(club_id, name, ante_type, levels)(s, actor, now)

    return do


def edit_structure_use(club_id: int, structure_id: int, name: str, ante_type: str, levels: list[LevelSpec]) -> Do:
    def do(s, actor, now):
        if not structures.edit_structure(s, club_id, structure_id, name, ante_type, levels, now):
            return UNCHANGED
        return structure_full(s, club_id, structure_id)

    return do


def copy_structure_use(club_id: int, structure_id: int, name: str) -> Do:
    def do(s, actor, now):
        made = structures.copy_structure(s, club_id, structure_id, name, now)
        return structure_full(s, club_id, made.id)

    return do


@ops.get(
    "/clubs/{club_id}/structures",
    "club.structures",
    response=list[StructureRow],
    responses={200: {"description": "a page of the club's structures", "headers": PAGED}},
)
def club_structures(op: Op, club_id: Id, limit: Limit = 50, cursor: Cursor = None):
    """The club's blind structures by name, with their levels counted and whether they may change, a
    page at a time."""
    return op.run(
        club_of(club_id),
        lambda s, actor, now: op.page(
            structure_list(s, club_id), lambda r: (r["name"].casefold(), r["id"]), limit, cursor
        ),
        describe=f"club {club_id}",
    )


@ops.get("/clubs/{club_id}/structures/{structure_id}", "club.structure", response=StructureView)
def club_structure(op: Op, club_id: Id, structure_id: Id):
    """One structure: its levels, its CSV (the export) and the tournaments that use it.
    Another club's structure: 404 as a missing one."""
    return op.run(
        club_of(club_id), lambda s, actor, now: structure_full(s, club_id, structure_id), describe=f"club {club_id}"
    )


@ops.post("/clubs/{club_id}/structures", "club.add-structure", response=StructureView, status=201)
def club_add_structure(op: Op, club_id: Id, body: StructureBody):
    """Create a blind structure from its levels (3.5).
    A name the club uses already: 409 `structure-exists`."""
    return op.run(
        club_of(club_id),
        add_structure_use(club_id, body.name, body.ante_type, level_specs(body.levels)),
        describe=f"structure {body.name.strip()}",
        data=body.model_dump(by_alias=True),
    )


@ops.post(
    "/clubs/{club_id}/structure-imports",
    "club.import-structure",
    response=StructureView,
    status=201,
    max_body=IMPORT_BODY,
)
def club_import_structure(op: Op, club_id: Id, body: ImportBody):
    """Import a blind structure from a CSV or JSON file, as the CLI does.
    Every bad row is named by its level (409)."""
    return op.run(
        club_of(club_id),
        import_structure_use(club_id, body.name, body.ante_type, body.content, body.kind),
        describe=f"structure {body.name.strip()}",
        data=body.model_dump(),
    )


@ops.post("/clubs/{club_id}/structures/{structure_id}", "club.edit-structure", response=StructureView, unchanged=True)
def club_edit_structure(op: Op, club_id: Id, structure_id: Id, body: StructureBody):
    """Replace a structure's name, ante type and levels.
    Refused once a tournament past its draft uses it (409 `structure-in-use`: copy it, edit the copy).
    As it is already: 204, nothing written."""
    return op.run(
        club_of(club_id),
        edit_structure_use(club_id, structure_id, body.name, body.ante_type, level_specs(body.levels)),
        describe=f"structure {structure_id}",
        data=body.model_dump(by_alias=True),
    )


@ops.post(
    "/clubs/{club_id}/structures/{structure_id}/copies", "club.copy-structure", response=StructureView, status=201
)
def club_copy_structure(op: Op, club_id: Id, structure_id: Id, body: CopyBody):
    """Copy a structure under a new name (its levels and ante type); the copy may be edited."""
    return op.run(
        club_of(club_id),
        copy_structure_use(club_id, structure_id, body.name),
        describe=f"structure {structure_id} as {body.name.strip()}",
        data=body.model_dump(),
    )


# -- tournaments -------------------------------------------------------------------------------------

Format = Literal["freezeout", "rebuy", "reentry", "addon", "bounty"]
Bounty = Literal["none", "classic", "pko", "mystery"]
INT32 = 2**31 - 1


class SettingsBody(Strict):
    """Settings of a tournament (Sport Poker 3.1-3.9, SP-1..SP-13); amounts in minor units of
    `currency`, times ISO 8601 with an offset. Only the fields given are set; `null` unsets an optional
    one. The settings are validated whole, every problem at once (409 with each code)."""

    name: str | None = Field(None, max_length=1000)
    scheduled_start: datetime | None = None
    starting_stack: int | None = None
    currency: str | None = Field(None, max_length=10, examples=["RUB"])
    buy_in: int | None = Field(None, description="minor units (0: a freeroll)")
    format: Format | None = None
    bounty_type: Bounty | None = None
    mystery_draw: bool | None = None
    seat_cap: int | None = Field(None, ge=-INT32, le=INT32)
    late_reg_deadline: datetime | None = None
    reentry_deadline: datetime | None = None
    addon_deadline: datetime | None = None
    addon_break: int | None = Field(None, ge=-INT32, le=INT32)
    addon_once: bool | None = None
    addon_chips: int | None = None
    rebuy_amount: int | None = None
    reentry_amount: int | None = None
    addon_amount: int | None = None
    no_show_policy: Literal["drop", "absent_mode"] | None = None
    itm_percent: int | None = Field(None, ge=-INT32, le=INT32)
    itm_min: int | None = Field(None, ge=-INT32, le=INT32)
    pko_head: int | None = Field(None, ge=-INT32, le=INT32)
    shared_knockouts: bool | None = None
    rebuy_until: datetime | None = None
    rebuy_until_level: int | None = Field(None, ge=-INT32, le=INT32)
    rebuy_limit: int | None = Field(None, ge=-INT32, le=INT32)
    reentry_limit: int | None = Field(None, ge=-INT32, le=INT32)
    mystery_phase: str | None = Field(None, max_length=40, examples=["itm"])
    mystery_draw_per: Literal["per_killer_entry", "per_knockout"] | None = None


REQUIRED = ("name", "scheduled_start", "starting_stack", "currency", "buy_in")  # a tournament made from nothing


class CreateBody(SettingsBody):
    """A new draft tournament. From nothing (`structure_id` and the settings `name`, `scheduled_start`,
    `starting_stack`, `currency`, `buy_in` at least), from a poker series' template (`series_id`: its
    structure and settings, the deadlines as its minutes after the start) or as a copy of another of the
    club's tournaments (`copy_of`: its structure, settings, prizes, mystery table and void window, the
    deadlines moved with the start); the settings given override either."""

    name: str = Field(min_length=1, max_length=1000, examples=["Пятничный турбо"])
    scheduled_start: datetime
    structure_id: int | None = Field(None, ge=1, le=ID_MAX)
    series_id: int | None = Field(None, ge=1, le=ID_MAX, description="a poker series of the club: its template")
    copy_of: int | None = Field(None, ge=1, le=ID_MAX, description="a tournament of the club to copy")
    void_window_minutes: int | None = Field(None, ge=-(10**6), le=10**6, description="SP-5; default 5")


class EditBody(SettingsBody):
    """The settings to change (3.9: in draft or registration open only, `settings-frozen` after)."""

    structure_id: int | None = Field(None, ge=1, le=ID_MAX, description="another structure of the club")
    void_window_minutes: int | None = Field(None, ge=-(10**6), le=10**6, description="SP-5")


class LinesBody(Strict):
    lines: list[str] = Field(max_length=1000, description="line n is the prize of place n; none: no prizes")


class CheckBody(Strict):
    lines: list[str] = Field(max_length=1000)
    kind: Literal["prizes", "mystery"] = Field("prizes", description="prize lines (3.4) or mystery prizes (SP-11)")


class LineProblem(BaseModel):
    line: int | None = Field(description="the line (1-based) it is about; none: the list as a whole")
    code: str
    message: str


class LinesChecked(BaseModel):
    ok: bool
    problems: list[LineProblem]


class TournamentSettingsView(BaseModel):
    """A tournament's every setting, its SP-2 window's end, its counts, its void window, prizes and
    mystery prizes."""

    id: int
    club_id: int
    status: str
    structure_id: int
    name: str
    scheduled_start: datetime
    starting_stack: int
    currency: str
    buy_in: int
    format: str
    bounty_type: str
    mystery_draw: bool
    seat_cap: int
    late_reg_deadline: datetime | None
    reentry_deadline: datetime | None
    addon_deadline: datetime | None
    addon_break: int | None
    addon_once: bool
    addon_chips: int | None
    rebuy_amount: int | None
    reentry_amount: int | None
    addon_amount: int | None
    no_show_policy: str
    itm_percent: int
    itm_min: int
    pko_head: int | None
    shared_knockouts: bool
    rebuy_until: datetime | None
    rebuy_until_level: int | None
    rebuy_limit: int | None
    reentry_limit: int | None
    mystery_phase: str
    mystery_draw_per: str
    window_end: datetime
    registrations: int
    entries: int
    void_window_minutes: int
    prizes: list[str]
    mystery_prizes: list[str]


class Template(BaseModel):
    series_id: int
    name: str
    status: str
    structure_id: int | None
    settings: dict[str, Any] = Field(description="the series' template: settings, deadlines as minutes after the start")


class StatusView(BaseModel):
    id: int
    status: str


def settings_view(s: Session, tournament_id: int) -> dict:
    t = tournament_service.get_tournament(s, tournament_id)
    return tournament_service.tournament_view(s, t) | {
        "void_window_minutes": int(knockouts.void_window(s, tournament_id).total_seconds()) // 60,
        "prizes": list(results.prizes(s, tournament_id)),
        "mystery_prizes": list(mystery.declared_prizes(s, tournament_id)),
    }


def _time_problems(values: dict[str, Any]) -> list[Problem]:
    """Times within the calendar the settings' arithmetic stays in (as `setting_from_text` reads them)."""
    return [
        Problem(
            "time-out-of-range",
            f"{field.replace('_', ' ')} {value.isoformat()} is outside {EARLIEST_TIME.year}–{LATEST_TIME.year - 1}",
        )
        for field in TIME_FIELDS
        if isinstance(value := values.get(field), datetime)
        and value.tzinfo is not None
        and not EARLIEST_TIME <= value < LATEST_TIME
    ]


def templates(s: Session, club_id: int) -> list[dict]:
    rows = s.scalars(select(Series).where(Series.club_id == club_id, Series.kind == "poker").order_by(Series.name))
    return [
        {
            "series_id": r.id,
            "name": r.name,
            "status": r.status,
            "structure_id": r.template.get("structure_id"),
            "settings": r.template,
        }
        for r in rows
    ]


def _from_template(s: Session, club_id: int, series_id: int, name: str, start: datetime):
    series = s.get(Series, series_id)
    if series is None or series.club_id != club_id or series.kind != "poker":
        raise NotFound("series-not-found", f"no poker series {series_id}")
    try:
        return series.template.get("structure_id"), poker_settings(series.template, name, start)
    except (TypeError, OverflowError):
        raise DomainError("series-template-invalid", f"the template of series {series_id} no longer reads") from None


def create_tournament_use(
    club_id: int,
    settings: dict[str, Any],
    *,
    structure_id: int | None = None,
    series_id: int | None = None,
    copy_of: int | None = None,
    void_window_minutes: int | None = None,
) -> Do:
    """A draft tournament of the club: from a template, a copy or nothing, with `settings` (every field
    given) over it; the copy's prizes, mystery table and void window come with it."""

    def do(s, actor, now):
        raise_problems(_time_problems(settings))
        name, start = settings["name"], settings["scheduled_start"]
        base: TournamentSettings | None = None
        structure = None
        if copy_of is not None:
            structure, base = tournament_service.copied_settings(s, club_id, copy_of, name=name, start=start)
        elif series_id is not None:
            structure, base = _from_template(s, club_id, series_id, name, start)
        if base is None:
            missing = [f for f in REQUIRED if settings.get(f) is None]
            if missing:
                raise DomainError(
                    "setting-missing", f"a tournament made from nothing needs {', '.join(missing)} (rule 3.1)"
                )
            base = TournamentSettings(**{k: v for k, v in settings.items() if v is not None or k in OPTIONAL})
        else:
            base = replace(base, **settings)
        structure = structure_id or structure
        if not isinstance(structure, int) or isinstance(structure, bool):
            raise DomainError("structure-missing", "name the blind structure (structure_id) of the tournament")
        t = tournament_service.create_tournament(s, club_id, structure, base, now)
        if copy_of is not None:
            results.set_prizes(s, t.id, results.prizes(s, copy_of))
            declared = mystery.declared_prizes(s, copy_of)
            if declared and t.bounty_type == "mystery":
                mystery.set_mystery_prizes(s, t.id, declared)
            window = int(knockouts.void_window(s, copy_of).total_seconds()) // 60
            if void_window_minutes is None and window != int(knockouts.DEFAULT_VOID_WINDOW.total_seconds()) // 60:
                knockouts.set_void_window(s, t.id, window)
        if void_window_minutes is not None:
            knockouts.set_void_window(s, t.id, void_window_minutes)
        return settings_view(s, t.id)

    return do


def edit_tournament_use(
    tournament_id: int,
    changes: dict[str, Any],
    *,
    structure_id: int | None = None,
    void_window_minutes: int | None = None,
) -> Do:
    """The settings in `changes` (and the structure, the void window) changed, validated whole by the
    service (3.9: in draft or registration open only); those already so are left out, and when none
    is left, UNCHANGED (nothing written)."""

    def do(s, actor, now):
        raise_problems(_time_problems(changes))
        current = settings_view(s, tournament_id)
        unknown = sorted(set(changes) - set(SETTING_FIELDS))
        if unknown:
            raise DomainError("setting-unknown", f"no such setting: {', '.join(unknown)}")
        differ = {k: v for k, v in changes.items() if current[k] != v}
        structure = structure_id if structure_id not in (None, current["structure_id"]) else None
        window = void_window_minutes if void_window_minutes not in (None, current["void_window_minutes"]) else None
        if not differ and structure is None and window is None:
            return UNCHANGED
        if differ or structure is not None:
            tournament_service.edit_tournament(s, tournament_id, differ, now, structure_id=structure)
        if window is not None:
            knockouts.set_void_window(s, tournament_id, window)
        return settings_view(s, tournament_id)

    return do


def set_prizes_use(tournament_id: int, lines: list[str]) -> Do:
    def do(s, actor, now):
        if tuple(line.strip() for line in lines) == results.prizes(s, tournament_id):
            tournament_service.get_tournament(s, tournament_id)
            return UNCHANGED
        results.set_prizes(s, tournament_id, lines)
        return settings_view(s, tournament_id)

    return do


def set_mystery_use(tournament_id: int, lines: list[str]) -> Do:
    def do(s, actor, now):
        if tuple(line.strip() for line in lines) == mystery.declared_prizes(s, tournament_id):
            return UNCHANGED
        mystery.set_mystery_prizes(s, tournament_id, lines)
        return settings_view(s, tournament_id)

    return do


def status_use(tournament_id: int, action: Literal["open", "cancel"]) -> Do:
    def do(s, actor, now):
        t = tournament_service.change_status(s, tournament_id, action, now)
        return {"id": t.id, "status": t.status}

    return do


def checked_lines(lines: list[str], kind: str, said: Callable[[Problem], str] = lambda p: p.message) -> dict:
    """SP-4 and the lines' limits, each problem with its line (`said`: in the club's language): what the
    page shows as one types."""
    cleaned = [line.strip() for line in lines]
    one = prize_line_problem if kind == "prizes" else mystery_rules.mystery_prize_problem
    found = [{"line": n, "code": p.code, "message": said(p)} for n, line in enumerate(cleaned, 1) for p in one(n, line)]
    limit = MAX_LINES if kind == "prizes" else mystery_rules.MAX_PRIZES
    if len(cleaned) > limit:
        code = "prizes-too-many-lines" if kind == "prizes" else "mystery-prizes-too-many"
        found.insert(0, {"line": None, "code": code, "message": f"{len(cleaned)} lines: at most {limit}"})
    return {"ok": not found, "problems": found}


def _given(body: SettingsBody, *, leave: tuple[str, ...] = ()) -> dict[str, Any]:
    """The settings a body sets: the fields it names (a `null` of an optional one unsets it)."""
    named = body.model_fields_set & set(SETTING_FIELDS)
    return {
        f: getattr(body, f) for f in sorted(named) if f not in leave and (getattr(body, f) is not None or f in OPTIONAL)
    }


@ops.get(
    "/clubs/{club_id}/templates",
    "club.templates",
    response=list[Template],
    responses={200: {"description": "a page of the club's series' templates", "headers": PAGED}},
)
def club_templates(op: Op, club_id: Id, limit: Limit = 50, cursor: Cursor = None):
    """The club's poker series, whose templates a tournament can be made from, a page at a time."""
    return op.run(
        club_of(club_id),
        lambda s, actor, now: op.page(templates(s, club_id), lambda r: (r["series_id"],), limit, cursor),
        describe=f"club {club_id}",
    )


@ops.post("/clubs/{club_id}/tournaments", "club.create-tournament", response=TournamentSettingsView, status=201)
def club_create_tournament(op: Op, club_id: Id, body: CreateBody):
    """Create a draft tournament: from nothing, from a series' template, or as a copy of another.
    Every problem of the settings at once (409, each with its code); another club's structure, series or
    tournament is refused as a missing one."""
    settings = _given(body) | {"name": body.name, "scheduled_start": body.scheduled_start}
    return op.run(
        club_of(club_id),
        create_tournament_use(
            club_id,
            settings,
            structure_id=body.structure_id,
            series_id=body.series_id,
            copy_of=body.copy_of,
            void_window_minutes=body.void_window_minutes,
        ),
        describe=f"tournament {body.name.strip()}",
        data=body.model_dump(mode="json", exclude_unset=True),
    )


@ops.get("/tournaments/{tournament_id}/settings", "club.tournament", response=TournamentSettingsView)
def club_tournament(op: Op, tournament_id: Id):
    """A tournament's every setting, prizes, mystery prizes and void window."""
    return op.run(
        tournament_of(tournament_id),
        lambda s, actor, now: settings_view(s, tournament_id),
        describe=f"tournament {tournament_id}",
    )


@ops.post(
    "/tournaments/{tournament_id}/settings", "club.edit-tournament", response=TournamentSettingsView, unchanged=True
)
def club_edit_tournament(op: Op, tournament_id: Id, body: EditBody):
    """Change settings while the rules allow (3.9: draft or registration open; SP-2: no registrant's
    windows made to overlap). Validated whole: every problem at once (409). As they are: 204."""
    return op.run(
        tournament_of(tournament_id),
        edit_tournament_use(
            tournament_id,
            _given(body),
            structure_id=body.structure_id,
            void_window_minutes=body.void_window_minutes,
        ),
        describe=f"tournament {tournament_id}",
        data=body.model_dump(mode="json", exclude_unset=True),
    )


@ops.post("/clubs/{club_id}/prize-checks", "club.check-prizes", response=LinesChecked)
def club_check_prizes(op: Op, club_id: Id, body: CheckBody):
    """Check prize lines or mystery prizes without saving them (SP-4: no money; limits), each problem
    with its line: what the console shows as one types. Writes nothing."""

    def do(s, actor, now):
        zone = ZoneInfo(club_service.get_club(s, club_id).timezone)
        locale = locales.club_locale(s, club_id)
        return checked_lines(body.lines, body.kind, lambda p: refusals.said(p, locale, zone, now))

    return op.run(club_of(club_id), do, describe=f"club {club_id}")


@ops.post("/tournaments/{tournament_id}/prizes", "club.set-prizes", response=TournamentSettingsView, unchanged=True)
def club_set_prizes(op: Op, tournament_id: Id, body: LinesBody):
    """Replace the prize lines (3.4: line n is place n; SP-4: no money; 200 lines of 500 characters).
    Until the tournament is finished or cancelled. The same lines: 204."""
    return op.run(
        tournament_of(tournament_id),
        set_prizes_use(tournament_id, body.lines),
        describe=f"tournament {tournament_id}",
        data=body.model_dump(),
    )


@ops.post(
    "/tournaments/{tournament_id}/mystery-table",
    "club.set-mystery-table",
    response=TournamentSettingsView,
    unchanged=True,
)
def club_set_mystery_table(op: Op, tournament_id: Id, body: LinesBody):
    """Declare the mystery prize table (SP-11; SP-4 on every line): the mystery bounty type only, until
    the phase starts. None: back to free-text draws. The same prizes: 204."""
    return op.run(
        tournament_of(tournament_id),
        set_mystery_use(tournament_id, body.lines),
        describe=f"tournament {tournament_id}",
        data=body.model_dump(),
    )


@ops.post("/tournaments/{tournament_id}/open", "club.open-tournament", response=StatusView)
def club_open_tournament(op: Op, tournament_id: Id):
    """Open registration (3.9: draft -> registration open). Not a draft: 409 `cannot-open`."""
    return op.run(
        tournament_of(tournament_id), status_use(tournament_id, "open"), describe=f"tournament {tournament_id}"
    )


@ops.post("/tournaments/{tournament_id}/cancel", "club.cancel-tournament", response=StatusView)
def club_cancel_tournament(op: Op, tournament_id: Id):
    """Cancel the tournament (3.9: from draft, registration open or running). Finished or cancelled
    already: 409 `cannot-cancel`."""
    return op.run(
        tournament_of(tournament_id), status_use(tournament_id, "cancel"), describe=f"tournament {tournament_id}"
    )
