"""Players online: webhooks, end to end: a real receiver on a loopback port that fails the first 3
attempts of every event gets each event exactly once, with a valid signature, after the job
`deliver-webhooks` runs at injected instants past each back-off; a rerun delivers nothing new; two
runs at once never send one delivery twice; the example verifier of docs/webhooks.md, run as
written, accepts a real delivery and refuses it with its body altered."""

from __future__ import annotations

import json
import re
import threading
from datetime import timedelta
from pathlib import Path

from sqlalchemy import func, select

from domain.store.db import unit_of_work
from domain.webhooks.rules.signing import parse, verify
from domain.webhooks.services import endpoints
from domain.webhooks.tables import Delivery
from flows.jobs.webhooks import deliver_due, deliver_webhooks
from infra.config import load_settings
from infra.webhooks_http import HttpSender
from tests.support.webhook_receiver import Receiver
from tests.support.world import PUSOY_NOW as NOW
from tests.support.world import complete_pusoy

DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


def _cup_with_a_hook(engine, url: str, key: bytes) -> str:
    """A Pusoy Dos cup of organizer `org` played to its champion, heard by one endpoint (committed):
    4 events (2 rounds, the champion, the finish). The endpoint's secret."""
    with unit_of_work(engine) as s:
        _, secret = endpoints.register(
            s,
            key,
            NOW,
            url=url,
            events=["round.completed", "champion.crowned", "tournament.finished"],
            organizer="org",
            private_hosts=True,
        )
        complete_pusoy(s)
    return secret


def test_webhook_a_receiver_failing_its_first_3_deliveries_gets_each_event_exactly_once_signed(prefect_api, committed):
    """Players online: webhooks. Attempts at +0, +10 s, +40 s fail (500); a run before a back-off is
    over sends nothing; at +160 s the job `deliver-webhooks` (the flow, on the Prefect API) delivers
    every event; a rerun sends nothing. The runs before it are the job's own loop (`deliver_due`), with
    the same HTTP client, without a flow run's second or two each."""
    key = load_settings().secret_key()
    runs = []
    with Receiver(fail_first=3) as receiver, HttpSender() as sender:
        secret = _cup_with_a_hook(committed, receiver.url, key)
        for at in (0, 5, 10, 40, 100):
            outcomes = deliver_due(committed, sender, key, NOW + timedelta(seconds=at))
            runs.append((at, sorted({o["state"] for o in outcomes}), len(outcomes)))
        result = deliver_webhooks(now=NOW + timedelta(seconds=160))
        again = deliver_due(committed, sender, key, NOW + timedelta(seconds=1000))
        accepted = receiver.accepted()
    assert runs == [(0, ["retrying"], 4), (5, [], 0), (10, ["retrying"], 4), (40, ["retrying"], 4), (100, [], 0)]
    assert result == {"delivered": 4, "retrying": 0, "failed": 0} and again == []
    assert len(receiver.received) == 16
    assert len(accepted) == 4 == len({r.event_id for r in accepted}) == len({r.event_id for r in receiver.received})
    accepted_at = NOW + timedelta(seconds=160)
    for r in accepted:
        header = r.headers["Tourney-Signature"]
        assert parse(header)[0] == int(accepted_at.timestamp())
        assert verify(secret, header, r.body, accepted_at) is None
        assert verify(secret, header, r.body, accepted_at + timedelta(seconds=301)) is not None
        event = json.loads(r.body)
        assert event["id"] == r.headers["Tourney-Event-Id"] and event["kind"] == r.headers["Tourney-Event"]
        assert r.headers["Content-Type"] == "application/json"
    bodies = {}
    for r in receiver.received:  # every attempt of an event is the same bytes
        assert bodies.setdefault(r.event_id, r.body) == r.body
    with unit_of_work(committed) as s:
        assert s.scalar(select(func.count()).where(Delivery.delivered_at.is_not(None), Delivery.attempts == 4)) == 4


def test_webhook_two_runs_at_once_never_send_one_delivery_twice(committed):
    """Players online: webhooks. Each delivery is held `FOR UPDATE SKIP LOCKED` while it is sent."""
    key = b"k" * 40
    with Receiver(delay=0.15) as receiver:
        _cup_with_a_hook(committed, receiver.url, key)
        barrier = threading.Barrier(2)
        outcomes: list[list[dict]] = []

        def run():
            with HttpSender() as sender:
                barrier.wait()
                outcomes.append(deliver_due(committed, sender, key, NOW))

        threads = [threading.Thread(target=run) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert len(receiver.received) == 4 == len({r.event_id for r in receiver.received})
        assert sum(len(o) for o in outcomes) == 4 and all(o for o in outcomes)  # the work was split
        with HttpSender() as sender:
            assert deliver_due(committed, sender, key, NOW + timedelta(days=1)) == []


def _example() -> dict:
    """The Python block under "Example verifier" in docs/webhooks.md, executed as written."""
    text = DOC.read_text()
    section = text.split("## Example verifier", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)[1]
    namespace: dict = {}
    exec(compile(code, str(DOC), "exec"), namespace)  # noqa: S102 - the documentation's own example
    return namespace


def test_webhook_the_docs_example_verifier_accepts_a_real_delivery_and_refuses_a_tampered_body(committed, capsys):
    """Players online: webhooks. The example a club's developer copies works on what the platform sends."""
    key = b"k" * 40
    example = _example()
    with Receiver() as receiver:
        secret = _cup_with_a_hook(committed, receiver.url, key)
        with HttpSender() as sender:
            deliver_due(committed, sender, key, NOW)
    r = receiver.received[0]
    header, at = r.headers["Tourney-Signature"], NOW.timestamp()
    assert example["verify"](secret, header, r.body, now=at) is True
    tampered = r.body.replace(b'"round":1', b'"round":3') if b'"round":1' in r.body else r.body + b" "
    assert tampered != r.body
    assert example["verify"](secret, header, tampered, now=at) is False
    assert example["verify"]("whsec_" + "0" * 64, header, r.body, now=at) is False
    assert example["verify"](secret, header, r.body, now=at + 301) is False
    assert example["verify"](secret, None, r.body, now=at) is False
    # its handler: 400 unsigned, 200 once, and 200 again for a repeat (handled once)
    headers = {"Tourney-Signature": header}
    assert example["handle"]({}, r.body, secret, now=at) == 400
    assert example["handle"](headers, r.body, secret, now=at) == 200
    assert example["handle"](headers, r.body, secret, now=at) == 200
    assert capsys.readouterr().out.count(json.loads(r.body)["kind"]) == 1


def test_webhook_a_redirect_or_an_error_answer_is_a_failure_tried_again(committed):
    """Players online: webhooks. Only 2xx delivers; a redirect (not followed) and a 404 are tried again."""
    key = b"k" * 40
    answers = iter([301, 404])

    class Answering(HttpSender):
        def post(self, url, body, headers):
            return status

    with Receiver() as receiver:
        _cup_with_a_hook(committed, receiver.url, key)
    with Answering() as sender:
        for at, attempts in ((0, 1), (10, 2)):
            status = next(answers)
            outcomes = deliver_due(committed, sender, key, NOW + timedelta(seconds=at))
            assert {(o["state"], o["status"], o["attempts"]) for o in outcomes} == {("retrying", status, attempts)}
    assert receiver.received == []
