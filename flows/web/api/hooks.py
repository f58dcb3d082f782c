"""A club's webhooks (Players online): its owner registers HTTPS endpoints that hear the club's events
(docs/webhooks.md), lists them (never a secret) and removes them. The secret is answered once, at
registration: it is derived from the platform key, not stored, and not shown again."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from domain.access.services.gate import UNCHANGED
from domain.webhooks.rules.endpoints import KINDS
from domain.webhooks.services import endpoints
from flows.web.api.core import PAGED, Cursor, Id, Limit, Op, Operations, Strict, club_of

ops = Operations("club")
router = ops.router

Kind = Literal[KINDS]  # type: ignore[valid-type]  (the events of domain/webhooks/rules/endpoints.py)


class WebhookBody(Strict):
    url: str = Field(min_length=8, max_length=2000, examples=["https://club.example/hooks/tourney"])
    events: list[Kind] = Field(min_length=1, max_length=4, description="the events this endpoint hears")


class Deliveries(BaseModel):
    pending: int
    delivered: int
    failed: int


class Webhook(BaseModel):
    id: int
    club_id: int | None
    organizer: str | None
    url: str
    events: list[Kind]
    created_at: datetime
    disabled_at: datetime | None
    deliveries: Deliveries | None = None


class NewWebhook(Webhook):
    secret: str = Field(description="the signing secret, shown this once")


@ops.get(
    "/clubs/{club_id}/webhooks",
    "club.webhooks",
    response=list[Webhook],
    responses={200: {"description": "a page of the endpoints", "headers": PAGED}},
)
def club_webhooks(op: Op, club_id: Id, limit: Limit = 50, cursor: Cursor = None):
    """The club's endpoints, newest first, with their deliveries counted; no secret; a page at a time."""
    return op.run(
        club_of(club_id),
        lambda s, actor, now: op.page(endpoints.listing(s, club_id=club_id), lambda e: (-e["id"],), limit, cursor),
        describe=f"club {club_id}",
    )


@ops.post("/clubs/{club_id}/webhooks", "club.add-webhook", response=NewWebhook, status=201, secret=True)
def club_add_webhook(op: Op, club_id: Id, body: WebhookBody):
    """Register an endpoint (https://; a public host).
    The answer carries its `secret`, shown this once: keep it to verify the `Tourney-Signature` of
    every delivery."""
    key = op.request.app.state.webhook_key

    def do(s, actor, now):
        made, secret = endpoints.register(s, key, now, url=body.url, events=body.events, club_id=club_id)
        return made | {"secret": secret}

    return op.run(club_of(club_id), do, describe=f"webhook {body.url}", data=body.model_dump())


@ops.delete("/clubs/{club_id}/webhooks/{webhook_id}", "club.remove-webhook", response=Webhook, unchanged=True)
def club_remove_webhook(op: Op, club_id: Id, webhook_id: Id):
    """Disable an endpoint: nothing more is sent to it, its pending deliveries are given up.
    One disabled already: 204, nothing written."""

    def do(s, actor, now):
        done = endpoints.disable(s, webhook_id, now, club_id=club_id)
        return done if done["disabled_at"] == now else UNCHANGED  # disabled before: nothing changed

    return op.run(club_of(club_id), do, describe=f"webhook {webhook_id}")
