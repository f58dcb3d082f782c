"""The Pusoy Dos organizer's cups (issue 39, docs/cups.md): `/cups`, server-rendered pages in the
organizer's account's language where an organizer creates a cup (its size, games per round, bracket,
open or by code, language: PD-1, PD-2, PD-3, PD-5, DOC-4), watches it fill (a small script asks
`cups.cup` every few seconds), amends it while the rules allow, cancels it (PD-11) and makes the
game server's token bound to it (`cup:CODE`, its secret shown once on the page that made it).

Every read and every change takes the API's steps (`gate.act`: the policy, the use case, the audit row
of a change) with the use cases of `/api/v1`'s `cups.*` operations (flows/web/api/cups.py): a page and
its operation cannot differ. Forms post with the session's `csrf` field; a change answers 303 back to
its page, which says what was done; a refusal shows the page again with the form as typed and every
problem in the page's language, nothing written. Not signed in: to the sign-in page and back; anyone
but an organizer, or another organizer's cup, gets the 404 page (AC-2)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import quote

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from domain.access.rules.policy import Actor
from domain.access.services import audit, gate
from domain.access.tables import Account
from domain.documents.rules.model import LOCALES, N_
from domain.errors import DomainError, NotFound, Problem
from domain.pusoy.rules.bracket import CAPACITIES, MAX_GAMES, MIN_GAMES
from flows.web.accounts import STALE_FORM, StaleForm
from flows.web.api import cups as ops
from flows.web.club_series import DELIVERY, KINDS, stored_pdf
from flows.web.site import JOIN_CODE, Site, path_id, preferred_locale
from infra import i18n

STATUS_NAMES = {
    "setup": N_("filling"),
    "active": N_("under way"),
    "complete": N_("complete"),
    "cancelled": N_("cancelled"),
}
TRAIL_SHOWN = 50  # the cup's latest changes on its page (its whole trail: `GET /api/v1/cups/<code>/audit`)
DONE = {
    "created": N_("Created: share its join code."),
    "saved": N_("Saved."),
    "cancelled": N_("The cup is cancelled."),
    "revoked": N_("The token is revoked: it stops at its next request."),
    "resent": N_("The documents will be sent again."),
    "unchanged": N_("Nothing to change: it is so already."),
}
PROBLEMS = {  # the pages' words for the problems of a cup (the Pusoy Dos services speak English)
    "bad-name": N_("Name the cup: 1 to 120 characters."),
    "bad-capacity": N_("Choose 8, 16 or 32 players."),
    "bad-games-per-round": N_("Games per round: 1 to 10."),
    "bad-organizer": N_("The organizer's name: 1 to 40 characters without spaces, commas or '='."),
    "organizer-name-taken": N_("Another organizer's cups bear the name %(name)s."),
    "bad-locale": N_("Choose Russian or English."),
    "terms-fixed": N_(
        "%(n)s players have joined on these terms: the size, the games per round and the bracket change only while "
        "nobody has joined."
    ),
    "cup-not-filling": N_("The cup has started or is over: its settings no longer change."),
    "bad-status-change": N_("Only a cup that is still filling can be cancelled."),
    "cup-over": N_("The cup is over: it takes no more reports."),
    "token-revoked": N_("That token is revoked already."),
    "token-not-found": N_("There is no such token."),
    "token-needs-name": N_("Name the token: what machine holds it."),
    "field-not-a-number": N_("%(field)s: type a whole number."),
    "bracket-not-numbers": N_("The bracket: the players advancing from each round, as numbers with commas (12, 4)."),
}
BRACKET = (  # PD-2's refusals, each naming the bad round, said in the page's language
    (
        re.compile(r"round (?P<round>\d+) would have (?P<field>-?\d+) players, not whole tables of 4"),
        N_("The bracket: round %(round)s would have %(field)s players, not whole tables of 4."),
    ),
    (
        re.compile(r"round (?P<round>\d+) advances (?P<field>-?\d+) of (?P<before>\d+) players"),
        N_(
            "The bracket: round %(round)s advances %(field)s of %(before)s players; each round must make the field smaller."
        ),
    ),
    (
        re.compile(r"the last round \(round (?P<round>\d+)\) has (?P<field>-?\d+) players"),
        N_("The bracket: the last round (round %(round)s) has %(field)s players; the final table has 4."),
    ),
)
FIELDS = {"capacity": N_("Players"), "games_per_round": N_("Games per round")}


class _SignedOut(Exception):
    """The page needs a person signed in by the session cookie."""


def _caller(site: Site, session, request: Request, now: datetime):
    caller = site.auth.identify(session, request, now)
    if not caller.by_cookie:
        raise _SignedOut
    return caller


def _locale(session, actor: Actor, request: Request) -> str:
    account = session.get(Account, actor.account_id)
    return account.locale if account is not None and account.locale in i18n.LOCALES else preferred_locale(request)


def _to_sign_in(request: Request) -> Response:
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/signin?next={quote(here, safe='')}", status_code=303)


def _said(p: Problem, t) -> str:
    if p.code == "bad-bracket":
        for pattern, words in BRACKET:
            found = pattern.search(p.message)
            if found:
                return t.gettext(words) % found.groupdict()
        return p.message
    if p.code not in PROBLEMS:
        return p.message
    text = t.gettext(PROBLEMS[p.code])
    values = {k: t.gettext(FIELDS[v]) if v in FIELDS else v for k, v in p.values.items()}
    return text % values if values else text


def _worded(problems: list[Problem], locale: str) -> list[dict]:
    t = i18n.translations(locale)
    return [{"code": p.code, "message": _said(p, t)} for p in problems]


def _code(request: Request) -> str:
    code = request.path_params["code"].upper()
    if not JOIN_CODE.match(code):
        raise HTTPException(404)
    return code


async def _show(
    site: Site,
    request: Request,
    template: str,
    build: Callable[[Any, Actor, datetime], dict],
    *,
    status: int = 200,
    problems: list[Problem] = (),
    **extra: Any,
) -> Response:
    """A page of the organizer's: `build`'s reads (each through the policy), in their language."""
    now = site.clock()

    def run(session):
        caller = _caller(site, session, request, now)
        gate.allow(caller.actor, "cups.list", gate.NOWHERE)  # an organizer's pages: anyone else, 404
        return caller, _locale(session, caller.actor, request), build(session, caller.actor, now)

    try:
        caller, locale, context = await site.write(run)
    except _SignedOut:
        return _to_sign_in(request)
    except NotFound:
        return site.error(request, HTTPException(404))
    done = request.query_params.get("done")
    return site.page(
        template,
        status=status,
        locale=locale,
        request=request,
        actor=caller.actor,
        csrf=site.auth.csrf(caller.session_secret),
        problems=_worded(list(problems), locale),
        done=DONE.get(done) if done else None,
        names={"status": STATUS_NAMES, "delivery": DELIVERY, "kinds": KINDS},
        capacities=CAPACITIES,
        games=range(MIN_GAMES, MAX_GAMES + 1),
        locales=LOCALES,
        now=now,
        **context,
        **extra,
    )


async def _change(site: Site, request: Request, form, action: str, do: Callable, *, code: str | None, describe, data):
    """A change from a form, by the API's steps in one transaction: the session's cookie, the form's
    CSRF field, the cup (the organizer's, else not found), `gate.act`. Raises what is refused."""
    now = site.clock()

    def run(session):
        caller = _caller(site, session, request, now)
        if not site.auth.csrf_ok(caller, form.get("csrf")):
            raise StaleForm
        target, missing = ops.my_cup(code)(session) if code else (gate.NOWHERE, None)
        return gate.act(
            session, caller.actor, action, now, do, target=target, missing=missing, describe=describe, data=data
        )

    return await site.write(run)


async def _post(site, request, form, action, do, *, code, describe, data, then, again) -> Response:
    """`_change`, then 303 to `then(result)`; refused by a rule: `again(problems)`, nothing written."""
    try:
        result = await _change(site, request, form, action, do, code=code, describe=describe, data=data)
    except _SignedOut:
        return _to_sign_in(request)
    except StaleForm:
        return site.page("error.html", status=403, request=request, code=403, message=STALE_FORM)
    except NotFound as exc:
        if exc.code in ("unknown-code", "not-found"):
            return site.error(request, HTTPException(404))
        return await again(list(exc.problems))
    except DomainError as exc:
        return await again(list(exc.problems))
    return RedirectResponse(then(result), status_code=303)


def _number(form, key: str, problems: list[Problem]) -> int | None:
    raw = str(form.get(key) or "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 4:
        problems.append(Problem("field-not-a-number", "%(field)s: type a whole number.", field=key))
        return None
    return int(raw)


def _advancing(form, problems: list[Problem]) -> list[int] | None:
    """The bracket as typed: the players advancing from each round ("12, 4"); empty: the default."""
    raw = str(form.get("advancing") or "").strip()[:100]
    if not raw:
        return None
    parts = [p.strip() for p in raw.replace(";", ",").split(",") if p.strip()]
    if not parts or not all(p.isascii() and p.isdigit() and len(p) <= 3 for p in parts):
        problems.append(Problem("bracket-not-numbers", "the bracket is numbers with commas"))
        return None
    return [int(p) for p in parts]


def _typed(form) -> dict:
    """The cup's form as typed, to show again."""
    return {
        "name": str(form.get("name") or "").strip()[:200],
        "capacity": str(form.get("capacity") or ""),
        "games_per_round": str(form.get("games_per_round") or ""),
        "advancing": str(form.get("advancing") or "").strip()[:100],
        "private": form.get("private") == "1",
        "locale": str(form.get("locale") or ""),
        "organizer": str(form.get("organizer") or "").strip()[:100],
    }


def _shown(cup: dict) -> dict:
    """A cup's settings as its form shows them."""
    return {
        "name": cup["name"],
        "capacity": str(cup["capacity"]),
        "games_per_round": str(cup["games_per_round"]),
        "advancing": ", ".join(str(n) for n in cup["bracket"][1:]) if cup["custom_bracket"] else "",
        "private": cup["private"],
        "locale": cup["locale"],
        "organizer": cup["organizer"],
    }


# -- /cups: my cups and a new one -------------------------------------------------------------------------


def _home_page(site, request, *, typed=None, problems=(), status=200):
    def build(session, actor, now):
        def read(s, a, n):
            account = s.get_one(Account, a.account_id)
            return ops.my_cups(s, a), ops.default_organizer(s, account), account.locale

        rows, organizer, locale = gate.act(session, actor, "cups.list", now, read, describe="my cups")
        blank = {"name": "", "capacity": "8", "games_per_round": "1", "advancing": "", "private": False}
        return {"cups": rows, "new": typed or blank | {"locale": locale, "organizer": organizer}}

    return _show(site, request, "cups_home.html", build, status=status, problems=list(problems), here="cups")


async def home(site: Site, request: Request) -> Response:
    """`/cups`: my cups, newest first, and the form of a new one; posted, the cup made (`cups.create`)
    and its page, or the form again with every problem."""
    if request.method == "GET":
        return await _home_page(site, request)
    form = await request.form()
    typed = _typed(form)
    problems: list[Problem] = []
    capacity = _number(form, "capacity", problems)
    games = _number(form, "games_per_round", problems)
    advancing = _advancing(form, problems)
    if problems:
        return await _home_page(site, request, typed=typed, problems=problems, status=409)
    body = {
        "name": typed["name"],
        "capacity": capacity or 0,
        "games_per_round": games or 0,
        "advancing": advancing,
        "private": typed["private"],
        "locale": typed["locale"] or None,
        "organizer": typed["organizer"] or None,
    }
    return await _post(
        site, request, form, "cups.create", ops.create_use(body), code=None,
        describe=lambda cup: f"cup {cup['code']}", data={k: v for k, v in body.items() if v is not None},
        then=lambda cup: f"/cups/{cup['code']}?done=created",
        again=lambda found: _home_page(site, request, typed=typed, problems=found, status=409),
    )  # fmt: skip


# -- /cups/<code>: one cup ----------------------------------------------------------------------------------


def _cup_page(site, request, code: str, *, typed=None, problems=(), status=200, token=None):
    def build(session, actor, now):
        target = ops.cup_target(session, code)
        missing = NotFound("unknown-code", "")
        cup = gate.act(
            session, actor, "cups.cup", now, lambda s, a, n: ops.cup_view(s, a, code), target=target,
            missing=missing, describe=f"cup {code}",
        )  # fmt: skip
        documents = gate.act(
            session, actor, "cups.documents", now, lambda s, a, n: ops.cup_documents(s, code), target=target,
            missing=missing, describe=f"cup {code}",
        )  # fmt: skip
        locale = _locale(session, actor, request)
        for d in documents:
            d["files"] = [
                f | {"size_text": i18n.number(max(1, round(f["size_bytes"] / 1024)), locale)} for f in d["files"]
            ]
        trail = gate.act(
            session, actor, "cups.audit", now,
            lambda s, a, n: audit.trail(s, None, limit=TRAIL_SHOWN, only=audit.Filter(cup=cup["code"])),
            target=target, missing=missing, describe=f"cup {code}",
        )  # fmt: skip
        return {"cup": cup, "form": typed or _shown(cup), "documents": documents, "trail": trail}

    return _show(site, request, "cups_cup.html", build, status=status, problems=list(problems), here="cup", token=token)


async def cup(site: Site, request: Request) -> Response:
    """`/cups/<code>`: the cup, who has joined, its game servers' tokens, its settings; posted, the
    settings amended (`cups.edit`: what differs; its terms only while nobody has joined)."""
    code = _code(request)
    if request.method == "GET":
        return await _cup_page(site, request, code)
    form = await request.form()
    typed = _typed(form)
    problems: list[Problem] = []
    given: dict[str, Any] = {"name": typed["name"], "private": typed["private"]}
    if typed["locale"]:
        given["locale"] = typed["locale"]
    if "capacity" in form:  # the terms' fieldset is sent only while nobody has joined
        given["capacity"] = _number(form, "capacity", problems) or 0
        given["games_per_round"] = _number(form, "games_per_round", problems) or 0
        given["advancing"] = _advancing(form, problems)
    if problems:
        return await _cup_page(site, request, code, typed=typed, problems=problems, status=409)
    return await _post(
        site, request, form, "cups.edit", ops.edit_use(code, given), code=code,
        describe=f"cup {code}", data=given,
        then=lambda r: f"/cups/{code}?done={'unchanged' if r is gate.UNCHANGED else 'saved'}",
        again=lambda found: _cup_page(site, request, code, typed=typed, problems=found, status=409),
    )  # fmt: skip


async def cancel(site: Site, request: Request) -> Response:
    """`POST /cups/<code>/cancel` (`cups.cancel`): while it fills (PD-11)."""
    code = _code(request)
    form = await request.form()
    return await _post(
        site, request, form, "cups.cancel", ops.cancel_use(code), code=code, describe=f"cup {code}", data=None,
        then=lambda r: f"/cups/{code}?done=cancelled",
        again=lambda found: _cup_page(site, request, code, problems=found, status=409),
    )  # fmt: skip


async def new_token(site: Site, request: Request) -> Response:
    """`POST /cups/<code>/tokens` (`cups.create-token`): the cup's page with the new token's secret, shown
    this once (never in an address, never again)."""
    code = _code(request)
    form = await request.form()
    name = str(form.get("name") or "").strip()[:80]
    try:
        made = await _change(
            site, request, form, "cups.create-token", ops.create_token_use(code, name), code=code,
            describe=f"token {name!r} of cup {code}", data={"name": name},
        )  # fmt: skip
    except _SignedOut:
        return _to_sign_in(request)
    except StaleForm:
        return site.page("error.html", status=403, request=request, code=403, message=STALE_FORM)
    except NotFound as exc:
        if exc.code in ("unknown-code", "not-found"):
            return site.error(request, HTTPException(404))
        return await _cup_page(site, request, code, problems=list(exc.problems), status=409)
    except DomainError as exc:
        return await _cup_page(site, request, code, problems=list(exc.problems), status=409)
    response = await _cup_page(site, request, code, status=201, token=made)
    response.headers["cache-control"] = "no-store"
    return response


async def revoke_token(site: Site, request: Request) -> Response:
    """`POST /cups/<code>/tokens/<id>/revoke` (`cups.revoke-token`)."""
    code = _code(request)
    token_id = path_id(request.path_params["id"])
    form = await request.form()
    return await _post(
        site, request, form, "cups.revoke-token", ops.revoke_token_use(code, token_id), code=code,
        describe=f"token {token_id} of cup {code}", data=None,
        then=lambda r: f"/cups/{code}?done=revoked",
        again=lambda found: _cup_page(site, request, code, problems=found, status=409),
    )  # fmt: skip


async def download(site: Site, request: Request) -> Response:
    """`/cups/<code>/documents/<pid>/files/<did>` (`cups.download-document`): the stored, signed PDF."""
    code = _code(request)
    pid, did = path_id(request.path_params["pid"]), path_id(request.path_params["did"])
    now = site.clock()

    def run(session):
        actor = _caller(site, session, request, now).actor
        return gate.act(
            session, actor, "cups.download-document", now, lambda s, a, n: ops.stored_cup_document(s, code, pid, did),
            target=ops.cup_target(session, code), missing=NotFound("unknown-code", ""), describe=f"cup {code}",
        )  # fmt: skip

    try:
        found = await site.write(run)
    except _SignedOut:
        return _to_sign_in(request)
    except NotFound:
        return site.error(request, HTTPException(404))
    return stored_pdf(site, request, *found)


async def resend(site: Site, request: Request) -> Response:
    """`POST /cups/<code>/documents/<pid>/resend` (`cups.resend-documents`): again, to whom they went."""
    code, pid = _code(request), path_id(request.path_params["pid"])
    form = await request.form()
    return await _post(
        site, request, form, "cups.resend-documents", ops.resend_cup_use(code, pid), code=code,
        describe=f"documents {pid} of cup {code}", data=None,
        then=lambda r: f"/cups/{code}?done={'unchanged' if r is gate.UNCHANGED else 'resent'}#documents-heading",
        again=lambda found: _cup_page(site, request, code, problems=found, status=409),
    )  # fmt: skip
