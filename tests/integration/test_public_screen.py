"""What the club's screen shows (domain/public/services/views.py, worded by flows/web/wording.py), at
instants passed in: a countdown to the start, the next level's blinds at a break, a clock that stops
at the finish with the winner named, in the club's language (SP-8, SP-3, DOC-4)."""

from __future__ import annotations

from datetime import timedelta

from domain.documents.services.locales import set_locale
from domain.poker.rules.knockouts import Bust
from domain.poker.services import clock as clock_service
from domain.poker.services import desk
from domain.poker.services.results import finish
from domain.public.services import views
from flows.web.wording import with_text
from tests.support import world as w
from tests.support.world import T0

# world.LEVELS: L1 18:00 · L2 18:20 · break 18:40 · L3 18:55 · L4 19:15 (UTC; Moscow is 3 hours ahead)
MIN = timedelta(minutes=1)


def screen(session, tournament_id, at):
    return with_text(views.screen(session, tournament_id, at))


def test_sp_8_before_the_start_the_screen_counts_down_to_the_scheduled_start(session):
    """SP-8: not 0:00: the time left to the start, the start in the club's time, the first level's blinds."""
    t = w.tournament(session, status="registration_open", start=T0)
    for _ in range(3):
        w.register(session, t, checked_in=False)
    s = screen(session, t.id, T0 - 30 * MIN)
    c = s["clock"]
    assert (c["status"], c["level"], c["time_left_s"], c["counts_to"]) == (
        "registration open",
        None,
        1800,
        T0.isoformat(),
    )
    assert c["next_level"] == {"level": 1, "small_blind": 100, "big_blind": 200, "ante": 0}
    assert (s["text"]["level"], s["text"]["blinds_label"], s["text"]["blinds"]) == (
        "Старт в 21:00",
        "Уровень 1",
        "100 / 200",
    )
    assert s["text"]["players"] == "Зарегистрировано 3 игрока" and s["text"]["standing"] == ""
    late = screen(session, t.id, T0 + MIN)  # the start has passed, the clock not started yet
    assert (late["clock"]["time_left_s"], late["clock"]["counts_to"], late["text"]["level"]) == (0, None, "Скоро старт")


def test_3_5_a_break_announces_the_next_level_s_blinds(session):
    """3.5: the break is level 3 as the clock numbers it; after it, level 4 at 300/600, ante 75."""
    t = w.tournament(session)
    w.field(session, t, "AB")
    clock_service.act(session, t.id, "start", T0)
    s = screen(session, t.id, T0 + 45 * MIN)
    assert (s["clock"]["level"], s["clock"]["is_break"], s["clock"]["time_left_s"]) == (3, True, 600)
    assert s["clock"]["next_level"] == {"level": 4, "small_blind": 300, "big_blind": 600, "ante": 75}
    assert (s["text"]["level"], s["text"]["blinds_label"], s["text"]["blinds"], s["text"]["ante"]) == (
        "Перерыв",
        "После перерыва — уровень 4",
        "300 / 600",
        "анте 75",
    )


def test_sp_8_at_the_finish_the_clock_stops_and_the_winner_is_named(session):
    """SP-8, 3.7: finished at 18:30 (level 2, 10 minutes left); hours later the screen still reads
    level 2 with 10 minutes left, counts nothing down, and names the winner by handle (AC-5)."""
    t = w.tournament(session)
    people = {"anna": "Анна Белова", "boris": "Борис Гельфанд", "vera": "Вера Менчик"}  # handles -> full names
    e = {h: w.enter(session, t, player_id=w.player(session, n, handle=h).id) for h, n in people.items()}
    clock_service.act(session, t.id, "start", T0)
    desk.knock_out(session, t.id, [Bust(e["boris"].id, e["anna"].id)], now=T0 + 25 * MIN, actor="floor")
    desk.knock_out(session, t.id, [Bust(e["vera"].id, e["anna"].id)], now=T0 + 29 * MIN, actor="floor")
    finish(session, t.id, T0 + 30 * MIN)
    at_finish, later = screen(session, t.id, T0 + 30 * MIN), screen(session, t.id, T0 + 3 * 60 * MIN)
    for s in (at_finish, later):
        c = s["clock"]
        assert (c["status"], c["level"], c["time_left_s"], c["counts_to"], c["level_ends_at"]) == (
            "finished",
            2,
            600,
            None,
            None,
        )
        assert (c["next_break_in_s"], c["next_level"], c["stopped_at"]) == (None, None, (T0 + 30 * MIN).isoformat())
        assert s["winners"] == ["anna"]
        assert (s["text"]["level"], s["text"]["winner"], s["text"]["status"], s["text"]["standing"]) == (
            "Турнир завершён",
            "Победитель: anna",
            "часы остановлены на уровне 2",
            "",
        )


def test_doc_4_the_screen_speaks_english_when_the_club_chose_it(session):
    """DOC-4: the club's documents language is its pages' language too."""
    t = w.tournament(session, club_id=w.club(session, fresh=True).id)
    w.field(session, t, "ABCDEFGH")
    clock_service.act(session, t.id, "start", T0)
    assert screen(session, t.id, T0 + MIN)["locale"] == "ru"
    set_locale(session, "club", t.club_id, "en", T0)
    s = screen(session, t.id, T0 + 21 * MIN)
    assert (
        s["locale"],
        s["text"]["level"],
        s["text"]["players"],
        s["text"]["prize_places"],
        s["text"]["standing"],
    ) == ("en", "Level 2", "8 players left of 8 entries", "1 prize place", "7 busts to the prize places")
