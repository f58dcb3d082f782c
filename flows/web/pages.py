"""The public pages: the open tournaments, a poker tournament's results and its club screen with their
event streams, season standings, a Pusoy Dos table's page, a club's page, its calendar and its logo. Each reads through
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
from domain.public.services import versions, views
from domain.pusoy.tables import PusoyTournament
from flows.web.auth import COOKIE
from flows.web.cached import CLOCK, FINISHED, LIVE, VARY, matches
from flows.web.calendar import ics
from flows.web.site import CSP, Site, path_id, preferred_locale
from flows.web.wording import with_text

RECENT = 10  # finished tournaments and cups the front page names
LOGO_MAX_AGE = 300  # seconds a browser keeps a logo asked for by its bare address before asking again
LOGO_KEPT = "public, max-age=31536000, immutable"  # asked for by its digest (`?v=`, the pages' address)


async def home(site: Site, request: Request) -> Response:
    """`/`: what is open (poker open for registration or running, public cups filling), then what was
    played: the latest finished tournaments' results, the public cups in play or complete, the
    seasons, and how to check a certificate. With nothing open, the page says so once
    and leads to those."""
    locale = preferred_locale(request)

    async def render(now):
        return site.page("home.html", request=request, locale=locale, **await site.read(_front)), LIVE

    return await _cached(site, request, ("home", locale), versions.front, render, vary=f"{VARY}, Accept-Language")


def _signed_in(site: Site, request: Request) -> bool:
    """The request carries this site's session cookie: its page's header is the person's."""
    return site.auth.secret_of(request.cookies.get(COOKIE)) is not None


async def _cached(site: Site, request: Request, key, version, render, *args, clock: bool = False, vary: str = VARY):
    """The page `key` as `site.pages` keeps it, at `version(session, *args)` (docs/web.md#caching)."""

    def read():
        with site.db() as session:
            return version(session, *args)

    return await site.pages.serve(
        request, key, read, render, signed_in=_signed_in(site, request), clock=clock, vary=vary
    )


def _ended(status: str) -> bool:
    return status in ("finished", "cancelled", "complete")


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


def _screen_and_logo(session: Session, tid: int, now: datetime) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The club's screen (and its widget): the tournament's state and the club's logo (none: no image),
    which the page's version covers (`versions.results`: a new logo is a new page)."""
    state = views.screen(session, tid, now)
    return state, views.logo_shown(session, session.get_one(Tournament, tid).club_id)


async def screen(site: Site, request: Request) -> Response:
    tid = path_id(request.path_params["id"])

    async def render(now):
        state, logo = await site.read(_screen_and_logo, tid, now)
        state = with_text(state)
        page = site.page("screen.html", request=request, locale=state["locale"], s=state, c=state["clock"], logo=logo)
        return page, FINISHED if _ended(state["status"]) else CLOCK

    return await _cached(site, request, ("screen", tid), versions.results, render, tid, clock=True)


async def widget(site: Site, request: Request) -> Response:
    """`/widget/t/<id>`: the tournament live in a frame of a club's site (static/embed.js): the screen's
    facts in a strip, kept current by the same events; any site may frame it (`frame-ancestors *`)."""
    tid = path_id(request.path_params["id"])

    async def render(now):
        state, logo = await site.read(_screen_and_logo, tid, now)
        state = with_text(state)
        page = site.page("widget.html", request=request, locale=state["locale"], s=state, c=state["clock"], logo=logo)
        page.headers["content-security-policy"] = CSP.replace("frame-ancestors 'none'", "frame-ancestors *")
        return page, FINISHED if _ended(state["status"]) else CLOCK

    return await _cached(site, request, ("widget", tid), versions.results, render, tid, clock=True)


async def poker_results(site: Site, request: Request) -> Response:
    """`/t/<id>`: the live results (`?fragment=1`: their body alone, which static/live.js swaps in at an
    event), rendered once per change of the tournament (docs/web.md#caching)."""
    tid = path_id(request.path_params["id"])
    fragment = request.query_params.get("fragment") == "1"

    async def render(now):
        data = await site.read(views.poker_results, tid, now)
        state = with_text(data["screen"])
        page = site.page(
            "results_body.html" if fragment else "results.html",
            request=request,
            locale=state["locale"],
            s=state,
            places=data["places"],
            knockouts=data["knockouts"],
            seasons=data["seasons"],
            logo=data["logo"],
            club_page=data["club_page"],
        )
        return page, FINISHED if _ended(state["status"]) else LIVE

    return await _cached(site, request, ("results", tid, fragment), versions.results, render, tid)


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
    fragment = request.query_params.get("fragment") == "1"

    async def render(now):
        data = await site.read(views.pusoy_page, code)
        name = "pusoy_body.html" if fragment else "pusoy.html"
        page = site.page(name, request=request, locale=data["locale"], p=data, code=code)
        return page, FINISHED if _ended(data["status"]) else LIVE

    return await _cached(site, request, ("cup", code, fragment), versions.cup, render, code)


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


async def club(site: Site, request: Request) -> Response:
    """`/clubs/<id>`: a listed club's page in its language: its logo and name, its tournaments open now,
    its series' next starts, its latest results and seasons, its calendar; 404 for a club not listed."""
    data = await site.read(views.club_page, path_id(request.path_params["id"]), datetime.now(UTC))
    return site.page("club_public.html", request=request, locale=data["locale"], c=data)


async def calendar(site: Site, request: Request) -> Response:
    club_id = path_id(request.path_params["id"])
    data = await site.read(views.club_calendar, club_id, datetime.now(UTC))
    return Response(
        ics(data, site.settings.public_url()),
        media_type="text/calendar; charset=utf-8",
        headers={"content-disposition": f'inline; filename="club-{club_id}.ics"'},
    )


async def club_logo(site: Site, request: Request) -> Response:
    """`/clubs/<id>/logo`: a listed club's logo, its bytes with their type (`image/png`, `image/jpeg`),
    an ETag of its digest (304 to an `If-None-Match` naming it, the bytes not read), and `Cache-Control`:
    a year when asked for by the digest the pages link (`?v=`, a new logo is a new address), else five
    minutes. 404 when the club has none, there is no such club, or it is suspended or terminated."""
    club_id = path_id(request.path_params["id"])
    known = request.headers.get("if-none-match")

    def read(session):
        head = views.club_logo(session, club_id, data=False)
        if matches(known, f'"{head["sha256"]}"'):
            return head
        return views.club_logo(session, club_id)

    logo = await site.read(read)
    etag = f'"{logo["sha256"]}"'
    kept = request.query_params.get("v") == logo["sha256"][:16]
    headers = {"etag": etag, "cache-control": LOGO_KEPT if kept else f"public, max-age={LOGO_MAX_AGE}"}
    if logo["data"] is None:
        return Response(status_code=304, headers=headers)
    return Response(logo["data"], media_type=logo["media_type"], headers=headers)
