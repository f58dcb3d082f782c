"""The players' pages (RULES AC-1, AC-2, PD-3, PD-4): sign up (`/signup`), `/play` (open cups to join, a
join code, a club's open poker tournaments to register for, my tournaments) and `/play/<code>` (my view
of a cup, live). In the account's language.

Every change is a form of the session (its `csrf` field) that takes the API's steps: `gate.act` with the
API operation's action (`pusoy.join`, `pusoy.withdraw`, `poker.register-self`, `poker.unregister-self`),
the same use case, the same audit row. A page that names a cup by its code is throttled per account (a
club's shared network does not make its players wait), as the API's calls are (`Api.throttle`); the
sign-up per address. A private cup's code IS its page's address: knowing it is what joining asks
(PD-3), and a code that names no cup is the same 404 as a cup that is not there. docs/players.md."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from anyio import to_thread
from jinja2 import Environment
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from domain.access.services import gate, mine, signup, targets
from domain.access.tables import Account
from domain.documents.rules.model import N_
from domain.documents.services.sources.pusoy import step_wording
from domain.errors import DomainError, NotFound
from domain.poker.services import entries
from domain.public.services import views
from domain.pusoy.services import setup
from domain.pusoy.services import views as cup_views
from flows import bootstrap, letters
from flows.web.accounts import (
    CROSS_SITE,
    STALE_FORM,
    StaleForm,
    _address,
    _refused,
    _signed_in,
    _to_sign_in,
    form_act,
)
from flows.web.auth import Caller, same_origin
from flows.web.certificates import SERIAL, pdf_download, stored_file
from flows.web.live import PARTS
from flows.web.site import JOIN_CODE, Site, path_id, preferred_locale
from infra import i18n

TOO_MANY_SIGNUPS = N_("Too many sign-ups from your address: wait a quarter of an hour and try again.")
TOO_MANY_CODES = N_("Too many join codes tried: wait a minute and try again.")
NOT_A_PLAYER = N_("This account is not a player's: sign up as a player to join tournaments.")
SIGNUP_PROBLEMS = {  # a sign-up's problems (signup.problems), as the page words them
    "bad-email": N_("That is not an e-mail address."),
    "name-blank": N_("Type your full name."),
    "name-too-long": N_("The full name is too long: at most 200 characters."),
    "handle-invalid": N_(
        "A handle starts with a letter and has 2 to 32 letters, digits, dots, hyphens or underscores."
    ),
    "handle-taken": N_("This handle is taken: choose another."),
    "birth-date-missing": N_("Type your date of birth."),
    "birth-date-too-early": N_("That date of birth is too early."),
    "birth-date-in-future": N_("That date of birth is in the future."),
    "player-under-18": N_("Tourney is for adults only: you must be 18 or older."),
}
REFUSALS = {  # why a join, withdrawal or registration was refused (the services' codes), as the page words it
    "unknown-code": N_("No tournament has this join code."),
    "tournament-full": N_("This tournament is full."),
    "tournament-complete": N_("This tournament is over."),
    "tournament-cancelled": N_("This tournament was cancelled."),
    "already-joined": N_("You already hold a seat in this tournament."),
    "not-entered": N_("You hold no seat in this tournament."),
    "withdraw-after-start": N_("This tournament has started: entries are locked."),
    "already-registered": N_("You are already registered for this tournament."),
    "not-registered": N_("You are not registered for this tournament."),
    "registration-closed": N_("Registration for this tournament is closed."),
    "tournament-not-found": N_("Nothing here."),
}
log = logging.getLogger(__name__)
ACTIONS = {"register": "poker.register-self", "unregister": "poker.unregister-self"}


class _Throttled(Exception):
    """Too many join codes from this account."""


def _locale(session, caller: Caller | None, request: Request) -> str:
    """The account's language, else the browser's."""
    if caller is not None and caller.actor.account_id:
        locale = session.scalar(select(Account.locale).where(Account.id == caller.actor.account_id))
        if locale in i18n.LOCALES:
            return locale
    return preferred_locale(request)


def _code_allowed(site: Site, caller: Caller, code: str) -> bool:
    return site.join_limits.allow(f"account:{caller.actor.account_id}", code.upper()[:16])


# -- sign up -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignUp:
    """What `/signup` and `POST /api/v1/signup` share beyond the use case: the one per-address throttle
    (both doors count together) and the letter's delivery after the answer."""

    allow: Callable[[str], bool]  # the address may sign up now (and is counted)
    deliver: Callable[[signup.Letter], None]
    limits: object = None  # the throttle itself (`site.RateLimit`): its limit and wait for a 429's headers


def sign_up_door(site: Site) -> SignUp:
    return SignUp(site.signup_limits.allow, lambda letter: _deliver(site, letter), site.signup_limits)


def sign_up_action(fields: dict[str, str]):
    """The sign-up as a `gate.act` use case (action `account.sign-up`), for the page and the API alike:
    every problem at once (nothing written), else the letter to send (None: nothing to send)."""
    try:
        born: date | None = date.fromisoformat(fields["birth_date"]) if fields["birth_date"] else None
    except ValueError:
        born = None

    def do(session, actor, now):
        return signup.sign_up(session, fields["email"], fields["name"], fields["handle"], born, fields["locale"], now)

    return do


async def sign_up(site: Site, request: Request) -> Response:
    """`/signup`: e-mail, handle, full name, date of birth (and the language). Posted: every problem at
    once (422, nothing written), else the same "check your mail" page whether or not the e-mail had an
    account; the letter goes after the answer (a welcome link, or a reset link to an existing account).
    At most 10 sign-ups per address in 15 minutes (right or wrong), the API's counted with the page's."""
    locale = preferred_locale(request)
    if request.method == "GET":
        return _sign_up_form(site, request, locale, {"locale": locale})
    form = await request.form()
    fields = {k: str(form.get(k) or "").strip()[:254] for k in ("email", "handle", "name", "birth_date", "locale")}
    if fields["locale"] not in i18n.LOCALES:
        fields["locale"] = locale
    if not same_origin(request):
        return _refused(site, request, locale, CROSS_SITE)
    if not await site.signup_limits.allows(_address(request)):
        return _refused(site, request, locale, TOO_MANY_SIGNUPS, status=429)
    now = site.clock()

    def run(session):
        actor = site.auth.identify(session, request, now).actor
        return gate.act(session, actor, "account.sign-up", now, sign_up_action(fields), describe="sign-up")

    try:
        letter = await site.write(run)
    except DomainError as exc:
        codes = [p.code for p in exc.problems] or [exc.code]
        return _sign_up_form(site, request, fields["locale"], fields, problems=codes, status=422)
    response = site.page("signup_sent.html", locale=fields["locale"], request=request)
    if letter is not None:
        response.background = BackgroundTask(_deliver, site, letter)
    return response


def _sign_up_form(site, request, locale, fields, *, problems=(), status=200) -> Response:
    return site.page(
        "signup.html",
        status=status,
        locale=locale,
        request=request,
        f=fields,
        problems=list(problems),
        wording=SIGNUP_PROBLEMS,
        locales=i18n.LOCALES,
    )


def _deliver(site: Site, letter: signup.Letter) -> None:
    from domain.documents.ports import DeliveryError

    try:
        letters.send(
            site.settings,
            bootstrap.mailer(),
            letter.email,
            letter.locale,
            letter.kind,
            letter.secret,
            site.clock(),
            outbox=site.outbox,
        )
    except DeliveryError as exc:  # logged (never the link): the person asks for a reset
        log.warning("the %s letter to %s was not delivered: %s", letter.kind, letter.email, exc)


# -- /play ---------------------------------------------------------------------------------------------


async def play(site: Site, request: Request) -> Response:
    """`/play`: open cups (join buttons), a join code, a club's open poker tournaments (register,
    unregister), and my tournaments. Signed out: to `/signin?next=/play`."""
    return await _play_page(site, request)


async def _play_page(site: Site, request: Request, *, problem: str | None = None, status: int = 200) -> Response:
    now = site.clock()

    def run(session):
        caller = _signed_in(site, session, request, now)
        if caller is None:
            return None
        locale = _locale(session, caller, request)
        if caller.actor.player_id is None:
            return caller, locale, None
        mine_now = gate.act(
            session, caller.actor, "player.entries", now, lambda s, a, at: mine.entries_of(s, a.player_id), describe=""
        )
        cups = [cup_views.summary(t) for t in setup.browse(session)]
        poker = views.open_tournaments(session)["poker"]
        return caller, locale, {"mine": mine_now, "cups": cups, "poker": poker}

    found = await site.write(run)
    if found is None:
        return _to_sign_in(site, "/play")
    caller, locale, data = found
    if data is None:
        return _refused(site, request, locale, NOT_A_PLAYER, actor=caller.actor)
    held = {c["code"] for c in data["mine"]["pusoy"] if c["status"] == "setup"}
    active = [r for r in data["mine"]["poker"] if r["registration"] == "active"]
    registered = {r["tournament_id"] for r in active if not r["checked_in_at"]}
    checked_in = {r["tournament_id"] for r in active if r["checked_in_at"]}  # at the desk: nothing to do here
    return site.page(
        "play.html",
        status=status,
        locale=locale,
        request=request,
        actor=caller.actor,
        signed_in=True,
        csrf=site.auth.csrf(caller.session_secret),
        held=held,
        registered=registered,
        checked_in=checked_in,
        problem=problem,
        **data,
    )


async def join(site: Site, request: Request) -> Response:
    """`POST /play/join` (`code`, `csrf`): take a seat (PD-4), then to `/play/<code>`."""
    form = await request.form()
    code = str(form.get("code") or "").strip().upper()[:16]

    def do(s, actor, now):
        setup.join(s, code, mine.handle_of(s, actor.player_id), now)

    return await _act(site, request, form, "pusoy.join", code, do, then=f"/play/{code}")


async def withdraw(site: Site, request: Request) -> Response:
    """`POST /play/<code>/withdraw` (`csrf`): leave a cup while it fills (PD-4), then to `/play`."""
    form = await request.form()
    code = request.path_params["code"].upper()[:16]

    def do(s, actor, now):
        setup.withdraw(s, code, mine.handle_of(s, actor.player_id), now)

    return await _act(site, request, form, "pusoy.withdraw", code, do, then="/play")


async def poker(site: Site, request: Request) -> Response:
    """`POST /play/tournaments/<id>/register` or `/unregister` (`csrf`): myself, by the club's rules and
    deadlines (check-in stays at the desk); then to `/play`."""
    form = await request.form()
    tid = path_id(request.path_params["id"])
    what = request.path_params["what"]
    if what not in ACTIONS:
        raise HTTPException(404)

    def do(s, actor, now):
        if what == "register":
            entries.register(s, tid, actor.player_id, now)
        else:
            entries.unregister(s, tid, actor.player_id, now)

    return await _act(site, request, form, ACTIONS[what], None, do, then="/play", tournament=tid)


async def _act(site, request, form, action, code, do, *, then, tournament=None) -> Response:
    """A player's change from a page (`form_act`): the join-code limit per account first when it names a
    cup; 303 to `then`; refused: `/play` with the reason."""

    def locate(session, caller):
        if code is None:
            return targets.tournament(session, tournament), NotFound("tournament-not-found", "no such tournament")
        if not _code_allowed(site, caller, code):
            raise _Throttled
        if not JOIN_CODE.match(code):
            raise NotFound("unknown-code", "no such code")
        return targets.cup(session, code), NotFound("unknown-code", "no such code")

    try:
        described = f"cup {code.upper()}" if code is not None else f"tournament {tournament}"  # as the API's
        done = await form_act(site, request, form, action, do, describe=described, locate=locate)
    except StaleForm:
        return _refused(site, request, preferred_locale(request), STALE_FORM)
    except _Throttled:
        return await _play_page(site, request, problem=TOO_MANY_CODES, status=429)
    except DomainError as exc:
        status = 404 if isinstance(exc, NotFound) else (401 if exc.code == "sign-in" else 409)
        return await _play_page(site, request, problem=REFUSALS.get(exc.code, exc.message), status=status)
    if not done:
        return _to_sign_in(site, "/play")
    return RedirectResponse(then, status_code=303)


# -- /play/<code> --------------------------------------------------------------------------------------

SHOWN = ("head", "state", "table", "standings", "rounds")  # the page's parts: play_cup_<part>.html, its data-part
SHARED = ("head", "standings")  # the same on every entrant's page (the page itself marks my row, `data-me`)
OWN_CUP = ("code", "status")  # what a player's own parts show of the cup (a join changes none of them)


async def _as_player(site: Site, request: Request, code: str, now: datetime, read: Callable[..., Any]):
    """`read` of the cup `code` as the signed-in caller's `pusoy.mine` (the page and its events alike),
    with the caller and their language; None when signed out. Past the per-account limit of codes:
    429; a code that names nothing, or a caller who is not a player: 404."""

    def run(session: Session):
        caller = _signed_in(site, session, request, now)
        if caller is None:
            return None
        if not _code_allowed(site, caller, code):
            raise _Throttled
        missing = NotFound("unknown-code", "no such code")
        if not JOIN_CODE.match(code):
            raise missing
        found = gate.act(
            session,
            caller.actor,
            "pusoy.mine",
            now,
            read,
            target=targets.cup(session, code),
            missing=missing,
            describe="",
        )
        return caller, _locale(session, caller, request), found

    try:
        return await site.write(run)
    except _Throttled:
        raise HTTPException(429) from None
    except DomainError:
        raise HTTPException(404) from None


def _worded(view: dict) -> dict:
    """The view with its standings' deciding PD-7 steps worded as the results sheet words them."""
    rows = view.get("standings") or []
    return {**view, "standings": [{**r, "decided_by": step_wording(r["decided_by"], n)} for n, r in enumerate(rows, 1)]}


class CupParts:
    """What the followers' pages of a cup show, in one language, built once per change of the cup for all
    of them (`__call__`: its event's state): `cup`, the parts every entrant's page shows alike, and
    (`live.PARTS`) each entrant's own by handle (`mine`: their state, their table and games, their
    rounds), with under None the page of someone holding no seat (the cup alone: every part, no round,
    no standings). Handles only, never a full name; a form's CSRF field is left for the page to fill
    (`data-csrf`). A part is rendered from the view's fields its template reads (`v.<field>`) alone, and
    again only when those changed since the last change (a game reported: the standings and the table
    of that table's players)."""

    def __init__(self, env: Environment) -> None:
        self.templates = {name: env.get_template(f"play_cup_{name}.html") for name in SHOWN}  # loaded once
        self.reads = {name: _reads(env, f"play_cup_{name}.html") for name in SHOWN}
        self.kept: dict[tuple[str, str], str] = {}  # the last change's parts, by part and what it reads

    def __call__(self, read: cup_views.CupRead) -> dict[str, Any]:
        kept, self.kept = self.kept, {}

        def parts(names: tuple[str, ...], view: dict) -> dict[str, str]:
            out = {}
            for name in names:
                reads = self.reads[name]
                shown = view if reads is None else {k: view[k] for k in reads if k in view}
                key = (name, repr(shown))
                found = kept.get(key)
                if found is None:
                    found = self.templates[name].render(v=shown, csrf="")
                out[name] = self.kept[key] = found
            return out

        own = tuple(n for n in SHOWN if n not in SHARED)
        mine = {}
        for player in read.entries:
            view = cup_views.view_of(read, player)
            del view["standings"]  # not shown in the player's own parts (and the same for all)
            view["cup"] = {k: read.cup[k] for k in OWN_CUP}
            mine[player] = {"mine": parts(own, view)}
        mine[None] = {"mine": parts(SHOWN, cup_views.view_of(read, None))}
        return {"cup": parts(SHARED, _worded(cup_views.cup_part(read))), PARTS: mine}


def _reads(env: Environment, name: str) -> tuple[str, ...] | None:
    """The fields of its view `v` a part's template reads (`v.<field>`, nothing else of `v`); None when it
    uses `v` otherwise (`v[...]`, `v` itself), and is then given the whole view."""
    source = env.loader.get_source(env, name)[0] if env.loader else ""
    if re.search(r"\bv\b(?!\.\w)", source):
        return None
    return tuple(sorted(set(re.findall(r"\bv\.(\w+)", source))))


async def cup(site: Site, request: Request) -> Response:
    """`/play/<code>`: my view of the cup, which follows it without a reload: `live.js` swaps in the parts
    each event of `/play/<code>/events` carries. Not entered: the cup and a join button while it fills."""
    code = request.path_params["code"].upper()[:16]
    now = site.clock()

    found = await _as_player(site, request, code, now, lambda s, a, at: mine.cup_view(s, code, a.player_id))
    if found is None:
        return _to_sign_in(site, f"/play/{code}")
    caller, locale, view = found
    return site.page(
        "play_cup.html",
        locale=locale,
        request=request,
        actor=caller.actor,
        signed_in=True,
        v=_worded(view),
        code=code,
        csrf=site.auth.csrf(caller.session_secret),
    )


async def cup_events(site: Site, request: Request) -> Response:
    """`/play/<code>/events`: the cup's events for my page, as the page itself is allowed (`pusoy.mine`,
    throttled per account): one shared poller per cup and language, whose state, built once per change
    of the cup, holds every follower's page (`CupParts`); my stream carries the shared parts and my own
    (`part`: my handle). Opening it costs one transaction: who I am (the session's last use written at
    most once a minute), the throttle, the cup, my handle and my language, never the page's reading;
    an event costs no statement per follower. Signed out, or no such cup: 404."""
    code = request.path_params["code"].upper()[:16]
    now = site.clock()

    found = await _as_player(site, request, code, now, lambda s, a, at: mine.handle_of(s, a.player_id))
    if found is None:
        raise HTTPException(404)
    _, locale, handle = found

    def fingerprint():
        with site.db() as session:
            return views.pusoy_version(session, code)

    parts = CupParts(site.envs[locale])  # the topic's, when this stream is its first

    def build(now):
        with site.db() as session:
            version = views.pusoy_version(session, code)  # first: a change after it is the next event's
            read = cup_views.read_cup(session, code)
        return {"version": version, "at": now, **parts(read)}

    return await site.stream(request, f"pusoy:{code}:play:{locale}", fingerprint, build, handle)


# -- my certificates -----------------------------------------------------------------------------------


async def certificate(site: Site, request: Request) -> Response:
    """`/play/certificates/<serial>`: my own certificate, the stored signed PDF (with my full name, AC-5),
    through the API's steps (`player.certificate`); another player's is the same 404 as a missing one."""
    serial = request.path_params["serial"]
    now = site.clock()
    if not SERIAL.match(serial):
        raise HTTPException(404)

    def run(session):
        caller = _signed_in(site, session, request, now)
        if caller is None:
            return None
        found = targets.certificate(session, serial)
        missing = NotFound("certificate-not-found", "no such certificate")
        gate.act(
            session,
            caller.actor,
            "player.certificate",
            now,
            lambda s, a, at: None,
            target=found[0] if found else None,
            missing=missing,
            describe=serial,
        )
        return found[1]

    try:
        held = await site.write(run)
    except DomainError:
        raise HTTPException(404) from None
    if held is None:
        return _to_sign_in(site, f"/play/certificates/{serial}")
    data = await to_thread.run_sync(stored_file, site.outbox, held.folder, held.filename, held.sha256)
    if data is None:
        raise HTTPException(404)
    return pdf_download(data, serial)
