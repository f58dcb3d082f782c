"""Endpoints (Players online: webhooks): register one for a club or a Pusoy Dos organizer (its secret
answered once, never stored: derived from the platform key, which the caller passes in), list them
without secrets, disable one (its pending deliveries given up). The caller owns the transaction."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from domain.errors import DomainError, NotFound, raise_problems
from domain.webhooks.rules.endpoints import event_problems, url_problems
from domain.webhooks.rules.signing import derive_secret
from domain.webhooks.tables import Delivery, Endpoint, Event

MAX_ENDPOINTS = 20  # per club or organizer, enabled


def register(
    session: Session,
    platform_key: bytes,
    now: datetime,
    *,
    url: str,
    events: Sequence[str],
    club_id: int | None = None,
    organizer: str | None = None,
    private_hosts: bool = False,
) -> tuple[dict, str]:
    """A new endpoint of `club_id` or `organizer`; its view and its secret (shown once)."""
    if (club_id is None) == (organizer is None):
        raise DomainError("webhook-owner", "An endpoint belongs to one club or one organizer.")
    if organizer is not None and not organizer.strip():
        raise DomainError("webhook-owner", "Name the organizer.")
    events = list(dict.fromkeys(events))
    raise_problems([*url_problems(url, private_hosts=private_hosts), *event_problems(events)])
    owner = Endpoint.club_id == club_id if club_id is not None else Endpoint.organizer == organizer
    held = session.scalar(select(func.count()).where(owner, Endpoint.disabled_at.is_(None)))
    if held >= MAX_ENDPOINTS:
        raise DomainError("webhook-limit", f"At most {MAX_ENDPOINTS} endpoints: remove one first.")
    endpoint = Endpoint(club_id=club_id, organizer=organizer, url=url, events=events, created_at=now)
    session.add(endpoint)
    session.flush()
    return view(endpoint), derive_secret(platform_key, endpoint.id, endpoint.created_at)


def view(e: Endpoint, counts: dict | None = None) -> dict:
    out = {
        "id": e.id,
        "club_id": e.club_id,
        "organizer": e.organizer,
        "url": e.url,
        "events": list(e.events),
        "created_at": e.created_at,
        "disabled_at": e.disabled_at,
    }
    return out | ({"deliveries": counts} if counts is not None else {})


def listing(session: Session, *, club_id: int | None = None, organizer: str | None = None) -> list[dict]:
    """The endpoints of a club or an organizer (or every one, naming neither), newest first, each with
    its deliveries counted (pending, delivered, failed) and its last answer; no secret."""
    query = select(Endpoint).order_by(Endpoint.id.desc())
    if club_id is not None:
        query = query.where(Endpoint.club_id == club_id)
    if organizer is not None:
        query = query.where(Endpoint.organizer == organizer)
    endpoints = session.scalars(query).all()
    pending = (Delivery.delivered_at.is_(None)) & (Delivery.failed_at.is_(None))
    counts = {
        row.endpoint_id: {
            "pending": row.pending,
            "delivered": row.delivered,
            "failed": row.failed,
        }
        for row in session.execute(
            select(
                Delivery.endpoint_id,
                func.count().filter(pending).label("pending"),
                func.count().filter(Delivery.delivered_at.is_not(None)).label("delivered"),
                func.count().filter(Delivery.failed_at.is_not(None)).label("failed"),
            )
            .where(Delivery.endpoint_id.in_([e.id for e in endpoints]))
            .group_by(Delivery.endpoint_id)
        )
    }
    empty = {"pending": 0, "delivered": 0, "failed": 0}
    return [view(e, counts.get(e.id, empty)) for e in endpoints]


def disable(
    session: Session, endpoint_id: int, now: datetime, *, club_id: int | None = None, organizer: str | None = None
) -> dict:
    """Disable the endpoint (of that club or organizer, when named: another's is not found, AC-2); its
    pending deliveries are given up. Disabling twice changes nothing the second time."""
    query = select(Endpoint).where(Endpoint.id == endpoint_id).with_for_update()
    if club_id is not None:
        query = query.where(Endpoint.club_id == club_id)
    if organizer is not None:
        query = query.where(Endpoint.organizer == organizer)
    endpoint = session.scalar(query)
    if endpoint is None:
        raise NotFound("webhook-not-found", f"no webhook endpoint {endpoint_id}")
    if endpoint.disabled_at is None:
        endpoint.disabled_at = now
        session.execute(
            update(Delivery)
            .where(Delivery.endpoint_id == endpoint_id, Delivery.delivered_at.is_(None), Delivery.failed_at.is_(None))
            .values(failed_at=now, last_error="endpoint disabled")
        )
    session.flush()
    return view(endpoint)


def _state(d: Delivery) -> str:
    if d.delivered_at is not None:
        return "delivered"
    return "failed" if d.failed_at is not None else "pending"


def recent_deliveries(session: Session, endpoint_ids: Sequence[int], per: int = 10) -> dict[int, list[dict]]:
    """The newest `per` deliveries of each endpoint (newest first), with their event's kind and instant,
    their state (pending, delivered, failed), attempts, next attempt and last answer; in one statement."""
    if not endpoint_ids:
        return {}
    rank = (
        func.row_number()
        .over(partition_by=Delivery.endpoint_id, order_by=(Event.created_at.desc(), Delivery.id.desc()))
        .label("rank")
    )
    ranked = (
        select(Delivery.id, rank)
        .join(Event, Event.id == Delivery.event_id)
        .where(Delivery.endpoint_id.in_(list(endpoint_ids)))
    ).subquery()
    rows = session.execute(
        select(Delivery, Event.kind, Event.created_at)
        .join(ranked, ranked.c.id == Delivery.id)
        .join(Event, Event.id == Delivery.event_id)
        .where(ranked.c.rank <= per)
        .order_by(Delivery.endpoint_id, ranked.c.rank)
    )
    out: dict[int, list[dict]] = {e: [] for e in endpoint_ids}
    for d, kind, created_at in rows:
        out[d.endpoint_id].append(
            {
                "id": d.id,
                "event_id": d.event_id,
                "kind": kind,
                "created_at": created_at,
                "state": _state(d),
                "attempts": d.attempts,
                "next_attempt_at": d.next_attempt_at if _state(d) == "pending" else None,
                "delivered_at": d.delivered_at,
                "failed_at": d.failed_at,
                "last_status": d.last_status,
                "last_error": d.last_error,
            }
        )
    return out
