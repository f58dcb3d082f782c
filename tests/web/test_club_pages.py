"""The owner's console's pages (flows/web/club.py, issue 39) over HTTP against a real server and
PostgreSQL: an owner lands at `/club` after signing in; the profile, the staff, the structures (the CSV
export), the tournaments, each form's change made by the API's use case and audited, each refusal said
in the club's language with nothing written; a page without its CSRF field is refused; the floor and
another club's owner get the 404 page a missing club gets (AC-2)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.tables import AuditRecord
from domain.clubs.tables import Club
from domain.poker.tables.tournaments import Tournament
from flows import bootstrap
from tests.support.db import contents
from tests.support.world import PASSWORD, access_world

CREDENTIALS = ("account_tokens", "account_sessions")


@pytest.fixture
def world(web, committed):
    return access_world(committed, bootstrap.password_hasher(), passwords=("owner", "floor", "owner_b"))


def _client(web) -> httpx.Client:
    return httpx.Client(base_url=web.url, timeout=15, follow_redirects=False)


@contextmanager
def _signed_in(web, world, who: str = "owner") -> Iterator[httpx.Client]:
    with _client(web) as client:
        r = client.post("/signin", data={"email": world.emails[who], "password": PASSWORD}, headers={"origin": web.url})
        assert r.status_code == 303, r.text
        yield client


def _csrf(page: str) -> str:
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page).group(1)


def _rows(engine) -> dict:
    with Session(engine) as session:
        return {k: v for k, v in contents(session).items() if k not in CREDENTIALS}


def _last_action(engine) -> tuple[str, str]:
    with Session(engine) as session:
        row = session.scalars(select(AuditRecord).order_by(AuditRecord.id.desc()).limit(1)).one()
        return row.action, row.target


def test_issue_39_an_owner_lands_at_the_club_s_console_after_signing_in(web, world):
    """Issue 39, AC-1: the owner's home is `/club` now that the app serves it: to their club's console."""
    with _signed_in(web, world) as client:
        landed = client.post(
            "/signin", data={"email": world.emails["owner"], "password": PASSWORD}, headers={"origin": web.url}
        )
        assert landed.headers["location"] == "/club"
        first = client.get("/club")
        assert (first.status_code, first.headers["location"]) == (303, f"/club/{world.club_a}")
        day = client.get(first.headers["location"])
        assert day.status_code == 200, day.text
        assert '<html lang="ru">' in day.text and "Сегодня" in day.text
    with _signed_in(web, world, "floor") as client:  # the floor lands at the desk; /club is not theirs
        assert (
            client.post(
                "/signin", data={"email": world.emails["floor"], "password": PASSWORD}, headers={"origin": web.url}
            ).headers["location"]
            == "/desk"
        )
        assert client.get("/club").status_code == 404
    with _client(web) as client:  # not signed in: to the sign-in page and back
        r = client.get(f"/club/{world.club_a}/staff")
        assert (r.status_code, r.headers["location"]) == (303, f"/signin?next=%2Fclub%2F{world.club_a}%2Fstaff")


def test_ac_2_another_club_s_console_is_the_missing_club_s_404(web, world, committed):
    """AC-2: the floor of the club and another club's owner get the 404 page of a missing club, on
    every page, and a form they post writes nothing."""
    pages = ("", "/profile", "/staff", "/structures", "/tournaments", f"/tournaments/{world.tournament_a}")
    with _signed_in(web, world, "owner") as mine:
        csrf = _csrf(mine.get(f"/club/{world.club_a}/profile").text)
    for who in ("floor", "owner_b"):
        with _signed_in(web, world, who) as client:
            missing = client.get("/club/900000001")
            assert missing.status_code == 404
            for tail in pages:
                r = client.get(f"/club/{world.club_a}{tail}")
                assert (r.status_code, r.text) == (404, missing.text), (who, tail)
            before = _rows(committed)
            r = client.post(f"/club/{world.club_a}/profile", data={"csrf": csrf, "name": "Захват"})
            assert r.status_code in (403, 404)
            assert _rows(committed) == before
    with _signed_in(web, world, "owner") as client:  # club B's tournament under club A's console
        assert client.get(f"/club/{world.club_a}/tournaments/{world.tournament_b}").status_code == 404
        assert client.get(f"/club/{world.club_b}").status_code == 404


def test_issue_39_the_profile_page_saves_or_says_every_problem_in_russian(web, world, committed):
    """Issue 39, DOC-4: the profile form; every problem said in the club's language, nothing written;
    saved, the page says so; without the CSRF field a plain 403 writing nothing."""
    with _signed_in(web, world) as client:
        page = client.get(f"/club/{world.club_a}/profile")
        csrf = _csrf(page.text)
        before = _rows(committed)
        bad = client.post(
            f"/club/{world.club_a}/profile",
            data={"csrf": csrf, "name": " ", "contact_email": "нет", "timezone": "Mars/Olympus", "locale": "ru"},
        )
        assert bad.status_code == 409
        assert "Клубу нужно название." in bad.text and "Это не адрес электронной почты" in bad.text
        assert 'data-code="timezone-unknown"' in bad.text
        assert _rows(committed) == before
        stale = client.post(f"/club/{world.club_a}/profile", data={"name": "Без токена"})
        assert stale.status_code == 403 and _rows(committed) == before
        done = client.post(
            f"/club/{world.club_a}/profile",
            data={"csrf": csrf, "name": "Клуб «Пик»", "contact_email": "docs@pik.example", "timezone": "Europe/Samara", "locale": "ru"},
        )  # fmt: skip
        assert (done.status_code, done.headers["location"]) == (303, f"/club/{world.club_a}/profile?done=saved")
        assert "Сохранено." in client.get(done.headers["location"]).text
        assert _last_action(committed) == ("club.edit-profile", f"club {world.club_a}")
        with Session(committed) as session:
            club = session.get(Club, world.club_a)
            assert (club.name, club.contact_email, club.timezone) == ("Клуб «Пик»", "docs@pik.example", "Europe/Samara")


def test_issue_39_the_staff_page_invites_changes_roles_and_removes(web, world, committed):
    """Issue 39, AC-1: invite by e-mail (a new account and its letter), the roles ticked, removal; the
    club's last owner stays (said, nothing written)."""
    with _signed_in(web, world) as client:
        page = client.get(f"/club/{world.club_a}/staff")
        assert page.status_code == 200 and world.emails["floor"] in page.text
        csrf = _csrf(page.text)
        r = client.post(
            f"/club/{world.club_a}/staff/invite", data={"csrf": csrf, "email": "vera@pik.example", "role": "cashier"}
        )
        assert (r.status_code, r.headers["location"]) == (303, f"/club/{world.club_a}/staff?done=invited")
        shown = client.get(r.headers["location"]).text
        assert "vera@pik.example" in shown and "Приглашение отправлено" in shown
        assert _last_action(committed) == ("club.invite", "cashier vera@pik.example")
        vera = int(re.search(r'<tr data-account="(\d+)"><td>vera@pik.example', shown).group(1))
        r = client.post(
            f"/club/{world.club_a}/staff/{vera}/roles", data={"csrf": csrf, "role_floor": "1", "role_cashier": "1"}
        )
        assert r.headers["location"] == f"/club/{world.club_a}/staff?done=roles"
        owner = world.account_ids["owner"]
        before = _rows(committed)
        refused = client.post(f"/club/{world.club_a}/staff/{owner}/roles", data={"csrf": csrf, "role_floor": "1"})
        assert refused.status_code == 409 and "В клубе остаётся хотя бы один владелец" in refused.text
        assert _rows(committed) == before
        r = client.post(f"/club/{world.club_a}/staff/{vera}/roles", data={"csrf": csrf, "remove": "1"})
        assert r.headers["location"] == f"/club/{world.club_a}/staff?done=removed"
        assert "vera@pik.example" not in client.get(f"/club/{world.club_a}/staff").text
        assert _last_action(committed) == ("club.remove-staff", f"account {vera}")


def test_sp_3_5_the_structures_pages_create_export_import_and_refuse_a_bad_level(web, world, committed):
    """3.5: a structure from the grid's rows (empty rows dropped), exported as the CLI's CSV, imported
    back from that file; a bad level named by its number in Russian, nothing written."""
    c = world.club_a
    with _signed_in(web, world) as client:
        csrf = _csrf(client.get(f"/club/{c}/structures").text)
        rows = {"csrf": csrf, "name": "Турбо", "ante_type": "bb_ante", "rows": "5",
                "sb_1": "100", "bb_1": "200", "min_1": "15", "sb_2": "200", "bb_2": "400", "ante_2": "400", "min_2": "15",
                "min_3": "10", "brk_3": "1", "sb_4": "", "bb_4": ""}  # fmt: skip
        before = _rows(committed)
        bad = client.post(f"/club/{c}/structures", data=rows | {"bb_2": "100"})
        assert bad.status_code == 409 and "Уровень 2: блайнды 200/100" in bad.text
        assert 'value="100"' in bad.text  # the rows as typed come back
        assert _rows(committed) == before
        made = client.post(f"/club/{c}/structures", data=rows)
        assert made.status_code == 303, made.text
        sid = int(re.search(r"/structures/(\d+)\?done=created", made.headers["location"]).group(1))
        assert _last_action(committed) == ("club.add-structure", "structure Турбо")
        exported = client.get(f"/club/{c}/structures/{sid}/levels.csv")
        assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
        assert (
            exported.text == "small_blind,big_blind,ante,minutes,break\n100,200,0,15,no\n200,400,400,15,no\n,,,10,yes\n"
        )
        imported = client.post(
            f"/club/{c}/structures/import",
            data={"csrf": csrf, "name": "Из файла", "ante_type": "bb_ante"},
            files={"file": ("turbo.csv", exported.content, "text/csv")},
        )
        assert imported.status_code == 303, imported.text
        other = int(re.search(r"/structures/(\d+)", imported.headers["location"]).group(1))
        assert client.get(f"/club/{c}/structures/{other}/levels.csv").text == exported.text
        copied = client.post(f"/club/{c}/structures/{sid}/copy", data={"csrf": csrf, "name": "Турбо-копия"})
        assert copied.status_code == 303 and copied.headers["location"].endswith("?done=copied")


def test_sp_1_13_the_tournament_pages_create_edit_prize_and_open(web, world, committed):
    """3.4, 3.9, SP-3, SP-4, SP-5, SP-11, SP-12: a draft made from the form (times typed in the club's
    time), its settings edited, a money prize line refused in Russian writing nothing, the prizes and
    the mystery table saved, registration opened; once running the settings are frozen."""
    c = world.club_a
    zone = ZoneInfo("Europe/Moscow")
    start = (datetime.now(UTC) + timedelta(days=2)).astimezone(zone).replace(hour=19, minute=0, second=0, microsecond=0)
    with _signed_in(web, world) as client:
        csrf = _csrf(client.get(f"/club/{c}/structures").text)
        made = client.post(
            f"/club/{c}/structures",
            data={"csrf": csrf, "name": "Вечер", "rows": "1", "sb_1": "100", "bb_1": "200", "min_1": "20"},
        )
        sid = int(re.search(r"/structures/(\d+)", made.headers["location"]).group(1))
        form = {"csrf": csrf, "from": "nothing", "name": "Мистери-пятница", "scheduled_start": start.strftime("%Y-%m-%dT%H:%M"),
                "structure_id": str(sid), "starting_stack": "20000", "currency": "RUB", "buy_in": "1 500", "bounty_type": "mystery",
                "seat_cap": "8", "late_reg_deadline": (start + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M")}  # fmt: skip
        before = _rows(committed)
        bad = client.post(f"/club/{c}/tournaments", data=form | {"seat_cap": "12", "buy_in": "дорого"})
        assert bad.status_code == 422 and "Взнос:" in bad.text
        bad = client.post(f"/club/{c}/tournaments", data=form | {"seat_cap": "12"})
        assert bad.status_code == 409 and "Мест за столом 12" in bad.text
        assert _rows(committed) == before
        created = client.post(f"/club/{c}/tournaments", data=form)
        assert created.status_code == 303, created.text
        tid = int(re.search(r"/tournaments/(\d+)\?done=created", created.headers["location"]).group(1))
        with Session(committed) as session:
            t = session.get(Tournament, tid)
            assert (t.status, t.buy_in, t.seat_cap, t.bounty_type, t.scheduled_start) == (
                "draft",
                150000,
                8,
                "mystery",
                start,
            )
        page = client.get(created.headers["location"])
        assert page.status_code == 200 and "Создано." in page.text
        assert f'value="{start.strftime("%Y-%m-%dT%H:%M")}"' in page.text and 'value="1500"' in page.text

        fields = dict(re.findall(r'<input id="(\w+)" name="\1" type="[^"]+" value="([^"]*)"', page.text))
        settings = {k: v for k, v in fields.items()} | {
            "csrf": csrf, "structure_id": str(sid), "format": "rebuy", "bounty_type": "mystery", "no_show_policy": "drop",
            "mystery_draw_per": "per_knockout", "mystery_draw": "1", "addon_once": "1", "rebuy_amount": "1 000",
            "rebuy_limit": "2", "mystery_phase": "itm", "void_window_minutes": "3",
        }  # fmt: skip
        saved = client.post(f"/club/{c}/tournaments/{tid}", data=settings)
        assert saved.status_code == 303, saved.text
        with Session(committed) as session:
            t = session.get(Tournament, tid)
            assert (t.format, t.rebuy_amount, t.rebuy_limit, t.mystery_phase, t.mystery_draw) == (
                "rebuy",
                100000,
                2,
                "itm",
                True,
            )
        before = _rows(committed)
        money = client.post(f"/club/{c}/tournaments/{tid}/prizes", data={"csrf": csrf, "prizes": "Кубок\n5 000 р"})
        assert money.status_code == 409 and "называет деньги" in money.text and "5 000 р" in money.text
        assert _rows(committed) == before
        ok = client.post(f"/club/{c}/tournaments/{tid}/prizes", data={"csrf": csrf, "prizes": "Кубок\r\nМедаль\r\n"})
        assert ok.headers["location"].endswith("?done=saved")
        ok = client.post(f"/club/{c}/tournaments/{tid}/mystery", data={"csrf": csrf, "mystery": "Худи\nКепка"})
        assert ok.headers["location"].endswith("?done=saved")
        opened = client.post(f"/club/{c}/tournaments/{tid}/open", data={"csrf": csrf})
        assert opened.headers["location"].endswith("?done=opened")
        assert _last_action(committed) == ("club.open-tournament", f"tournament {tid}")
        shown = client.get(f"/club/{c}/tournaments/{tid}").text
        assert "Регистрация открыта." not in shown and "идёт регистрация" in shown
        assert "Кубок\nМедаль</textarea>" in shown and "Худи\nКепка</textarea>" in shown

        running = client.get(f"/club/{c}/tournaments/{world.tournament_a}").text
        assert 'id="frozen"' in running and "<fieldset disabled>" in running
        before = _rows(committed)
        frozen = client.post(f"/club/{c}/tournaments/{world.tournament_a}", data=settings | {"seat_cap": "6"})
        assert frozen.status_code == 409 and "заморожены" in frozen.text.lower()
        assert _rows(committed) == before


def test_issue_39_a_tournament_copied_from_the_page_and_a_structure_edited_until_it_is_in_use(web, world, committed):
    """Issue 39, 3.5, 3.9: "a copy of" on the new tournament's form takes the other's settings and
    prizes with a new name and start; a draft's structure is edited from its page; once a tournament
    using it has opened, the edit is refused in Russian (`structure-in-use`), writing nothing."""
    c = world.club_a
    zone = ZoneInfo("Europe/Moscow")
    start = (datetime.now(UTC) + timedelta(days=4)).astimezone(zone).replace(hour=20, minute=0, second=0, microsecond=0)
    with _signed_in(web, world) as client:
        csrf = _csrf(client.get(f"/club/{c}/structures").text)
        made = client.post(
            f"/club/{c}/structures",
            data={"csrf": csrf, "name": "Глубокая", "rows": "1", "sb_1": "50", "bb_1": "100", "min_1": "30"},
        )
        sid = int(re.search(r"/structures/(\d+)", made.headers["location"]).group(1))
        form = {"csrf": csrf, "from": "nothing", "name": "Оригинал", "scheduled_start": start.strftime("%Y-%m-%dT%H:%M"),
                "structure_id": str(sid), "starting_stack": "30000", "currency": "RUB", "buy_in": "2 000", "seat_cap": "7"}  # fmt: skip
        original = int(
            re.search(
                r"/tournaments/(\d+)", client.post(f"/club/{c}/tournaments", data=form).headers["location"]
            ).group(1)
        )
        client.post(f"/club/{c}/tournaments/{original}/prizes", data={"csrf": csrf, "prizes": "Кубок\nМедаль"})
        later = start + timedelta(days=7)
        copy = client.post(
            f"/club/{c}/tournaments",
            data={"csrf": csrf, "from": "copy", "copy_of": str(original), "name": "Копия", "scheduled_start": later.strftime("%Y-%m-%dT%H:%M")},
        )  # fmt: skip
        assert copy.status_code == 303, copy.text
        copied = int(re.search(r"/tournaments/(\d+)", copy.headers["location"]).group(1))
        with Session(committed) as session:
            t = session.get(Tournament, copied)
            assert (t.name, t.buy_in, t.seat_cap, t.starting_stack, t.structure_id, t.scheduled_start) == (
                "Копия",
                200000,
                7,
                30000,
                sid,
                later,
            )
        assert "Кубок\nМедаль</textarea>" in client.get(f"/club/{c}/tournaments/{copied}").text

        edit = {"csrf": csrf, "name": "Глубокая", "ante_type": "classic", "rows": "2", "sb_1": "50", "bb_1": "100", "ante_1": "10", "min_1": "30", "min_2": "5", "brk_2": "1"}  # fmt: skip
        edited = client.post(f"/club/{c}/structures/{sid}", data=edit)
        assert edited.headers["location"] == f"/club/{c}/structures/{sid}?done=saved"
        same = client.post(f"/club/{c}/structures/{sid}", data=edit)
        assert same.headers["location"] == f"/club/{c}/structures/{sid}?done=unchanged"
        client.post(f"/club/{c}/tournaments/{original}/open", data={"csrf": csrf})
        page = client.get(f"/club/{c}/structures/{sid}").text
        assert 'id="frozen"' in page and 'id="edit-structure"' not in page and "Оригинал" in page
        before = _rows(committed)
        refused = client.post(f"/club/{c}/structures/{sid}", data=edit | {"min_1": "25"})
        assert refused.status_code == 409 and f"использует турнир {original} «Оригинал»" in refused.text
        assert _rows(committed) == before


def test_3_9_the_owner_cancels_a_tournament_from_its_page_and_another_club_s_owner_cannot(web, world, committed):
    """3.9, AC-2, AC-3: «Отменить турнир» on the tournament's page cancels it (303 to the page, said
    «Турнир отменён.»), one audit row, the button gone; posted again it is refused in Russian, nothing
    written; another club's owner posting it gets the missing page's 404, nothing written."""
    c, t = world.club_a, world.tournament_a
    page_path = f"/club/{c}/tournaments/{t}"
    with _signed_in(web, world, "owner_b") as other:
        csrf = _csrf(other.get("/account").text)
        before = _rows(committed)
        assert other.post(f"{page_path}/cancel", data={"csrf": csrf}).status_code == 404
        assert _rows(committed) == before
    with _signed_in(web, world) as client:
        page = client.get(page_path)
        assert page.status_code == 200 and 'id="cancel"' in page.text
        csrf = _csrf(page.text)
        assert client.post(f"{page_path}/cancel", data={}).status_code == 403  # no CSRF field: nothing
        done = client.post(f"{page_path}/cancel", data={"csrf": csrf})
        assert (done.status_code, done.headers["location"]) == (303, f"{page_path}?done=cancelled")
        assert _last_action(committed) == ("club.cancel-tournament", f"tournament {t}")
        with Session(committed) as session:
            assert session.get(Tournament, t).status == "cancelled"
        shown = client.get(done.headers["location"]).text
        assert "Турнир отменён." in shown and 'id="cancel"' not in shown
        before = _rows(committed)
        again = client.post(f"{page_path}/cancel", data={"csrf": csrf})
        assert again.status_code == 409 and _rows(committed) == before


def test_ac_3_the_audit_page_filters_by_the_days_and_pages_to_older_rows(web, world, committed):
    """AC-3: `/club/<id>/audit` shows the newest 50 rows with «Раньше» to the next 50 (the filters kept
    in its address); the days from/to are the club's calendar days, both included."""
    from domain.access.services import audit as audit_service
    from domain.access.services.audit import system

    c, zone = world.club_a, ZoneInfo("Europe/Moscow")
    today = datetime.now(UTC).astimezone(zone).replace(hour=12, minute=0, second=0, microsecond=0)
    with Session(committed) as session:
        for k in range(60):  # one a day back from today, at noon in the club's time
            audit_service.record(session, system("bench"), "club.edit-tournament", today - timedelta(days=k),
                                 target=f"tournament {world.tournament_a}", club_id=c)  # fmt: skip
        session.commit()
    with _signed_in(web, world) as client:
        first = client.get(f"/club/{c}/audit", params={"action": "club.edit-tournament"}).text
        ids = [int(i) for i in re.findall(r'<tr data-id="(\d+)">', first)]
        assert len(ids) == 50 and ids == sorted(ids, reverse=True)
        older = re.search(r'<a href="([^"]+)" id="older">', first).group(1).replace("&amp;", "&")
        assert "action=club.edit-tournament" in older and f"before={ids[-1]}" in older
        rest = [int(i) for i in re.findall(r'<tr data-id="(\d+)">', client.get(f"/club/{c}/audit{older}").text)]
        assert len(rest) == 10 and max(rest) < ids[-1]
        days = {"action": "club.edit-tournament", "from": (today - timedelta(days=3)).date().isoformat(),
                "to": (today - timedelta(days=1)).date().isoformat()}  # fmt: skip
        shown = re.findall(r'<tr data-id="(\d+)">', client.get(f"/club/{c}/audit", params=days).text)
        assert len(shown) == 3  # the three days, both ends included


def test_issue_39_a_tournament_made_from_a_series_template_on_the_page(web, world, committed):
    """Issue 39, 3.9: «шаблон серии» on the new tournament's form takes the series' template (the
    template tournament's structure, buy-in, seat cap and stack; its late registration as minutes after
    the start) with the name and start typed; a weekly series made on its page with an RRULE typed."""
    c = world.club_a
    zone = ZoneInfo("Europe/Moscow")
    start = (datetime.now(UTC) + timedelta(days=3)).astimezone(zone).replace(hour=19, minute=0, second=0, microsecond=0)
    with _signed_in(web, world) as client:
        csrf = _csrf(client.get(f"/club/{c}/series").text)
        made = client.post(f"/club/{c}/series", data={"csrf": csrf, "name": "Вторничный", "rrule": "FREQ=WEEKLY;BYDAY=TU;BYHOUR=19;BYMINUTE=30",
                                                      "from_tournament": str(world.tournament_a), "horizon_days": "14",
                                                      "opens_before_minutes": "1440"})  # fmt: skip
        assert made.status_code == 303, made.text
        series_id = int(re.search(r"/series/(\d+)", made.headers["location"]).group(1))
        page = client.get(f"/club/{c}/series/{series_id}").text
        assert "FREQ=WEEKLY;BYDAY=TU;BYHOUR=19;BYMINUTE=30" in page and "вт," in page  # its starts are Tuesdays
        created = client.post(f"/club/{c}/tournaments", data={"csrf": csrf, "from": "template", "series_id": str(series_id),
                                                              "name": "По шаблону", "scheduled_start": start.strftime("%Y-%m-%dT%H:%M")})  # fmt: skip
        assert created.status_code == 303, created.text
        tid = int(re.search(r"/tournaments/(\d+)", created.headers["location"]).group(1))
        assert _last_action(committed) == ("club.create-tournament", "tournament По шаблону")
        with Session(committed) as session:
            made_t, template_t = session.get(Tournament, tid), session.get(Tournament, world.tournament_a)
            assert (made_t.name, made_t.scheduled_start, made_t.status) == ("По шаблону", start, "draft")
            kept = ("structure_id", "buy_in", "seat_cap", "starting_stack", "currency", "format", "bounty_type")
            assert {k: getattr(made_t, k) for k in kept} == {k: getattr(template_t, k) for k in kept}
            hour = timedelta(hours=1)  # the template tournament's late registration: an hour after its start
            assert template_t.late_reg_deadline - template_t.scheduled_start == hour
            assert made_t.late_reg_deadline == start + hour


def _typed_names(engine, club_id: int) -> str:
    """What the club's people and rows are called (typed by them, in any script): the club's name, its
    tournaments', players', structures' and series' names."""
    from sqlalchemy import text

    with Session(engine) as session:
        rows = session.execute(
            text(
                "SELECT name FROM clubs WHERE id = :c UNION ALL SELECT name FROM poker_tournaments WHERE club_id = :c"
                " UNION ALL SELECT name FROM poker_structures WHERE club_id = :c UNION ALL SELECT name FROM players"
                " UNION ALL SELECT name FROM series WHERE club_id = :c"
            ),
            {"c": club_id},
        ).scalars()
        return " ".join(rows)


CONSOLE_PAGES = ("", "/tournaments", "/structures", "/series", "/seasons", "/documents", "/staff", "/tokens",
                 "/webhooks", "/audit", "/profile")  # fmt: skip


def test_doc_4_the_console_speaks_the_club_s_language_english_too(web, world, committed):
    """DOC-4, issue 39 ("Russian and English"): a club whose language is English gets every console page
    in English (`<html lang="en">`, its headings and buttons), not a Cyrillic letter on it but the
    names the club typed; switched back to Russian, the same pages are Russian."""
    from domain.documents.services import locales

    c = world.club_a
    with Session(committed) as session:
        locales.set_locale(session, "club", c, "en", datetime.now(UTC))
        session.commit()
    with _signed_in(web, world) as client:
        for path in CONSOLE_PAGES:
            page = client.get(f"/club/{c}{path}")
            assert page.status_code == 200, (path, page.status_code)
            assert '<html lang="en"' in page.text, path
            shown = re.sub(r"<[^>]+>", " ", page.text.split("<main", 1)[1])
            cyrillic = set(re.findall(r"[А-Яа-яЁё]+", shown)) - set(
                re.findall(r"[А-Яа-яЁё]+", _typed_names(committed, c))
            )
            cyrillic -= {"Русский"}  # the language chooser names each language in itself
            assert not cyrillic, (path, sorted(cyrillic)[:10])
        assert "New tournament" in client.get(f"/club/{c}/tournaments").text
        with Session(committed) as session:
            locales.set_locale(session, "club", c, "ru", datetime.now(UTC))
            session.commit()
        assert '<html lang="ru"' in client.get(f"/club/{c}/tournaments").text
        assert "Новый турнир" in client.get(f"/club/{c}/tournaments").text
