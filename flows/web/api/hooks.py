"""A club's webhooks (Players online): its owner registers HTTPS endpoints that hear the club's events
(docs/webhooks.md), lists them (never a secret) and removes them. The secret is answered once, at
registration: it is derived from the platform key, not stored, and not shown again."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from pydantic import Field

from domain.webhooks.rules.endpoints import KINDS
from domain.webhooks.services import endpoints
from flows.web.api.core import SECURED, Id, Strict, api_of, club_of

router = APIRouter(dependencies=SECURED)

Kind = Literal[KINDS]  # type: ignore[valid-type]  (the events of domain/webhooks/rules/endpoints.py)


class WebhookBody(Strict):
    url: str = Field(min_length=8, max_length=2000, examples=["https://club.example/hooks/tourney"])
    events: list[Kind] = Field(min_length=1, max_length=4, description="the events this endpoint hears")


@router.get("/clubs/{club_id}/webhooks", operation_id="club.webhooks", tags=["club"])
def club_webhooks(request: Request, club_id: Id) -> list:
    """The club's endpoints, newest first, with their deliveries counted; no secret."""
    return api_of(request).run(
        request,
        "club.webhooks",
        club_of(club_id),
        lambda s, actor, now: endpoints.listing(s, club_id=club_id),
        describe=f"club {club_id}",
    )


@router.post("/clubs/{club_id}/webhooks", operation_id="club.add-webhook", tags=["club"], status_code=201)
def club_add_webhook(request: Request, club_id: Id, body: WebhookBody) -> dict:
    """Register an endpoint (https://; a public host). The answer carries its `secret`, shown this once:
    keep it to verify the `Tourney-Signature` of every delivery."""
    key = request.app.state.webhook_key

    def do(s, actor, now):
        made, secret = endpoints.register(s, key, now, url=body.url, events=body.events, club_id=club_id)
        return made | {"secret": secret}

    return api_of(request).run(
        request, "club.add-webhook", club_of(club_id), do, describe=f"webhook {body.url}", data=body.model_dump()
    )


@router.delete("/clubs/{club_id}/webhooks/{webhook_id}", operation_id="club.remove-webhook", tags=["club"])
def club_remove_webhook(request: Request, club_id: Id, webhook_id: Id) -> dict:
    """Disable an endpoint: nothing more is sent to it, its pending deliveries are given up."""
    return api_of(request).run(
        request,
        "club.remove-webhook",
        club_of(club_id),
        lambda s, actor, now: endpoints.disable(s, webhook_id, now, club_id=club_id),
        describe=f"webhook {webhook_id}",
    )
