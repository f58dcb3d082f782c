"""The audit trail (RULES AC-3): one row per change, written in the change's own transaction, with the
actor, the instant, the action, its target, the club and what was asked and changed. A club's owner
reads the club's rows; the operator reads all.

The table is append-only (a trigger refuses UPDATE, DELETE and TRUNCATE), so no row may hold what
forgetting a player (1.6.1) must erase: every handle, name and date of birth of a player the change's
session loaded or made is written as a mark of the player's id (`domain/access/rules/trail.py`) and
read back from the players' table, which forgetting clears (AC-5)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import event, select, text
from sqlalchemy.orm import Session, object_session

from domain.access.rules import trail as marks
from domain.access.rules.policy import Actor
from domain.access.tables import AuditRecord
from domain.poker.tables.tournaments import Player

TRAIL_PAGE = 200


def record(
    session: Session,
    actor: Actor,
    action: str,
    now: datetime,
    *,
    target: str,
    club_id: int | None = None,
    data: dict[str, Any] | None = None,
) -> None:
    people = _people(session)
    session.execute(  # Core, at once (after the session's autoflush): the ORM's unit of work for one row
        _INSERT,  # costs more than the row
        {
            "at": now,
            "actor_kind": actor.kind,
            "actor_label": actor.label,
            "account_id": actor.account_id,
            "token_id": actor.token_id,
            "club_id": club_id,
            "action": action,
            "target": marks.mask(target, people),
            "data": marks.mask(data or {}, people),
        },
    )


_INSERT = AuditRecord.__table__.insert()


def system(name: str) -> Actor:
    """A machine of the platform itself acting on its own schedule: `job:<deployment>`, `system:simulator`."""
    return Actor("system", name)


def record_if_written(
    session: Session,
    actor: Actor,
    action: str,
    now: datetime,
    *,
    target: str = "",
    club_id: int | None = None,
    data: dict[str, Any] | None = None,
    poker: Iterable[int] = (),
    pusoy: Iterable[int] = (),
) -> int:
    """AC-3 for a unit of work that is not one request of the API (a command, a job, the simulator):
    when it wrote anything (PostgreSQL assigned its transaction an id), its audit rows, in the same
    transaction, just before its commit; for a read, nothing. The rows: one per club of the poker and
    Pusoy Dos tournaments it names (`poker`, `pusoy`: ids; the target lists that club's), else one with
    `target` and `club_id`. Returns how many rows it wrote."""
    session.flush()
    if session.scalar(text("SELECT txid_current_if_assigned()")) is None:
        return 0
    by_club = _clubs_of(session, sorted(set(poker)), sorted(set(pusoy)))
    rows = [(club, ", ".join(named)) for club, named in by_club.items()] or [(club_id, target)]
    for club, described in rows:
        record(session, actor, action, now, target=described, club_id=club, data=data)
    session.flush()
    return len(rows)


def _clubs_of(session: Session, poker: list[int], pusoy: list[int]) -> dict[int | None, list[str]]:
    from domain.poker.tables.tournaments import Tournament
    from domain.pusoy.tables import PusoyTournament

    found: dict[int | None, list[str]] = {}
    if poker:
        for tid, club in session.execute(select(Tournament.id, Tournament.club_id).where(Tournament.id.in_(poker))):
            found.setdefault(club, []).append(f"tournament {tid}")
    if pusoy:
        query = select(PusoyTournament.id, PusoyTournament.code, PusoyTournament.club_id)
        for _, code, club in session.execute(query.where(PusoyTournament.id.in_(pusoy))):
            found.setdefault(club, []).append(f"cup {code}")
    return found


PEOPLE = "audit.people"  # session.info: every player the session loaded, made or changed, as each was


def _remember(session: Session | None, player: Player) -> None:
    if session is not None:
        person = marks.Person(player.id, player.handle, player.name, player.birth_date)
        session.info.setdefault(PEOPLE, set()).add(person)


@event.listens_for(Player, "load")
@event.listens_for(Player, "refresh")
def _loaded(player: Player, context, *_: object) -> None:
    _remember(context.session, player)


@event.listens_for(Player, "after_insert")
@event.listens_for(Player, "after_update")
def _written(_mapper, _connection, player: Player) -> None:
    _remember(object_session(player), player)


def _people(session: Session) -> set[marks.Person]:
    """Every player this session loaded (as loaded, before a forgetting erased them), made or changed."""
    if any(isinstance(p, Player) for p in session.new):
        session.flush()  # a player made in this change: its id, for the marks
    return session.info.get(PEOPLE, set())


@dataclass(frozen=True)
class Filter:
    """Which changes of a trail to read: by whom (part of the actor's label: an e-mail, `token 12`), which
    action, about which tournament or cup, from `since` (included) to `until` (excluded)."""

    actor: str | None = None
    action: str | None = None
    tournament_id: int | None = None
    since: datetime | None = None
    until: datetime | None = None
    cup: str | None = None  # a Pusoy Dos cup's join code: the rows that name it ("cup CODE", "… of cup CODE")


def trail(
    session: Session,
    club_id: int | None,
    *,
    before_id: int | None = None,
    limit: int = TRAIL_PAGE,
    only: Filter = Filter(),
) -> list[dict]:
    """The newest changes first (of one club, or all of them for `club_id=None`), a page at a time."""
    query = select(AuditRecord).order_by(AuditRecord.id.desc()).limit(min(limit, TRAIL_PAGE + 1))
    if club_id is not None:
        query = query.where(AuditRecord.club_id == club_id)
    if before_id is not None:
        query = query.where(AuditRecord.id < before_id)
    if only.actor:
        query = query.where(AuditRecord.actor_label.icontains(only.actor, autoescape=True))
    if only.action:
        query = query.where(AuditRecord.action == only.action)
    if only.tournament_id is not None:  # the target names it first: "tournament 12 …"
        named = f"tournament {only.tournament_id}"
        query = query.where((AuditRecord.target == named) | AuditRecord.target.startswith(f"{named} ", autoescape=True))
    if only.cup is not None:  # a join code is six of A-Z and 0-9: nothing to escape
        query = query.where(AuditRecord.target.regexp_match(f"(^|, | of )cup {only.cup}($|,| )"))
    if only.since is not None:
        query = query.where(AuditRecord.at >= only.since)
    if only.until is not None:
        query = query.where(AuditRecord.at < only.until)
    return _rows(session, query)


def by_account(session: Session, account_id: int) -> list[dict]:
    """Every change an account made (part of its own data, AC-5), newest first."""
    return _rows(
        session, select(AuditRecord).where(AuditRecord.account_id == account_id).order_by(AuditRecord.id.desc())
    )


def _rows(session: Session, query) -> list[dict]:
    rows = [
        {
            "id": r.id,
            "at": r.at,
            "actor": r.actor_label,
            "actor_kind": r.actor_kind,
            "action": r.action,
            "target": r.target,
            "club_id": r.club_id,
            "data": r.data,
        }
        for r in session.scalars(query)
    ]
    ids = set().union(*(marks.marked([r["target"], r["data"]]) for r in rows)) if rows else set()
    if not ids:
        return rows
    known = {
        p.id: marks.Known(p.handle, p.name, p.birth_date, p.pseudonym)
        for p in session.execute(
            select(Player.id, Player.handle, Player.name, Player.birth_date, Player.pseudonym).where(Player.id.in_(ids))
        )
    }
    for r in rows:
        r["target"], r["data"] = marks.unmask(r["target"], known), marks.unmask(r["data"], known)
    return rows
