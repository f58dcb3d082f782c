"""Poker results: final places (3.7, SP-7) of a 100,000-entry tournament with 20% re-entries and
blocks of simultaneous busts — the pure rule over in-memory rows beside the same computed from the
database (two SELECTs, then the rule). Median time and peak memory of each (targets for the pure
rule: under 1 s and under 300 MB)."""

from __future__ import annotations

import random
import time
from datetime import UTC, date, datetime

from sqlalchemy import insert, select, text

from bench.harness import Report, peak_memory
from domain.clubs.tables import Club
from domain.poker.rules.places import LiveKnockout, PlacedEntry, final_places
from domain.poker.services.results import compute_places
from domain.poker.tables.knockouts_places import Knockout
from domain.poker.tables.tournaments import (
    Entry,
    Player,
    Registration,
    Structure,
    Tournament,
)
from domain.store.db import StatementCounter, unit_of_work
from flows import bootstrap

ENTRIES = 100_000
REENTRIES = ENTRIES // 5
NOW = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


def elimination_graph(seed: int = 7) -> tuple[list[PlacedEntry], list[LiveKnockout]]:
    """80,000 players, 20,000 re-entries; about 5% of the busts are blocks of 2 or 3."""
    rng = random.Random(seed)
    players = ENTRIES - REENTRIES
    entries = [PlacedEntry(n, n, 1) for n in range(1, players + 1)]
    active = [e.entry_id for e in entries]
    sequence = {n: 1 for n in range(1, players + 1)}
    player_of = {n: n for n in range(1, players + 1)}
    knockouts: list[LiveKnockout] = []
    reentries_left = REENTRIES
    number = 0
    while len(active) > 1:
        number += 1
        size = 1 if rng.random() < 0.95 else rng.randint(2, 3)
        size = min(size, len(active) - 1)
        busted = []
        for _ in range(size):
            i = rng.randrange(len(active))
            active[i], active[-1] = active[-1], active[i]
            busted.append(active.pop())
        killer = active[rng.randrange(len(active))]
        for entry_id in busted:
            knockouts.append(LiveKnockout(entry_id, number, killer, 1 if rng.random() < 0.05 else 2))
            if reentries_left and rng.random() < 0.3:
                reentries_left -= 1
                player = player_of[entry_id]
                sequence[player] += 1
                new_id = len(entries) + 1
                entries.append(PlacedEntry(new_id, player, sequence[player]))
                player_of[new_id] = player
                active.append(new_id)
    return entries, knockouts


def _load(entries: list[PlacedEntry], knockouts: list[LiveKnockout]) -> int:
    """Writes the graph as one tournament (ids offset past what is there); returns its id."""
    engine = bootstrap.engine()
    with unit_of_work(engine) as s:
        club = Club(
            name="Bench club",
            legal_form="legal_entity",
            inn="7707083893",
            ogrn="1027700132195",
            contact_email="bench@example.org",
            timezone="Europe/Moscow",
            created_at=NOW,
            updated_at=NOW,
        )
        s.add(club)
        s.flush()
        structure = Structure(club_id=club.id, name="Bench", ante_type="none", created_at=NOW)
        s.add(structure)
        s.flush()
        t = Tournament(
            club_id=club.id,
            name="Bench 100k",
            status="running",
            scheduled_start=NOW,
            format="reentry",
            bounty_type="classic",
            mystery_draw=False,
            starting_stack=20000,
            structure_id=structure.id,
            seat_cap=9,
            addon_once=True,
            currency="RUB",
            buy_in=0,
            no_show_policy="drop",
            itm_percent=15,
            itm_min=1,
            created_at=NOW,
        )
        s.add(t)
        s.flush()
        base = {
            table: s.scalar(text(f"SELECT coalesce(max(id), 0) FROM {table}"))
            for table in ("players", "poker_registrations", "poker_entries")
        }
        players = sorted({e.player_id for e in entries})
        s.execute(
            insert(Player),
            [
                {
                    "id": base["players"] + p,
                    "pseudonym": f"bench-{t.id}-{p}",
                    "name": f"Player {p}",
                    "handle": f"bench{t.id}x{p}",
                    "birth_date": date(1990, 1, 1),
                    "created_at": NOW,
                }
                for p in players
            ],
        )
        s.execute(
            insert(Registration),
            [
                {
                    "id": base["poker_registrations"] + p,
                    "tournament_id": t.id,
                    "player_id": base["players"] + p,
                    "status": "active",
                    "late": False,
                    "registered_at": NOW,
                }
                for p in players
            ],
        )
        busted = {k.busted_entry_id for k in knockouts}
        previous: dict[int, int] = {}
        rows = []
        for e in sorted(entries, key=lambda e: (e.player_id, e.order)):
            rows.append(
                {
                    "id": base["poker_entries"] + e.entry_id,
                    "tournament_id": t.id,
                    "player_id": base["players"] + e.player_id,
                    "registration_id": base["poker_registrations"] + e.player_id,
                    "sequence": e.order,
                    "previous_entry_id": previous.get(e.player_id),
                    "starting_chips": 20000,
                    "created_at": NOW,
                    "state": "busted" if e.entry_id in busted else "active",
                    "busted_at": NOW if e.entry_id in busted else None,
                }
            )
            previous[e.player_id] = base["poker_entries"] + e.entry_id
        s.execute(insert(Entry), rows)
        s.execute(
            insert(Knockout),
            [
                {
                    "tournament_id": t.id,
                    "busted_entry_id": base["poker_entries"] + k.busted_entry_id,
                    "killer_entry_id": base["poker_entries"] + k.killer_entry_id,
                    "bust_number": k.bust_number,
                    "credit_halves": k.credit_halves,
                    "recorded_at": NOW,
                    "recorded_by": "bench",
                }
                for k in knockouts
            ],
        )
        for table in base:
            s.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"))
        return t.id


def run(report: Report) -> None:
    entries, knockouts = elimination_graph()
    blocks = len(knockouts) - len({k.bust_number for k in knockouts})
    report.note(
        "final places 100k",
        "entries / players / busts in blocks",
        f"{len(entries)} / {len({e.player_id for e in entries})} / {blocks}",
    )
    tournament_id = _load(entries, knockouts)
    engine = bootstrap.engine()

    def pure() -> None:
        final_places(entries, knockouts)

    def from_database() -> None:
        with unit_of_work(engine) as s:
            compute_places(s, tournament_id)

    report.compare("final places 100k", ("from the database", from_database), ("pure rule", pure), repeat=5)
    started = time.process_time()
    pure()
    report.note(
        "final places 100k",
        "pure rule CPU time of one run (s, unaffected by other load)",
        round(time.process_time() - started, 3),
    )
    report.note("final places 100k", "pure rule peak memory (MB)", round(peak_memory(pure) / 2**20, 1))
    report.note("final places 100k", "from the database peak memory (MB)", round(peak_memory(from_database) / 2**20, 1))
    with StatementCounter(engine) as counter:
        from_database()
    report.note("final places 100k", "SQL statements from the database", counter.count)
    with unit_of_work(engine) as s:
        champion = s.scalar(
            select(Entry.player_id).where(Entry.tournament_id == tournament_id, Entry.state == "active")
        )
    report.note("final places 100k", "champion player id", champion)
