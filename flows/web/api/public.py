"""Public reads for integrators and clubs' sites (`security: []`; issue 38): a club's tournaments, a
tournament's live state with its places and knockouts, a Pusoy Dos cup's bracket and standings, a
season's standings. What the public pages show and nothing more: players by their handles (AC-5),
drafts and unlisted clubs' objects not found, a private cup by its code alone (PD-3). Each answer
carries an ETag and `Cache-Control: public` (edge.py); the widget (`/widget/t/{id}`) shows the same."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Annotated
from zoneinfo import ZoneInfo

from fastapi import Query
from pydantic import BaseModel, Field

from domain.access.services import targets
from domain.clubs.rules.status import Listing
from domain.clubs.tables import Club
from domain.errors import NotFound
from domain.poker.services import tournaments as tournament_service
from domain.public.services import views
from flows.web.api.core import PAGED, Code, Cursor, Id, Limit, Op, Operations, anywhere
from flows.web.api.play import Cup

ops = Operations("public")
router = ops.router
SHOWN = ("registration_open", "running", "finished", "cancelled")  # a draft is its club's alone


class PublicTournament(BaseModel):
    id: int
    name: str
    status: str
    scheduled_start: datetime
    format: str
    buy_in: int = Field(description="minor units of `currency`")
    currency: str


class NextLevel(BaseModel):
    level: int
    small_blind: int
    big_blind: int
    ante: int


class Clock(BaseModel):
    status: str
    level: int | None
    levels: int
    is_break: bool
    small_blind: int | None
    big_blind: int | None
    ante: int | None
    bb_ante: bool
    time_left_s: int | None
    counts_to: datetime | None
    level_ends_at: datetime | None
    next_break_in_s: int | None
    next_break_at: datetime | None
    next_level: NextLevel | None
    stopped_at: datetime | None


class Screen(BaseModel):
    tournament_id: int
    name: str
    club: str
    timezone: str
    locale: str
    status: str
    server_now: datetime
    scheduled_start: datetime
    clock: Clock
    entries: int
    players: int
    registered: int
    players_left: int
    prize_places: int
    remaining_to_money: int
    on_bubble: bool
    in_money: bool
    prizes: list[str | None]
    winners: list[str] = Field(description="handles")


class Place(BaseModel):
    place: int
    player: str = Field(description="the handle (AC-5)")
    knockouts: int | None
    prize: str | None


class Knockout(BaseModel):
    bust_number: int
    level: int | None
    recorded_at: datetime
    voided: bool
    busted: str
    killer: str | None
    killers: list[str] = Field(description="every killer of a shared bust (SP-10), by handle")


class Season(BaseModel):
    id: int
    season: str
    club_id: int


class LiveTournament(BaseModel):
    screen: Screen
    places: list[Place]
    knockouts: list[Knockout]
    seasons: list[Season]


class CupRound(BaseModel):
    round: int
    field: int
    advancing: int
    status: str
    playoffs: int
    standings: list[dict[str, str | int | bool | None]]


class CupTable(BaseModel):
    playoff: int
    table: int
    players: list[str]


class FinalPosition(BaseModel):
    position: int
    player: str
    left_round: int | None


class PublicCup(Cup):
    locale: str
    rounds: list[CupRound]
    tables: list[CupTable]
    final: list[FinalPosition]
    next_draw_commitment: str | None


class SeasonTournament(BaseModel):
    id: int
    name: str
    day: date


class SeasonRow(BaseModel):
    rank: int
    player: str = Field(description="the handle (AC-5)")
    total: Decimal = Field(description="points, a decimal string")
    counted: int
    played: int
    firsts: int
    best: Decimal


class SeasonStandings(BaseModel):
    id: int
    season: str
    club: str
    club_id: int
    locale: str
    date_from: date
    date_until: date
    formula: str
    points_table: list[Decimal] = Field(description="points by place, decimal strings (LG-2)")
    shared: str
    bonus: Decimal | None = Field(description="points per knockout, a decimal string")
    best_k: int | None
    tournaments: list[SeasonTournament]
    rows: list[SeasonRow]


def _listed_club(club_id: int):
    """A listed club's target; an unlisted one is not found, as a missing one."""

    def locate(session):
        found = targets.club(session, club_id)
        listed = found is not None and session.get(Club, club_id).listing_status == Listing.LISTED
        return (found if listed else None), NotFound("club-not-found", f"no club {club_id}")

    return locate


@ops.get(
    "/public/clubs/{club_id}/tournaments",
    "public.tournaments",
    response=list[PublicTournament],
    responses={200: {"description": "a page of the club's announced tournaments", "headers": PAGED}},
)
def club_tournaments(
    op: Op,
    club_id: Id,
    status: Annotated[str | None, Query(pattern="^(registration_open|running|finished|cancelled)$")] = None,
    date_from: Annotated[date | None, Query(description="starting on this day or later (the club's calendar)")] = None,
    date_to: Annotated[date | None, Query(description="starting on this day or earlier (the club's calendar)")] = None,
    limit: Limit = 50,
    cursor: Cursor = None,
):
    """A listed club's announced tournaments (no drafts), by their start, a page at a time."""

    def do(s, actor, now):
        zone = ZoneInfo(s.get(Club, club_id).timezone)
        day = lambda r: r["scheduled_start"].astimezone(zone).date()  # noqa: E731
        rows = [
            r
            for r in tournament_service.list_tournaments(s, club_id=club_id, status=status)
            if r["status"] in SHOWN
            and (date_from is None or day(r) >= date_from)
            and (date_to is None or day(r) <= date_to)
        ]
        return op.page(rows, lambda r: (r["scheduled_start"], r["id"]), limit, cursor)

    return op.run(_listed_club(club_id), do, describe=f"club {club_id}")


@ops.get("/public/tournaments/{tournament_id}", "public.tournament", response=LiveTournament)
def tournament(op: Op, tournament_id: Id):
    """A tournament as its public page shows it, live: the clock, the field, the money, the places as
    they fall and every knockout (players by handle, AC-5); a draft is not found."""

    def do(s, actor, now):
        try:
            return views.poker_results(s, tournament_id, now)
        except NotFound:  # a draft answers as a missing one (AC-2)
            raise NotFound("tournament-not-found", f"no tournament {tournament_id}") from None

    return op.run(anywhere, do, describe=f"tournament {tournament_id}")


@ops.get("/public/cups/{code}", "public.cup", response=PublicCup, errors=(429,))
def cup(op: Op, code: Code):
    """A Pusoy Dos cup's bracket: its rounds with their standings, the tables now, the final positions
    (PD-7, PD-13); a private cup by its code alone (PD-3: guessing is throttled)."""
    return op.run(anywhere, lambda s, actor, now: views.pusoy_page(s, code), describe=f"cup {code.upper()}", code=code)


@ops.get("/public/seasons/{season_id}", "public.season", response=SeasonStandings)
def season(op: Op, season_id: Id):
    """A season's standings now (LG-3), its counted tournaments; a season of an unlisted club is not found."""
    return op.run(anywhere, lambda s, actor, now: views.season(s, season_id), describe=f"season {season_id}")
