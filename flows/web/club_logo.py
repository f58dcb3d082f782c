"""The owner's console: the club's logo on its profile page (issue 39, docs/console.md), over the use
cases of `/api/v1`'s `club.logo`, `club.set-logo` and `club.remove-logo` (flows/web/api/logo.py).

A PNG or JPEG file uploaded (`POST /club/<id>/logo`, multipart), checked by its bytes before anything is
written (domain/clubs/rules/logo.py: at most 512 KiB and 2000 pixels a side, SVG refused): a bad file is
the profile page again with its plain problem in the club's language, nothing changed. Removed by
`POST /club/<id>/logo/remove`. The page shows the logo held (a `data:` image, the page's own bytes)."""

from __future__ import annotations

import base64

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response

from domain.clubs.services import logos
from domain.documents.rules.model import N_
from domain.errors import Problem
from flows.web import club
from flows.web.api import logo as logo_api
from flows.web.club import Ctx, _done, _post
from flows.web.site import Site, path_id
from infra import i18n

PROBLEMS = {  # the console's words for the logo's refusals (domain/clubs/rules/logo.py), by code
    "logo-empty": N_("Choose a PNG or JPEG file for the logo."),
    "logo-too-large": N_("The logo is larger than 512 KB: save it smaller and upload it again."),
    "logo-type": N_("The logo must be a PNG or JPEG image (SVG and other files are not accepted)."),
    "logo-dimensions": N_("The logo is too large in pixels: at most 2000 on each side."),
    "logo-damaged": N_("The file is damaged or cut short: save the image again and upload it."),
}


def _worded(problems: list[Problem], ctx: Ctx) -> list[dict]:
    t = i18n.translations(ctx.locale)
    mine = [p for p in problems if p.code in PROBLEMS]
    return [{"code": p.code, "message": t.gettext(PROBLEMS[p.code])} for p in mine] + club._worded(
        [p for p in problems if p.code not in PROBLEMS], ctx
    )


def shown(ctx: Ctx) -> dict | None:
    """The club's logo as the profile page shows it (its size, a `data:` address), read through the
    policy (`club.logo`); none when the club has none."""

    def read(s, actor, now):
        view = logo_api.logo_use(ctx.club_id)(s, actor, now)["logo"]
        held = logos.logos(s, [ctx.club_id]).get(ctx.club_id)
        return view, held

    view, held = ctx.read("club.logo", read)
    if view is None or held is None:
        return None
    return view | {"src": f"data:{held.media_type};base64,{base64.b64encode(held.data).decode('ascii')}"}


def _again(site: Site, request: Request, club_id: int):
    return lambda problems: club.profile_page(site, request, club_id, problems=problems, status=409, worded=_worded)


async def upload(site: Site, request: Request) -> Response:
    """`POST /club/<id>/logo` (`club.set-logo`): the file's bytes checked and stored; the same image
    again changes nothing; a bad file: the profile page with its problem, nothing written."""
    club_id = path_id(request.path_params["id"])
    form = await request.form(max_files=1, max_fields=10)
    given = form.get("logo")
    data = await given.read(logo_api.MAX_UPLOAD + 1) if isinstance(given, UploadFile) else b""
    return await _post(
        site, request, club_id, form, "club.set-logo", logo_api.set_logo_use(club_id, data),
        describe=f"club {club_id} logo", then=lambda r: _done(f"/club/{club_id}/profile", r, "logo"),
        again=_again(site, request, club_id),
    )  # fmt: skip


async def remove(site: Site, request: Request) -> Response:
    """`POST /club/<id>/logo/remove` (`club.remove-logo`): the club goes back to having no logo."""
    club_id = path_id(request.path_params["id"])
    form = await request.form()
    return await _post(
        site, request, club_id, form, "club.remove-logo", logo_api.remove_logo_use(club_id),
        describe=f"club {club_id} logo", then=lambda r: _done(f"/club/{club_id}/profile", r, "logo-removed"),
        again=_again(site, request, club_id),
    )  # fmt: skip
