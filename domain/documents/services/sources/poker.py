"""Finished live poker tournaments as bundles: registration and results (tournaments, entries,
top-ups, final places, prizes, mystery prizes), with the club's name, contact address, timezone,
language and logo."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domain.clubs.rules.logo import Logo
from domain.clubs.services.logos import logos
from domain.clubs.tables import Club
from domain.documents.rules.model import Bundle, PokerPlace, PokerSheet, SheetOption
from domain.documents.services import locales
from domain.documents.services.sources.shared import Skipped, local_date, unpublished
from domain.errors import DomainError
from domain.poker.rules.bounties import HALF_UNITS, units_text
from domain.poker.rules.prizes import paid_places, prize_line_problems
from domain.poker.services.results import places as computed_places
from domain.poker.tables.knockouts_places import (
    FinalPlace,
    MysteryDraw,
    MysteryPhase,
    MysteryPrize,
)
from domain.poker.tables.tournaments import Entry, Player, TopUp, Tournament

MysteryPrizes = tuple[tuple[tuple[str, int | None], ...], str | None]  # ((description, draw number or None), ...), seed


@dataclass(frozen=True)
class _Rows:
    """What the statements loaded for all the tournaments, by tournament (or club) id."""

    counts: dict
    topups: dict[tuple[int, str], int]
    stored: dict[int, list[PokerPlace]]
    mystery: dict[int, MysteryPrizes]
    locales: dict[int, str]
    logos: dict[int, Logo]


def due_poker_ids(session: Session) -> list[int]:
    return list(
        session.scalars(
            select(Tournament.id)
            .where(Tournament.status == "finished", unpublished("poker", Tournament.id))
            .order_by(Tournament.id)
        )
    )


def poker_bundles(session: Session, ids: Sequence[int]) -> list[Bundle | Skipped]:
    """Finished poker tournaments as bundles (6 statements, plus the places the results service computes for a
    tournament finished without stored places)."""
    if not ids:
        return []
    heads = session.execute(
        select(Tournament, Club).join(Club, Club.id == Tournament.club_id).where(Tournament.id.in_(ids))
    ).all()
    club_ids = sorted({club.id for _, club in heads})
    rows = _Rows(
        counts=_entry_counts(session, ids),
        topups=_topups(session, ids),
        locales=locales.locales(session, "club", club_ids),
        logos=logos(session, club_ids),
        stored=_stored_places(session, ids),
        mystery=_mystery(session, ids),
    )
    return [_bundle(session, tournament, club, rows) for tournament, club in sorted(heads, key=lambda h: h[0].id)]


def _entry_counts(session: Session, ids: Sequence[int]) -> dict:
    """Each tournament's entries, re-entries and players, voided entries left out."""
    return {
        r.tournament_id: r
        for r in session.execute(
            select(
                Entry.tournament_id,
                func.count().label("entries"),
                func.count(Entry.previous_entry_id).label("reentries"),
                func.count(func.distinct(Entry.player_id)).label("players"),
            )
            .where(Entry.tournament_id.in_(ids), Entry.state != "voided")
            .group_by(Entry.tournament_id)
        )
    }


def _topups(session: Session, ids: Sequence[int]) -> dict[tuple[int, str], int]:
    """(tournament id, "addon" or "rebuy"): how many, of entries not voided."""
    return {
        (tid, kind): n
        for tid, kind, n in session.execute(
            select(TopUp.tournament_id, TopUp.kind, func.count())
            .join(Entry, Entry.id == TopUp.entry_id)
            .where(TopUp.tournament_id.in_(ids), TopUp.kind.in_(("addon", "rebuy")), Entry.state != "voided")
            .group_by(TopUp.tournament_id, TopUp.kind)
        ).all()
    }


def _stored_places(session: Session, ids: Sequence[int]) -> dict[int, list[PokerPlace]]:
    """The final places stored when each tournament finished, in order."""
    stored: dict[int, list[PokerPlace]] = defaultdict(list)
    for r in session.execute(
        select(
            FinalPlace.tournament_id,
            FinalPlace.place,
            func.coalesce(Player.name, Player.pseudonym).label("player"),
            FinalPlace.credit_halves,
            FinalPlace.prize,
            FinalPlace.credit_units,
            FinalPlace.pko_points,
        )
        .join(Player, Player.id == FinalPlace.player_id)
        .where(FinalPlace.tournament_id.in_(ids))
        .order_by(FinalPlace.tournament_id, FinalPlace.place, func.coalesce(Player.name, Player.pseudonym))
    ):
        stored[r.tournament_id].append(
            PokerPlace(
                r.place,
                r.player,
                Decimal(r.credit_halves) / 2,
                r.prize,
                _exact_credit(r.credit_units),
                r.pko_points,
            )
        )
    return stored


def _bundle(session: Session, tournament: Tournament, club: Club, rows: _Rows) -> Bundle | Skipped:
    """One tournament's bundle, or why it cannot be published yet."""
    tid = tournament.id
    if tournament.status != "finished":
        return Skipped("poker", tid, f"tournament {tid} is {tournament.status}, not finished")
    try:
        places = rows.stored[tid] or _computed_places(session, tid)
    except DomainError as exc:
        return Skipped("poker", tid, exc.message)
    problems = prize_line_problems([p.prize for p in places if p.prize])  # SP-4, DOC-1
    if problems:
        return Skipped("poker", tid, "; ".join(p.message for p in problems))
    sheet = _sheet(tournament, club, places, rows)
    return Bundle(sheet, club_id=club.id, recipient=club.contact_email, logo=rows.logos.get(club.id))


def _computed_places(session: Session, tid: int) -> list[PokerPlace]:
    """The places the results service computes for a tournament finished without stored places."""
    return [
        PokerPlace(
            p.place.place,
            p.name,
            Decimal(p.place.credit_halves) / 2,
            p.place.prize,
            _exact_credit(p.place.credit_units),
            p.place.pko_points,
        )
        for p in computed_places(session, tid)
    ]


def _sheet(tournament: Tournament, club: Club, places: list[PokerPlace], rows: _Rows) -> PokerSheet:
    tid = tournament.id
    c = rows.counts.get(tid)
    entries, players = (c.entries, c.players) if c else (0, 0)
    return PokerSheet(
        tournament_id=tid,
        tournament=tournament.name,
        club=club.name,
        held_on=local_date(tournament.finished_at or tournament.scheduled_start, club.timezone),
        entries=entries,
        reentries=c.reentries if c else 0,
        addons=rows.topups.get((tid, "addon"), 0),
        prize_places=paid_places(entries, players, tournament.itm_percent, tournament.itm_min) if players else 0,
        places=tuple(places),
        rebuys=rows.topups.get((tid, "rebuy"), 0),
        locale=locales.poker_locale(rows.locales.get(club.id)),
        options=_options(tournament, club.timezone),
        mystery_prizes=rows.mystery.get(tid, ((), None))[0],
        mystery_seed=rows.mystery.get(tid, ((), None))[1],
    )


def _exact_credit(units: int | None) -> str | None:
    """SP-10: the exact credit as text when it is not a whole number of halves, else None."""
    if units is None or units % HALF_UNITS == 0:
        return None
    return units_text(units)


def _options(t: Tournament, timezone: str) -> tuple[SheetOption, ...]:
    """The SP-9..SP-12 settings that differ from the defaults, one printed line each (worded by the
    template in the sheet's language; the rebuy deadline in the club's timezone)."""
    options = []
    if t.bounty_type == "pko" and t.pko_head is not None:
        options.append(SheetOption("pko-head", number=t.pko_head))
    if t.shared_knockouts:
        options.append(SheetOption("shared-knockouts"))
    if t.rebuy_until is not None:
        options.append(SheetOption("rebuy-until", at=t.rebuy_until.astimezone(ZoneInfo(timezone))))
    if t.rebuy_until_level is not None:
        options.append(SheetOption("rebuy-until-level", number=t.rebuy_until_level))
    if t.rebuy_limit is not None:
        options.append(SheetOption("rebuy-limit", number=t.rebuy_limit))
    if t.reentry_limit is not None:
        options.append(SheetOption("reentry-limit", number=t.reentry_limit))
    if t.mystery_phase != "start" or t.mystery_draw_per != "per_killer_entry":
        phase, _, level = t.mystery_phase.partition(":")
        options.append(
            SheetOption("mystery", number=int(level) if level else None, phase=phase, per=t.mystery_draw_per)
        )
    return tuple(options)


def _mystery(session: Session, ids: Sequence[int]) -> dict[int, MysteryPrizes]:
    """SP-11: each tournament's declared mystery prizes, drawn or undrawn, and the phase's seed
    (three statements for all the tournaments)."""
    prizes: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for r in session.execute(
        select(MysteryPrize.tournament_id, MysteryPrize.position, MysteryPrize.description)
        .where(MysteryPrize.tournament_id.in_(ids))
        .order_by(MysteryPrize.tournament_id, MysteryPrize.position)
    ):
        prizes[r.tournament_id].append((r.position, r.description))
    if not prizes:
        return {}
    drawn = {
        (r.tournament_id, r.prize_position): r.draw_number
        for r in session.execute(
            select(MysteryDraw.tournament_id, MysteryDraw.prize_position, MysteryDraw.draw_number).where(
                MysteryDraw.tournament_id.in_(list(prizes)), MysteryDraw.prize_position.is_not(None)
            )
        )
    }
    seeds = dict(
        session.execute(
            select(MysteryPhase.tournament_id, MysteryPhase.seed).where(MysteryPhase.tournament_id.in_(list(prizes)))
        ).all()
    )
    return {
        tid: (
            tuple((d, drawn.get((tid, n))) for n, d in rows),
            seeds.get(tid),
        )
        for tid, rows in prizes.items()
    }
