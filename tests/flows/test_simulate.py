"""The simulator end to end: the demo's live poker tournament (compressed: one-minute levels,
virtual time) and a Pusoy Dos cup driven through the real services and the real flows on the
Prefect test API, ending with their documents stored in the outbox."""

from __future__ import annotations

import random
import re
from collections import Counter
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from domain.errors import DomainError
from domain.poker.tables.clock_seating import ClockEvent
from domain.poker.tables.tournaments import Registration
from domain.simulate.services.demo import (
    driving,
    find_demo,
    poker_status,
    pusoy_status,
    seed_demo,
)
from domain.store.db import unit_of_work
from flows.simulate import simulate

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def test_the_simulator_plays_a_live_tournament_and_a_pusoy_cup_to_their_documents(
    prefect_api, committed, tmp_path, monkeypatch
):
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    monkeypatch.delenv("SMTP_URL", raising=False)
    with unit_of_work(committed) as s:
        demo = seed_demo(s, NOW, random.Random(3), players=12, pusoy_players=8)
    lines: list[str] = []

    out = simulate(
        poker_id=demo.poker_id, pusoy_code=demo.pusoy_code, seed=5, speed=0, absent=2, say=lines.append, start=NOW
    )

    poker, cup = out["poker"], out["pusoy"]
    assert out["refused"] == []
    assert (poker["status"], poker["checked_in"], poker["no_shows"]) == ("finished", 10, 2)
    assert poker["busts"] == poker["checked_in"] + poker["reentries"] - 1 and poker["addons"] > 0
    assert cup["status"] == "complete" and cup["games"] >= 6  # 2 tables x 2 games, then the final x 2
    with unit_of_work(committed) as s:
        dropped = s.scalar(
            select(func.count()).where(Registration.tournament_id == demo.poker_id, Registration.status == "dropped")
        )
        levels = s.scalar(
            select(func.count()).where(ClockEvent.tournament_id == demo.poker_id, ClockEvent.kind == "level-started")
        )
    assert dropped == 2  # process-no-shows ran at the late-registration close
    # AC-3: the simulator and the jobs are audited as system actors, in their changes' transactions,
    # each row in the club of the tournament it changed
    from domain.access.tables import AuditRecord
    from domain.pusoy.services.rows import find

    with unit_of_work(committed) as s:
        rows = s.execute(
            select(
                AuditRecord.actor_kind,
                AuditRecord.actor_label,
                AuditRecord.action,
                AuditRecord.target,
                AuditRecord.club_id,
            )
        ).all()
        club, cup_club = demo.club_id, find(s, demo.pusoy_code).club_id
    by = Counter((r.actor_label, r.action) for r in rows)
    assert {r.actor_kind for r in rows} == {"system"}
    assert by["system:simulator", "simulate checkin"] == poker["checked_in"]
    assert by["system:simulator", "simulate report"] == cup["games"]
    assert by["job:process-no-shows", "no-shows"] == 1 and by["job:finalize-tournaments", "finalize"] == 1
    assert by["job:advance-clocks", "clock-advanced"] >= 5 and by["job:events", "round-completed"] >= 2
    assert by["system:simulator", "simulate join"] == 8  # the cup's players join while it fills
    cup_actions = ("simulate join", "simulate report", "round-completed")
    assert {(r.target, r.club_id) for r in rows if r.action not in cup_actions} == {
        (f"tournament {demo.poker_id}", club)
    }
    assert {(r.target, r.club_id) for r in rows if r.action in cup_actions} == {(f"cup {demo.pusoy_code}", cup_club)}
    assert levels >= 5  # advance-clocks recorded every level change up to the end
    docs = {d["source"]: d for d in out["documents"]}
    assert sorted(docs) == ["poker", "pusoy"] and all(d["delivery"] == "pending" for d in docs.values())
    assert "results.pdf" in docs["poker"]["files"] and any(
        f.startswith("certificate-SP-") for f in docs["poker"]["files"]
    )
    assert "results.pdf" in docs["pusoy"]["files"]
    stored = sorted(p.name for p in (tmp_path / "outbox").rglob("*.pdf"))
    assert len(stored) == len(docs["poker"]["files"]) + len(docs["pusoy"]["files"])
    assert any("finished" in line for line in lines) and any("complete" in line for line in lines)
    # DOC-4: the demo club chose no language: both its tournaments' documents are Russian, every
    # label and the cup preset's prize lines (the names are the demo's, as entered), with no rule id
    from infra import pdf

    sheets = {
        p.parent.name.split("-")[0]: " ".join(pdf.page_text(p.read_bytes()))
        for p in (tmp_path / "outbox").rglob("results.pdf")
    }
    assert "Итоговые места" in sheets["poker"] and "Кубок и вход на турнир клуба" in sheets["poker"]
    assert "Итоговая таблица" in sheets["pusoy"] and "Final standings" not in sheets["pusoy"]
    for text in sheets.values():
        assert not re.search(r"\b(?:SP|PD|DOC|LG)-\d{1,2}\b", text)
        assert not any(label in text for label in ("Entries", "Final places", "Players", "Prize", "Rebuys", "page "))


def test_a_second_demo_run_drives_the_interrupted_demo_to_its_end_and_a_third_says_it_is_finished(
    prefect_api, committed, tmp_path, monkeypatch, capsys
):
    """`tourney simulate --demo` (what `make run` starts) on a database whose demo was interrupted:
    the first run gives up after a (virtual) minute, before the live tournament starts; while a
    simulator still drives the demo, another run leaves it be; the next resumes both tournaments to
    their end; the last says so in one line and does nothing."""
    from flows.cli.simulate import simulate_command

    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    monkeypatch.delenv("SMTP_URL", raising=False)
    demo = dict(demo=True, speed=0, players=12, pusoy_players=8, no_shows=2)

    simulate_command(**demo, timeout_minutes=1)
    with unit_of_work(committed) as s:
        found = find_demo(s)
        interrupted = poker_status(s, found.poker_id), pusoy_status(s, found.pusoy_code)
    assert interrupted == ("registration_open", "active")
    capsys.readouterr()

    with driving(committed, found.poker_id, found.pusoy_code):  # as the demo's simulator, still running
        simulate_command(**demo)
        said = capsys.readouterr().out
        assert said.startswith("demo accounts: sign in at ")  # the demo seeded before accounts gets them now
        assert said.endswith("\nthe demo's simulator is still running: nothing to resume\n")
        with pytest.raises(DomainError) as refused:
            simulate_command(poker=found.poker_id, speed=0)
        assert refused.value.message == f"a simulator is already driving poker tournament {found.poker_id}"

    simulate_command(**demo)
    resumed = capsys.readouterr().out
    assert resumed.startswith("demo accounts: sign in at ")
    assert (
        f"\nresuming the demo: poker {found.poker_id} registration open, pusoy {found.pusoy_code} active\n" in resumed
    )
    assert "refused (" not in resumed  # no step of the resumed script was refused
    with unit_of_work(committed) as s:
        assert (poker_status(s, found.poker_id), pusoy_status(s, found.pusoy_code)) == ("finished", "complete")
        assert find_demo(s) == found  # nothing seeded twice
    assert sorted(p.parent.name.split("-")[0] for p in (tmp_path / "outbox").rglob("results.pdf")) == ["poker", "pusoy"]

    simulate_command(**demo)
    assert capsys.readouterr().out.endswith(  # after how to sign in
        f"\nthe demo is finished (poker {found.poker_id}, pusoy {found.pusoy_code}): nothing to resume\n"
    )
