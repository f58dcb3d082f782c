"""The simulator on the wall clock plays through `/api/v1` of a real web server on loopback (issues
28, 29): the live tournament's start, check-ins, busts, re-entries, add-ons and final table with the
floor manager's token, the cup's joins with each player's own token, its games with a game server's
token bound to the cup; every one an audit row of that actor (AC-3). In virtual time the same script
acts in process, with the same outcome.

The short demo (12 players with 4-second levels, an 8-player cup, a 2-second beat) gives up 30 s
after it starts, past the last bust but before the void window lets `finalize-tournaments` finish
the live tournament; `test_..._to_its_documents` (soak) plays a demo to its documents on the wall
clock."""

from __future__ import annotations

import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from domain.access.tables import AuditRecord, Token
from domain.poker.tables.tournaments import Tournament
from domain.simulate.rules import owner as owner_plan
from domain.simulate.rules.script import ADDON, BUST, REENTRY, no_shows, poker_script
from domain.simulate.services.demo import (
    poker_facts,
    revoke_simulator_tokens,
    seed_demo,
    seed_demo_accounts,
    simulator_tokens,
)
from domain.store.db import unit_of_work
from flows import bootstrap
from flows.simulate import simulate

SEED, ABSENT, TICK, PLAY = 11, 2, timedelta(seconds=2), timedelta(seconds=10)
SHORT = dict(players=12, pusoy_players=8, starts_in=timedelta(seconds=6), level=timedelta(seconds=4))
VIRTUAL_START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
OWNER_SETS_UP = (
    "club.add-structure",
    "club.create-tournament",
    "club.set-prizes",
    "club.set-mystery-table",
    "club.open-tournament",
)


@pytest.fixture
def warm(prefect_api):
    """What a process does slowly once (the prize lines' lexicon, Prefect's first flow run: seconds on
    2 cores), done before the wall clock starts, so the short demo's seconds are the simulator's."""
    from prefect import flow

    from domain.poker.rules.wording import lexicon

    lexicon._lexicon()
    flow(name="warm-up")(lambda: None)()


def _seed(engine, now: datetime, **demo) -> tuple:
    with unit_of_work(engine) as s:
        made = seed_demo(s, now, random.Random(3), **demo)
        seed_demo_accounts(s, bootstrap.password_hasher(), made.club_id, now)
    with unit_of_work(engine) as s:  # the script the simulator will plan (its own first draws)
        facts = poker_facts(s, made.poker_id, now, PLAY, TICK)
    rng = random.Random(SEED)
    absent = no_shows(rng, facts.arriving, ABSENT)
    script = poker_script(rng, [p for p in facts.arriving if p not in absent], facts.times, facts.in_play)
    return made, Counter(step.kind for step in script)


@pytest.mark.parametrize("way", ["over the API, wall clock", "in process, virtual time"])
def test_the_simulator_plays_the_demo_through_the_api_as_the_floor_the_players_and_a_game_server(
    way, web, warm, committed, tmp_path, monkeypatch
):
    """AC-1, AC-3, PD-4: the same script both ways; over the API every action is the API's, by its actor."""
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    live = way.startswith("over")
    now = datetime.now(UTC) if live else VIRTUAL_START
    demo, planned = _seed(committed, now, **SHORT)
    lines: list[str] = []

    out = simulate(
        poker_id=demo.poker_id,
        pusoy_code=demo.pusoy_code,
        seed=SEED,
        speed=1 if live else 0,
        play=PLAY,
        absent=ABSENT,
        timeout=timedelta(seconds=30),
        say=lines.append,
        start=None if live else now,
        tick=TICK,
        api=web.url,
    )

    assert out["refused"] == [], "\n".join(lines)
    assert out["poker"] == {
        "tournament_id": demo.poker_id,
        "status": "running",  # the void window (1 minute) is still open at the give-up
        "checked_in": SHORT["players"] - ABSENT,
        "no_shows": ABSENT,
        "busts": planned[BUST],
        "reentries": planned[REENTRY],
        "addons": planned[ADDON],
    }
    assert planned[BUST] == SHORT["players"] - ABSENT + planned[REENTRY] - 1 and planned[ADDON] > 0
    assert (out["pusoy"]["status"], out["pusoy"]["joined"]) == ("complete", 8)
    assert out["pusoy"]["games"] >= 6  # 2 tables x 2 games, then the final table x 2 (and any playoff)
    assert any("final table assembled" in line for line in lines)
    with unit_of_work(committed) as s:
        rows = s.execute(select(AuditRecord.action, AuditRecord.actor_kind, AuditRecord.actor_label)).all()
        tokens = s.execute(select(Token.name, Token.revoked_at.is_not(None))).all()
    if not live:
        assert not [r for r in rows if r.actor_kind == "token"]  # no request was made
        assert tokens == []
        return
    by = Counter((r.action, r.actor_label.split(" of ")[-1]) for r in rows if r.actor_kind == "token")
    floor, server, owner = "floor@demo-club.example", "games@demo-club.example", "owner@demo-club.example"
    assert by == {
        ("poker.start", floor): 1,
        ("poker.check-in", floor): SHORT["players"] - ABSENT,
        ("poker.knock-out", floor): planned[BUST],
        ("poker.re-enter", floor): planned[REENTRY],
        ("poker.add-on", floor): planned[ADDON],
        ("desk.final-table", floor): 1,
        **{("pusoy.join", f"pd{i:02d}@demo-club.example"): 1 for i in range(1, 9)},
        ("pusoy.report", server): out["pusoy"]["games"],
        **{(action, owner): 1 for action in OWNER_SETS_UP},
    }
    # the tokens were made for this run, each named for its tournament (the owner's for the set-up), and
    # revoked at its end
    assert sorted(set(tokens)) == [
        (f"simulator cup {demo.pusoy_code}", True),
        ("simulator owner", True),
        (f"simulator poker {demo.poker_id}", True),
    ]
    assert len(tokens) == 1 + 1 + 8 + 1
    # issue 39: the owner set up next week's tournament as the console does; a resumed demo does not again
    with unit_of_work(committed) as s:
        made = s.execute(
            select(Tournament.status, Tournament.scheduled_start, Tournament.bounty_type).where(
                Tournament.club_id == demo.club_id, Tournament.name == owner_plan.NAME
            )
        ).all()
        again = simulator_tokens(s, demo.poker_id, None, (), now)
        revoke_simulator_tokens(s, list(again.names), now)
    start = owner_plan.next_week(now, ZoneInfo("Europe/Moscow")).start
    assert made == [("registration_open", start, "mystery")]
    assert again.owner is None and "simulator owner" not in again.names


@pytest.mark.soak
@pytest.mark.timeout(600)
def test_the_simulator_plays_a_demo_through_the_api_to_its_documents(web, warm, committed, tmp_path, monkeypatch):
    """On the wall clock to the end: finished by `finalize-tournaments` after the void window, both
    tournaments' documents stored, nothing refused (about two minutes)."""
    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    monkeypatch.delenv("SMTP_URL", raising=False)
    demo, planned = _seed(committed, datetime.now(UTC), **SHORT)

    out = simulate(
        poker_id=demo.poker_id,
        pusoy_code=demo.pusoy_code,
        seed=SEED,
        play=PLAY,
        absent=ABSENT,
        timeout=timedelta(minutes=6),
        say=print,
        tick=TICK,
        api=web.url,
    )

    assert out["refused"] == []
    assert (out["poker"]["status"], out["poker"]["busts"], out["pusoy"]["status"]) == (
        "finished",
        planned[BUST],
        "complete",
    )
    assert sorted(d["source"] for d in out["documents"]) == ["poker", "pusoy"]
