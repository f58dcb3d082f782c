"""What the documents say (RULES DOC-1..DOC-5, LG-3): the data of a results sheet, of a certificate
and of a season's standings, as frozen dataclasses built by the services from the poker, Pusoy Dos
and leagues read services.

Nothing here renders: the Jinja2 + WeasyPrint adapter (`infra.render`) turns these into PDFs.
Names and prize lines are user text, kept as given; the templates escape them (DOC-3).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Literal

from domain.clubs.rules.logo import Logo
from domain.pusoy.rules import advancement
from domain.pusoy.rules.standings import Standing

Source = Literal["poker", "pusoy"]
SERIAL_PREFIX: dict[str, str] = {"poker": "SP", "pusoy": "PD"}
LOCALES = ("ru", "en")  # the documents' languages (DOC-4)
# Without a choice: Russian for a Sport Poker club, English for Pusoy Dos (its organizer chooses).
DEFAULT_LOCALE: dict[str, str] = {"poker": "ru", "pusoy": "en"}


def N_(message: str) -> str:
    """Marks a message for extraction into the catalogs (infra/catalogs.py); translated where shown."""
    return message


CHAMPION = N_("Champion")
PRIZE_WINNER = N_("Prize winner")


def locale_problem(locale: str) -> str | None:
    if locale not in LOCALES:
        return f"the documents' language must be one of {', '.join(LOCALES)}, not {locale!r}"
    return None


@dataclass(frozen=True)
class PokerPlace:
    place: int
    player: str
    knockouts: Decimal  # total knockout credit across the player's entries (3.7): 2.5 is possible
    prize: str | None  # the prize line of this place (non-monetary, SP-4), None outside the prize places
    credit_text: str | None = None  # SP-10: the exact credit when shares are not halves ("1/3")
    pko_points: int | None = None  # SP-9: the player's PKO total (rating points, never money)


@dataclass(frozen=True)
class SheetOption:
    """One SP-9..SP-12 setting that differs from the default, as data: the sheet's template words it
    in the sheet's language (`kind` picks the wording; no rule id is printed)."""

    kind: str  # pko-head | shared-knockouts | rebuy-until | rebuy-until-level | rebuy-limit | reentry-limit | mystery
    number: int | None = None  # the head, the level, the limit; mystery: the level of `level:N`
    at: datetime | None = None  # rebuy-until: the instant, in the club's timezone
    phase: str | None = None  # mystery: start | itm | level
    per: str | None = None  # mystery: per_killer_entry | per_knockout


@dataclass(frozen=True)
class PokerSheet:
    """The results sheet of a finished live poker tournament."""

    tournament_id: int
    tournament: str
    club: str
    held_on: date  # the day the tournament finished, in the club's timezone
    entries: int  # every non-voided entry, re-entries included (SP-3)
    reentries: int
    addons: int
    prize_places: int  # the places that carry prizes (SP-3): "prize places", never "paid" (DOC-4)
    places: tuple[PokerPlace, ...]  # best first; shared places (SP-7) appear once per player
    rebuys: int = 0
    locale: str = "en"
    options: tuple[SheetOption, ...] = ()  # SP-9..SP-12 settings that differ from the defaults
    mystery_prizes: tuple[tuple[str, int | None], ...] = ()  # SP-11: (prize, its draw's number | None: undrawn)
    mystery_seed: str | None = None  # SP-11: the seed revealed at the finish


@dataclass(frozen=True)
class PusoyStanding:
    rank: int
    player: str
    points: int
    decided_by: str | None  # the PD-7 step (or "playoff") that put this player below the one above
    advanced: bool


@dataclass(frozen=True)
class PusoyRound:
    number: int
    games: int
    standings: tuple[PusoyStanding, ...]


@dataclass(frozen=True)
class PusoyPlayoff:
    round_number: int
    spots: int  # the contested places
    finish: tuple[str, ...]  # the tied players in the playoff's finishing order


@dataclass(frozen=True)
class PusoySheet:
    """The results sheet of a complete Pusoy Dos tournament."""

    tournament_id: int
    tournament: str
    club: str | None
    held_on: date
    capacity: int
    bracket: tuple[int, ...]  # players per round: 16, 8, 4
    games_per_round: int
    rounds: tuple[PusoyRound, ...]
    playoffs: tuple[PusoyPlayoff, ...]
    champion: str
    locale: str = "en"
    champion_name: str | None = None  # the champion's full name, on their own certificate (AC-5); None: the handle

    @property
    def final_standings(self) -> tuple[FinalStanding, ...]:
        return final_standings(self)


@dataclass(frozen=True)
class FinalStanding:
    position: int
    player: str
    round_left: int  # the last round the player played (the final round for the final table)


def final_standings(sheet: PusoySheet) -> tuple[FinalStanding, ...]:
    """PD-13: the champion 1st, the rest of the final table by final-round rank, then each earlier
    round's eliminated players below everyone who went further, by their rank in the round they left.
    The positions are the Pusoy Dos area's own rule (`advancement.final_standings`, which also sets
    the entries' final positions the public page shows): players level after all eight steps share a
    place (PD-8), listed by name."""
    if not sheet.rounds:
        return (FinalStanding(1, sheet.champion, 0),)
    ranked = [[Standing(row.player, row.points, row.rank, None) for row in r.standings] for r in sheet.rounds]
    advanced = [[row.player for row in r.standings if row.advanced] for r in sheet.rounds[:-1]] + [[]]
    left = {row.player: r.number for r in sheet.rounds for row in r.standings}  # the last round played
    return tuple(
        FinalStanding(position, player, left[player])
        for player, position in advancement.final_standings(ranked, advanced)
    )


@dataclass(frozen=True)
class SeasonRow:
    rank: int  # LG-3: players still level share a rank
    player: str
    total: Decimal  # the sum of the counted (best K) results
    counted: int
    played: int
    firsts: int
    best: Decimal


@dataclass(frozen=True)
class SeasonSheet:
    """A season's standings (LG-3) after one of its tournaments: the season's tournaments whose
    results were published up to and including that tournament's."""

    season_id: int
    season: str
    club: str
    date_from: date
    date_until: date  # the season's last day (its range [from, to) ends the day before `to`)
    tournament_id: int  # the tournament after which these standings are
    tournament: str
    held_on: date  # the day that tournament finished, in the club's timezone
    tournaments: int  # how many of the season's tournaments count so far
    formula: str  # LG-2: table | sqrt
    points_table: tuple[Decimal, ...]
    shared: str  # LG-2: best | average
    bonus: Decimal | None
    best_k: int | None
    rows: tuple[SeasonRow, ...]  # ranked best first
    locale: str = "ru"


@dataclass(frozen=True)
class Certificate:
    """One certificate: a prize winner of a poker tournament, or a champion (DOC-1, DOC-2)."""

    serial: str
    source: Source
    tournament_id: int
    tournament: str
    club: str | None
    held_on: date
    player: str
    place: int
    prize: str | None
    title: str  # "Champion" or "Prize winner" (the English message; printed in the locale)
    locale: str = "en"


def serial(source: Source, tournament_id: int, ordinal: int) -> str:
    """A certificate's serial: source, tournament and the certificate's ordinal within it
    (`SP-000042-01`). Stable: publishing the same tournament again gives the same serials."""
    return f"{SERIAL_PREFIX[source]}-{tournament_id:06d}-{ordinal:02d}"


def poker_certificates(sheet: PokerSheet) -> tuple[Certificate, ...]:
    """One certificate per prize winner, and one for the champion (place 1) with or without a
    prize (DOC-1); in the sheet's order (best place first)."""
    chosen = [p for p in sheet.places if p.prize or p.place == 1]
    return tuple(
        Certificate(
            serial=serial("poker", sheet.tournament_id, i),
            source="poker",
            tournament_id=sheet.tournament_id,
            tournament=sheet.tournament,
            club=sheet.club,
            held_on=sheet.held_on,
            player=p.player,
            place=p.place,
            prize=p.prize,
            title=CHAMPION if p.place == 1 else PRIZE_WINNER,
            locale=sheet.locale,
        )
        for i, p in enumerate(chosen, start=1)
    )


def pusoy_certificates(sheet: PusoySheet) -> tuple[Certificate, ...]:
    """A Pusoy Dos tournament has no prizes: one certificate, the champion's (DOC-1), carrying the full
    name of the player whose handle won (their own certificate, AC-5); the results sheet keeps handles."""
    return (
        Certificate(
            serial=serial("pusoy", sheet.tournament_id, 1),
            source="pusoy",
            tournament_id=sheet.tournament_id,
            tournament=sheet.tournament,
            club=sheet.club,
            held_on=sheet.held_on,
            player=sheet.champion_name or sheet.champion,
            place=1,
            prize=None,
            title=CHAMPION,
            locale=sheet.locale,
        ),
    )


@dataclass(frozen=True)
class Bundle:
    """Everything one tournament publishes: its sheet (the certificates follow from it), where its
    files go and who receives them (None: stored only)."""

    sheet: PokerSheet | PusoySheet | SeasonSheet
    club_id: int | None
    recipient: str | None
    logo: Logo | None = None  # the club's, on the sheet and the certificates (not signed data)

    @property
    def source(self) -> Literal["poker", "pusoy", "season"]:
        if isinstance(self.sheet, SeasonSheet):
            return "season"
        return "poker" if isinstance(self.sheet, PokerSheet) else "pusoy"

    @property
    def certificates(self) -> tuple[Certificate, ...]:
        if isinstance(self.sheet, PokerSheet):
            return poker_certificates(self.sheet)
        if isinstance(self.sheet, PusoySheet):
            return pusoy_certificates(self.sheet)
        return ()  # a season's standings certify nothing

    @property
    def folder(self) -> str:
        """`<club>/<tournament>` (a season's standings: `<club>/season-<id>-<name>`) under the outbox:
        ids first (unique), names for people."""
        club = f"{self.club_id}-{_safe(self.sheet.club)}" if self.club_id is not None else "no-club"
        if isinstance(self.sheet, SeasonSheet):
            return f"{club}/season-{self.sheet.season_id}-{_safe(self.sheet.season)}"
        return f"{club}/{self.source}-{self.sheet.tournament_id}-{_safe(self.sheet.tournament)}"

    @property
    def results_file(self) -> str:
        """The sheet's file name: `results.pdf`, or `standings-after-<tournament id>.pdf` (a season's
        folder holds one after each of its tournaments)."""
        if isinstance(self.sheet, SeasonSheet):
            return f"standings-after-{self.sheet.tournament_id}.pdf"
        return "results.pdf"


def _safe(name: str | None) -> str:
    """A name as a folder name: letters (any alphabet) and digits, runs of anything else as '-'."""
    return "-".join("".join(ch if ch.isalnum() else " " for ch in name or "").split())[:60] or "unnamed"
