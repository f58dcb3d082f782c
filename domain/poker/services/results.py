"""Prizes, ITM, final places and the finalize batch on the database (Sport Poker 3.4, 3.7; SP-3,
SP-4, SP-7). The caller owns the transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from domain.errors import DomainError, Word
from domain.poker.rules.bounties import Share
from domain.poker.rules.knockouts import credit_text
from domain.poker.rules.places import LiveKnockout, Place, PlacedEntry, final_places
from domain.poker.rules.prizes import Itm, itm, preset_lines, validated_prize_lines
from domain.poker.rules.wording.check import wording_seal
from domain.poker.services.due import FINALIZE
from domain.poker.services.tournaments import get_tournament
from domain.poker.tables.knockouts_places import (
    FinalPlace,
    Knockout,
    KnockoutShare,
    Prize,
)
from domain.poker.tables.tournaments import Entry, Player, Registration, Tournament
from domain.store import live
from domain.webhooks.rules.endpoints import TOURNAMENT_FINISHED
from domain.webhooks.services.outbox import NewEvent, emit_many

# -- prizes (3.4) ----------------------------------------------------------------------------------


def _editable(tournament: Tournament) -> None:
    if tournament.status in ("finished", "cancelled"):
        raise DomainError(
            "prizes-frozen",
            "tournament %(tournament_id)s is %(status)s: its prizes can no longer change",
            tournament_id=tournament.id,
            status=Word(tournament.status),
        )


def set_prizes(session: Session, tournament_id: int, lines: Sequence[str]) -> tuple[str, ...]:
    """Replace the prize list (line n = place n); an empty list removes every prize."""
    cleaned = validated_prize_lines(lines)
    tournament = get_tournament(session, tournament_id, lock="update")
    _editable(tournament)
    session.execute(Prize.__table__.delete().where(Prize.tournament_id == tournament_id))
    if cleaned:
        session.execute(
            insert(Prize),
            [
                {"tournament_id": tournament_id, "place": n, "description": d, "wording_seal": wording_seal(d)}
                for n, d in enumerate(cleaned, 1)
            ],
        )
    return cleaned


def field_size(session: Session, tournament_id: int) -> tuple[int, int]:
    """(entries, distinct players): the non-voided entries; before any entry, the active registrations."""
    return _field(session, tournament_id)[:2]


def _field(session: Session, tournament_id: int) -> tuple[int, int, int]:
    """`field_size` and the active entries (the players remaining, SP-3), in one statement (two before
    any entry)."""
    kept = Entry.state != "voided"
    entries, players, remaining = session.execute(
        select(
            func.count().filter(kept),
            func.count(func.distinct(Entry.player_id)).filter(kept),
            func.count().filter(Entry.state == "active"),
        ).where(Entry.tournament_id == tournament_id)
    ).one()
    if entries == 0:
        entries = players = session.scalar(
            select(func.count()).where(Registration.tournament_id == tournament_id, Registration.status == "active")
        )
    return entries, players, remaining


def apply_preset(session: Session, tournament_id: int, name: str, locale: str) -> tuple[str, ...]:
    """3.4: a preset's lines in `locale` (the club's documents language, which the caller reads:
    `documents.services.locales.tournament_locale`) trimmed to the current field, stored as the prize list."""
    get_tournament(session, tournament_id, lock="update")
    entries, players = field_size(session, tournament_id)
    return set_prizes(session, tournament_id, preset_lines(name, entries, players, locale))


def prizes(session: Session, tournament_id: int) -> tuple[str, ...]:
    return tuple(
        session.scalars(select(Prize.description).where(Prize.tournament_id == tournament_id).order_by(Prize.place))
    )


# -- ITM (SP-3) ------------------------------------------------------------------------------------


def itm_status(session: Session, tournament_id: int) -> Itm:
    return field_and_itm(session, tournament_id)[2]


def field_and_itm(session: Session, tournament_id: int) -> tuple[int, int, Itm]:
    """(entries, distinct players) as `field_size` counts them, and the ITM standing (SP-3), from one count."""
    tournament = get_tournament(session, tournament_id)
    entries, players, remaining = _field(session, tournament_id)
    return entries, players, itm(entries, players, remaining, tournament.itm_percent, tournament.itm_min)


# -- final places (3.7, SP-7) ---------------------------------------------------------------------


@dataclass(frozen=True)
class NamedPlace:
    place: Place
    name: str


def _graphs(session: Session, tournament_ids: Sequence[int]) -> dict[int, tuple[list, list]]:
    """Entries and live knockouts of the tournaments with their shares (SP-9, SP-10), in three
    statements."""
    shares: dict[int, list[Share]] = {}
    for r in session.execute(
        select(KnockoutShare)
        .join(Knockout, Knockout.id == KnockoutShare.knockout_id)
        .where(Knockout.tournament_id.in_(tournament_ids), Knockout.voided_at.is_(None))
        .order_by(KnockoutShare.knockout_id, KnockoutShare.position)
    ).scalars():
        shares.setdefault(r.knockout_id, []).append(
            Share(r.killer_entry_id, r.position, r.credit_units, r.pko_points, r.head_added)
        )
    graphs: dict[int, tuple[list, list]] = {t: ([], []) for t in tournament_ids}
    for r in session.execute(
        select(Entry.tournament_id, Entry.id, Entry.player_id, Entry.sequence, Entry.state).where(
            Entry.tournament_id.in_(tournament_ids)
        )
    ):
        graphs[r.tournament_id][0].append(PlacedEntry(r.id, r.player_id, r.sequence, r.state == "voided"))
    for r in session.execute(
        select(
            Knockout.id,
            Knockout.tournament_id,
            Knockout.busted_entry_id,
            Knockout.bust_number,
            Knockout.killer_entry_id,
            Knockout.credit_halves,
        ).where(Knockout.tournament_id.in_(tournament_ids), Knockout.voided_at.is_(None))
    ):
        graphs[r.tournament_id][1].append(
            LiveKnockout(
                r.busted_entry_id, r.bust_number, r.killer_entry_id, r.credit_halves, tuple(shares.get(r.id, ()))
            )
        )
    return graphs


def _prize_lists(session: Session, tournament_ids: Sequence[int]) -> dict[int, list[str]]:
    lists: dict[int, list[str]] = {t: [] for t in tournament_ids}
    for r in session.execute(
        select(Prize.tournament_id, Prize.description)
        .where(Prize.tournament_id.in_(tournament_ids))
        .order_by(Prize.tournament_id, Prize.place)
    ):
        lists[r.tournament_id].append(r.description)
    return lists


def _pko_head(bounty_type: str, pko_head: int | None) -> int | None:
    return pko_head if bounty_type == "pko" else None


def compute_places(session: Session, tournament_id: int) -> tuple[Place, ...]:
    """The places from the elimination graph as it stands (refused while two players are in)."""
    tournament = get_tournament(session, tournament_id)
    entries, knockouts = _graphs(session, [tournament_id])[tournament_id]
    return final_places(
        entries,
        knockouts,
        _prize_lists(session, [tournament_id])[tournament_id],
        _pko_head(tournament.bounty_type, tournament.pko_head),
    )


def places(session: Session, tournament_id: int) -> list[NamedPlace]:
    """The stored places of a finished tournament, else computed now; with display names."""
    stored = (
        session.execute(
            select(FinalPlace)
            .where(FinalPlace.tournament_id == tournament_id)
            .order_by(FinalPlace.place, FinalPlace.player_id)
        )
        .scalars()
        .all()
    )
    if stored:
        found = tuple(
            Place(
                p.place,
                p.player_id,
                p.entry_id,
                p.bust_number,
                p.knockouts,
                p.credit_halves,
                p.prize,
                p.credit_units,
                p.pko_points,
            )
            for p in stored
        )
    else:
        found = compute_places(session, tournament_id)
    names = _names(session, [p.player_id for p in found])
    return [NamedPlace(p, names[p.player_id]) for p in found]


def _names(session: Session, player_ids: Sequence[int]) -> dict[int, str]:
    rows = session.execute(
        select(Player.id, func.coalesce(Player.name, Player.pseudonym)).where(Player.id.in_(player_ids))
    )
    return {pid: name for pid, name in rows}


# -- finalize (the job) -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Finalized:
    tournament_id: int
    name: str
    seat_cap: int
    places: tuple[NamedPlace, ...]


def finalize_tournaments(
    session: Session, now: datetime, tournament_ids: Sequence[int] | None = None
) -> list[Finalized]:
    """Places, prizes and `finished` for every tournament due (FINALIZE: down to one player, the void
    window of its last knockout closed), or for those of `tournament_ids` that are due, in a constant
    number of statements. Tournaments locked by another run are skipped (SKIP LOCKED): safe to run
    twice."""
    t = Tournament
    due = FINALIZE.batch(
        t.id, t.name, t.seat_cap, t.bounty_type, t.pko_head, t.club_id, where=FINALIZE.due(now), ids=tournament_ids
    )
    return _finalize(session, now, session.execute(due).all())


def finish(session: Session, tournament_id: int, now: datetime) -> Finalized:
    """The director finishes the tournament once one player is left (3.7), without waiting for the
    void window of the last knockout: its places and prizes at once, as the job would."""
    t = get_tournament(session, tournament_id, lock="update")
    refuse_unfinished(session, t)
    [done] = _finalize(session, now, [t])
    return done


def refuse_unfinished(session: Session, t: Tournament) -> None:
    """Refuses to finish a tournament that is not running with one player left (3.7)."""
    if t.status != "running":
        raise DomainError(
            "not-running",
            "tournament %(tournament_id)s is %(status)s: only a running tournament finishes",
            tournament_id=t.id,
            status=Word(t.status.replace("_", " ")),
        )
    remaining = session.scalar(select(func.count()).where(Entry.tournament_id == t.id, Entry.state == "active"))
    if remaining != 1:
        raise DomainError(
            "finish-players-in",
            "tournament %(tournament_id)s '%(tournament_name)s' has %(remaining)s players still in: record the knockouts until one is left (rule 3.7)",
            tournament_id=t.id,
            tournament_name=t.name,
            remaining=remaining,
        )


def finalize_moments(session: Session, now: datetime, tournament_ids: Sequence[int]) -> list[dict[str, Any]]:
    """The timekeeper's call: the tournaments of `tournament_ids` due at `now`, finalized; a summary
    of each, with its final table."""
    return [
        {
            "tournament_id": t.tournament_id,
            "name": t.name,
            "placed": len(t.places),
            "prizes": sum(1 for p in t.places if p.place.prize is not None),
            "final_table": final_table(t),
        }
        for t in finalize_tournaments(session, now, tournament_ids)
    ]


def final_table(done: Finalized) -> list[dict[str, Any]]:
    """The final table: the places up to the seat cap, and every place with a prize."""
    return [
        {
            "place": p.place.place,
            "player": p.name,
            "bust": p.place.bust_number,
            "knockouts": p.place.knockouts,
            "credit": credit_text(p.place.credit_halves),
            "prize": p.place.prize,
        }
        for p in done.places
        if p.place.place <= done.seat_cap or p.place.prize is not None
    ]


def _finished_event(t: Any, placed: Sequence[Place], handles: dict[int, str], now: datetime) -> NewEvent:
    """Players online: webhooks. The tournament finished, for its club's endpoints: its places by
    handle (the pseudonym once forgotten), never a full name (AC-5); prizes are non-monetary (SP-4)."""
    places_ = [
        {
            "place": p.place,
            "player": handles[p.player_id],
            "knockouts": p.knockouts,
            "credit": credit_text(p.credit_halves),
            "prize": p.prize,
        }
        for p in placed
    ]
    payload = {
        "source": "poker",
        "tournament_id": t.id,
        "tournament": t.name,
        "finished_at": now.isoformat(),
        "places": places_,
    }
    return NewEvent(TOURNAMENT_FINISHED, t.club_id, None, payload)


def _finalize(session: Session, now: datetime, ready: Sequence[Any]) -> list[Finalized]:
    """`ready`: the locked tournaments (rows or Tournament objects: id, name, seat_cap, bounty_type,
    pko_head, club_id)."""
    if not ready:
        return []
    ids = [r.id for r in ready]
    graphs = _graphs(session, ids)
    prize_lists = _prize_lists(session, ids)
    heads = {r.id: _pko_head(r.bounty_type, r.pko_head) for r in ready}
    computed = {t: final_places(*graphs[t], prize_lists[t], heads[t]) for t in ids}
    session.execute(
        FinalPlace.__table__.insert(),  # Core: one executemany, whatever columns are NULL
        [
            {
                "tournament_id": t,
                "player_id": p.player_id,
                "entry_id": p.entry_id,
                "place": p.place,
                "bust_number": p.bust_number,
                "knockouts": p.knockouts,
                "credit_halves": p.credit_halves,
                "prize": p.prize,
                "placed_at": now,
                "credit_units": p.credit_units,
                "pko_points": p.pko_points,
            }
            for t in ids
            for p in computed[t]
        ],
    )
    session.execute(update(Tournament).where(Tournament.id.in_(ids)).values(status="finished", finished_at=now))
    players = [p.player_id for t in ids for p in computed[t]]
    names, handles = {}, {}
    for pid, name, handle in session.execute(
        select(
            Player.id, func.coalesce(Player.name, Player.pseudonym), func.coalesce(Player.handle, Player.pseudonym)
        ).where(Player.id.in_(players))
    ):
        names[pid], handles[pid] = name, handle
    emit_many(session, now, [_finished_event(r, computed[r.id], handles, now) for r in ready])
    live.changed(session, *(live.poker(t) for t in ids))
    return [
        Finalized(r.id, r.name, r.seat_cap, tuple(NamedPlace(p, names[p.player_id]) for p in computed[r.id]))
        for r in ready
    ]
