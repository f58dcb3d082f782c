"""The operator's queue (issue 39, docs/platform.md): `/platform`, server-rendered pages in the operator's
account's language where the platform's operator decides without the command line: the applications
for verification (approve or refuse with a reason, CL-2, CL-3), the catalog by status, a club's history
and its status (revoke, suspend, reinstate, terminate with a reason, CL-4; AC-4: at the club's next
request), the accounts (block, unblock; the Pusoy Dos organizer role granted and taken back).

Every read and every change takes the API's steps (`gate.act`: the policy, the use case, the audit row
of a change), with the use cases of `/api/v1`'s `platform.*` operations (flows/web/api/platform.py): a
page and its operation cannot differ. Forms post with the session's `csrf` field; a change answers 303
back to its page, which says what was done; a refusal shows the page again with every problem in the
page's language and nothing written. Not signed in: to the sign-in page and back; anyone but the
operator gets the 404 page (AC-2)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlencode

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from domain.access.rules.policy import Actor
from domain.access.services import gate, targets
from domain.access.tables import Account
from domain.clubs.rules.status import Listing, Verification
from domain.documents.rules.model import N_
from domain.errors import DomainError, NotFound, Problem
from flows.web.accounts import STALE_FORM, StaleForm
from flows.web.api import platform as ops
from flows.web.site import Site, path_id, preferred_locale
from infra import i18n

PAGE = 50  # clubs or accounts a page
DECISIONS = {  # the form's decision -> its action, and what the page says once it is done
    "approve": ("platform.approve-club", "approved"),
    "refuse": ("platform.refuse-club", "refused"),
    "revoke": ("platform.revoke-club", "revoked"),
    "suspend": ("platform.suspend-club", "suspended"),
    "reinstate": ("platform.reinstate-club", "reinstated"),
    "terminate": ("platform.terminate-club", "terminated"),
}
LISTING_NAMES = {"listed": N_("listed"), "suspended": N_("suspended"), "terminated": N_("terminated")}
VERIFICATION_NAMES = {
    "unverified": N_("not verified"),
    "pending": N_("application pending"),
    "verified": N_("verified"),
    "refused": N_("refused"),
    "revoked": N_("verification revoked"),
}
ACTION_NAMES = {
    "create": N_("listed in the catalog"),
    "apply": N_("applied for verification"),
    "queue": N_("sent to the moderator queue"),
    "verify": N_("verified"),
    "refuse": N_("refused"),
    "revoke": N_("verification revoked"),
    "recheck": N_("re-checked: still matches the registry"),
    "suspend": N_("suspended"),
    "reinstate": N_("listed again"),
    "terminate": N_("terminated"),
}
SOURCE_NAMES = {
    "registry": N_("registry"),
    "moderator": N_("moderator"),
    "operator": N_("operator"),
    "club": N_("club"),
}
DONE = {
    "approved": N_("Approved: the club is verified."),
    "refused": N_("Refused: the club may apply again."),
    "revoked": N_("The club's verification is revoked."),
    "suspended": N_("Suspended: from their next request the club's staff read but change nothing."),
    "reinstated": N_("The club is listed again."),
    "terminated": N_("Terminated: the club's listing has ended for good."),
    "blocked": N_("Blocked: the account's sessions ended and its tokens stopped."),
    "unblocked": N_("The block is lifted."),
    "organizer-granted": N_("The account is a Pusoy Dos organizer now: it creates and runs cups at /cups."),
    "organizer-revoked": N_("The organizer role is taken back: the account's cups stay, it no longer runs them."),
    "unchanged": N_("Nothing to change: it is so already."),
}
PROBLEMS = {  # the queue's words for the clubs services' refusals (they speak English)
    "reason-missing": N_("Give the reason: it is kept in the club's history."),
    "cannot-verify": N_("Only a pending application can be approved."),
    "cannot-refuse": N_("Only a pending application can be refused."),
    "cannot-revoke": N_("Only a verified club can lose its verification."),
    "cannot-suspend": N_("Only a listed club can be suspended."),
    "cannot-reinstate": N_("Only a suspended club can be listed again."),
    "cannot-terminate": N_("The club's listing has ended already: that is final."),
    "cannot-block-self": N_("You cannot block your own account."),
    "reason-required": N_("Give the reason of the block."),
    "account-not-found": N_("There is no such account."),
}


class _SignedOut(Exception):
    """The page needs a person signed in by the session cookie."""


@dataclass
class Ctx:
    """What a page's builder reads with: the transaction, who, when; `read` goes through the policy."""

    session: Any
    actor: Actor
    now: datetime

    def read(self, action: str, do: Callable, target: Any = gate.NOWHERE, missing: NotFound | None = None) -> Any:
        return gate.act(self.session, self.actor, action, self.now, do, target=target, missing=missing, describe=action)


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


def _worded(problems: list[Problem], locale: str) -> list[dict]:
    t = i18n.translations(locale)
    return [
        {"code": p.code, "message": t.gettext(PROBLEMS[p.code]) if p.code in PROBLEMS else p.message} for p in problems
    ]


async def _show(
    site: Site,
    request: Request,
    template: str,
    build: Callable[[Ctx], dict],
    *,
    status: int = 200,
    problems: list[Problem] = (),
    typed: dict | None = None,
    **extra: Any,
) -> Response:
    """A page of the queue: the operator's reads (`build`, through the policy), in their language;
    `typed`: a refused form's reason (and its club), to show again."""
    now = site.clock()

    def run(session):
        caller = _caller(site, session, request, now)
        ctx = Ctx(session, caller.actor, now)
        gate.allow(caller.actor, "platform.queue", gate.NOWHERE)  # the operator's pages: anyone else, 404
        return caller, _locale(session, caller.actor, request), build(ctx)

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
        names={
            "listing": LISTING_NAMES,
            "verification": VERIFICATION_NAMES,
            "action": ACTION_NAMES,
            "source": SOURCE_NAMES,
        },
        now=now,
        typed=typed or {},
        **context,
        **extra,
    )


async def _post(
    site: Site,
    request: Request,
    form,
    action: str,
    do: Callable,
    *,
    locate: Callable,
    describe: str,
    data: dict | None,
    then: Callable[[Any], str],
    again: Callable[[list[Problem]], Any],
) -> Response:
    """A change from a form, by the API's steps in one transaction (the session's cookie, the form's
    CSRF field, the target, `gate.act`: the policy, the use case, the audit row); 303 to `then(result)`;
    refused by a rule: `again(problems)`, the page with them, nothing written."""
    now = site.clock()

    def run(session):
        caller = _caller(site, session, request, now)
        if not site.auth.csrf_ok(caller, form.get("csrf")):
            raise StaleForm
        target, missing = locate(session)
        return gate.act(
            session, caller.actor, action, now, do, target=target, missing=missing, describe=describe, data=data
        )

    try:
        result = await site.write(run)
    except _SignedOut:
        return _to_sign_in(request)
    except StaleForm:
        return site.page("error.html", status=403, request=request, code=403, message=STALE_FORM)
    except NotFound as exc:
        if exc.code in ("club-not-found", "not-found", "account-not-found"):
            return site.error(request, HTTPException(404))
        return await again(list(exc.problems))
    except DomainError as exc:
        return await again(list(exc.problems))
    return RedirectResponse(then(result), status_code=303)


def _reason(form) -> str:
    return str(form.get("reason") or "").strip()[:500]


# -- the queue ----------------------------------------------------------------------------------------


def _queue(ctx: Ctx) -> dict:
    rows = ctx.read("platform.queue", lambda s, a, n: ops.applications(s))
    return {"applications": sorted(rows, key=ops.queue_key)}


async def queue(site: Site, request: Request) -> Response:
    """`/platform`: the applications waiting for a decision, the moderator queue first, each with the
    registry's last word and a form to approve or refuse it with a reason."""
    return await _show(site, request, "platform_queue.html", _queue, here="queue")


# -- the catalog ---------------------------------------------------------------------------------------


def _filters(request: Request) -> dict:
    listing = request.query_params.get("listing") or None
    verification = request.query_params.get("verification") or None
    return {
        "listing": listing if listing in {s.value for s in Listing} else None,
        "verification": verification if verification in {s.value for s in Verification} else None,
    }


async def clubs(site: Site, request: Request) -> Response:
    """`/platform/clubs`: the catalog by id, by listing and verification, a page of 50 at a time."""
    chosen = _filters(request)
    after = request.query_params.get("after", "")
    after_id = int(after) if after.isascii() and after.isdigit() and len(after) < 19 else 0

    def build(ctx: Ctx) -> dict:
        from domain.clubs.services import clubs as club_service

        def read(s, a, n):
            return [ops.club_row(c) for c in club_service.list_clubs(s, chosen["listing"], chosen["verification"])]

        rows = [r for r in ctx.read("platform.clubs", read) if r["id"] > after_id]
        more = len(rows) > PAGE
        following = None
        if more:
            query = {k: v for k, v in chosen.items() if v} | {"after": rows[PAGE - 1]["id"]}
            following = "/platform/clubs?" + urlencode(query)
        return {"clubs": rows[:PAGE], "following": following}

    return await _show(
        site, request, "platform_clubs.html", build, here="clubs", chosen=chosen,
        listings=[s.value for s in Listing], verifications=[s.value for s in Verification],
    )  # fmt: skip


def _club_page(site, request, club_id: int, *, problems=(), status=200, typed=None):
    def build(ctx: Ctx) -> dict:
        club = ctx.read(
            "platform.club",
            lambda s, a, n: ops.club_detail(s, club_id),
            target=targets.club(ctx.session, club_id),
            missing=NotFound("club-not-found", ""),
        )
        return {"club": club}

    return _show(
        site, request, "platform_club.html", build, here="clubs", status=status, problems=list(problems),
        typed=typed,
    )  # fmt: skip


async def club(site: Site, request: Request) -> Response:
    """`/platform/clubs/<id>`: a club, every decision about it, and the decisions its state allows."""
    return await _club_page(site, request, path_id(request.path_params["id"]))


async def decide(site: Site, request: Request) -> Response:
    """`POST /platform/clubs/<id>/<decision>` (`platform.approve-club`, …): the decision with its reason;
    back to the queue or the club's page (the form's `back`), which says what was done."""
    club_id = path_id(request.path_params["id"])
    decision = request.path_params["decision"]
    if decision not in DECISIONS:
        return site.error(request, HTTPException(404))
    action, done = DECISIONS[decision]
    form = await request.form()
    reason = _reason(form) or None
    from_queue = form.get("back") == "queue"

    def again(problems):
        if from_queue:
            return _show(site, request, "platform_queue.html", _queue, here="queue", status=409, problems=problems,
                         typed={"club": club_id, "reason": reason or ""})  # fmt: skip
        return _club_page(site, request, club_id, problems=problems, status=409, typed={"reason": reason or ""})

    back = "/platform" if from_queue else f"/platform/clubs/{club_id}"
    return await _post(
        site, request, form, action, ops.decide_use(club_id, decision, reason),
        locate=lambda s: (targets.club(s, club_id), NotFound("club-not-found", "")),
        describe=f"club {club_id}", data={"reason": reason} if reason else None,
        then=lambda r: f"{back}?done={done}", again=again,
    )  # fmt: skip


# -- the accounts ----------------------------------------------------------------------------------------


def _accounts_page(site, request, q: str, *, problems=(), status=200):
    def build(ctx: Ctx) -> dict:
        rows = ctx.read("platform.accounts", lambda s, a, n: ops.account_rows(s, q or None))
        rows = sorted(rows, key=lambda r: (r["email"].casefold(), r["id"]))
        return {"accounts": rows[:PAGE], "more": len(rows) > PAGE, "me": ctx.actor.account_id}

    return _show(site, request, "platform_accounts.html", build, here="accounts", status=status,
                 problems=list(problems), q=q)  # fmt: skip


async def accounts_page(site: Site, request: Request) -> Response:
    """`/platform/accounts?q=`: the accounts whose e-mail holds `q` (the first 50), each with its roles
    and its block, and a form to block it with a reason or lift its block."""
    return await _accounts_page(site, request, (request.query_params.get("q") or "").strip()[:254])


async def block(site: Site, request: Request) -> Response:
    """`POST /platform/accounts/<id>/block` (`platform.block-account`) or `…/unblock`."""
    account_id = path_id(request.path_params["id"])
    lifting = request.url.path.endswith("/unblock")
    form = await request.form()
    q = str(form.get("q") or "").strip()[:254]
    reason = _reason(form)
    back = "/platform/accounts" + (f"?{urlencode({'q': q})}&" if q else "?")
    if lifting:
        action, do, done, data = "platform.unblock-account", ops.unblock_use(account_id), "unblocked", None
    else:
        action, do, done, data = (
            "platform.block-account",
            ops.block_use(account_id, reason),
            "blocked",
            {"reason": reason},
        )
    return await _post(
        site, request, form, action, do,
        locate=lambda s: (gate.NOWHERE, None), describe=f"account {account_id}", data=data,
        then=lambda r: f"{back}done={'unchanged' if r is gate.UNCHANGED else done}",
        again=lambda problems: _accounts_page(site, request, q, problems=problems, status=409),
    )  # fmt: skip


async def organizer(site: Site, request: Request) -> Response:
    """`POST /platform/accounts/<id>/grant-organizer` (`platform.grant-organizer`) or
    `…/revoke-organizer` (`platform.revoke-organizer`): the platform's Pusoy Dos organizer role, by the
    API's use case (`ops.organizer_use`); held already (not held): "nothing to change", nothing written."""
    account_id = path_id(request.path_params["id"])
    grant = request.url.path.endswith("/grant-organizer")
    form = await request.form()
    q = str(form.get("q") or "").strip()[:254]
    back = "/platform/accounts" + (f"?{urlencode({'q': q})}&" if q else "?")
    action, done = ("platform.grant-organizer", "organizer-granted") if grant else (
        "platform.revoke-organizer", "organizer-revoked")  # fmt: skip
    return await _post(
        site, request, form, action, ops.organizer_use(account_id, grant=grant),
        locate=lambda s: (gate.NOWHERE, None), describe=f"account {account_id}", data=None,
        then=lambda r: f"{back}done={'unchanged' if r is gate.UNCHANGED else done}",
        again=lambda problems: _accounts_page(site, request, q, problems=problems, status=409),
    )  # fmt: skip
