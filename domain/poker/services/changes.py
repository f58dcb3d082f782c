"""A poker tournament's change key: one short statement whose answer changes whenever any row the
club's screen, its live results or the desk read of the tournament changes, and stays the same
while none does (docs/desk.md#speed). The event streams poll it, and the desk state is built once per
key for every desk that asks (flows/web/api/desk.py).

PostgreSQL stamps every row version with the transaction that wrote it (`xmin`): an insert or an
update gives the row a newer one, a delete takes the row away. Per table, the count of the
tournament's rows and the sum of their `xmin` therefore change with every committed insert, update or
delete of them, and with nothing else (a read, a row lock, a rolled-back write leave both alone).

The key covers every `poker_` table with a `tournament_id` column, found in the metadata (a new table
is in it without a word here), but the two kept only for the record (`UNSHOWN`), and the rows the
tournament reaches through another table (`REACHED`): itself, its club and the club's language, its
blind structure and levels, its players' names and handles, the shares of its knockouts, the charges
of its dead stacks. tests/integration/test_change_key.py checks that every table those readers read is
covered."""

from __future__ import annotations

from functools import cache

from sqlalchemy import text
from sqlalchemy.orm import Session

from domain.poker.tables import clock_seating, knockouts_places, moments, tournaments  # noqa: F401 (their tables)
from domain.store.base import Base

UNSHOWN = frozenset({"poker_audit", "poker_clock_events"})  # append-only records no page or desk reads
# table -> how its rows of the tournament `t` are reached
REACHED = {
    "poker_tournaments": "FROM poker_tournaments x WHERE x.id = t.id",
    "clubs": "FROM clubs x WHERE x.id = t.club_id",
    "document_locales": "FROM document_locales x WHERE x.scope = 'club' AND x.ref_id = t.club_id",
    "poker_structures": "FROM poker_structures x WHERE x.id = t.structure_id",
    "poker_levels": "FROM poker_levels x WHERE x.structure_id = t.structure_id",
    "players": "FROM players x JOIN poker_registrations r ON r.player_id = x.id WHERE r.tournament_id = t.id",
    "poker_knockout_shares": (
        "FROM poker_knockout_shares x JOIN poker_knockouts k ON k.id = x.knockout_id WHERE k.tournament_id = t.id"
    ),
    "poker_dead_stack_charges": (
        "FROM poker_dead_stack_charges x JOIN poker_dead_stacks d ON d.id = x.dead_stack_id"
        " WHERE d.tournament_id = t.id"
    ),
}


def covered() -> dict[str, str]:
    """Every table the key covers, with how the tournament's rows of it are reached."""
    own = {
        name: f"FROM {name} x WHERE x.tournament_id = t.id"
        for name, table in Base.metadata.tables.items()
        if name.startswith("poker_") and "tournament_id" in table.c and name not in UNSHOWN
    }
    return dict(sorted((own | REACHED).items()))


@cache
def _statement():
    terms = ",\n  ".join(
        f"(SELECT count(*) || ':' || coalesce(sum(x.xmin::text::bigint), 0) {rows})" for rows in covered().values()
    )
    return text(f"SELECT md5(concat_ws('|',\n  {terms}))\nFROM poker_tournaments t WHERE t.id = :id")


def change_key(session: Session, tournament_id: int) -> str | None:
    """The tournament's change key; None when there is no such tournament."""
    return session.execute(_statement(), {"id": tournament_id}).scalar_one_or_none()
