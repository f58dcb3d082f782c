"""Players online: webhooks, on the real database. Events are written in the transaction of the change
that caused them (a rolled-back change emits nothing), with one delivery per enabled endpoint that
hears them (its club's, its organizer's); payloads carry handles, never full names (AC-5); no
endpoint's secret is in any table; removing an endpoint gives up its deliveries; the walls (AC-2)."""

from __future__ import annotations

import json
import random
from datetime import timedelta

import pytest
from sqlalchemy import func, select, text

from domain.documents.rules.model import Bundle
from domain.documents.services.publish import publish
from domain.errors import DomainError, NotFound
from domain.poker.tables.tournaments import Player
from domain.pusoy.services import rounds as pusoy_rounds
from domain.store.db import StatementCounter, unit_of_work
from domain.webhooks.rules.endpoints import KINDS
from domain.webhooks.services import endpoints
from domain.webhooks.tables import Delivery, Endpoint, Event
from tests.documents_samples import poker_sheet
from tests.integration.test_pusoy_tournament import play_random_round
from tests.support import world
from tests.support.db import refused
from tests.support.world import PUSOY_NOW as NOW
from tests.support.world import complete_pusoy, filled, in_order

KEY = b"test-secret-key-of-at-least-32-bytes"


def _hook(session, events=KINDS, **owner):
    made, secret = endpoints.register(
        session, KEY, NOW, url="http://127.0.0.1:9/hook", events=list(events), private_hosts=True, **owner
    )
    return made["id"], secret


def _events(session, kind=None):
    query = select(Event).order_by(Event.created_at, Event.kind)
    return [e for e in session.scalars(query) if kind in (None, e.kind)]


def _deliveries(session) -> set[tuple[str, int]]:
    return {
        (kind, endpoint)
        for kind, endpoint in session.execute(
            select(Event.kind, Delivery.endpoint_id).join(Event, Event.id == Delivery.event_id)
        )
    }


def test_webhook_a_pusoy_cup_emits_its_rounds_champion_and_finish_to_the_endpoints_that_hear_them(session):
    """Players online: webhooks. The organizer's endpoints hear their cups; a club's hear its own;
    a disabled endpoint and one of another organizer hear nothing; a playoff is not a completed round."""
    club = world.club(session, fresh=True)
    every, _ = _hook(session, organizer="org")
    rounds_only, _ = _hook(session, events=["round.completed"], organizer="org")
    other, _ = _hook(session, organizer="someone else")
    gone, _ = _hook(session, organizer="org")
    endpoints.disable(session, gone, NOW)
    clubs, _ = _hook(session, club_id=club.id)
    t, _, _ = complete_pusoy(session, private=True)
    kinds = [(e.kind, e.payload.get("round")) for e in _events(session) if e.kind != "round.ready"]
    assert sorted(kinds, key=str) == sorted(
        [("round.completed", 1), ("round.completed", 2), ("champion.crowned", None), ("tournament.finished", None)],
        key=str,
    )
    # the platform's own events, one a last report (round 1, its playoff, the final), heard by no endpoint
    ready = [(e.payload["round"], e.payload["playoff"]) for e in _events(session, "round.ready")]
    assert sorted(ready) == [(1, 0), (1, 1), (2, 0)]
    assert _deliveries(session) == {(k, every) for k in KINDS if k != "documents.ready"} | {
        ("round.completed", rounds_only)
    }
    assert other not in {e for _, e in _deliveries(session)} and clubs not in {e for _, e in _deliveries(session)}
    [champion] = _events(session, "champion.crowned")
    assert champion.organizer == "org" and champion.club_id is None
    assert champion.payload["champion"] == t.champion and champion.payload["tournament"] == "Кубок <Пусой>"
    assert champion.payload["code"] is None  # a private cup's join code is its key
    [finished] = _events(session, "tournament.finished")
    assert [p["position"] for p in finished.payload["final_table"]][0] == 1
    assert finished.payload["final_table"][0]["player"] == t.champion
    [first] = [e for e in _events(session, "round.completed") if e.payload["round"] == 1]
    assert sum(s["advanced"] for s in first.payload["standings"]) == 4 and len(first.payload["standings"]) == 8


def test_webhook_a_club_cup_is_heard_by_the_club_and_its_open_code_is_shown(session):
    """Players online: webhooks."""
    club = world.club(session, fresh=True)
    clubs, _ = _hook(session, events=["round.completed"], club_id=club.id)
    t = filled(session, 8, games=1, club_id=club.id)
    in_order(session, t, 1)  # a fixed round: no tie on the cut, no playoff
    assert pusoy_rounds.complete_round(session, t.id, 1, NOW).outcome == "advanced"
    [event] = _events(session, "round.completed")
    assert (event.club_id, event.payload["code"]) == (club.id, t.code)
    assert _deliveries(session) == {("round.completed", clubs)}


def test_webhook_completing_a_round_still_costs_a_constant_number_of_statements(session, engine):
    """Players online: webhooks. The events and deliveries are one statement, whatever the endpoints."""
    spent = []
    for capacity, hooks in ((8, 1), (32, 5)):
        for _ in range(hooks):
            _hook(session, organizer="org")
        t = filled(session, capacity, games=1)
        play_random_round(session, t, 1, random.Random(capacity))
        session.flush()
        with StatementCounter(engine) as counter:
            done = pusoy_rounds.complete_round(session, t.id, 1, NOW)
            session.flush()
        if done.outcome == "advanced":
            spent.append(counter.count)
    assert spent and max(spent) <= 15 and len(set(spent)) == 1, spent


def test_webhook_a_finished_poker_tournament_names_its_places_by_handle_never_by_full_name(session):
    """Players online: webhooks; AC-5."""
    t = world.finished_poker(session)
    [event] = _events(session, "tournament.finished")
    assert (event.club_id, event.organizer, event.payload["tournament_id"]) == (t.club_id, None, t.id)
    places = event.payload["places"]
    assert [p["place"] for p in places] == sorted(p["place"] for p in places) and places[0]["place"] == 1
    rows = session.execute(select(Player.name, Player.handle)).all()
    handles, names = {h for _, h in rows}, {n for n, _ in rows}
    assert {p["player"] for p in places} <= handles
    assert not names & {p["player"] for p in places}
    assert "Кубок чемпиона" in [p["prize"] for p in places]


def test_webhook_documents_ready_when_a_publication_is_stored(session, tmp_path):
    """Players online: webhooks. The files by name and serial, not whose certificate (AC-5)."""

    class Renderer:
        key = KEY

        def poker_sheet(self, sheet, logo=None):
            return b"%PDF-sheet"

        def certificates(self, certs, *, logo=None):
            return [b"%PDF-cert" for _ in certs]

    club = world.club(session, fresh=True)
    hook, _ = _hook(session, events=["documents.ready"], club_id=club.id)
    sheet = poker_sheet(players=6, paid=2)
    out = publish(session, Renderer(), tmp_path, Bundle(sheet, club_id=club.id, recipient=None), NOW)
    [event] = _events(session, "documents.ready")
    assert event.payload["tournament_id"] == sheet.tournament_id and event.club_id == club.id
    assert [d["filename"] for d in event.payload["documents"]] == out["files"]
    assert "Иван" not in json.dumps(event.payload, ensure_ascii=False)
    assert _deliveries(session) == {("documents.ready", hook)}


def test_webhook_a_rolled_back_change_emits_nothing(committed):
    """Players online: webhooks. The outbox is the change's transaction: no commit, no event."""
    with unit_of_work(committed) as s:
        _hook(s, organizer="org")
        t, _, finalists = complete_pusoy(s, crown=False)
        tid = t.id
    with pytest.raises(RuntimeError), unit_of_work(committed) as s:
        assert pusoy_rounds.complete_round(s, tid, 2, NOW).outcome == "champion"
        assert len(_events(s, "champion.crowned")) == 1
        raise RuntimeError("the change fails after its events were written")
    with unit_of_work(committed) as s:
        assert _events(s, "champion.crowned") == [] and len(_events(s, "round.completed")) == 1  # round 1's
        assert s.scalar(select(func.count()).select_from(Delivery)) == 1
        assert pusoy_rounds.complete_round(s, tid, 2, NOW).outcome == "champion"
    with unit_of_work(committed) as s:
        assert len(_events(s, "champion.crowned")) == 1


def test_webhook_no_endpoint_secret_is_in_any_table(session):
    """Players online: webhooks. The secret is derived from the platform key, never stored."""
    from domain.tables import metadata

    club = world.club(session, fresh=True)
    _, secret = _hook(session, club_id=club.id)
    _, other = _hook(session, organizer="org")
    complete_pusoy(session)
    session.flush()
    for table in metadata.sorted_tables:
        for needle in (secret, secret.removeprefix("whsec_"), other.removeprefix("whsec_")[:16]):
            found = session.scalar(
                text(f'SELECT count(*) FROM "{table.name}" r WHERE r::text LIKE :s'), {"s": f"%{needle}%"}
            )
            assert found == 0, (table.name, needle)
    again = endpoints.listing(session, club_id=club.id)
    assert "secret" not in json.dumps(again, default=str)


def test_webhook_removing_an_endpoint_gives_up_its_deliveries_and_another_clubs_is_not_found(session):
    """Players online: webhooks; AC-2."""
    a = world.club(session, fresh=True)
    b = world.club(session, fresh=True)
    hook, _ = _hook(session, club_id=a.id)
    t = filled(session, 8, games=1, club_id=a.id)
    play_random_round(session, t, 1, random.Random(5))
    pusoy_rounds.complete_round(session, t.id, 1, NOW)
    with pytest.raises(NotFound):
        endpoints.disable(session, hook, NOW, club_id=b.id)
    with pytest.raises(NotFound):
        endpoints.disable(session, 900_000_001, NOW, club_id=a.id)
    later = NOW + timedelta(minutes=1)
    assert endpoints.disable(session, hook, later, club_id=a.id)["disabled_at"] == later
    assert endpoints.disable(session, hook, later + timedelta(minutes=1), club_id=a.id)["disabled_at"] == later
    pending = session.scalars(select(Delivery).where(Delivery.endpoint_id == hook)).all()
    assert all(d.failed_at == later and d.last_error == "endpoint disabled" for d in pending)
    [row] = endpoints.listing(session, club_id=a.id)
    assert row["deliveries"]["pending"] == 0 and row["deliveries"]["failed"] == len(pending)
    assert endpoints.listing(session, club_id=b.id) == []


def test_webhook_endpoints_are_refused_with_the_reason_and_the_database_holds_the_url_rule(session):
    """Players online: webhooks."""
    club = world.club(session, fresh=True)
    for url, events, code in (
        ("http://club.example/hook", ["round.completed"], "webhook-https"),
        ("https://10.0.0.7/hook", ["round.completed"], "webhook-private-host"),
        ("https://club.example/hook", [], "webhook-events"),
        ("https://club.example/hook", ["round.done"], "webhook-events"),
    ):
        with pytest.raises(DomainError) as caught:
            endpoints.register(session, KEY, NOW, url=url, events=events, club_id=club.id)
        assert caught.value.code == code
    with pytest.raises(DomainError) as caught:
        endpoints.register(session, KEY, NOW, url="https://a.example/", events=["round.completed"])
    assert caught.value.code == "webhook-owner"
    made, _ = endpoints.register(
        session, KEY, NOW, url="https://a.example/", events=["round.completed"], club_id=club.id
    )
    refused(
        session,
        "ck_webhook_endpoints_url",
        "UPDATE webhook_endpoints SET url = 'http://a.example/' WHERE id = :i",
        i=made["id"],
    )
    refused(
        session, "ck_webhook_endpoints_events", "UPDATE webhook_endpoints SET events = '{}' WHERE id = :i", i=made["id"]
    )
    refused(
        session,
        "ck_webhook_endpoints_one_owner",
        "UPDATE webhook_endpoints SET organizer = 'x' WHERE id = :i",
        i=made["id"],
    )
    assert session.get(Endpoint, made["id"]).url == "https://a.example/"
