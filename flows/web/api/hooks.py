"""A club's webhooks (Players online): its owner registers HTTPS endpoints that hear the club's events
(docs/webhooks.md), lists them with their recent deliveries (never a secret) and removes one.
The secret is answered once, at registration: it is derived from the platform key, not stored, and not
shown again. The use cases (`*_use`) are the ones the console's page runs too (flows/web/club_webhooks.py)."""

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
RECENT = 10  # deliveries shown with each endpoint

Kind = Literal[KINDS]  # type: ignore[valid-type]  (the events of domain/webhooks/rules/endpoints.py)


class WebhookBody(Strict):
    url: str = Field(min_length=8, max_length=2000, examples=["https://club.example/hooks/tourney"])
    events: list[Kind] = Field(min_length=1, max_length=4, description="the events this endpoint hears")


class Deliveries(BaseModel):
    pending: int
    delivered: int
    failed: int


class WebhookDelivery(BaseModel):
    id: int
    event_id: str = Field(description="the event's id, its `Tourney-Event-Id`")
    kind: str
    created_at: datetime = Field(description="when the event happened")
    state: Literal["pending", "delivered", "failed"]
    attempts: int
    next_attempt_at: datetime | None = Field(description="a pending delivery's next attempt")
    delivered_at: datetime | None
    failed_at: datetime | None = Field(description="given up: after its attempts, or its endpoint disabled")
    last_status: int | None = Field(description="the HTTP status of the last answer, none when there was none")
    last_error: str | None


class Webhook(BaseModel):
    id: int
    club_id: int | None
    organizer: str | None
    url: str
    events: list[Kind]
    created_at: datetime
    disabled_at: datetime | None
    deliveries: Deliveries | None = None
    recent: list[WebhookDelivery] | None = Field(
        default=None, description=f"its {RECENT} newest deliveries, newest event first (in the list only)"
    )


class NewWebhook(Webhook):
    secret: str = Field(description="the signing secret, shown this once")


def listing_use(club_id: int):
    """The club's endpoints, newest first, each with its deliveries counted and its `RECENT` newest
    deliveries (the last one first); no secret."""

    def do(s, actor, now):
        listed = endpoints.listing(s, club_id=club_id)
        recent = endpoints.recent_deliveries(s, [e["id"] for e in listed], RECENT)
        return [e | {"recent": recent[e["id"]]} for e in listed]

    return do


def add_use(key: bytes, club_id: int, url: str, events: list[str]):
    """Register an endpoint of the club (https://, a public host): its view and its secret, once."""

    def do(s, actor, now):
        made, secret = endpoints.register(s, key, now, url=url, events=events, club_id=club_id)
        return made | {"secret": secret}

    return do


def remove_use(club_id: int, webhook_id: int):
    """Disable the club's endpoint (another club's is not found); disabled already: UNCHANGED."""

    def do(s, actor, now):
        done = endpoints.disable(s, webhook_id, now, club_id=club_id)
        return done if done["disabled_at"] == now else UNCHANGED  # disabled before: nothing changed

    return do


@ops.get(
    "/clubs/{club_id}/webhooks",
    "club.webhooks",
    response=list[Webhook],
    responses={200: {"description": "a page of the endpoints", "headers": PAGED}},
)
def club_webhooks(op: Op, club_id: Id, limit: Limit = 50, cursor: Cursor = None):
    """The club's endpoints, newest first, with their deliveries counted and the newest ten of them (each
    one's state, attempts, next attempt and last answer); no secret; a page at a time."""
    return op.run(
        club_of(club_id),
        lambda s, actor, now: op.page(listing_use(club_id)(s, actor, now), lambda e: (-e["id"],), limit, cursor),
        describe=f"club {club_id}",
    )


@ops.post("/clubs/{club_id}/webhooks", "club.add-webhook", response=NewWebhook, status=201, secret=True)
def club_add_webhook(op: Op, club_id: Id, body: WebhookBody):
    """Register an endpoint (https://; a public host).
    The answer carries its `secret`, shown this once: keep it to verify the `Tourney-Signature` of
    every delivery."""
    do = add_use(op.request.app.state.webhook_key, club_id, body.url, list(body.events))
    return op.run(club_of(club_id), do, describe=f"webhook {body.url}", data=body.model_dump())


@ops.delete("/clubs/{club_id}/webhooks/{webhook_id}", "club.remove-webhook", response=Webhook, unchanged=True)
def club_remove_webhook(op: Op, club_id: Id, webhook_id: Id):
    """Disable an endpoint: nothing more is sent to it, its pending deliveries are given up.
    One disabled already: 204, nothing written."""
    return op.run(club_of(club_id), remove_use(club_id, webhook_id), describe=f"webhook {webhook_id}")
