"""The owner's console: the club's webhooks (issue 39, "The club runs itself"; docs/console.md,
docs/webhooks.md), `/club/<id>/webhooks`, in the club's language (DOC-4), over the use cases of
`/api/v1`'s `club.webhooks`, `club.add-webhook` and `club.remove-webhook` (flows/web/api/hooks.py): a page
and its operation cannot differ.

The club's endpoints (URL, events, state, the deliveries counted, the last one and the ten newest with
their state and last answer); a new one (its signing secret on the page that answers, this once,
`Cache-Control: no-store`: derived from the platform key, never stored, logged or audited); disabling one.
Every read and change takes the console's steps (flows/web/club.py: the session's cookie, the form's CSRF
field, `gate.act`: the policy, the use case, the audit row); a refusal shows the page again with every
problem in the club's language and nothing written; another club's endpoint is refused exactly as a
missing one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from domain.documents.rules.model import N_
from domain.errors import DomainError, NotFound, Problem
from domain.webhooks.rules.endpoints import KINDS
from flows.web import club, refusals
from flows.web.accounts import STALE_FORM, StaleForm
from flows.web.api import hooks
from flows.web.club import Ctx, _change, _done, _post, _SignedOut, _to_sign_in
from flows.web.site import Site, path_id
from infra import i18n

EVENTS = {
    "round.completed": N_("a Pusoy Dos round is completed"),
    "champion.crowned": N_("a Pusoy Dos cup's champion"),
    "tournament.finished": N_("a tournament is finished: its places"),
    "documents.ready": N_("a results sheet and certificates are ready"),
}
STATES = {"pending": N_("waiting"), "delivered": N_("delivered"), "failed": N_("given up")}
DONE = {
    "disabled": N_("The webhook is disabled: nothing more is sent to it."),
    "unchanged": N_("Nothing to change: it is so already."),
}
PROBLEMS = {  # the console's words for the webhooks' refusals, by code (domain/webhooks/rules/endpoints.py)
    "webhook-url": N_("Type the endpoint's address as https://host/path."),
    "webhook-https": N_("The address must begin with https://."),
    "webhook-private-host": N_("The address names a private or local host: name a public one."),
    "webhook-events": N_("Choose at least one event."),
    "webhook-limit": N_("The club has 20 webhooks already: disable one first."),
    "webhook-not-found": N_("There is no such webhook."),
}
NAMES = {"events": EVENTS, "states": STATES}


def _worded(problems: list[Problem], ctx: Ctx) -> list[dict]:
    t = i18n.translations(ctx.locale)
    return [
        {"code": p.code, "message": t.gettext(PROBLEMS[p.code])}
        if p.code in PROBLEMS
        else {"code": p.code, "message": refusals.said(p, ctx.locale, ctx.zone, ctx.now)}
        for p in problems
    ]


def _when(value, ctx: Ctx) -> str:
    return i18n.day_and_time(value.astimezone(ctx.zone), ctx.locale) if value else ""


def _shown(endpoint: dict, ctx: Ctx) -> dict:
    recent = [
        d | {"at": _when(d["created_at"], ctx), "next": _when(d["next_attempt_at"], ctx)} for d in endpoint["recent"]
    ]
    return endpoint | {
        "made": _when(endpoint["created_at"], ctx),
        "disabled": _when(endpoint["disabled_at"], ctx),
        "recent": recent,
        "last": recent[0] if recent else None,
    }


def _page(
    site: Site,
    request: Request,
    club_id: int,
    *,
    made: dict | None = None,
    draft: dict | None = None,
    problems: list[Problem] = (),
    status: int = 200,
) -> Any:
    def build(ctx: Ctx) -> dict:
        listed = ctx.read("club.webhooks", hooks.listing_use(club_id))
        return {"webhooks": [_shown(e, ctx) for e in listed]}

    return club._show(
        site, request, club_id, "club_webhooks.html", build, status=status, problems=list(problems),
        done_words=DONE, names=NAMES, worded=_worded, here="webhooks", made=made, kinds=KINDS,
        draft=draft or {"url": "", "events": ["tournament.finished", "documents.ready"]},
    )  # fmt: skip


async def webhooks_page(site: Site, request: Request) -> Response:
    """`/club/<id>/webhooks`: the club's endpoints (never a secret); `POST` registers one
    (`club.add-webhook`): its secret is on the page that answers, this once, and nowhere else."""
    club_id = path_id(request.path_params["id"])
    if request.method == "GET":
        return await _page(site, request, club_id)
    form = await request.form()
    url = str(form.get("url") or "").strip()[:2001]
    events = [k for k in KINDS if k in form.getlist("event")]
    draft = {"url": url, "events": events}
    do = hooks.add_use(site.settings.secret_key(), club_id, url, events)
    try:
        made = await _change(
            site, request, club_id, form, "club.add-webhook", do, describe=f"webhook {url}", data=draft
        )
    except _SignedOut:
        return _to_sign_in(request)
    except StaleForm:
        return site.page("error.html", status=403, request=request, code=403, message=STALE_FORM)
    except NotFound as exc:
        if exc.code == "club-not-found":
            return site.error(request, HTTPException(404))
        return await _page(site, request, club_id, draft=draft, problems=list(exc.problems), status=404)
    except DomainError as exc:
        return await _page(site, request, club_id, draft=draft, problems=list(exc.problems), status=409)
    page = await _page(site, request, club_id, made={"url": made["url"], "secret": made["secret"]}, status=201)
    page.headers["cache-control"] = "no-store"  # the secret is on this page alone
    return page


async def disable(site: Site, request: Request) -> Response:
    """`POST /club/<id>/webhooks/<wid>/disable` (`club.remove-webhook`): nothing more is sent to it, its
    pending deliveries are given up; one disabled already changes nothing; another club's is not found."""
    club_id = path_id(request.path_params["id"])
    webhook_id = path_id(request.path_params["wid"])
    form = await request.form()
    again: Callable[[list[Problem]], Any] = lambda problems: _page(  # noqa: E731
        site, request, club_id, problems=problems, status=404
    )
    return await _post(
        site, request, club_id, form, "club.remove-webhook", hooks.remove_use(club_id, webhook_id),
        describe=f"webhook {webhook_id}", then=lambda r: _done(f"/club/{club_id}/webhooks", r, "disabled"),
        again=again,
    )  # fmt: skip
