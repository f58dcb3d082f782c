"""A person's account pages (RULES AC-4, AC-5): sign in and out, the password reset by an e-mailed link,
and `/account` (my roles, my sessions and tokens, sign out everywhere, revoke a token, download my
data). Server-rendered in the browser's language, or the account's once signed in.

They call the services the API calls (`domain/access/services`), and every change takes the API's
steps (`gate.act`: the policy, the use case, the audit row). Forms of a session carry its CSRF token
(the `csrf` field); the sign-in and reset forms, which have no session yet, are checked by their
Origin (`same_origin`). docs/web.md says why each choice."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Collection

from fastapi.encoders import jsonable_encoder
from sqlalchemy import select
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from domain.access.rules.credentials import MAX_PASSWORD, MIN_PASSWORD
from domain.access.rules.policy import Actor, Role
from domain.access.services import accounts, gate, mine, passwords, signin
from domain.access.tables import Grant
from domain.clubs.tables import Club
from domain.documents.ports import DeliveryError
from domain.documents.rules.model import N_
from domain.errors import DomainError, NotFound
from domain.poker.tables.tournaments import Player, Registration, Tournament
from domain.pusoy.tables import PusoyEntry, PusoyTournament
from flows import bootstrap, letters
from flows.web.auth import COOKIE, Caller, same_origin
from flows.web.site import Site, path_id, places_of, preferred_locale
from infra import i18n

SIGN_IN_STATUS = {"wrong-password": 401, "too-many-attempts": 429, "account-blocked": 403}
BLOCKED = N_("This account is blocked. Write to the platform to know why.")
WRONG = N_("That e-mail and password do not match.")
EMPTY = N_("Type your e-mail and your password.")
CROSS_SITE = N_("This form was sent from another site: open this site's own page and try again.")
STALE_FORM = N_("This form has expired: reload the page and try again.")
TOO_MANY_RESETS = N_("Too many requests from your address: wait a quarter of an hour and try again.")
PASSWORD_PROBLEMS = {  # a new password's problems (credentials.password_problems), as the page words them
    "password-is-email": N_("A password cannot be your e-mail address."),
    "passwords-differ": N_("The two passwords are not the same."),
    "wrong-password": N_("That is not your current password."),
    "too-many-attempts": N_("Too many wrong passwords: wait a quarter of an hour and try again."),
}
ROLE_NAMES = {
    "operator": N_("the platform's operator"),
    "owner": N_("owner"),
    "floor": N_("floor manager"),
    "cashier": N_("cashier"),
    "organizer": N_("Pusoy Dos organizer"),
    "player": N_("player"),
}
SECRET = re.compile(r"^[A-Za-z0-9_-]{20,100}$")

log = logging.getLogger(__name__)


HOMES = (  # where each role lands after signing in, the first role the person holds deciding
    (Role.OPERATOR, ("/platform", "/account")),  # the operator's queue (issue 39; the CLI holds the rest)
    (Role.OWNER, ("/club", "/desk")),  # /club comes with the owner's console; until then the desk
    (Role.FLOOR, ("/desk",)),
    (Role.CASHIER, ("/desk",)),
    (Role.ORGANIZER, ("/cups", "/account")),  # a Pusoy Dos organizer's cups (issue 39)
    (Role.PLAYER, ("/play",)),
)


def safe_next(raw: object) -> str | None:
    """Where the sign-in form was asked to go: a path of this site only ("/…", never "//…" nor a
    backslash, which browsers read as another host, nor an absolute URL: no open redirect), else None."""
    text = raw if isinstance(raw, str) else ""
    ok = text.startswith("/") and not text.startswith("//") and "\\" not in text and len(text) <= 500
    return text if ok and text.isascii() and text.isprintable() else None


def home_of(actor: Actor, paths: Collection[str] = ()) -> str:
    """Where a person lands after signing in: the home of the first of the roles they hold, in the order
    operator, owner, floor or cashier, organizer, player (`HOMES`); of a role's pages the first this site serves
    (`paths`: the app's routes; the owner's `/club` once it exists); `/account` for an account with no
    role."""
    held = {role for role, _ in actor.roles}
    for role, pages in HOMES:
        if role in held:
            return next((page for page in pages if page in paths), pages[-1])
    return "/account"


def _routes(request: Request) -> set[str]:
    return {path for route in request.app.routes if (path := getattr(route, "path", None))}


def _address(request: Request) -> str:
    return request.client.host if request.client else "?"


def _refused(site: Site, request: Request, locale: str, message: str, status: int = 403, actor=None) -> Response:
    return site.page(
        "error.html", status=status, locale=locale, request=request, actor=actor, code=status, message=message
    )


def _signed_in(site: Site, session, request: Request, now) -> Caller | None:
    """The caller of an account page: a person signed in by the session cookie (a bearer token is the
    API's, not a browser's), or None."""
    caller = site.auth.identify(session, request, now)
    return caller if caller.by_cookie else None


# -- sign in and out -----------------------------------------------------------------------------------


async def sign_in(site: Site, request: Request) -> Response:
    """`/signin`: the form; posted, a throttled sign-in (the attempt is committed even when it fails: it
    throttles the next), then 303 to `next` (a path of this site) or the person's home (`home_of`: the
    desk, play, …); the header's places cookie is set with the session's."""
    locale = preferred_locale(request)
    if request.method == "GET":
        return _sign_in_form(site, request, locale, next_path=safe_next(request.query_params.get("next")))
    form = await request.form()
    email = str(form.get("email") or "").strip()[:254]
    password = str(form.get("password") or "")[: MAX_PASSWORD + 1]
    next_path = safe_next(form.get("next"))
    if not same_origin(request):
        return _refused(site, request, locale, CROSS_SITE)
    if not email or not password:
        return _sign_in_form(site, request, locale, next_path=next_path, email=email, problem=EMPTY, status=400)
    now = site.clock()

    def run(session):
        done = signin.sign_in(
            session,
            site.hasher,
            email,
            password,
            now,
            address=_address(request),
            agent=request.headers.get("user-agent"),
        )
        return done, signin.session_actor(session, done.secret, now) if done.secret else None

    done, actor = await site.write(run)
    if done.secret is None or actor is None:
        status = SIGN_IN_STATUS.get(done.code, 401)
        response = _sign_in_form(
            site,
            request,
            locale,
            next_path=next_path,
            email=email,
            problem={"wrong-password": WRONG, "account-blocked": BLOCKED}.get(done.code),
            wait_s=done.retry_after_s if done.code == "too-many-attempts" else None,
            status=status,
        )
        if done.retry_after_s:
            response.headers["retry-after"] = str(done.retry_after_s)
        return response
    return _signed_in_to(site, request, done.secret, actor, next_path)


def _signed_in_to(site: Site, request: Request, secret: str, actor: Actor, next_path: str | None) -> Response:
    """A browser just signed in (a new session `secret` of `actor`): 303 to `next_path`, else to the
    person's home, with the session's cookie and its places'."""
    response = RedirectResponse(next_path or home_of(actor, _routes(request)), status_code=303)
    site.auth.set_cookie(response, secret)
    site.places.set(response, secret, places_of(actor))
    return response


def _sign_in_form(site, request, locale, *, next_path, email="", problem=None, wait_s=None, status=200) -> Response:
    return site.page(
        "signin.html",
        status=status,
        locale=locale,
        request=request,
        email=email,
        next_path=next_path or "",
        problem=problem,
        wait_s=wait_s,
    )


async def sign_out(site: Site, request: Request) -> Response:
    """`POST /signout` (the `csrf` field): this session ends, the cookie goes, back to `/`."""
    form = await request.form()
    now = site.clock()

    def run(session):
        caller = _signed_in(site, session, request, now)
        if caller is None:
            return  # nothing to end: the cookie is stale or absent
        if not site.auth.csrf_ok(caller, form.get("csrf")):
            raise StaleForm

        def end(s, actor, at):
            signin.end_session(s, caller.session_secret, at)

        gate.act(session, caller.actor, "account.sign-out", now, end, describe="this session")

    try:
        await site.write(run)
    except StaleForm:
        return _refused(site, request, preferred_locale(request), STALE_FORM)
    response = RedirectResponse("/", status_code=303)
    site.auth.clear_cookie(response)
    site.places.clear(response)
    return response


# -- the password reset --------------------------------------------------------------------------------


async def reset(site: Site, request: Request) -> Response:
    """`/reset`: the form asking for an e-mail; posted, the same page whatever the e-mail (it never tells
    whether the address has an account); a link is sent, after the answer, only to an account that
    exists and is not blocked, and at most one a minute. At most 5 asks per address in 15 minutes."""
    locale = preferred_locale(request)
    if request.method == "GET":
        return site.page("reset.html", locale=locale, request=request)
    form = await request.form()
    email = str(form.get("email") or "").strip()[:254]
    if not same_origin(request):
        return _refused(site, request, locale, CROSS_SITE)
    if not await site.reset_limits.allows(_address(request)):
        return _refused(site, request, locale, TOO_MANY_RESETS, status=429)
    now = site.clock()

    def run(session):
        caller = site.auth.identify(session, request, now)
        return passwords.ask_reset(session, caller.actor, email, now)  # audited when a link goes out

    found = await site.write(run) if email else None
    response = site.page("reset_sent.html", locale=locale, request=request)
    if found is not None:
        account, secret = found
        response.background = BackgroundTask(
            deliver_reset, site, account.email, account.locale, secret
        )  # after the answer: its timing tells nothing either
    return response


def deliver_reset(site: Site, email: str, locale: str, secret: str) -> None:
    """The reset letter, after the answer; a server that refuses it is logged (never the link): the
    person asks again."""
    try:
        letters.send(
            site.settings, bootstrap.mailer(), email, locale, "reset", secret, site.clock(), outbox=site.outbox
        )
    except DeliveryError as exc:
        log.warning("the reset letter to %s was not delivered: %s", email, exc)


async def reset_by_link(site: Site, request: Request) -> Response:
    """`/reset/<secret>`: the new password, twice; posted, the link is spent, the password set, every
    session of the account ended (AC-4), and this browser signed in afresh, landing at the person's home
    as a sign-in does (a new player's welcome link: `/play`)."""
    locale = preferred_locale(request)
    secret = request.path_params["secret"]
    if not SECRET.match(secret):
        return _expired(site, request, locale)
    if request.method == "GET":
        if not await site.write(accounts.link_opens, secret, "reset", site.clock()):
            return _expired(site, request, locale)
        return _new_password_form(site, request, locale, secret)
    form = await request.form()
    if not same_origin(request):
        return _refused(site, request, locale, CROSS_SITE)
    password = str(form.get("password") or "")[: MAX_PASSWORD + 1]
    repeated = str(form.get("repeated") or "")[: MAX_PASSWORD + 1]
    now = site.clock()

    def run(session):
        account = passwords.reset(session, site.hasher, secret, password, repeated, now)  # audited
        fresh = signin.start_session(
            session, account.id, now, address=_address(request), agent=request.headers.get("user-agent")
        )
        return fresh, signin.session_actor(session, fresh, now)

    try:
        fresh, actor = await site.write(run)
    except DomainError as exc:
        if exc.code == "link-expired":
            return _expired(site, request, locale)
        codes = [p.code for p in exc.problems]
        return _new_password_form(site, request, locale, secret, problems=codes, status=422)
    return _signed_in_to(site, request, fresh, actor, None)  # the person's home, as a sign-in


def _expired(site: Site, request: Request, locale: str) -> Response:
    return site.page("link_expired.html", status=410, locale=locale, request=request)


def _new_password_form(site, request, locale, secret, *, problems=(), status=200) -> Response:
    return site.page(
        "reset_link.html",
        status=status,
        locale=locale,
        request=request,
        secret=secret,
        problems=list(problems),
        wording=PASSWORD_PROBLEMS,
        min_password=MIN_PASSWORD,
        max_password=MAX_PASSWORD,
    )


# -- my account ----------------------------------------------------------------------------------------


async def account(site: Site, request: Request) -> Response:
    """`/account`: who I am, my roles per club, my open sessions ("this device" marked) and my tokens,
    in my account's language, their times in my club's timezone (`zone_of`); signed out, 303 to
    `/signin?next=/account`. It sets the header's places afresh (the roles are read here anyway)."""
    now = site.clock()

    def run(session):
        caller = _signed_in(site, session, request, now)
        if caller is None:
            return None
        read = gate.act(
            session,
            caller.actor,
            "account.read",
            now,
            lambda s, actor, at: signin.overview(s, actor, at, current=caller.session_secret),
            describe="my account",
        )
        return read, site.auth.csrf(caller.session_secret), caller.actor, zone_of(session, caller.actor)

    found = await site.write(run)
    if found is None:
        return _to_sign_in(site, "/account")
    me, csrf, actor, (zone, zone_club) = found
    locale = me["locale"] if me["locale"] in i18n.LOCALES else preferred_locale(request)
    return site.page(
        "account.html",
        locale=locale,
        request=request,
        actor=actor,
        me=me,
        csrf=csrf,
        account_email=me["email"],
        signed_in=True,
        role_names=ROLE_NAMES,
        zone=zone,
        zone_club=zone_club,
        now=now,
    )


def zone_of(session, actor: Actor) -> tuple[str | None, str | None]:
    """The timezone `/account` shows my times in, and the club it is of: an account has no timezone of
    its own, so it is the club's where I hold my first role (owner, floor, cashier), else, for a player,
    the club of my latest poker registration, else of my latest cup held by a club; (None, None), UTC,
    for an account with no club at all (the operator, a player of clubless cups only)."""

    def zone(query):
        return session.execute(query.limit(1)).first()

    found = zone(
        select(Club.timezone, Club.name)
        .join(Grant, Grant.club_id == Club.id)
        .where(Grant.account_id == actor.account_id)
        .order_by(Grant.id)
    )
    if found is None and actor.player_id is not None:
        found = zone(
            select(Club.timezone, Club.name)
            .join(Tournament, Tournament.club_id == Club.id)
            .join(Registration, Registration.tournament_id == Tournament.id)
            .where(Registration.player_id == actor.player_id)
            .order_by(Tournament.scheduled_start.desc(), Registration.id.desc())
        )
    if found is None and actor.player_id is not None:
        found = zone(
            select(Club.timezone, Club.name)
            .join(PusoyTournament, PusoyTournament.club_id == Club.id)
            .join(PusoyEntry, PusoyEntry.tournament_id == PusoyTournament.id)
            .where(PusoyEntry.player == select(Player.handle).where(Player.id == actor.player_id).scalar_subquery())
            .order_by(PusoyEntry.joined_at.desc())
        )
    return (found[0], found[1]) if found else (None, None)


async def change_password(site: Site, request: Request) -> Response:
    """`/account/password`: my current password and the new one twice (the `csrf` field); posted and
    right, every session of mine ends and this browser is signed in afresh (303 to `/account`); audited
    (AC-3), never the password. A wrong current password is throttled as a sign-in is."""
    now = site.clock()
    form = await request.form() if request.method == "POST" else None

    def run(session):
        caller = _signed_in(site, session, request, now)
        if caller is None:
            return "signed-out", None, None
        if form is None:
            return "form", caller, None
        if not site.auth.csrf_ok(caller, form.get("csrf")):
            raise StaleForm
        field = {k: str(form.get(k) or "")[: MAX_PASSWORD + 1] for k in ("current", "password", "repeated")}
        refused = passwords.change(session, site.hasher, caller.actor, *field.values(), now, address=_address(request))
        if refused is not None:  # committed: the miss counts for the throttle
            return refused.code, caller, None
        fresh = signin.start_session(
            session, caller.actor.account_id, now, address=_address(request), agent=request.headers.get("user-agent")
        )
        return "done", caller, fresh

    locale = preferred_locale(request)
    try:
        outcome, caller, fresh = await site.write(run)
    except StaleForm:
        return _refused(site, request, locale, STALE_FORM)
    except DomainError as exc:
        return _password_form(site, request, locale, None, [p.code for p in exc.problems], status=422)
    if outcome == "signed-out":
        return _to_sign_in(site, "/account/password")
    if outcome == "done":
        response = RedirectResponse("/account", status_code=303)
        site.auth.set_cookie(response, fresh)
        site.places.set(response, fresh, places_of(caller.actor))
        return response
    csrf = site.auth.csrf(caller.session_secret)
    if outcome == "form":
        return _password_form(site, request, locale, csrf, [])
    return _password_form(site, request, locale, csrf, [outcome], status=SIGN_IN_STATUS.get(outcome, 401))


def _password_form(site, request, locale, csrf, problems, *, status=200) -> Response:
    if csrf is None:  # refused inside the transaction: the session is unchanged, its token too
        csrf = site.auth.csrf(site.auth.secret_of(request.cookies.get(COOKIE)) or "")
    return site.page(
        "password_change.html",
        status=status,
        locale=locale,
        request=request,
        csrf=csrf,
        problems=problems,
        wording=PASSWORD_PROBLEMS,
        min_password=MIN_PASSWORD,
        max_password=MAX_PASSWORD,
        signed_in=True,
    )


def _to_sign_in(site: Site, back: str) -> Response:
    response = RedirectResponse(f"/signin?next={back}", status_code=303)
    site.auth.clear_cookie(response)  # a stale cookie goes, so the header says "Sign in" again
    site.places.clear(response)
    return response


async def my_data(site: Site, request: Request) -> Response:
    """`/account/data.json`: everything the platform holds about me (AC-5), the API's `/me/data`, as a
    file to keep."""
    now = site.clock()

    def run(session):
        caller = _signed_in(site, session, request, now)
        if caller is None:
            return None
        data = gate.act(
            session,
            caller.actor,
            "account.data",
            now,
            lambda s, a, at: mine.everything(s, a.account_id),
            describe="my data",
        )
        return jsonable_encoder(data)

    data = await site.write(run)
    if data is None:
        return _to_sign_in(site, "/account")
    return Response(
        json.dumps(data, ensure_ascii=False, indent=2) + "\n",
        media_type="application/json; charset=utf-8",
        headers={"content-disposition": 'attachment; filename="my-tourney-data.json"', "cache-control": "no-store"},
    )


async def sign_out_everywhere(site: Site, request: Request) -> Response:
    """`POST /account/sign-out-everywhere` (the `csrf` field): every session of mine ends, this one
    too; audited (AC-3)."""

    def end(session, actor, now):
        return {"ended": accounts.end_all_sessions(session, actor.account_id, now)}

    return await _change(site, request, "account.sign-out-everywhere", end, "every session", then="/")


async def revoke_token(site: Site, request: Request) -> Response:
    """`POST /account/tokens/<id>/revoke` (the `csrf` field): one of my tokens stops at its next request;
    another's token is the same 404 as a missing one (AC-2); audited (AC-3)."""
    token_id = path_id(request.path_params["id"])

    def revoke(session, actor, now):
        return signin.revoke_token(session, token_id, now, account_id=actor.account_id)

    return await _change(site, request, "account.revoke-token", revoke, f"token {token_id}", then="/account")


async def _change(site: Site, request: Request, action: str, do, describe: str, *, then: str) -> Response:
    """A change from the account page: `form_act`; 303 to `then`. Without the CSRF field: a plain 403
    page, nothing written."""
    form = await request.form()
    try:
        done = await form_act(site, request, form, action, do, describe=describe)
    except NotFound:
        return site.error(request, HTTPException(404))
    except StaleForm:
        return _refused(site, request, preferred_locale(request), STALE_FORM)
    if not done:
        return _to_sign_in(site, "/account")
    response = RedirectResponse(then, status_code=303)
    if then == "/":  # every session ended, this one too
        site.auth.clear_cookie(response)
        site.places.clear(response)
    return response


async def form_act(site: Site, request: Request, form, action: str, do, *, describe: str, locate=None) -> bool:
    """A person's change from a page's form, by the API's steps, in one transaction: signed in by the
    cookie, the form's CSRF field, then `locate(session, caller)` (the target and its not-found; default:
    my account) and `gate.act` (the policy, the use case, the audit row). False when signed out; raises
    `StaleForm` without the CSRF field, and whatever the policy or the use case refuse with: nothing
    is written then (not even the session's last use)."""
    now = site.clock()

    def run(session):
        caller = _signed_in(site, session, request, now)
        if caller is None:
            return False
        if not site.auth.csrf_ok(caller, form.get("csrf")):
            raise StaleForm
        target, missing = locate(session, caller) if locate else (gate.NOWHERE, None)
        gate.act(session, caller.actor, action, now, do, target=target, missing=missing, describe=describe)
        return True

    return await site.write(run)


class StaleForm(Exception):
    """A session's form without its CSRF token: raised inside the transaction, so nothing is written
    (not even the session's last use)."""
