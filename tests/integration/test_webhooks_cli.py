"""Players online: webhooks. `tourney webhook add | list | remove` as the operator runs it, for a Pusoy
Dos organizer without a club: the secret printed once (the one deliveries are signed with), never
listed; refusals in one line, writing nothing."""

from __future__ import annotations

from sqlalchemy.orm import Session

from domain.webhooks.rules.signing import derive_secret
from domain.webhooks.tables import Endpoint
from infra.config import load_settings
from tests.support.cli import j, refused, run


def test_webhook_cli_adds_lists_and_removes_an_organizers_endpoint(committed):
    """Players online: webhooks."""
    made = j(
        "webhook", "add", "http://127.0.0.1:8765/hook", "--organizer", "Manila Pusoy", "--event", "champion.crowned"
    )
    assert made["organizer"] == "Manila Pusoy" and made["events"] == ["champion.crowned"]
    with Session(committed) as session:
        endpoint = session.get(Endpoint, made["id"])
        assert made["secret"] == derive_secret(load_settings().secret_key(), endpoint.id, endpoint.created_at)
    every = j("webhook", "add", "https://bot.example/hook", "--organizer", "Manila Pusoy")
    assert len(every["events"]) == 4
    listed = j("webhook", "list", "--organizer", "Manila Pusoy")
    assert [row["id"] for row in listed] == [every["id"], made["id"]]
    assert "secret" not in run("--json", "webhook", "list").stdout
    assert j("webhook", "remove", str(made["id"]))["disabled_at"]
    assert listed[0]["pending"] == listed[0]["delivered"] == listed[0]["failed"] == 0
    shown = run("webhook", "list")
    assert shown.returncode == 0 and "webhook endpoints" in shown.stdout


def test_webhook_cli_refusals_name_the_reason_and_write_nothing(committed):
    """Players online: webhooks."""
    assert "https" in refused(committed, "webhook", "add", "http://bot.example/hook", "--organizer", "x")
    assert "round.done" in refused(
        committed, "webhook", "add", "https://bot.example/hook", "--organizer", "x", "--event", "round.done"
    )
    assert "one club or one organizer" in refused(committed, "webhook", "add", "https://bot.example/hook")
    assert "no webhook endpoint 77" in refused(committed, "webhook", "remove", "77")
