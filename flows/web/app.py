"""The public web pages (read-only): the club's screen, live results, season standings, certificate
checks and the clubs' calendars; and a person's account pages (sign in and out, password reset, my
account). Starlette + Jinja2 (autoescape), server-sent events from one shared poller per
tournament, JavaScript served as files under a strict Content-Security-Policy.

The pages are in `pages.py`, `certificates.py`, `accounts.py` and `play.py` (the players'), what they share in `site.py`. `tourney web` serves
the app with uvicorn; docs/web.md describes the pages and the security choices.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import asynccontextmanager
from datetime import datetime
from functools import partial
from pathlib import Path

from sqlalchemy.engine import Engine
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from flows import bootstrap
from flows.web import (
    accounts,
    certificates,
    club,
    club_logo,
    club_series,
    club_webhooks,
    cups,
    desk,
    pages,
    platform,
    play,
)
from flows.web.api import create_api
from flows.web.site import SecurityHeaders, Site

STATIC = Path(__file__).with_name("static")
ROUTES = (
    ("/", pages.home, ["GET"]),
    ("/t/{id}", pages.poker_results, ["GET"]),
    ("/t/{id}/screen", pages.screen, ["GET"]),
    ("/widget/t/{id}", pages.widget, ["GET"]),
    ("/t/{id}/events", pages.poker_events, ["GET"]),
    ("/seasons/{id}", pages.season, ["GET"]),
    ("/p/{code}", pages.pusoy_page, ["GET"]),
    ("/p/{code}/events", pages.pusoy_events, ["GET"]),
    ("/verify", certificates.verify_form, ["GET"]),
    ("/verify/{serial}", certificates.verify, ["GET", "POST"]),
    ("/clubs/{id}", pages.club, ["GET"]),
    ("/clubs/{id}/calendar.ics", pages.calendar, ["GET"]),
    ("/clubs/{id}/logo", pages.club_logo, ["GET"]),
    ("/signin", accounts.sign_in, ["GET", "POST"]),
    ("/signout", accounts.sign_out, ["POST"]),
    ("/reset", accounts.reset, ["GET", "POST"]),
    ("/reset/{secret}", accounts.reset_by_link, ["GET", "POST"]),
    ("/account", accounts.account, ["GET"]),
    ("/account/data.json", accounts.my_data, ["GET"]),
    ("/account/password", accounts.change_password, ["GET", "POST"]),
    ("/account/sign-out-everywhere", accounts.sign_out_everywhere, ["POST"]),
    ("/account/tokens/{id}/revoke", accounts.revoke_token, ["POST"]),
    ("/desk", desk.today, ["GET"]),
    ("/desk/t/{id}", desk.tournament, ["GET"]),
    ("/club", club.home, ["GET"]),
    ("/club/{id}", club.console, ["GET"]),
    ("/club/{id}/profile", club.profile, ["GET", "POST"]),
    ("/club/{id}/logo", club_logo.upload, ["POST"]),
    ("/club/{id}/logo/remove", club_logo.remove, ["POST"]),
    ("/club/{id}/staff", club.staff, ["GET"]),
    ("/club/{id}/staff/invite", club.invite, ["POST"]),
    ("/club/{id}/staff/{account}/roles", club.roles, ["POST"]),
    ("/club/{id}/tokens", club.tokens, ["GET", "POST"]),
    ("/club/{id}/audit", club.trail, ["GET"]),
    ("/club/{id}/tokens/{tid}/revoke", club.revoke_token, ["POST"]),
    ("/club/{id}/webhooks", club_webhooks.webhooks_page, ["GET", "POST"]),
    ("/club/{id}/webhooks/{wid}/disable", club_webhooks.disable, ["POST"]),
    ("/club/{id}/structures", club.structures_page, ["GET", "POST"]),
    ("/club/{id}/structures/import", club.import_structure, ["POST"]),
    ("/club/{id}/structures/{sid}", club.structure, ["GET", "POST"]),
    ("/club/{id}/structures/{sid}/copy", club.copy_structure, ["POST"]),
    ("/club/{id}/structures/{sid}/levels.csv", club.export_structure, ["GET"]),
    ("/club/{id}/tournaments", club.tournaments_page, ["GET", "POST"]),
    ("/club/{id}/tournaments/{tid}", club.tournament_page, ["GET", "POST"]),
    ("/club/{id}/tournaments/{tid}/prizes", club.prizes, ["POST"]),
    ("/club/{id}/tournaments/{tid}/mystery", club.mystery_table, ["POST"]),
    ("/club/{id}/tournaments/{tid}/open", club.open_tournament, ["POST"]),
    ("/club/{id}/tournaments/{tid}/cancel", club.cancel_tournament, ["POST"]),
    ("/club/{id}/series", club_series.series_page, ["GET", "POST"]),
    ("/club/{id}/series/{sid}", club_series.one_series, ["GET", "POST"]),
    ("/club/{id}/series/{sid}/skip", club_series.skip_date, ["POST"]),
    ("/club/{id}/series/{sid}/{action}", club_series.series_status, ["POST"]),
    ("/club/{id}/seasons", club_series.seasons_page, ["GET", "POST"]),
    ("/club/{id}/seasons/{sid}", club_series.one_season, ["GET", "POST"]),
    ("/club/{id}/seasons/{sid}/edit", club_series.edit_season, ["POST"]),
    ("/club/{id}/seasons/{sid}/remove", club_series.remove_from_season, ["POST"]),
    ("/club/{id}/documents", club_series.documents_page, ["GET"]),
    ("/club/{id}/documents/{pid}/files/{did}", club_series.download, ["GET"]),
    ("/club/{id}/documents/{pid}/resend", club_series.resend, ["POST"]),
    ("/signup", play.sign_up, ["GET", "POST"]),
    ("/play", play.play, ["GET"]),
    ("/play/join", play.join, ["POST"]),
    ("/play/certificates/{serial}", play.certificate, ["GET"]),
    ("/play/tournaments/{id}/{what}", play.poker, ["POST"]),
    ("/play/{code}", play.cup, ["GET"]),
    ("/play/{code}/withdraw", play.withdraw, ["POST"]),
    ("/play/{code}/events", play.cup_events, ["GET"]),
    ("/platform", platform.queue, ["GET"]),
    ("/platform/clubs", platform.clubs, ["GET"]),
    ("/platform/clubs/{id}", platform.club, ["GET"]),
    ("/platform/clubs/{id}/{decision}", platform.decide, ["POST"]),
    ("/platform/accounts", platform.accounts_page, ["GET"]),
    ("/platform/accounts/{id}/block", platform.block, ["POST"]),
    ("/platform/accounts/{id}/unblock", platform.block, ["POST"]),
    ("/platform/accounts/{id}/grant-organizer", platform.organizer, ["POST"]),
    ("/platform/accounts/{id}/revoke-organizer", platform.organizer, ["POST"]),
    ("/cups", cups.home, ["GET", "POST"]),
    ("/cups/{code}", cups.cup, ["GET", "POST"]),
    ("/cups/{code}/cancel", cups.cancel, ["POST"]),
    ("/cups/{code}/documents/{pid}/files/{did}", cups.download, ["GET"]),
    ("/cups/{code}/documents/{pid}/resend", cups.resend, ["POST"]),
    ("/cups/{code}/tokens", cups.new_token, ["POST"]),
    ("/cups/{code}/tokens/{id}/revoke", cups.revoke_token, ["POST"]),
)


def create_app(
    engine: Engine | None = None,
    *,
    poll_interval: float = 5.0,
    join_limit: int = 10,
    join_window: float = 60.0,
    outbox: Path | None = None,
    shared_poller: bool = True,
    clock: Callable[[], datetime] | None = None,
) -> Starlette:
    """The application. `poll_interval`: the event streams' safety net, seconds between looks at a watched
    thing with no NOTIFY (flows/web/live.py). `shared_poller=False` gives every event-stream client a
    topic of its own: the naive way, kept only so `bench/bench_web.py` can measure the shared one beside it."""
    site = Site(
        engine,
        bootstrap.settings(),
        poll_interval=poll_interval,
        join_limit=join_limit,
        join_window=join_window,
        outbox=outbox,
        shared_poller=shared_poller,
        clock=clock,
    )

    async def error(request, exc: Exception):
        return site.error(request, exc)

    @asynccontextmanager
    async def lifespan(app):
        yield
        await site.hub.close()

    api = create_api(
        site.db,
        site.auth,
        site.hasher,
        site.clock,
        code_limits=site.join_limits,
        webhook_key=site.settings.secret_key(),
        reset_limits=site.reset_limits,
        send_reset=partial(accounts.deliver_reset, site),
        outbox=site.outbox,
        sign_up=play.sign_up_door(site),
    )
    app = Starlette(
        routes=[Route(path, partial(handler, site), methods=methods) for path, handler, methods in ROUTES]
        + [Mount("/static", StaticFiles(directory=STATIC), name="static"), Mount("/api/v1", api)],
        exception_handlers={HTTPException: error, Exception: error},
        middleware=[Middleware(SecurityHeaders)],
        lifespan=lifespan,
    )
    app.state.hub = site.hub
    app.state.pages = site.pages
    app.state.join_limits = site.join_limits
    app.state.desk_states = api.state.desk_states
    return app


__all__ = ["create_app"]
