"""Where the documents' data comes from: finished live poker tournaments (registration and results:
tournaments, entries, top-ups, final places, prizes), complete Pusoy Dos tournaments (area pusoy:
locked round standings with the deciding step, playoff finishes, the champion) and the seasons'
standings (area leagues), with the club's name, contact address and timezone (area clubs).

Set-based: a constant number of statements for any number of tournaments. Each tournament comes
back as a Bundle, or as a Skipped with the reason it cannot be published yet.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from sqlalchemy import and_, exists, func, select
from sqlalchemy.orm import Session, aliased

from domain.documents.rules.model import (
    N_,
    Bundle,
    PokerPlace,
    PokerSheet,
    PusoyPlayoff,
    PusoyRound,
    PusoySheet,
    PusoyStanding,
    SeasonRow,
    SeasonSheet,
)
from domain.documents.services import locales
from domain.errors import DomainError, NotFound
from domain.poker.rules.prizes import paid_places, prize_line_problems
from domain.poker.services.results import places as computed_places
from domain.clubs.services.logos import logos
from domain.clubs.tables import Club
from domain.documents.tables import DocumentPublication
from domain.leagues.services.leagues import counted_tournaments, season_standings
from domain.leagues.tables import Season
from domain.poker.tables.tournaments import Entry, Player, TopUp, Tournament
from domain.poker.rules.bounties import HALF_UNITS, units_text
from domain.poker.tables.results import FinalPlace, MysteryDraw, MysteryPhase, MysteryPrize
from domain.pusoy.tables import PusoyFinish, PusoyStanding as StandingRow, PusoyTournament

# PD-7's steps as a results sheet words them (English messages, printed in the sheet's language): why a player is listed below the one above.
STEP_WORDING = {
    "points": N_("fewer points"),
    "first-places": N_("fewer first places"),
    "first-places-on-2d": N_("fewer first places won on the 2 of diamonds"),
    "second-places": N_("fewer second places"),
    "third-places": N_("fewer third places"),
    "head-to-head": N_("head-to-head"),
    "earliest-first-place": N_("a later first win (or none)"),
    "last-game-position": N_("a worse finish in the round's last game"),
    "earlier-rounds-points": N_("fewer points in earlier rounds"),
}


@dataclass(frozen=True)
class Skipped:
    source: str
    tournament_id: int
    reason: str


def step_wording(decided_by: str | None, listed: int) -> str | None:
    if listed == 1:
        return None
    if decided_by is None:
        return N_("level: shared rank")
    if decided_by.startswith("playoff"):
        return N_("the playoff")
    return STEP_WORDING.get(decided_by, decided_by)


def _local_date(at: datetime | None, timezone: str | None) -> date:
    at = at or datetime.now(UTC)
    return at.astimezone(ZoneInfo(timezone)).date() if timezone else at.astimezone(UTC).date()


def _unpublished(source: str, tournament_id) -> object:
    return ~exists().where(DocumentPublication.source == source, DocumentPublication.tournament_id == tournament_id)


# -- live poker ------------------------------------------------------------------------------------


def due_poker_ids(session: Session) -> list[int]:
    return list(
        session.scalars(
            select(Tournament.id)
            .where(Tournament.status == "finished", _unpublished("poker", Tournament.id))
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
    counts = {
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
    topups: dict[tuple[int, str], int] = {
        (tid, kind): n
        for tid, kind, n in session.execute(
            select(TopUp.tournament_id, TopUp.kind, func.count())
            .join(Entry, Entry.id == TopUp.entry_id)
            .where(TopUp.tournament_id.in_(ids), TopUp.kind.in_(("addon", "rebuy")), Entry.state != "voided")
            .group_by(TopUp.tournament_id, TopUp.kind)
        ).all()
    }
    club_locales = locales.locales(session, "club", sorted({club.id for _, club in heads}))
    club_logos = logos(session, sorted({club.id for _, club in heads}))
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
        stored[r.tournament_id].append(PokerPlace(
            r.place, r.player, Decimal(r.credit_halves) / 2, r.prize,
            _exact_credit(r.credit_units), r.pko_points,
        ))
    mystery = _mystery(session, ids)
    out: list[Bundle | Skipped] = []
    for tournament, club in sorted(heads, key=lambda h: h[0].id):
        tid = tournament.id
        if tournament.status != "finished":
            out.append(Skipped("poker", tid, f"tournament {tid} is {tournament.status}, not finished"))
            continue
        try:
            places = stored[tid] or [
                PokerPlace(p.place.place, p.name, Decimal(p.place.credit_halves) / 2, p.place.prize,
                           _exact_credit(p.place.credit_units), p.place.pko_points)
                for p in computed_places(session, tid)
            ]
        except DomainError as exc:
            out.append(Skipped("poker", tid, exc.message))
            continue
        problems = prize_line_problems([p.prize for p in places if p.prize])  # SP-4, DOC-1
        if problems:
            out.append(Skipped("poker", tid, "; ".join(p.message for p in problems)))
            continue
        c = counts.get(tid)
        entries, players = (c.entries, c.players) if c else (0, 0)
        sheet = PokerSheet(
            tournament_id=tid,
            tournament=tournament.name,
            club=club.name,
            held_on=_local_date(tournament.finished_at, club.timezone),
            entries=entries,
            reentries=c.reentries if c else 0,
            addons=topups.get((tid, "addon"), 0),
            prize_places=paid_places(entries, players, tournament.itm_percent, tournament.itm_min) if players else 0,
            places=tuple(places),
            rebuys=topups.get((tid, "rebuy"), 0),
            locale=locales.poker_locale(club_locales.get(club.id)),
            options=_options(tournament),
            mystery_prizes=mystery.get(tid, ((), None))[0],
            mystery_seed=mystery.get(tid, ((), None))[1],
        )
        out.append(Bundle(sheet, club_id=club.id, recipient=club.contact_email, logo=club_logos.get(club.id)))
    return out


def _exact_credit(units: int | None) -> str | None:
    """SP-10: the exact credit as text when it is not a whole number of halves, else None."""
    if units is None or units % HALF_UNITS == 0:
        return None
    return units_text(units)


def _options(t: Tournament) -> tuple[str, ...]:
    """The SP-9..SP-12 settings that differ from the defaults, one printed line each."""
    lines = []
    if t.bounty_type == "pko" and t.pko_head is not None:
        lines.append(f"Progressive knockout: heads of {t.pko_head} rating points (SP-9)")
    if t.shared_knockouts:
        lines.append("Shared knockouts: several killers share a knockout equally (SP-10)")
    if t.rebuy_until is not None:
        lines.append(f"Rebuys until {t.rebuy_until:%H:%M} UTC (SP-12)")
    if t.rebuy_until_level is not None:
        lines.append(f"Rebuys until the end of level {t.rebuy_until_level} (SP-12)")
    if t.rebuy_limit is not None:
        lines.append(f"At most {t.rebuy_limit} rebuy(s) per player (SP-12)")
    if t.reentry_limit is not None:
        lines.append(f"At most {t.reentry_limit} re-entry(ies) per player (SP-12)")
    if t.mystery_phase != "start" or t.mystery_draw_per != "per_killer_entry":
        lines.append(f"Mystery prizes: phase {t.mystery_phase}, one draw {t.mystery_draw_per.replace('_', ' ')} (SP-11)")
    return tuple(lines)


def _mystery(session: Session, ids: Sequence[int]) -> dict[int, tuple[tuple[tuple[str, str], ...], str | None]]:
    """SP-11: each tournament's declared mystery prizes, drawn or undrawn, and the phase's seed
    (three statements for all the tournaments)."""
    prizes: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for r in session.execute(
        select(MysteryPrize.tournament_id, MysteryPrize.position, MysteryPrize.description)
        .where(MysteryPrize.tournament_id.in_(ids)).order_by(MysteryPrize.tournament_id, MysteryPrize.position)
    ):
        prizes[r.tournament_id].append((r.position, r.description))
    if not prizes:
        return {}
    drawn = {
        (r.tournament_id, r.prize_position): r.draw_number
        for r in session.execute(
            select(MysteryDraw.tournament_id, MysteryDraw.prize_position, MysteryDraw.draw_number)
            .where(MysteryDraw.tournament_id.in_(list(prizes)), MysteryDraw.prize_position.is_not(None))
        )
    }
    seeds = dict(session.execute(
        select(MysteryPhase.tournament_id, MysteryPhase.seed).where(MysteryPhase.tournament_id.in_(list(prizes)))
    ).all())
    return {
        tid: (
            tuple((d, f"drawn #{drawn[(tid, n)]}" if (tid, n) in drawn else "undrawn") for n, d in rows),
            seeds.get(tid),
        )
        for tid, rows in prizes.items()
    }


# -- Pusoy Dos -------------------------------------------------------------------------------------


def due_pusoy_ids(session: Session) -> list[int]:
    return list(
        session.scalars(
            select(PusoyTournament.id)
            .where(PusoyTournament.status == "complete", _unpublished("pusoy", PusoyTournament.id))
            .order_by(PusoyTournament.id)
        )
    )


def pusoy_bundles(session: Session, ids: Sequence[int]) -> list[Bundle | Skipped]:
    """Complete Pusoy Dos tournaments as bundles (6 statements). A tournament without a club goes
    to its organizer's address when one is set, else it is only stored."""
    if not ids:
        return []
    heads = session.execute(
        select(PusoyTournament, Club)
        .outerjoin(Club, Club.id == PusoyTournament.club_id)
        .where(PusoyTournament.id.in_(ids))
        .order_by(PusoyTournament.id)
    ).all()
    standings: dict[tuple[int, int], list] = defaultdict(list)
    for r in session.scalars(
        select(StandingRow)
        .where(StandingRow.tournament_id.in_(ids))
        .order_by(StandingRow.tournament_id, StandingRow.round_no, StandingRow.listed)
    ):
        standings[(r.tournament_id, r.round_no)].append(r)
    playoffs: dict[tuple[int, int, int], list[str]] = defaultdict(list)
    for r in session.execute(
        select(PusoyFinish.tournament_id, PusoyFinish.round_no, PusoyFinish.stage, PusoyFinish.player)
        .where(PusoyFinish.tournament_id.in_(ids), PusoyFinish.stage > 0)
        .order_by(
            PusoyFinish.tournament_id, PusoyFinish.round_no, PusoyFinish.stage, PusoyFinish.position, PusoyFinish.table_no
        )
    ):
        playoffs[(r.tournament_id, r.round_no, r.stage)].append(r.player)
    own_locales = locales.locales(session, "pusoy", list(ids))
    club_locales = locales.locales(session, "club", sorted({club.id for _, club in heads if club is not None}))
    club_logos = logos(session, sorted({club.id for _, club in heads if club is not None}))
    out: list[Bundle | Skipped] = []
    for tournament, club in heads:
        tid = tournament.id
        if tournament.status != "complete" or not tournament.champion:
            out.append(Skipped("pusoy", tid, f"tournament {tid} is {tournament.status}, not complete"))
            continue
        final_round = len(tournament.bracket)
        rounds = []
        for number in range(1, final_round + 1):
            rows = standings[(tid, number)]
            rounds.append(
                PusoyRound(
                    number,
                    tournament.games_per_round,
                    tuple(
                        PusoyStanding(r.rank, r.player, r.points, step_wording(r.decided_by, r.listed), r.advanced)
                        for r in rows
                    ),
                )
            )
        advanced = {(tid, n): {r.player for r in standings[(tid, n)] if r.advanced} for n in range(1, final_round + 1)}
        played = []
        for (t, number, stage), finish in sorted(playoffs.items()):
            if t != tid:
                continue
            spots = 1 if number == final_round else len(advanced[(tid, number)] & set(finish))
            played.append(PusoyPlayoff(number, spots, tuple(finish)))
        sheet = PusoySheet(
            tournament_id=tid,
            tournament=tournament.name,
            club=club.name if club else None,
            held_on=_local_date(tournament.finished_at, club.timezone if club else None),
            capacity=tournament.capacity,
            bracket=tuple(tournament.bracket),
            games_per_round=tournament.games_per_round,
            rounds=tuple(rounds),
            playoffs=tuple(played),
            champion=tournament.champion,
            locale=locales.pusoy_locale(own_locales.get(tid), club_locales.get(club.id) if club else None),
        )
        recipient = club.contact_email if club else tournament.organizer_email
        out.append(Bundle(sheet, club_id=club.id if club else None, recipient=recipient or None,
                          logo=club_logos.get(club.id) if club else None))
    return out


# -- one tournament, and everything due ------------------------------------------------------------


def bundle(session: Session, source: str, tournament_id: int) -> Bundle:
    """One tournament's bundle (for `tourney documents render`), or a clear refusal."""
    if source == "poker":
        found = poker_bundles(session, [tournament_id])
    elif source == "pusoy":
        found = pusoy_bundles(session, [tournament_id])
    else:
        raise DomainError("bad-source", f"source must be poker or pusoy, not {source!r}")
    if not found:
        raise NotFound("tournament-unknown", f"no {source} tournament {tournament_id}")
    if isinstance(found[0], Skipped):
        raise DomainError("not-publishable", found[0].reason)
    return found[0]


# -- a season's standings after each of its tournaments (LG-3) --------------------------------------


def _published_in_seasons():
    """(season_id, tournament_id, publication_id): every counted tournament (LG-1) of every season
    whose results sheet was published."""
    results = aliased(DocumentPublication)
    counted = counted_tournaments().subquery()
    return select(counted.c.season_id, counted.c.tournament_id, results.id.label("publication_id")).join(
        results, and_(results.source == "poker", results.tournament_id == counted.c.tournament_id)
    )


def pending_seasons_sql() -> str:
    """The status report's count of seasons' standings `publish-results` will render next."""
    from sqlalchemy.dialects import postgresql

    published = _published_in_seasons().subquery()
    query = select(func.count()).select_from(published).where(~exists().where(
        DocumentPublication.source == "season",
        DocumentPublication.season_id == published.c.season_id,
        DocumentPublication.tournament_id == published.c.tournament_id,
    ))
    return str(query.compile(dialect=postgresql.dialect(), compile_kwargs={"literal_binds": True}))


def season_bundles(session: Session) -> list[Bundle]:
    """A season's standings after each of its counted tournaments (LG-1) whose results sheet was
    published and whose standings were not, oldest publication first: one bundle per (season,
    tournament). Each counts the season's tournaments whose results were published up to and
    including that tournament's, so a rerun, or a run after a crash, renders the same standings.
    Five statements, then the leagues service's four per bundle."""
    published = session.execute(_published_in_seasons().order_by("season_id", "publication_id")).all()
    if not published:
        return []
    done = set(session.execute(
        select(DocumentPublication.season_id, DocumentPublication.tournament_id).where(
            DocumentPublication.source == "season",
            DocumentPublication.season_id.in_({sid for sid, _, _ in published}),
        )
    ).all())
    due = [(sid, tid, pid) for sid, tid, pid in published if (sid, tid) not in done]
    if not due:
        return []
    heads = {
        season.id: (season, club)
        for season, club in session.execute(
            select(Season, Club).join(Club, Club.id == Season.club_id).where(Season.id.in_({sid for sid, _, _ in due}))
        )
    }
    tournaments = {
        t.id: t for t in session.scalars(select(Tournament).where(Tournament.id.in_({tid for _, tid, _ in due})))
    }
    club_locales = locales.locales(session, "club", sorted({club.id for _, club in heads.values()}))
    out = []
    for sid, tid, pid in due:
        season, club = heads[sid]
        within = [t for s, t, p in published if s == sid and p <= pid]
        _, counted_ids, named = season_standings(session, sid, within)
        t = tournaments[tid]
        sheet = SeasonSheet(
            season_id=sid,
            season=season.name,
            club=club.name,
            date_from=season.date_from,
            date_until=season.date_to - timedelta(days=1),
            tournament_id=tid,
            tournament=t.name,
            held_on=_local_date(t.finished_at, club.timezone),
            tournaments=len(counted_ids),
            formula=season.formula,
            points_table=tuple(Decimal(v) for v in season.points_table),
            shared=season.shared,
            bonus=season.knockout_bonus,
            best_k=season.best_k,
            rows=tuple(
                SeasonRow(n.standing.rank, n.name, n.standing.total, n.standing.counted, n.standing.played,
                          n.standing.firsts, n.standing.best)
                for n in named
            ),
            locale=locales.poker_locale(club_locales.get(club.id)),
        )
        out.append(Bundle(sheet, club_id=club.id, recipient=club.contact_email))
    return out


def due(session: Session) -> list[Bundle | Skipped]:
    """Every finished poker and complete Pusoy Dos tournament not yet published."""
    return poker_bundles(session, due_poker_ids(session)) + pusoy_bundles(session, due_pusoy_ids(session))
