"""PostgreSQL restarted under 20 desks and 100 players (issue 41's first fault; docs/api.md "Retries"):
a real `tourney web` process over a cluster of the test's own; 20 desk clients (a walk-in arrives, the
cashier settles what they owe) and 100 player clients (join a Pusoy Dos cup, register themselves for
upcoming tournaments), each write sent with an Idempotency-Key and sent again with the same key on a
connection error or a 5xx; the cluster stopped and started while they act (once in `make test`, three
times in `make soak`). Then every answer is compared with the database: each acknowledged write kept
with its answer, none applied twice, every refusal wrote nothing, none left unanswered."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import text

from domain.access.services import accounts, signin
from domain.pusoy.services import setup as pusoy_setup
from domain.store.db import unit_of_work
from domain.store.migrate import upgrade
from flows import bootstrap
from tests.support import world
from tests.support.faults import Clients, own_cluster, web_process

pytestmark = pytest.mark.integration

DESKS, PLAYERS, UPCOMING, CUPS = 20, 100, 8, 4


def _world(engine) -> dict:
    """20 running tournaments (a desk each), 8 upcoming ones open for registration a day apart (SP-2:
    their windows never overlap), 4 cups of 32 filling; a floor-and-cashier token per desk, a player's
    token per player."""
    now = datetime.now(UTC)
    running = [world.running_poker(engine, players=2, handles=f"t{i}-{{n}}")["id"] for i in range(DESKS)]
    upcoming = [world.upcoming_poker(engine, timedelta(days=k + 1), players=0)["id"] for k in range(UPCOMING)]
    made: dict = {"running": running, "upcoming": upcoming, "desks": [], "players": [], "callers": {}}
    with unit_of_work(engine) as session:
        made["cups"] = [
            pusoy_setup.create(session, name=f"Cup {n}", capacity=32, now=now, organizer="faults").code
            for n in range(CUPS)
        ]
        club_id = session.execute(
            text("SELECT club_id FROM poker_tournaments WHERE id = :t"), {"t": running[0]}
        ).scalar()
        for d in range(DESKS):
            account = accounts.add(session, f"desk{d}@example.org", now)
            for role in ("floor", "cashier"):
                accounts.grant(session, account, role, club_id, now)
            token, secret = signin.create_token(
                session, account, f"desk {d}", [f"floor@{club_id}", f"cashier@{club_id}"], now
            )
            made["desks"].append(secret)
            made["callers"][f"desk{d}"] = f"token:{token.id}"
        for p in range(PLAYERS):
            player = world.player(session, f"Fault Player {p}", handle=f"fault{p}", at=now)
            account = accounts.add(session, f"fault{p}@example.org", now, player_id=player.id)
            token, secret = signin.create_token(session, account, "phone", ["player"], now)
            made["players"].append((player.id, secret))
            made["callers"][f"player{p}"] = f"token:{token.id}"
    return made


def _desk(clients: Clients, w: dict, d: int, stop: threading.Event, rng: random.Random) -> None:
    t, token, who = w["running"][d], w["desks"][d], f"desk{d}"
    n = 0
    while not stop.is_set():
        n += 1
        body = {"name": f"Walk In {d} {n}", "handle": f"walkin-{d}-{n}", "birth_date": "1990-01-01"}
        came = clients.write(who, "desk.arrive", f"/desk/tournaments/{t}/arrivals", token, body)
        if came.status == 200:
            owed = came.body["owed"]["input"]
            clients.write(
                who,
                "desk.settle",
                f"/desk/tournaments/{t}/settlements",
                token,
                {"player": str(came.body["player_id"]), "amount": owed},
            )
        time.sleep(rng.uniform(0.1, 0.6))


def _player(clients: Clients, w: dict, p: int, stop: threading.Event, rng: random.Random) -> None:
    _, token = w["players"][p]
    who = f"player{p}"
    time.sleep(rng.uniform(0, 1.5))
    clients.write(who, "pusoy.join", f"/pusoy/{w['cups'][p % CUPS]}/entries", token, None, impatient=True)
    for t in w["upcoming"]:
        if stop.is_set():
            return
        time.sleep(rng.uniform(0.3, 1.5))
        clients.write(who, "poker.register-self", f"/tournaments/{t}/my-registration", token, None)


@pytest.mark.parametrize(
    "restarts", [1, pytest.param(3, marks=[pytest.mark.soak, pytest.mark.timeout(900)])], ids=["once", "three-times"]
)
def test_a_database_restart_under_20_desks_and_100_players_keeps_every_acknowledged_write_once(
    monkeypatch, tmp_path, restarts
):
    """Issue 41, fault 1 (docs/api.md "Retries"): acknowledged writes kept, none twice, refusals wrote nothing."""
    with own_cluster(monkeypatch.setenv) as cluster:
        url = cluster.url()
        monkeypatch.setenv("DATABASE_URL", url)
        bootstrap.dispose()
        engine = bootstrap.engine()
        try:
            upgrade(engine)
            w = _world(engine)
            pool = httpx.Limits(max_connections=DESKS + PLAYERS, max_keepalive_connections=DESKS + PLAYERS)
            with web_process(url, tmp_path / "web.log") as base, httpx.Client(limits=pool) as http:
                clients, stop = Clients(base, http), threading.Event()
                threads = [
                    threading.Thread(target=_desk, args=(clients, w, d, stop, random.Random(d)), daemon=True)
                    for d in range(DESKS)
                ] + [
                    threading.Thread(target=_player, args=(clients, w, p, stop, random.Random(1000 + p)), daemon=True)
                    for p in range(PLAYERS)
                ]
                for thread in threads:
                    thread.start()
                for _ in range(restarts):
                    time.sleep(2)  # the clients at work
                    cluster.stop()
                    time.sleep(1.5)  # down: every write meanwhile fails and is sent again
                    cluster.up()
                time.sleep(2)
                stop.set()
                for thread in threads:
                    thread.join(120)
                assert not any(thread.is_alive() for thread in threads)
            bootstrap.dispose()
            _compare(engine, w, clients)
        finally:
            bootstrap.dispose()


def _compare(engine, w: dict, clients: Clients) -> None:
    outcomes = clients.outcomes
    unanswered = [o for o in outcomes if o.status == 0]
    assert not unanswered, unanswered[:5]
    retried = [o for o in outcomes if o.tries > 1]
    assert retried, "no write met the restart: the test proved nothing"
    assert any(o.replayed for o in outcomes), "no answer was lost: the replay went unproved"
    acked = [o for o in outcomes if 200 <= o.status < 300]
    refused = [o for o in outcomes if o.status >= 400]
    print(
        f"writes {len(outcomes)}: acknowledged {len(acked)}, refused {len(refused)} "
        f"({Counter((o.action, o.body.get('code') if isinstance(o.body, dict) else None) for o in refused)}), "
        f"sent again {len(retried)}, answered by a replay {sum(o.replayed for o in outcomes)}"
    )
    with engine.connect() as conn:
        kept = {
            r.key: (r.caller, r.status, r.answer)
            for r in conn.execute(text("SELECT caller, key, status, answer FROM api_idempotency"))
        }
        audit = dict(
            conn.execute(
                text("SELECT action, count(*) FROM audit_trail WHERE action = ANY(:a) GROUP BY action"),
                {"a": ["desk.arrive", "desk.settle", "pusoy.join", "poker.register-self"]},
            ).all()
        )
        walk_ins = conn.execute(text("SELECT handle FROM players WHERE handle LIKE 'walkin-%'")).scalars().all()
        settled = conn.execute(
            text("SELECT count(*) FROM poker_settlements s WHERE s.voided_at IS NULL AND s.tournament_id = ANY(:t)"),
            {"t": w["running"]},
        ).scalar_one()
        joined = (
            conn.execute(
                text(
                    "SELECT e.player FROM pusoy_entries e JOIN pusoy_tournaments t ON t.id = e.tournament_id "
                    "WHERE t.code = ANY(:c)"
                ),
                {"c": w["cups"]},
            )
            .scalars()
            .all()
        )
        registered = conn.execute(
            text(
                "SELECT p.handle, r.tournament_id FROM poker_registrations r JOIN players p ON p.id = r.player_id "
                "WHERE r.tournament_id = ANY(:t)"
            ),
            {"t": w["upcoming"]},
        ).all()
    # every acknowledged write kept with the answer its client read (a replay is the kept answer itself)
    for o in acked:
        assert o.key in kept, o
        caller, status, answer = kept[o.key]
        assert (caller, status, answer) == (w["callers"][o.who], o.status, o.body), o
    assert not [o for o in refused if o.key in kept]  # a refusal kept nothing
    # every effect once: as many audited changes, walk-ins, settlements, entrants and registrations as acknowledged
    by_action = Counter(o.action for o in acked)
    assert audit == dict(by_action)
    assert len(walk_ins) == len(set(walk_ins)) == by_action["desk.arrive"]
    assert settled == by_action["desk.settle"]
    handle = {f"player{p}": f"fault{p}" for p in range(PLAYERS)}
    assert sorted(joined) == sorted(handle[o.who] for o in acked if o.action == "pusoy.join")
    assert sorted(registered) == sorted(
        (handle[o.who], int(o.path.split("/")[2])) for o in acked if o.action == "poker.register-self"
    )
