"""The club's desk (docs/desk.md): the shells of `/desk` (the day) and `/desk/t/<id>` (a tournament),
for the floor and the counter. Each shell is rendered in the club's language with the session's CSRF
token; `static/desk.js` does the rest through `/api/v1` (the desk's operations in
`flows/web/api/desk.py`) and follows the tournament's event stream.

Not signed in: a redirect to `/signin?next=…`. A tournament the caller's roles do not reach (another
club's) is the same 404 page as a missing one, by the same policy as the API (AC-2)."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from domain.access.rules.policy import may
from domain.access.services import targets
from domain.access.services.gate import allow
from domain.clubs.services.clubs import get_club
from domain.documents.services import locales
from domain.errors import NotFound
from flows.web.site import Site, path_id, preferred_locale


def _who(site: Site, request: Request):
    def run(session):
        return site.auth.identify(session, request, datetime.now(UTC))

    return run


def _signin(request: Request) -> Response:
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/signin?next={quote(here, safe='')}", status_code=303)


def _csrf(site: Site, caller) -> str:
    return site.auth.csrf(caller.session_secret) if caller.by_cookie else ""


def _header(request: Request, caller) -> dict:
    """The site's header on the desk's pages: the person's places (the console for an owner), my
    account, the sign-out (a shared tablet is left signed out), the e-mail of who is signed in."""
    return {"request": request, "actor": caller.actor, "account_email": caller.actor.label}


async def today(site: Site, request: Request) -> Response:
    caller = await site.read(_who(site, request))
    if not caller.actor.signed_in:
        return _signin(request)

    def clubs(session):
        found = [get_club(session, club_id) for club_id in sorted(caller.actor.clubs())]
        locale = locales.club_locale(session, found[0].id) if found else None
        # the day's totals only where the policy lets the caller read them (desk.totals): never asked else
        totals = [c.id for c in found if may(caller.actor, "desk.totals", targets.club(session, c.id)) is None]
        return [{"id": c.id, "name": c.name} for c in found], totals, locale

    found, totals, locale = await site.read(clubs)
    return site.page(
        "desk_today.html",
        locale=locale or preferred_locale(request),
        clubs=found,
        totals_clubs=totals,
        csrf=_csrf(site, caller),
        **_header(request, caller),
    )


async def tournament(site: Site, request: Request) -> Response:
    tid = path_id(request.path_params["id"])
    caller = await site.read(_who(site, request))
    if not caller.actor.signed_in:
        return _signin(request)

    def shell(session):
        allow(caller.actor, "desk.state", targets.tournament(session, tid), NotFound("tournament-not-found", ""))
        return locales.tournament_locale(session, tid)

    locale = await site.read(shell)
    return site.page(
        "desk_tournament.html", locale=locale, tid=tid, csrf=_csrf(site, caller), **_header(request, caller)
    )
