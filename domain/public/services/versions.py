"""The versions of the public pages: one short statement a page, whose answer changes whenever a row the
page shows changes and stays the same while none does, so the web keeps a page's rendered bytes until
its version moves (flows/web/cached.py, docs/web.md#caching).

Each is built the way a poker tournament's change key is (domain/poker/services/changes.py): per table,
the count of the page's rows and the sum of their `xmin` (the transaction that wrote each row version),
which change with every committed insert, update or delete of them and with nothing else. The text of
each statement is put together once a process from the metadata and constants, never when it runs."""

from __future__ import annotations

from functools import cache

from sqlalchemy import text
from sqlalchemy.orm import Session

from domain.documents import tables as _documents  # noqa: F401 (their tables)
from domain.leagues import tables as _leagues  # noqa: F401
from domain.poker.services import changes
from domain.pusoy import tables as _pusoy  # noqa: F401
from domain.series import tables as _series  # noqa: F401
from domain.store.base import Base

# a poker tournament's results page: its change key's rows, and the league seasons it counts for (LG-1:
# its club's seasons, their series, the picked tournaments, the series occurrence it was played as)
SEASONS = {
    "league_seasons": "FROM league_seasons x WHERE x.club_id = t.club_id",
    "league_season_series": (
        "FROM league_season_series x JOIN league_seasons s ON s.id = x.season_id WHERE s.club_id = t.club_id"
    ),
    "league_season_tournaments": "FROM league_season_tournaments x WHERE x.tournament_id = t.id",
    "series_occurrence": "FROM series_occurrence x WHERE x.tournament_id = t.id",
}
LOGO = {"club_logos": "FROM club_logos x WHERE x.club_id = t.club_id"}  # the club's logo, on its results page
CUP_UNSHOWN = frozenset({"pusoy_game_audit"})  # kept for the record; the page reads none of it
CUP_REACHED = {
    "pusoy_tournaments": "FROM pusoy_tournaments x WHERE x.id = t.id",
    "document_locales": (
        "FROM document_locales x WHERE (x.scope = 'pusoy' AND x.ref_id = t.id)"
        " OR (x.scope = 'club' AND x.ref_id = t.club_id)"
    ),
}
# the front page: every tournament, club, cup and season it may list (a few hundred rows, one scan each)
FRONT = ("poker_tournaments", "clubs", "pusoy_tournaments", "league_seasons")


def _terms(reached: dict[str, str]) -> str:
    return ",\n  ".join(
        f"(SELECT count(*) || ':' || coalesce(sum(x.xmin::text::bigint), 0) {rows})" for rows in reached.values()
    )


def cup_covered() -> dict[str, str]:
    """Every table a cup's page version covers, with how the cup's rows of it are reached."""
    own = {
        name: f"FROM {name} x WHERE x.tournament_id = t.id"
        for name, table in Base.metadata.tables.items()
        if name.startswith("pusoy_") and "tournament_id" in table.c and name not in CUP_UNSHOWN
    }
    return dict(sorted((own | CUP_REACHED).items()))


@cache
def _results():
    return text(
        f"SELECT md5(concat_ws('|',\n  {_terms(changes.covered() | SEASONS | LOGO)}))\n"
        "FROM poker_tournaments t WHERE t.id = :id AND t.status <> 'draft'"
    )


@cache
def _cup():
    return text(
        f"SELECT md5(concat_ws('|',\n  {_terms(cup_covered())}))\nFROM pusoy_tournaments t WHERE t.code = :code"
    )


@cache
def _front():
    return text(f"SELECT md5(concat_ws('|',\n  {_terms({name: f'FROM {name} x' for name in FRONT})}))")


def results(session: Session, tournament_id: int) -> str | None:
    """The version of a poker tournament's public pages (results, screen, widget); None when there is no
    such tournament or it is a draft (AC-2: not public yet)."""
    return session.execute(_results(), {"id": tournament_id}).scalar_one_or_none()


def cup(session: Session, code: str) -> str | None:
    """The version of a Pusoy Dos cup's page; None when no cup has the code."""
    return session.execute(_cup(), {"code": code}).scalar_one_or_none()


def front(session: Session) -> str:
    """The version of the front page."""
    return session.execute(_front()).scalar_one()
