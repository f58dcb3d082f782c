"""The owner's console, part two, as pages over HTTP (flows/web/club_series.py, issue 39) against a real
server and PostgreSQL: series (the weekly form, an RRULE, the next starts in the club's time; pause, end),
seasons (created, tournaments named, standings), documents (listed with their delivery, downloaded, sent
again); each change by the API's use case and audited, each refusal said in Russian with nothing written,
a form without its CSRF field refused; the floor and another club's owner get the missing club's 404."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from domain.access.tables import AuditRecord
from domain.documents.tables import Document, DocumentPublication
from flows import bootstrap
from tests.support.world import access_world
from tests.web.test_api_owner_series import DAY_NAMES, _published, _rows
from tests.web.test_club_pages import _csrf, _signed_in

MOSCOW = ZoneInfo("Europe/Moscow")


@pytest.fixture
def world(web, committed):
    return access_world(committed, bootstrap.password_hasher(), passwords=("owner", "floor", "owner_b"))


def _last_action(engine) -> tuple[str, str]:
    with Session(engine) as session:
        row = session.scalars(select(AuditRecord).order_by(AuditRecord.id.desc()).limit(1)).one()
        return row.action, row.target


def _problems(page: str) -> list[str]:
    return re.findall(r'<li data-code="([a-z0-9-]+)">', page)


def test_the_owner_makes_a_weekly_series_and_sees_its_next_starts_in_the_club_s_time(web, world, committed):
    c = world.club_a
    with _signed_in(web, world) as client:
        page = client.get(f"/club/{c}/series")
        assert page.status_code == 200, page.text
        assert '<html lang="ru">' in page.text and "Серии" in page.text and "Europe/Moscow" in page.text
        csrf = _csrf(page.text)
        # refused: a bad RRULE and the days too, every problem in Russian, nothing written
        before = _rows(committed)
        refused = client.post(
            f"/club/{c}/series",
            data={"csrf": csrf, "name": "Плохая", "from_tournament": str(world.tournament_a), "time": "19:00",
                  "rrule": "FREQ=HOURLY;BYHOUR=19"},
        )  # fmt: skip
        assert refused.status_code == 409, refused.text
        assert _problems(refused.text) == ["series-rrule-freq-unsupported", "series-rrule-time-missing"]
        assert "Правило повторения: FREQ=HOURLY" in refused.text
        assert 'value="FREQ=HOURLY;BYHOUR=19"' in refused.text  # the form as typed
        assert _rows(committed) == before
        # without the form's CSRF field: refused, nothing written
        assert client.post(f"/club/{c}/series", data={"name": "Без"}).status_code == 403
        assert _rows(committed) == before

        weekday = (datetime.now(UTC).astimezone(MOSCOW).date() + timedelta(days=3)).weekday()
        made = client.post(
            f"/club/{c}/series",
            data={"csrf": csrf, "name": "Пятничный турбо", "from_tournament": str(world.tournament_a),
                  f"day_{DAY_NAMES[weekday]}": "1", "time": "19:00", "horizon_days": "14",
                  "opens_before_minutes": "1440"},
        )  # fmt: skip
        assert made.status_code == 303, made.text
        assert made.headers["location"].endswith("?done=created")
        assert _last_action(committed) == ("club.add-series", "series Пятничный турбо")
        shown = client.get(made.headers["location"])
        assert shown.status_code == 200
        assert "Создано." in shown.text and "19:00" in shown.text
        first = datetime.now(UTC).astimezone(MOSCOW).date() + timedelta(days=3)
        assert f'datetime="{first.isoformat()}T19:00:00+03:00"' in shown.text
        assert shown.text.count("<time datetime=") == 2
        listed = client.get(f"/club/{c}/series")
        assert "Пятничный турбо" in listed.text and "еженедельно" in listed.text
        sid = int(made.headers["location"].split("/series/")[1].split("?")[0])
        paused = client.post(f"/club/{c}/series/{sid}/pause", data={"csrf": csrf})
        assert (paused.status_code, paused.headers["location"]) == (303, f"/club/{c}/series/{sid}?done=paused")
        assert "приостановлена" in client.get(paused.headers["location"]).text
        again = client.post(f"/club/{c}/series/{sid}/pause", data={"csrf": csrf})
        assert again.headers["location"].endswith("?done=unchanged")
        ended = client.post(f"/club/{c}/series/{sid}/end", data={"csrf": csrf})
        assert ended.headers["location"].endswith("?done=ended")
        before = _rows(committed)
        refused = client.post(f"/club/{c}/series/{sid}/resume", data={"csrf": csrf})
        assert refused.status_code == 409 and _problems(refused.text) == ["series-ended"]
        assert _rows(committed) == before
    for who in ("floor", "owner_b"):
        with _signed_in(web, world, who) as client:
            assert client.get(f"/club/{c}/series").status_code == 404
            assert client.get(f"/club/{c}/series/{sid}").status_code == 404


def test_the_owner_creates_a_season_names_tournaments_and_reads_the_standings(web, world, committed):
    c = world.club_a
    from tests.web.test_api_owner_series import _played_two

    first, second = _played_two(committed, c)
    today = datetime.now(UTC).astimezone(MOSCOW).date()
    with _signed_in(web, world) as client:
        page = client.get(f"/club/{c}/seasons")
        assert page.status_code == 200 and "Сезоны" in page.text
        csrf = _csrf(page.text)
        before = _rows(committed)
        refused = client.post(
            f"/club/{c}/seasons",
            data={"csrf": csrf, "name": "Зима", "from": "2027-03-01", "to": "2027-02-01", "formula": "table"},
        )
        assert refused.status_code == 409
        assert _problems(refused.text) == ["season-range-empty", "season-table-empty"]
        assert _rows(committed) == before
        made = client.post(
            f"/club/{c}/seasons",
            data={"csrf": csrf, "name": "Зима", "from": str(today - timedelta(days=30)),
                  "to": str(today + timedelta(days=30)), "formula": "table", "table": "10 6 3", "shared": "best"},
        )  # fmt: skip
        assert made.status_code == 303, made.text
        sid = int(made.headers["location"].split("/seasons/")[1].split("?")[0])
        assert _last_action(committed) == ("club.add-season", "season Зима")
        named = client.post(f"/club/{c}/seasons/{sid}", data={"csrf": csrf, "tournament": [str(first), str(second)]})
        assert named.headers["location"] == f"/club/{c}/seasons/{sid}?done=named"
        shown = client.get(named.headers["location"]).text
        rows = re.findall(r"<tr><td>(\d+)</td><td>([^<]+)</td><td>([^<]+)</td>", shown)
        assert rows == [("1", "Борис Гельфанд", "16,00"), ("2", "Анна Белова", "13,00"), ("3", "Вера Менчик", "9,00")]
        assert "10,00, 6,00, 3,00" in shown
    with _signed_in(web, world, "owner_b") as client:
        assert client.get(f"/club/{c}/seasons/{sid}").status_code == 404


def test_the_owner_edits_a_season_and_takes_a_tournament_out_on_its_page(web, world, committed):
    """LG-1..LG-3 on `/club/<id>/seasons/<sid>`: «Изменить сезон» shows the season's fields filled in;
    saved with a table of 12 6 3 the standings follow (its page says «Сохранено.»), a typing problem and
    a rule's are said and write nothing; «Убрать» takes a tournament out (it counts no more); another
    club's owner posting either gets the missing page's 404, nothing written (AC-2)."""
    from tests.web.test_api_owner_series import _played_two

    c = world.club_a
    first, second = _played_two(committed, c)
    today = datetime.now(UTC).astimezone(MOSCOW).date()
    days = {"from": str(today - timedelta(days=30)), "to": str(today + timedelta(days=30))}
    with _signed_in(web, world) as client:
        csrf = _csrf(client.get(f"/club/{c}/seasons").text)
        made = client.post(f"/club/{c}/seasons", data={"csrf": csrf, "name": "Зима", **days, "formula": "table",
                                                       "table": "10 6 3", "shared": "best"})  # fmt: skip
        sid = int(made.headers["location"].split("/seasons/")[1].split("?")[0])
        client.post(f"/club/{c}/seasons/{sid}", data={"csrf": csrf, "tournament": [str(first), str(second)]})
        page = client.get(f"/club/{c}/seasons/{sid}").text
        assert "Изменить сезон" in page and 'id="edit-season"' in page
        assert 'value="Зима"' in page and f'value="{days["from"]}"' in page and 'value="10,00 6,00 3,00"' in page
        edit = {"csrf": csrf, "name": "Зима", **days, "formula": "table", "table": "12 6 3", "shared": "best"}
        before = _rows(committed)
        typed = client.post(f"/club/{c}/seasons/{sid}/edit", data=edit | {"table": "12 шесть"})
        assert typed.status_code == 422 and _problems(typed.text) == ["season-number-invalid"]
        ruled = client.post(f"/club/{c}/seasons/{sid}/edit", data=edit | {"to": days["from"]})
        assert ruled.status_code == 409 and _problems(ruled.text) == ["season-range-empty"]
        assert _rows(committed) == before
        saved = client.post(f"/club/{c}/seasons/{sid}/edit", data=edit)
        assert saved.headers["location"] == f"/club/{c}/seasons/{sid}?done=saved"
        assert _last_action(committed) == ("club.edit-season", f"season {sid}")
        shown = client.get(saved.headers["location"]).text
        assert "Сохранено." in shown
        rows = re.findall(r"<tr><td>(\d+)</td><td>([^<]+)</td><td>([^<]+)</td>", shown)
        assert rows == [("1", "Борис Гельфанд", "18,00"), ("2", "Анна Белова", "15,00"), ("3", "Вера Менчик", "9,00")]
        assert 'aria-label="Убрать из сезона: Пятница 2"' in shown
        out = client.post(f"/club/{c}/seasons/{sid}/remove", data={"csrf": csrf, "tournament": str(second)})
        assert out.headers["location"] == f"/club/{c}/seasons/{sid}?done=taken-out"
        assert _last_action(committed) == ("club.remove-from-season", f"season {sid}")
        after = client.get(out.headers["location"]).text
        assert "Убрано из сезона: больше не учитывается." in after
        rows = re.findall(r"<tr><td>(\d+)</td><td>([^<]+)</td><td>([^<]+)</td>", after)
        assert rows == [("1", "Анна Белова", "12,00"), ("2", "Борис Гельфанд", "6,00"), ("3", "Вера Менчик", "3,00")]
        assert 'aria-label="Убрать из сезона: Пятница 2"' not in after
    with _signed_in(web, world, "owner_b") as other:
        csrf = _csrf(other.get("/account").text)
        before = _rows(committed)
        assert other.post(f"/club/{c}/seasons/{sid}/edit", data=edit | {"csrf": csrf}).status_code == 404
        assert (
            other.post(f"/club/{c}/seasons/{sid}/remove", data={"csrf": csrf, "tournament": str(first)}).status_code
            == 404
        )
        assert _rows(committed) == before


def test_the_owner_downloads_and_sends_again_a_tournament_s_documents(web, world, committed):
    c = world.club_a
    tid, later = _published(committed, web.outbox, c)
    with Session(committed) as session:
        pub = session.scalars(select(DocumentPublication).where(DocumentPublication.tournament_id == tid)).one()
        results = session.scalars(
            select(Document).where(Document.publication_id == pub.id, Document.kind == "results")
        ).one()
        pid, folder, did = pub.id, pub.folder, results.id
    with _signed_in(web, world) as client:
        page = client.get(f"/club/{c}/documents")
        assert page.status_code == 200, page.text
        assert "Пятница" in page.text and "Суббота" in page.text and "ещё не опубликованы" in page.text
        assert "ожидают отправки на floor@example.org" in page.text
        got = client.get(f"/club/{c}/documents/{pid}/files/{did}")
        assert got.status_code == 200 and got.headers["content-type"] == "application/pdf"
        assert got.content == (web.outbox / folder / "results.pdf").read_bytes()
        csrf = _csrf(page.text)
        on_its_way = client.post(f"/club/{c}/documents/{pid}/resend", data={"csrf": csrf})
        assert on_its_way.headers["location"] == f"/club/{c}/documents?done=unchanged#documents-{pid}"
        with Session(committed) as session:
            session.execute(
                DocumentPublication.__table__.update()
                .where(DocumentPublication.id == pid)
                .values(state="sent", sent_at=datetime.now(UTC), attempts=1)
            )
            session.commit()
        again = client.post(f"/club/{c}/documents/{pid}/resend", data={"csrf": csrf})
        assert again.headers["location"] == f"/club/{c}/documents?done=resent#documents-{pid}"
        assert _last_action(committed) == ("club.resend-documents", f"documents {pid}")
        assert "отправлены ещё раз" in client.get(again.headers["location"]).text
    with _signed_in(web, world, "floor") as client:
        assert client.get(f"/club/{c}/documents").status_code == 404
        assert client.get(f"/club/{c}/documents/{pid}/files/{did}").status_code == 404
