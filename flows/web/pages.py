"""The public pages: the open tournaments, a poker tournament's results and its club screen with their
event streams, season standings, a Pusoy Dos table's page and a club's calendar. Each reads through
`domain/public/services/views.py` in one session."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from domain.clubs.tables import Club
from domain.poker.services.changes import change_key
from domain.poker.tables.tournaments import Tournament
from domain.public.services import views
from domain.pusoy.tables import PusoyTournament
from flows.web.calendar import ics
from flows.web.site import CSP, Site, path_id, preferred_locale
from flows.web.wording import with_text

RECENT = 10  # finished tournaments and cups the front page names


async def home(site: Site, request: Request) -> Response:
    """`/`: what is open (poker open for registration or running, public cups filling), then what was
    played: the latest finished tournaments' results, the public cups in play or complete, the
    seasons, and how to check a certificate. With nothing open, the page says so once
    and leads to those."""
    return site.page("home.html", request=request, locale=preferred_locale(request), **await site.read(_front))


def _front(session: Session) -> dict[str, Any]:
    return {**views.open_tournaments(session), "results": recent_results(session), "cups": recent_cups(session)}


def recent_results(session: Session, limit: int = RECENT) -> list[dict[str, Any]]:
    """The latest finished poker tournaments of listed clubs, the latest finish first, each with its club
    and the day it finished in the club's timezone. No player is named (AC-5: the front page lists
    tournaments; each results page names its places by handle)."""
    rows = session.execute(
        select(
            Tournament.id, Tournament.name, Tournament.finished_at, Tournament.scheduled_start, Club.name, Club.timezone
        )
        .join(Club, Club.id == Tournament.club_id)
        .where(Tournament.status == "finished", Club.listing_status == "listed")
        .order_by(func.coalesce(Tournament.finished_at, Tournament.scheduled_start).desc(), Tournament.id.desc())
        .limit(limit)
    ).all()
    return [
        {"id": tid, "name": name, "club": club, "day": (finished or start).astimezone(ZoneInfo(zone)).date()}
        for tid, name, finished, start, club, zone in rows
    ]


def recent_cups(session: Session, limit: int = RECENT) -> list[dict[str, Any]]:
    """The public Pusoy Dos cups in play or complete, the latest first (each page names its champion); a
    private cup never (PD-3: its code is its address)."""
    rows = session.execute(
        select(PusoyTournament.code, PusoyTournament.name, PusoyTournament.status)
        .where(PusoyTournament.private.is_(False), PusoyTournament.status.in_(("active", "complete")))
        .order_by(
            func.coalesce(PusoyTournament.finished_at, PusoyTournament.started_at, PusoyTournament.created_at).desc(),
            PusoyTournament.id.desc(),
        )
        .limit(limit)
    ).all()
    return [{"code": c, "name": n, "status": s} for c, n, s in rows]


async def screen(site: Site, request: Request) -> Response:
    state = with_text(await site.read(views.screen, path_id(request.path_params["id"]), datetime.now(UTC)))
    return site.page("screen.html", request=request, locale=state["locale"], s=state, c=state["clock"])


async def widget(site: Site, request: Request) -> Response:
    """`/widget/t/<id>`: the tournament live in a frame of a club's site (static/embed.js): the screen's
    facts in a strip, kept current by the same events; any site may frame it (`frame-ancestors *`)."""
    state = with_text(await site.read(views.screen, path_id(request.path_params["id"]), datetime.now(UTC)))
    page = site.page("widget.html", request=request, locale=state["locale"], s=state, c=state["clock"])
    page.headers["content-security-policy"] = CSP.replace("frame-ancestors 'none'", "frame-ancestors *")
    return page


async def poker_results(site: Site, request: Request) -> Response:
    data = await site.read(views.poker_results, path_id(request.path_params["id"]), datetime.now(UTC))
    name = "results_body.html" if request.query_params.get("fragment") == "1" else "results.html"
    state = with_text(data["screen"])
    return site.page(
        name,
        request=request,
        locale=state["locale"],
        s=state,
        places=data["places"],
        knockouts=data["knockouts"],
        seasons=data["seasons"],
    )


async def poker_events(site: Site, request: Request) -> Response:
    tid = path_id(request.path_params["id"])
    await site.read(views.fingerprint_or_404, tid)

    def fingerprint():
        with site.db() as session:
            return change_key(session, tid)

    def build(now):
        with site.db() as session:
            return with_text(views.screen(session, tid, now))

    return await site.stream(request, f"poker:{tid}", fingerprint, build)


async def season(site: Site, request: Request) -> Response:
    data = await site.read(views.season, path_id(request.path_params["id"]))
    return site.page("season.html", request=request, locale=data["locale"], s=data)


async def pusoy_page(site: Site, request: Request) -> Response:
    code = site.join_code(request)
    data = await site.read(views.pusoy_page, code)
    name = "pusoy_body.html" if request.query_params.get("fragment") == "1" else "pusoy.html"
    return site.page(name, request=request, locale=data["locale"], p=data, code=code)


async def pusoy_events(site: Site, request: Request) -> Response:
    code = site.join_code(request)
    if await site.read(views.pusoy_version, code) is None:  # one short statement, not the page's reading
        raise HTTPException(404)

    def fingerprint():
        with site.db() as session:
            return views.pusoy_version(session, code)

    def build(now):
        return {"version": fingerprint(), "at": now}

    return await site.stream(request, f"pusoy:{code}", fingerprint, build)


async def calendar(site: Site, request: Request) -> Response:
    club_id = path_id(request.path_params["id"])
    data = await site.read(views.club_calendar, club_id, datetime.now(UTC))
    return Response(
        ics(data, site.settings.public_url()),
        media_type="text/calendar; charset=utf-8",
        headers={"content-disposition": f'inline; filename="club-{club_id}.ics"'},
    )
