"""The owner's console, part one (issue 39, docs/console.md): `/club`, server-rendered pages in the
club's language (DOC-4) where a club's owner sets the club up without the operator: the day's
tournaments, the profile, the staff, the blind structures and the tournaments.

Every read and every change takes the API's steps (`gate.act`: one policy check, the use case, the
audit row of a change, AC-1..AC-3), with the use cases of `/api/v1`'s owner operations
(flows/web/api/owner.py): a page and its operation cannot differ. Forms post with the session's `csrf`
field; a change answers 303 back to its page (with what was done said there), a refusal the page
again with every problem in the club's language and nothing written. Not signed in: to the sign-in
page and back; a club or tournament the person does not own is the same 404 page as a missing one
(AC-2). One small script, `static/club.js`, checks prize lines as they are typed (`club.check-prizes`,
SP-4), adds level rows and asks before a cancel; the pages work without it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import cache
from typing import Any
from urllib.parse import quote, urlencode
from zoneinfo import ZoneInfo, available_timezones

from starlette.background import BackgroundTask
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from domain.access.rules.policy import CLUB_ROLES, Actor, Role
from domain.access.services import accounts, audit, gate, signin, targets
from domain.access.services.signup import Letter
from domain.documents.rules.model import LOCALES, N_
from domain.errors import DomainError, NotFound, Problem
from domain.poker.rules.lifecycle import EDITABLE
from domain.poker.rules.money import parse_amount
from domain.poker.rules.settings import AMOUNT_FIELDS, OPTIONAL, SETTING_FIELDS, time_from_text
from domain.poker.rules.structures import ANTE_TYPES, LevelSpec
from domain.poker.services import tournaments as tournament_service
from flows.web import play, refusals
from flows.web.accounts import STALE_FORM, StaleForm
from flows.web.api import owner, owner_series
from flows.web.site import Site, path_id
from infra import i18n

LIVE = ("registration_open", "running")
ROLE_NAMES = {"owner": N_("owner"), "floor": N_("floor manager"), "cashier": N_("cashier")}
STATUS_NAMES = {
    "draft": N_("draft"),
    "registration_open": N_("registration open"),
    "running": N_("running"),
    "finished": N_("finished"),
    "cancelled": N_("cancelled"),
}
ANTE_NAMES = {"none": N_("no ante"), "classic": N_("classic ante"), "bb_ante": N_("big blind ante")}
FORMAT_NAMES = {
    "freezeout": N_("freezeout"),
    "rebuy": N_("rebuy"),
    "reentry": N_("re-entry"),
    "addon": N_("add-on"),
    "bounty": N_("bounty"),
}
BOUNTY_NAMES = {
    "none": N_("no bounty"),
    "classic": N_("classic bounty"),
    "pko": N_("progressive knockout"),
    "mystery": N_("mystery bounty"),
}
NO_SHOW_NAMES = {"drop": N_("drop the registration"), "absent_mode": N_("a dead stack")}
DRAW_NAMES = {"per_killer_entry": N_("one draw per killer entry"), "per_knockout": N_("one draw per knockout")}
PROBLEMS = {  # the console's words for the problems the poker services do not word (those speak themselves)
    "name-missing": N_("The club needs a name."),
    "name-too-long": N_("The club's name is too long: at most 200 characters."),
    "email-invalid": N_("That is not an e-mail address: the results sheets and certificates go there."),
    "timezone-unknown": N_("Choose a time zone of the list (an IANA name such as Europe/Moscow)."),
    "bad-locale": N_("Choose Russian or English."),
    "bad-email": N_("That is not an e-mail address."),
    "last-owner": N_("The club keeps at least one owner: make someone else its owner first."),
    "account-not-found": N_("This person is not on the club's staff."),
    "setting-missing": N_("Fill in the name, the start, the starting stack, the currency and the buy-in."),
    "structure-missing": N_("Choose the blind structure."),
    "series-not-found": N_("There is no such template."),
    "tournament-not-found": N_("There is no such tournament to copy."),
    "field-not-a-number": N_("%(field)s: type a whole number."),
    "field-not-a-time": N_("%(field)s: choose a date and a time."),
    "level-not-a-number": N_("Level %(n)s: type whole numbers."),
    "structure-file-empty": N_("Choose a file or paste its text."),
    "field-amount": N_("%(field)s: %(problem)s"),
}
DONE = {  # what a change did, said on the page it lands on (`?done=`)
    "saved": N_("Saved."),
    "invited": N_("Invited: a letter with a link that sets the password is on its way."),
    "granted": N_("The role is given."),
    "roles": N_("The roles are changed."),
    "removed": N_("Removed from the staff."),
    "created": N_("Created."),
    "copied": N_("Copied: this is the copy."),
    "opened": N_("Registration is open."),
    "cancelled": N_("The tournament is cancelled."),
    "unchanged": N_("Nothing to change: it is so already."),
    "revoked": N_("The token is revoked: it stops at its next request."),
    "logo": N_("The logo is saved: the club's documents carry it from now on."),
    "logo-removed": N_("The logo is removed."),
}
FIELD_NAMES = {
    "name": N_("Name"),
    "scheduled_start": N_("Start"),
    "starting_stack": N_("Starting stack"),
    "currency": N_("Currency"),
    "buy_in": N_("Buy-in"),
    "seat_cap": N_("Players at a table"),
    "late_reg_deadline": N_("Late registration until"),
    "reentry_deadline": N_("Re-entry until"),
    "addon_deadline": N_("Add-on until"),
    "addon_break": N_("Add-on from the break"),
    "addon_chips": N_("Add-on chips"),
    "rebuy_amount": N_("Rebuy"),
    "reentry_amount": N_("Re-entry"),
    "addon_amount": N_("Add-on"),
    "itm_percent": N_("Prize places, percent of the entries"),
    "itm_min": N_("Prize places, at least"),
    "pko_head": N_("PKO head, points"),
    "rebuy_until": N_("Rebuys until"),
    "rebuy_until_level": N_("Rebuys until the end of level"),
    "rebuy_limit": N_("Rebuys per player, at most"),
    "reentry_limit": N_("Re-entries per player, at most"),
    "void_window_minutes": N_("Void window, minutes"),
}
INT_FIELDS = (
    "starting_stack",
    "seat_cap",
    "addon_break",
    "addon_chips",
    "itm_percent",
    "itm_min",
    "pko_head",
    "rebuy_until_level",
    "rebuy_limit",
    "reentry_limit",
)
LOCAL_TIMES = ("scheduled_start", "late_reg_deadline", "reentry_deadline", "addon_deadline", "rebuy_until")
CHOICES = ("format", "bounty_type", "no_show_policy", "mystery_draw_per")
FLAGS = ("mystery_draw", "addon_once", "shared_knockouts")
REQUIRED = ("name", "scheduled_start", "starting_stack", "currency", "buy_in")
BLANK_ROWS = 3  # empty level rows under a structure's, for new levels without the script


class _SignedOut(Exception):
    """The page needs a person signed in by the session cookie."""


@cache
def _zones() -> tuple[str, ...]:
    return tuple(sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/"))))


# -- one transaction of a console page -----------------------------------------------------------------


@dataclass
class Ctx:
    """What a console page's builder reads with: the transaction, who, when, the club."""

    session: Any
    actor: Actor
    now: datetime
    club_id: int
    locale: str
    zone: ZoneInfo

    def read(self, action: str, do: Callable, *, target: Any = "club", missing: NotFound | None = None) -> Any:
        """A read of the console through the policy (`gate.act`: reads write no audit row), of the club
        or of `target` (None: not there, or not the club's)."""
        found = targets.club(self.session, self.club_id) if target == "club" else target
        return gate.act(
            self.session,
            self.actor,
            action,
            self.now,
            do,
            target=found,
            missing=missing or NotFound("club-not-found", ""),
            describe=f"club {self.club_id}",
        )


def _caller(site: Site, session, request: Request, now: datetime):
    caller = site.auth.identify(session, request, now)
    if not caller.by_cookie:
        raise _SignedOut
    return caller


def _club_ctx(site: Site, session, request: Request, club_id: int, now: datetime):
    """The caller and the club's context; a club the caller does not own: NotFound (404 page)."""
    from domain.clubs.services.clubs import get_club
    from domain.documents.services import locales

    caller = _caller(site, session, request, now)
    gate.allow(caller.actor, "club.profile", targets.club(session, club_id), NotFound("club-not-found", ""))
    club = get_club(session, club_id)
    locale = locales.club_locale(session, club_id)
    return caller, club, Ctx(session, caller.actor, now, club_id, locale, ZoneInfo(club.timezone))


def _to_sign_in(request: Request) -> Response:
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/signin?next={quote(here, safe='')}", status_code=303)


def _worded(problems: list[Problem], ctx: Ctx) -> list[dict]:
    """Each problem in the club's language: the console's words for its own codes, the poker
    services' refusals by their catalog (flows/web/refusals.py), else as the service said it."""
    t = i18n.translations(ctx.locale)
    out = []
    for p in problems:
        if p.code in PROBLEMS:
            values = {k: _value(v, ctx, t) for k, v in p.values.items()}
            text = t.gettext(PROBLEMS[p.code])
            out.append({"code": p.code, "message": text % values if values else text})
        else:
            out.append({"code": p.code, "message": refusals.said(p, ctx.locale, ctx.zone, ctx.now)})
    return out


def _value(value: Any, ctx: Ctx, t) -> Any:
    """A value of the console's own problem: a field's name translated, a refusal said."""
    if isinstance(value, Problem):
        return refusals.said(value, ctx.locale, ctx.zone, ctx.now)
    if isinstance(value, str) and value in FIELD_NAMES.values():
        return t.gettext(value)
    return value


async def _show(
    site: Site,
    request: Request,
    club_id: int,
    template: str,
    build: Callable[[Ctx], dict],
    *,
    status: int = 200,
    problems: list[Problem] = (),
    done_words: dict[str, str] = DONE,
    names: dict[str, dict] | None = None,
    worded: Callable[[list[Problem], Ctx], list[dict]] | None = None,
    **extra: Any,
) -> Response:
    """A console page: the club's context, `build`'s reads, the page in the club's language; a part of
    the console with words of its own gives its `done_words`, `names` and `worded` (club_series.py)."""
    now = site.clock()

    def run(session):
        caller, club, ctx = _club_ctx(site, session, request, club_id, now)
        context = build(ctx)
        return caller, club, ctx, context, (worded or _worded)(list(problems), ctx), _owned(session, caller.actor)

    try:
        caller, club, ctx, context, worded, clubs = await site.write(run)
    except _SignedOut:
        return _to_sign_in(request)
    except NotFound:
        return site.error(request, HTTPException(404))
    done = request.query_params.get("done")
    return site.page(
        template,
        status=status,
        locale=ctx.locale,
        request=request,
        actor=caller.actor,
        club={"id": club.id, "name": club.name, "timezone": club.timezone},
        clubs=clubs,
        csrf=site.auth.csrf(caller.session_secret),
        problems=worded,
        done=done_words.get(done) if done else None,
        names=names
        or {
            "roles": ROLE_NAMES,
            "status": STATUS_NAMES,
            "ante": ANTE_NAMES,
            "format": FORMAT_NAMES,
            "bounty": BOUNTY_NAMES,
            "no_show": NO_SHOW_NAMES,
            "draw": DRAW_NAMES,
            "fields": FIELD_NAMES,
        },
        zone=ctx.zone.key,
        now=now,
        **context,
        **extra,
    )


def _owned(session, actor: Actor) -> list[dict]:
    from domain.clubs.services.clubs import get_club

    return [{"id": c, "name": get_club(session, c).name} for c in sorted(_owner_of(actor))]


def _owner_of(actor: Actor) -> set[int]:
    return {club for role, club in actor.roles if role is Role.OWNER and club is not None}


async def _change(
    site: Site,
    request: Request,
    club_id: int,
    form,
    action: str,
    do: Callable,
    *,
    describe: str,
    data: dict | None = None,
    tournament_id: int | None = None,
) -> Any:
    """A change from a console form, by the API's steps in one transaction: the session's cookie, the
    form's CSRF field, the target (the club, or its tournament), `gate.act` (the policy, the use case,
    the audit row). Raises what the policy or the use case refuse with: nothing written then."""
    now = site.clock()

    def run(session):
        caller = _caller(site, session, request, now)
        if not site.auth.csrf_ok(caller, form.get("csrf")):
            raise StaleForm
        if tournament_id is None:
            target, missing = targets.club(session, club_id), NotFound("club-not-found", "")
        else:
            target = targets.tournament(session, tournament_id)
            if target is not None and target.club_id != club_id:
                target = None
            missing = NotFound("tournament-not-found", "")
        return gate.act(
            session, caller.actor, action, now, do, target=target, missing=missing, describe=describe, data=data
        )

    return await site.write(run)


async def _post(
    site: Site,
    request: Request,
    club_id: int,
    form,
    action: str,
    do: Callable,
    *,
    describe: str,
    then: Callable[[Any], str],
    again: Callable[[list[Problem]], Any],
    data: dict | None = None,
    tournament_id: int | None = None,
    after: Callable[[Any], BackgroundTask | None] | None = None,
) -> Response:
    """`_change`, then 303 to `then(result)`; refused by a rule: `again(problems)`, the page with them."""
    try:
        result = await _change(
            site, request, club_id, form, action, do, describe=describe, data=data, tournament_id=tournament_id
        )
    except _SignedOut:
        return _to_sign_in(request)
    except StaleForm:
        return site.page("error.html", status=403, request=request, code=403, message=STALE_FORM)
    except NotFound as exc:
        if exc.code in ("club-not-found", "tournament-not-found") and not exc.message:
            return site.error(request, HTTPException(404))
        return await again(list(exc.problems))
    except DomainError as exc:
        return await again(list(exc.problems))
    response = RedirectResponse(then(result), status_code=303)
    if after is not None:
        response.background = after(result)
    return response


def _done(path: str, result: Any, what: str) -> str:
    return f"{path}?done={'unchanged' if result is gate.UNCHANGED else what}"


# -- /club and the day --------------------------------------------------------------------------------


async def home(site: Site, request: Request) -> Response:
    """`/club`: an owner's console: the first club they own (each page links the others); none: 404."""
    now = site.clock()

    def run(session):
        caller = _caller(site, session, request, now)
        return _owned(session, caller.actor)

    try:
        clubs = await site.write(run)
    except _SignedOut:
        return _to_sign_in(request)
    if not clubs:
        return site.error(request, HTTPException(404))
    return RedirectResponse(f"/club/{clubs[0]['id']}", status_code=303)  # several: each page switches


def _day(ctx: Ctx) -> list[dict]:
    """The club's tournaments of the day (scheduled today in the club's time, or open or running),
    then the drafts and the coming ones: what `desk.today` lists, for the owner's page."""
    rows = ctx.read("club.tournaments", lambda s, a, n: tournament_service.list_tournaments(s, club_id=ctx.club_id))
    today = ctx.now.astimezone(ctx.zone).date()
    out = []
    for t in rows:
        local = t["scheduled_start"].astimezone(ctx.zone)
        t = t | {"start_text": i18n.day_and_time(local, ctx.locale), "today": local.date() == today}
        out.append(t)
    return out


PLANNED_SHOWN = 10  # the series' planned starts on the console's first page, the soonest first


async def console(site: Site, request: Request) -> Response:
    """`/club/<id>`: the day's tournaments and the coming ones, then the series' planned starts, with
    the console's places."""
    club_id = path_id(request.path_params["id"])

    def build(ctx: Ctx) -> dict:
        rows = _day(ctx)
        day = [t for t in rows if t["today"] or t["status"] in LIVE]
        coming = [t for t in rows if t not in day and (t["status"] == "draft" or t["scheduled_start"] > ctx.now)]
        series = ctx.read("club.series", lambda s, a, n: owner_series.series_list(s, club_id, n))
        planned = sorted(  # the series' starts whose tournament is not made yet (it is at registration's opening)
            (
                {"series_id": r["id"], "name": r["name"], "starts_at": start["starts_at"],
                 "start_text": i18n.day_and_time(start["starts_at"].astimezone(ctx.zone), ctx.locale)}
                for r in series if r["status"] == "active"
                for start in r["next"] if start["status"] == "planned"
            ),
            key=lambda p: (p["starts_at"], p["series_id"]),
        )  # fmt: skip
        return {
            "day": day,
            "coming": [t for t in coming if t["status"] not in ("finished", "cancelled")],
            "planned": planned[:PLANNED_SHOWN],
        }

    return await _show(site, request, club_id, "club_home.html", build, here="day")


# -- the profile --------------------------------------------------------------------------------------


def profile_page(site, request, club_id, form=None, problems=(), status=200, worded=None):
    """The profile page: the profile (`form` as typed over it) and the club's logo (flows/web/club_logo.py)."""
    from flows.web import club_logo

    def build(ctx: Ctx) -> dict:
        shown = ctx.read("club.profile", lambda s, a, n: owner.profile(s, club_id))
        return {"profile": shown | (form or {}), "logo": club_logo.shown(ctx)}

    return _show(
        site, request, club_id, "club_profile.html", build, status=status, problems=list(problems),
        zones=_zones(), locales=LOCALES, here="profile", worded=worded,
    )  # fmt: skip


async def profile(site: Site, request: Request) -> Response:
    """`/club/<id>/profile`: name, the documents' e-mail, timezone, language; posted, saved or every
    problem said (`club.edit-profile`). The logo's forms post to `/club/<id>/logo` (flows/web/club_logo.py)."""
    club_id = path_id(request.path_params["id"])

    def page(form=None, problems=(), status=200):
        return profile_page(site, request, club_id, form, problems, status)

    if request.method == "GET":
        return await page()
    form = await request.form()
    given = {k: str(form.get(k) or "").strip()[:1000] for k in ("name", "contact_email", "timezone", "locale")}
    return await _post(
        site, request, club_id, form, "club.edit-profile", owner.edit_profile_use(club_id, given),
        describe=f"club {club_id}", data=given,
        then=lambda r: _done(f"/club/{club_id}/profile", r, "saved"),
        again=lambda problems: page(given, problems, 409),
    )  # fmt: skip


# -- the staff ----------------------------------------------------------------------------------------


def _staff(ctx: Ctx) -> list[dict]:
    members = ctx.read("club.staff", lambda s, a, n: accounts.listing(s, ctx.club_id))
    suffix = f"@{ctx.club_id}"
    return [m | {"club_roles": [r.removesuffix(suffix) for r in m["roles"] if r.endswith(suffix)]} for m in members]


def _staff_page(site, request, club_id, *, invite=None, problems=(), status=200):
    return _show(
        site, request, club_id, "club_staff.html", lambda ctx: {"staff": _staff(ctx)}, status=status,
        problems=list(problems), invite=invite or {"email": "", "role": "floor"},
        club_roles=[r.value for r in CLUB_ROLES], here="staff",
    )  # fmt: skip


async def staff(site: Site, request: Request) -> Response:
    """`/club/<id>/staff`: who holds which role; invite by e-mail, change roles, remove."""
    return await _staff_page(site, request, path_id(request.path_params["id"]))


async def invite(site: Site, request: Request) -> Response:
    """`POST /club/<id>/staff/invite` (`club.invite`): an existing account is granted the role, a new
    address gets an account and the welcome letter (the sign-up's letter, sent after the answer)."""
    club_id = path_id(request.path_params["id"])
    form = await request.form()
    email, role = str(form.get("email") or "").strip()[:254], str(form.get("role") or "")
    letters: list[Letter] = []
    if role not in ROLE_NAMES:
        return await _staff_page(site, request, club_id, invite={"email": email, "role": "floor"}, status=422)
    door = play.sign_up_door(site)

    def after(result):
        return BackgroundTask(_deliver_all, door, list(letters)) if letters else None

    return await _post(
        site, request, club_id, form, "club.invite", owner.invite_use(club_id, email, role, letters),
        describe=f"{role} {email}", data={"email": email, "role": role},
        then=lambda r: _done(f"/club/{club_id}/staff", r, "invited" if letters else "granted"),
        again=lambda problems: _staff_page(site, request, club_id, invite={"email": email, "role": role}, problems=problems, status=409),
        after=after,
    )  # fmt: skip


def _deliver_all(door, letters: list[Letter]) -> None:
    for letter in letters:
        door.deliver(letter)


async def roles(site: Site, request: Request) -> Response:
    """`POST /club/<id>/staff/<account>/roles` (`club.set-roles`): the roles ticked, or `remove`."""
    club_id = path_id(request.path_params["id"])
    account_id = path_id(request.path_params["account"])
    form = await request.form()
    remove = form.get("remove") is not None
    wanted = [] if remove else [r for r in ROLE_NAMES if form.get(f"role_{r}")]
    return await _post(
        site, request, club_id, form, "club.remove-staff" if remove else "club.set-roles",
        owner.set_roles_use(club_id, account_id, wanted),
        describe=f"account {account_id}" if remove else f"roles of account {account_id}",
        data=None if remove else {"roles": wanted},
        then=lambda r: _done(f"/club/{club_id}/staff", r, "removed" if remove else "roles"),
        again=lambda problems: _staff_page(site, request, club_id, problems=problems, status=409),
    )  # fmt: skip


# -- the audit trail (AC-3) ------------------------------------------------------------------------

TRAIL_PAGE = 50


def _day_start(raw: str, zone: ZoneInfo) -> datetime | None:
    """A day typed in the filter (YYYY-MM-DD) as the instant it starts in the club's zone; else None."""
    try:
        return datetime.combine(date.fromisoformat(raw), time(0), zone) if raw else None
    except ValueError:
        return None


async def trail(site: Site, request: Request) -> Response:
    """`/club/<id>/audit`: who did what and when (AC-3), newest first, 50 a page, narrowed by who (part of
    an e-mail or a token's name), what (an action), which tournament and the days from/to (the club's
    calendar); the older page by the last row's id."""
    club_id = path_id(request.path_params["id"])
    q = request.query_params
    asked = {k: q.get(k, "").strip()[:254] for k in ("actor", "action", "tournament", "from", "to", "before")}

    def build(ctx: Ctx) -> dict:
        since, to = _day_start(asked["from"], ctx.zone), _day_start(asked["to"], ctx.zone)
        only = audit.Filter(
            actor=asked["actor"] or None,
            action=asked["action"] or None,
            tournament_id=int(asked["tournament"])
            if asked["tournament"].isascii() and asked["tournament"].isdigit() and len(asked["tournament"]) < 16
            else None,
            since=since,
            until=to + timedelta(days=1) if to else None,
        )
        before = (
            int(asked["before"])
            if asked["before"].isascii() and asked["before"].isdigit() and len(asked["before"]) < 16
            else None
        )
        rows = ctx.read(
            "club.audit", lambda s, a, n: audit.trail(s, ctx.club_id, before_id=before, limit=TRAIL_PAGE + 1, only=only)
        )
        shown = [r | {"when": r["at"].astimezone(ctx.zone).strftime("%Y-%m-%d %H:%M")} for r in rows[:TRAIL_PAGE]]
        older = None
        if len(rows) > TRAIL_PAGE:
            older = "?" + urlencode(
                {k: v for k, v in asked.items() if v and k != "before"} | {"before": shown[-1]["id"]}
            )
        return {"rows": shown, "older": older, "asked": asked}

    return await _show(site, request, club_id, "club_audit.html", build, here="audit")


# -- the club's tokens (its machines: a desk's tablet, a screen, a script) ---------------------------


def _tokens_page(site, request, club_id, *, made=None, problems=(), status=200):
    def build(ctx: Ctx) -> dict:
        tokens = ctx.read("club.tokens", lambda s, a, n: signin.club_tokens(s, ctx.club_id))
        shown = [
            t | {"made": _local(t["created_at"], ctx.zone), "used": _local(t["last_used_at"], ctx.zone)} for t in tokens
        ]
        return {"tokens": shown, "staff": _staff(ctx)}

    return _show(
        site, request, club_id, "club_tokens.html", build, status=status, problems=list(problems),
        made=made, club_roles=[r.value for r in CLUB_ROLES], here="tokens",
    )  # fmt: skip


async def tokens(site: Site, request: Request) -> Response:
    """`/club/<id>/tokens`: the club's tokens (never a secret); `POST` makes one (`club.create-token`):
    its secret is on the page that answers, this once, and nowhere else."""
    club_id = path_id(request.path_params["id"])
    if request.method == "GET":
        return await _tokens_page(site, request, club_id)
    form = await request.form()
    email, name = str(form.get("email") or "").strip()[:254], str(form.get("name") or "").strip()[:80]
    roles = [r.value for r in CLUB_ROLES if form.get(f"role_{r.value}")]
    if not roles:
        problem = Problem("token-needs-scope", "a token needs at least one scope")
        return await _tokens_page(site, request, club_id, problems=[problem], status=422)

    def do(session, actor, now):
        return signin.create_club_token(session, club_id, email, name, roles, now)

    try:
        row, secret = await _change(
            site, request, club_id, form, "club.create-token", do,
            describe=f"token {name!r} of {email}", data={"account": email, "name": name, "roles": roles},
        )  # fmt: skip
    except _SignedOut:
        return _to_sign_in(request)
    except StaleForm:
        return site.page("error.html", status=403, request=request, code=403, message=STALE_FORM)
    except NotFound as exc:
        if exc.code == "club-not-found":
            return site.error(request, HTTPException(404))
        return await _tokens_page(site, request, club_id, problems=[Problem(exc.code, exc.message)], status=404)
    except DomainError as exc:
        return await _tokens_page(
            site, request, club_id, problems=list(exc.problems) or [Problem(exc.code, exc.message)], status=409
        )
    page = await _tokens_page(site, request, club_id, made={"name": row["name"], "token": secret}, status=201)
    page.headers["cache-control"] = "no-store"  # the secret is on this page alone
    return page


async def revoke_token(site: Site, request: Request) -> Response:
    """`POST /club/<id>/tokens/<token>/revoke` (`club.revoke-token`): it stops at its next request."""
    club_id = path_id(request.path_params["id"])
    token_id = path_id(request.path_params["tid"])
    form = await request.form()
    return await _post(
        site, request, club_id, form, "club.revoke-token",
        lambda s, a, n: signin.revoke_club_token(s, club_id, token_id, n), describe=f"token {token_id}",
        then=lambda r: f"/club/{club_id}/tokens?done=revoked",
        again=lambda problems: _tokens_page(site, request, club_id, problems=problems, status=409),
    )  # fmt: skip


# -- blind structures ---------------------------------------------------------------------------------


def _levels_of(form) -> tuple[list[LevelSpec], list[Problem]]:
    """The level rows of a structure's form (`sb_N`, `bb_N`, `ante_N`, `min_N`, `brk_N` for N up to
    `rows`): a row left wholly empty is skipped; the rest are the levels in order, blinds and ante
    empty reading 0 (a break's)."""
    try:
        rows = min(int(str(form.get("rows") or "0")), 500)
    except ValueError:
        rows = 0
    levels, problems = [], []
    for n in range(1, rows + 1):
        raw = [str(form.get(f"{key}_{n}") or "").strip() for key in ("sb", "bb", "ante", "min")]
        is_break = form.get(f"brk_{n}") is not None
        if not any(raw) and not is_break:
            continue
        try:
            small, big, ante, minutes = (int(v.replace(" ", "").replace("\u00a0", "")) if v else 0 for v in raw)
        except ValueError:
            problems.append(Problem("level-not-a-number", "level %(n)s: type whole numbers", n=len(levels) + 1))
            small = big = ante = minutes = 0
        levels.append(LevelSpec(small, big, ante, minutes * 60, is_break))
    return levels, problems


def _rows(levels: list[dict]) -> list[dict]:
    return [dict(lv) for lv in levels] + [{} for _ in range(BLANK_ROWS)]


def _structures_page(site, request, club_id, *, draft=None, problems=(), status=200):
    def build(ctx: Ctx) -> dict:
        return {"structures": ctx.read("club.structures", lambda s, a, n: owner.structure_list(s, club_id))}

    draft = draft or {"name": "", "ante_type": "none", "rows": _rows([])}
    return _show(
        site, request, club_id, "club_structures.html", build, status=status, problems=list(problems),
        draft=draft, ante_types=ANTE_TYPES, here="structures",
    )  # fmt: skip


def _typed_rows(form, levels: list[LevelSpec]) -> list[dict]:
    """The rows as typed (for the form shown again), with blank ones after."""
    try:
        rows = min(int(str(form.get("rows") or "0")), 500)
    except ValueError:
        rows = 0
    typed = []
    for n in range(1, rows + 1):
        row = {k: str(form.get(f"{k}_{n}") or "") for k in ("sb", "bb", "ante", "min")}
        row["brk"] = form.get(f"brk_{n}") is not None
        if any(row[k] for k in ("sb", "bb", "ante", "min")) or row["brk"]:
            typed.append(
                {
                    "small_blind": row["sb"],
                    "big_blind": row["bb"],
                    "ante": row["ante"],
                    "minutes": row["min"],
                    "break": row["brk"],
                }
            )
    return _rows(typed)


async def structures_page(site: Site, request: Request) -> Response:
    """`/club/<id>/structures`: the club's structures; a new one from its levels (`club.add-structure`)."""
    club_id = path_id(request.path_params["id"])
    if request.method == "GET":
        return await _structures_page(site, request, club_id)
    form = await request.form()
    name, ante_type = str(form.get("name") or "").strip()[:200], str(form.get("ante_type") or "none")[:20]
    levels, parse = _levels_of(form)
    draft = {"name": name, "ante_type": ante_type, "rows": _typed_rows(form, levels)}
    if parse:
        return await _structures_page(site, request, club_id, draft=draft, problems=parse, status=422)
    return await _post(
        site, request, club_id, form, "club.add-structure", owner.add_structure_use(club_id, name, ante_type, levels),
        describe=f"structure {name}", data={"name": name, "ante_type": ante_type, "levels": len(levels)},
        then=lambda r: f"/club/{club_id}/structures/{r['id']}?done=created",
        again=lambda problems: _structures_page(site, request, club_id, draft=draft, problems=problems, status=409),
    )  # fmt: skip


async def import_structure(site: Site, request: Request) -> Response:
    """`POST /club/<id>/structures/import` (`club.import-structure`): a CSV or JSON file as the CLI
    imports it, uploaded or pasted."""
    club_id = path_id(request.path_params["id"])
    form = await request.form(max_part_size=256 * 1024)
    name, ante_type = str(form.get("name") or "").strip()[:200], str(form.get("ante_type") or "none")[:20]
    upload = form.get("file")
    content, kind = str(form.get("content") or ""), "csv"
    if upload is not None and not isinstance(upload, str) and upload.filename:
        content = (await upload.read(256 * 1024)).decode("utf-8", errors="replace")
        kind = "json" if upload.filename.lower().endswith(".json") else "csv"
    elif content.lstrip().startswith("["):
        kind = "json"
    if not content.strip():
        problem = Problem("structure-file-empty", "choose a file or paste its text")
        return await _structures_page(site, request, club_id, problems=[problem], status=422)
    return await _post(
        site, request, club_id, form, "club.import-structure",
        owner.import_structure_use(club_id, name, ante_type, content, kind),
        describe=f"structure {name}", data={"name": name, "ante_type": ante_type, "kind": kind},
        then=lambda r: f"/club/{club_id}/structures/{r['id']}?done=created",
        again=lambda problems: _structures_page(site, request, club_id, problems=problems, status=409),
    )  # fmt: skip


def _structure_page(site, request, club_id, structure_id, *, draft=None, problems=(), status=200):
    def build(ctx: Ctx) -> dict:
        shown = ctx.read("club.structure", lambda s, a, n: owner.structure_full(s, club_id, structure_id))
        return {
            "structure": shown,
            "draft": draft or {"name": shown["name"], "ante_type": shown["ante_type"], "rows": _rows(shown["levels"])},
        }

    return _show(
        site, request, club_id, "club_structure.html", build, status=status, problems=list(problems),
        ante_types=ANTE_TYPES, here="structures",
    )  # fmt: skip


async def structure(site: Site, request: Request) -> Response:
    """`/club/<id>/structures/<sid>`: its levels, the export, who uses it; posted, its levels edited
    (`club.edit-structure`: refused once a tournament past its draft uses it)."""
    club_id = path_id(request.path_params["id"])
    sid = path_id(request.path_params["sid"])
    if request.method == "GET":
        return await _structure_page(site, request, club_id, sid)
    form = await request.form()
    name, ante_type = str(form.get("name") or "").strip()[:200], str(form.get("ante_type") or "none")[:20]
    levels, parse = _levels_of(form)
    draft = {"name": name, "ante_type": ante_type, "rows": _typed_rows(form, levels)}
    if parse:
        return await _structure_page(site, request, club_id, sid, draft=draft, problems=parse, status=422)
    return await _post(
        site, request, club_id, form, "club.edit-structure",
        owner.edit_structure_use(club_id, sid, name, ante_type, levels),
        describe=f"structure {sid}", data={"name": name, "ante_type": ante_type, "levels": len(levels)},
        then=lambda r: _done(f"/club/{club_id}/structures/{sid}", r, "saved"),
        again=lambda problems: _structure_page(site, request, club_id, sid, draft=draft, problems=problems, status=409),
    )  # fmt: skip


async def copy_structure(site: Site, request: Request) -> Response:
    """`POST /club/<id>/structures/<sid>/copy` (`club.copy-structure`): a copy under a new name."""
    club_id = path_id(request.path_params["id"])
    sid = path_id(request.path_params["sid"])
    form = await request.form()
    name = str(form.get("name") or "").strip()[:200]
    return await _post(
        site, request, club_id, form, "club.copy-structure", owner.copy_structure_use(club_id, sid, name),
        describe=f"structure {sid} as {name}", data={"name": name},
        then=lambda r: f"/club/{club_id}/structures/{r['id']}?done=copied",
        again=lambda problems: _structure_page(site, request, club_id, sid, problems=problems, status=409),
    )  # fmt: skip


async def export_structure(site: Site, request: Request) -> Response:
    """`/club/<id>/structures/<sid>/levels.csv`: the levels as the CLI's import reads them."""
    club_id = path_id(request.path_params["id"])
    sid = path_id(request.path_params["sid"])
    now = site.clock()

    def run(session):
        caller, club, ctx = _club_ctx(site, session, request, club_id, now)
        return ctx.read("club.structure", lambda s, a, n: owner.structure_full(s, club_id, sid))

    try:
        shown = await site.write(run)
    except _SignedOut:
        return _to_sign_in(request)
    except NotFound:
        return site.error(request, HTTPException(404))
    filename = quote(f"{shown['name']}.csv")
    return Response(
        shown["csv"],
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f"attachment; filename=\"structure-{sid}.csv\"; filename*=UTF-8''{filename}"},
    )


# -- tournaments --------------------------------------------------------------------------------------


def _local(value: datetime | None, zone: ZoneInfo) -> str:
    return value.astimezone(zone).strftime("%Y-%m-%dT%H:%M") if value else ""


def _shown_settings(view: dict, zone: ZoneInfo, locale: str) -> dict:
    """A tournament's settings as its form shows them: local times, amounts as typed back."""
    shown = {k: ("" if v is None else v) for k, v in view.items()}
    for field in LOCAL_TIMES:
        shown[field] = _local(view.get(field), zone)
    for field in AMOUNT_FIELDS:
        if view.get(field) is not None:
            shown[field] = i18n.amount_input(view[field], view["currency"], locale)
    return shown


def _settings_of(form, zone: ZoneInfo, fields: tuple[str, ...], currency: str | None = None):
    """The settings of `fields` a tournament's form posts, typed as the API takes them: times in the
    club's zone (to UTC), amounts in major units of the currency (the desk's parser), whole numbers,
    switches (a box not ticked: off); every field that does not read is a problem naming it. An empty
    field is None (an optional setting unset). Returns (values, problems)."""
    values: dict[str, Any] = {}
    problems: list[Problem] = []
    for field in ("name", "currency", "mystery_phase"):
        if field in fields:
            values[field] = str(form.get(field) or "").strip()[:1000]
    if "currency" in values:
        values["currency"] = values["currency"].upper()
    currency = values.get("currency") or currency or "RUB"
    for field in CHOICES:
        if field in fields:
            values[field] = str(form.get(field) or "")[:40] or None
    for field in FLAGS:
        if field in fields:
            values[field] = form.get(field) is not None
    for field in (f for f in INT_FIELDS if f in fields):
        raw = str(form.get(field) or "").strip().replace(" ", "").replace("\u00a0", "")
        if not raw:
            values[field] = None
            continue
        try:
            values[field] = int(raw)
        except ValueError:
            problems.append(Problem("field-not-a-number", "%(field)s: type a whole number", field=FIELD_NAMES[field]))
    for field in (f for f in AMOUNT_FIELDS if f in fields):
        raw = str(form.get(field) or "").strip()
        if not raw:
            values[field] = None
            continue
        try:
            values[field] = parse_amount(raw[:100], currency if len(currency) == 3 else "RUB")
        except DomainError as bad:
            problems.append(
                Problem("field-amount", "%(field)s: %(problem)s", field=FIELD_NAMES[field], problem=bad.problems[0])
            )
    for field in (f for f in LOCAL_TIMES if f in fields):
        raw = str(form.get(field) or "").strip()[:40]
        if not raw:
            values[field] = None
            continue
        try:
            naive = datetime.fromisoformat(raw)
        except ValueError:
            problems.append(
                Problem("field-not-a-time", "%(field)s: choose a date and a time", field=FIELD_NAMES[field])
            )
            continue
        local = naive.replace(tzinfo=zone) if naive.tzinfo is None else naive
        value, found = time_from_text(field, local.isoformat())
        problems += found
        values[field] = value
    return values, problems


def _void_of(form) -> tuple[int | None, list[Problem]]:
    raw = str(form.get("void_window_minutes") or "").strip()
    if not raw:
        return None, []
    try:
        return int(raw), []
    except ValueError:
        return None, [
            Problem("field-not-a-number", "%(field)s: type a whole number", field=FIELD_NAMES["void_window_minutes"])
        ]


def _choices(ctx: Ctx) -> dict:
    return {
        "structures": ctx.read("club.structures", lambda s, a, n: owner.structure_list(s, ctx.club_id)),
        "templates": ctx.read("club.templates", lambda s, a, n: owner.templates(s, ctx.club_id)),
    }


def _tournaments_page(site, request, club_id, *, draft=None, problems=(), status=200):
    def build(ctx: Ctx) -> dict:
        return {"tournaments": _day(ctx), **_choices(ctx)}

    draft = draft or {"from": "nothing", "currency": "RUB", "seat_cap": "9"}
    return _show(
        site, request, club_id, "club_tournaments.html", build, status=status, problems=list(problems),
        draft=draft, s=draft, here="tournaments", choices=_select_names(),
    )  # fmt: skip


def _select_names() -> dict:
    return {
        "format": FORMAT_NAMES,
        "bounty_type": BOUNTY_NAMES,
        "no_show_policy": NO_SHOW_NAMES,
        "mystery_draw_per": DRAW_NAMES,
    }


CREATE_FIELDS = (
    "name",
    "scheduled_start",
    "starting_stack",
    "currency",
    "buy_in",
    "format",
    "bounty_type",
    "seat_cap",
    "late_reg_deadline",
)
EDIT_FIELDS = SETTING_FIELDS


async def tournaments_page(site: Site, request: Request) -> Response:
    """`/club/<id>/tournaments`: the club's tournaments; a new one (`club.create-tournament`) from
    nothing, a series' template or a copy of another: the name and the start, and what else is typed
    (from nothing: the stack, the currency and the buy-in at least), over the template or the copy."""
    club_id = path_id(request.path_params["id"])
    if request.method == "GET":
        return await _tournaments_page(site, request, club_id)
    form = await request.form()
    zone = await _club_zone(site, club_id)
    if zone is None:
        return site.error(request, HTTPException(404))
    source = str(form.get("from") or "nothing")
    values, parse = _settings_of(form, zone, CREATE_FIELDS)
    draft = {k: str(form.get(k) or "") for k in CREATE_FIELDS + ("structure_id", "series_id", "copy_of")} | {
        "from": source
    }
    settings = {k: v for k, v in values.items() if v not in (None, "")}
    if parse or "scheduled_start" not in settings or "name" not in settings:
        parse = parse or [Problem("setting-missing", "fill in the name and the start")]
        return await _tournaments_page(site, request, club_id, draft=draft, problems=parse, status=422)
    series_id = _int_or_none(form.get("series_id")) if source == "template" else None
    copy_of = _int_or_none(form.get("copy_of")) if source == "copy" else None
    return await _post(
        site, request, club_id, form, "club.create-tournament",
        owner.create_tournament_use(club_id, settings, structure_id=_int_or_none(form.get("structure_id")), series_id=series_id, copy_of=copy_of),
        describe=f"tournament {settings['name']}",
        data={"name": settings["name"], "from": source, "series_id": series_id, "copy_of": copy_of},
        then=lambda r: f"/club/{club_id}/tournaments/{r['id']}?done=created",
        again=lambda problems: _tournaments_page(site, request, club_id, draft=draft, problems=problems, status=409),
    )  # fmt: skip


def _int_or_none(raw) -> int | None:
    text = str(raw or "").strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 15:
        return None
    return int(text)


async def _club_zone(site: Site, club_id: int) -> ZoneInfo | None:
    from domain.clubs.tables import Club

    def run(session):
        club = session.get(Club, club_id)
        return None if club is None else ZoneInfo(club.timezone)

    return await site.write(run)


def _tournament_page(site, request, club_id, tid, *, draft=None, problems=(), status=200, lines=None):
    def build(ctx: Ctx) -> dict:
        target = targets.tournament(ctx.session, tid)
        if target is not None and target.club_id != club_id:
            target = None
        view = ctx.read(
            "club.tournament", lambda s, a, n: owner.settings_view(s, tid), target=target,
            missing=NotFound("tournament-not-found", ""),
        )  # fmt: skip
        shown = _shown_settings(view, ctx.zone, ctx.locale) | (draft or {})
        editable = view["status"] in EDITABLE
        return {
            "t": view,
            "s": shown,
            "editable": editable,
            "prize_text": "\n".join(view["prizes"]) if lines is None or "prizes" not in lines else lines["prizes"],
            "mystery_text": "\n".join(view["mystery_prizes"])
            if lines is None or "mystery" not in lines
            else lines["mystery"],
            "window_end": i18n.day_and_time(view["window_end"].astimezone(ctx.zone), ctx.locale),
            "start_text": i18n.day_and_time(view["scheduled_start"].astimezone(ctx.zone), ctx.locale),
            **_choices(ctx),
        }

    return _show(
        site, request, club_id, "club_tournament.html", build, status=status, problems=list(problems),
        here="tournaments", choices=_select_names(), tid=tid,
    )  # fmt: skip


async def tournament_page(site: Site, request: Request) -> Response:
    """`/club/<id>/tournaments/<tid>`: every setting, the prizes, the mystery table, open and cancel;
    posted, the settings edited (`club.edit-tournament`: in draft or registration open, 3.9)."""
    club_id = path_id(request.path_params["id"])
    tid = path_id(request.path_params["tid"])
    if request.method == "GET":
        return await _tournament_page(site, request, club_id, tid)
    form = await request.form()
    zone = await _club_zone(site, club_id)
    if zone is None:
        return site.error(request, HTTPException(404))
    values, parse = _settings_of(form, zone, EDIT_FIELDS, currency=str(form.get("currency") or ""))
    void, more = _void_of(form)
    parse += more
    draft = {k: str(form.get(k) or "") for k in (*EDIT_FIELDS, "structure_id", "void_window_minutes")}
    for flag in FLAGS:
        draft[flag] = form.get(flag) is not None
    if parse:
        return await _tournament_page(site, request, club_id, tid, draft=draft, problems=parse, status=422)
    structure_id = _int_or_none(form.get("structure_id"))
    changes = {k: v for k, v in values.items() if v is not None or k in OPTIONAL}
    return await _post(
        site, request, club_id, form, "club.edit-tournament",
        owner.edit_tournament_use(tid, changes, structure_id=structure_id, void_window_minutes=void),
        describe=f"tournament {tid}", data={"fields": sorted(changes)}, tournament_id=tid,
        then=lambda r: _done(f"/club/{club_id}/tournaments/{tid}", r, "saved"),
        again=lambda problems: _tournament_page(site, request, club_id, tid, draft=draft, problems=problems, status=409),
    )  # fmt: skip


def _lines(form, name: str) -> list[str]:
    text = str(form.get(name) or "")[:200_000]
    return [line for line in text.replace("\r\n", "\n").split("\n") if line.strip()]


async def prizes(site: Site, request: Request) -> Response:
    """`POST /club/<id>/tournaments/<tid>/prizes` (`club.set-prizes`): one prize a line, line n for
    place n (3.4; SP-4: no money)."""
    return await _lines_post(site, request, "prizes", "club.set-prizes", owner.set_prizes_use)


async def mystery_table(site: Site, request: Request) -> Response:
    """`POST /club/<id>/tournaments/<tid>/mystery` (`club.set-mystery-table`, SP-11)."""
    return await _lines_post(site, request, "mystery", "club.set-mystery-table", owner.set_mystery_use)


async def _lines_post(site: Site, request: Request, field: str, action: str, use) -> Response:
    club_id = path_id(request.path_params["id"])
    tid = path_id(request.path_params["tid"])
    form = await request.form()
    lines = _lines(form, field)
    typed = str(form.get(field) or "")[:200_000]
    return await _post(
        site, request, club_id, form, action, use(tid, lines),
        describe=f"tournament {tid}", data={"lines": lines}, tournament_id=tid,
        then=lambda r: _done(f"/club/{club_id}/tournaments/{tid}", r, "saved"),
        again=lambda problems: _tournament_page(site, request, club_id, tid, problems=problems, status=409, lines={field: typed}),
    )  # fmt: skip


async def open_tournament(site: Site, request: Request) -> Response:
    """`POST /club/<id>/tournaments/<tid>/open` (`club.open-tournament`, 3.9)."""
    return await _status_post(site, request, "open", "club.open-tournament", "opened")


async def cancel_tournament(site: Site, request: Request) -> Response:
    """`POST /club/<id>/tournaments/<tid>/cancel` (`club.cancel-tournament`, 3.9)."""
    return await _status_post(site, request, "cancel", "club.cancel-tournament", "cancelled")


async def _status_post(site: Site, request: Request, what: str, action: str, done: str) -> Response:
    club_id = path_id(request.path_params["id"])
    tid = path_id(request.path_params["tid"])
    form = await request.form()
    return await _post(
        site, request, club_id, form, action, owner.status_use(tid, what),
        describe=f"tournament {tid}", tournament_id=tid,
        then=lambda r: f"/club/{club_id}/tournaments/{tid}?done={done}",
        again=lambda problems: _tournament_page(site, request, club_id, tid, problems=problems, status=409),
    )  # fmt: skip
