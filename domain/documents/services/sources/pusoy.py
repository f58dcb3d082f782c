"""Complete Pusoy Dos tournaments as bundles (area pusoy): locked round standings with the
deciding step, playoff finishes, the champion, with the club's name, contact address, timezone,
language and logo when the tournament has a club."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domain.clubs.rules.logo import Logo
from domain.clubs.services.logos import logos
from domain.clubs.tables import Club
from domain.documents.rules.model import (
    N_,
    Bundle,
    PusoyPlayoff,
    PusoyRound,
    PusoySheet,
    PusoyStanding,
)
from domain.documents.services import locales
from domain.documents.services.sources.shared import Skipped, local_date, unpublished
from domain.poker.tables.tournaments import Player
from domain.pusoy.tables import PusoyFinish, PusoyTournament
from domain.pusoy.tables import PusoyStanding as StandingRow

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
class _Rows:
    """What the statements loaded for all the tournaments."""

    standings: dict[tuple[int, int], list]  # (tournament id, round): the locked standing rows, listed in order
    playoffs: dict[tuple[int, int, int], list[str]]  # (tournament id, round, stage): the players by finish
    own_locales: dict[int, str]  # by tournament id
    club_locales: dict[int, str]  # by club id
    logos: dict[int, Logo]  # by club id


def step_wording(decided_by: str | None, listed: int) -> str | None:
    if listed == 1:
        return None
    if decided_by is None:
        return N_("level: shared rank")
    if decided_by.startswith("playoff"):
        return N_("the playoff")
    return STEP_WORDING.get(decided_by, decided_by)


def due_pusoy_ids(session: Session) -> list[int]:
    return list(
        session.scalars(
            select(PusoyTournament.id)
            .where(PusoyTournament.status == "complete", unpublished("pusoy", PusoyTournament.id))
            .order_by(PusoyTournament.id)
        )
    )


def pusoy_bundles(session: Session, ids: Sequence[int]) -> list[Bundle | Skipped]:
    """Complete Pusoy Dos tournaments as bundles (6 statements). A tournament without a club goes
    to its organizer's address when one is set, else it is only stored."""
    if not ids:
        return []
    heads = session.execute(
        select(PusoyTournament, Club, Player.name)
        .outerjoin(Club, Club.id == PusoyTournament.club_id)
        .outerjoin(Player, func.lower(Player.handle) == func.lower(PusoyTournament.champion))
        .where(PusoyTournament.id.in_(ids))
        .order_by(PusoyTournament.id)
    ).all()
    club_ids = sorted({club.id for _, club, _ in heads if club is not None})
    rows = _Rows(
        standings=_standings(session, ids),
        playoffs=_playoffs(session, ids),
        own_locales=locales.locales(session, "pusoy", list(ids)),
        club_locales=locales.locales(session, "club", club_ids),
        logos=logos(session, club_ids),
    )
    return [_bundle(tournament, club, rows, name) for tournament, club, name in heads]


def _standings(session: Session, ids: Sequence[int]) -> dict[tuple[int, int], list]:
    standings: dict[tuple[int, int], list] = defaultdict(list)
    for r in session.scalars(
        select(StandingRow)
        .where(StandingRow.tournament_id.in_(ids))
        .order_by(StandingRow.tournament_id, StandingRow.round_no, StandingRow.listed)
    ):
        standings[(r.tournament_id, r.round_no)].append(r)
    return standings


def _playoffs(session: Session, ids: Sequence[int]) -> dict[tuple[int, int, int], list[str]]:
    playoffs: dict[tuple[int, int, int], list[str]] = defaultdict(list)
    for r in session.execute(
        select(PusoyFinish.tournament_id, PusoyFinish.round_no, PusoyFinish.stage, PusoyFinish.player)
        .where(PusoyFinish.tournament_id.in_(ids), PusoyFinish.stage > 0)
        .order_by(
            PusoyFinish.tournament_id,
            PusoyFinish.round_no,
            PusoyFinish.stage,
            PusoyFinish.position,
            PusoyFinish.table_no,
        )
    ):
        playoffs[(r.tournament_id, r.round_no, r.stage)].append(r.player)
    return playoffs


def _bundle(tournament: PusoyTournament, club: Club | None, rows: _Rows, name: str | None) -> Bundle | Skipped:
    """One tournament's bundle, or why it cannot be published yet."""
    tid = tournament.id
    if tournament.status != "complete" or not tournament.champion:
        return Skipped("pusoy", tid, f"tournament {tid} is {tournament.status}, not complete")
    sheet = PusoySheet(
        tournament_id=tid,
        tournament=tournament.name,
        club=club.name if club else None,
        held_on=local_date(tournament.finished_at or tournament.created_at, club.timezone if club else None),
        capacity=tournament.capacity,
        bracket=tuple(tournament.bracket),
        games_per_round=tournament.games_per_round,
        rounds=_rounds(tournament, rows.standings),
        playoffs=_played(tournament, rows.standings, rows.playoffs),
        champion=tournament.champion,
        champion_name=name,
        locale=locales.pusoy_locale(
            rows.own_locales.get(tid), club.id if club else None, rows.club_locales.get(club.id) if club else None
        ),
    )
    recipient = club.contact_email if club else tournament.organizer_email
    return Bundle(
        sheet,
        club_id=club.id if club else None,
        recipient=recipient or None,
        logo=rows.logos.get(club.id) if club else None,
    )


def _rounds(tournament: PusoyTournament, standings: dict[tuple[int, int], list]) -> tuple[PusoyRound, ...]:
    """Each round's locked standings, with the step that lists a player below the one above."""
    return tuple(
        PusoyRound(
            number,
            tournament.games_per_round,
            tuple(
                PusoyStanding(r.rank, r.player, r.points, step_wording(r.decided_by, r.listed), r.advanced)
                for r in standings[(tournament.id, number)]
            ),
        )
        for number in range(1, len(tournament.bracket) + 1)
    )


def _played(
    tournament: PusoyTournament, standings: dict[tuple[int, int], list], playoffs: dict[tuple[int, int, int], list[str]]
) -> tuple[PusoyPlayoff, ...]:
    """The playoffs played, in order, each with the spots it decided (the final's: the champion)."""
    tid, final_round = tournament.id, len(tournament.bracket)
    advanced = {(tid, n): {r.player for r in standings[(tid, n)] if r.advanced} for n in range(1, final_round + 1)}
    played = []
    for (t, number, stage), finish in sorted(playoffs.items()):
        if t != tid:
            continue
        spots = 1 if number == final_round else len(advanced[(tid, number)] & set(finish))
        played.append(PusoyPlayoff(number, spots, tuple(finish)))
    return tuple(played)
