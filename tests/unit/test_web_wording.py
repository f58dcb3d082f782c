"""The words of the club's screen and the results page (flows/web/wording.py): in the club's language,
counted words in the locale's plural forms (Babel's CLDR plural rules through the catalogs), prize
places never money (1.1.5, SP-4, DOC-4); a person's name declined where a Russian sentence needs
another case (`inflect`, pymorphy3), or left as written."""

from __future__ import annotations

import pytest

from flows.web.wording import clock_text, field_text, inflect, screen_text


def state(players_left=5, entries=7, prize_places=2, status="running", **clock):
    to_prizes = players_left - prize_places
    return {
        "status": status,
        "players_left": players_left,
        "entries": entries,
        "registered": entries,
        "prize_places": prize_places,
        "remaining_to_money": to_prizes,
        "on_bubble": to_prizes == 1,
        "in_money": to_prizes <= 0,
        "winners": [],
        "timezone": "Europe/Moscow",
        "scheduled_start": "2026-11-29T16:00:00+00:00",
        "server_now": "2026-11-29T15:30:00+00:00",
        "clock": {
            "status": "running",
            "level": 2,
            "is_break": False,
            "small_blind": 200,
            "big_blind": 400,
            "ante": 50,
            "bb_ante": False,
            "stopped_at": None,
            "next_level": None,
        }
        | clock,
    }


@pytest.mark.parametrize(
    ("left", "entries", "ru", "en"),
    [
        (1, 1, "Остался 1 игрок из 1 входа", "1 player left of 1 entry"),
        (2, 3, "Осталось 2 игрока из 3 входов", "2 players left of 3 entries"),
        (5, 11, "Осталось 5 игроков из 11 входов", "5 players left of 11 entries"),
        (21, 22, "Остался 21 игрок из 22 входов", "21 players left of 22 entries"),
        (1111, 1234, "Осталось 1\xa0111 игроков из 1\xa0234 входов", "1,111 players left of 1,234 entries"),
    ],
)
def test_doc_4_players_left_are_counted_in_the_language_s_plural_forms(left, entries, ru, en):
    """DOC-4: `1 players left` no more: the catalogs' plural forms, chosen by Babel's CLDR rules."""
    s = state(players_left=left, entries=entries, prize_places=1)
    assert (field_text(s, "ru")["players"], field_text(s, "en")["players"]) == (ru, en)


@pytest.mark.parametrize(
    ("places", "ru", "en"),
    [
        (1, "1 призовое место", "1 prize place"),
        (3, "3 призовых места", "3 prize places"),
        (5, "5 призовых мест", "5 prize places"),
        (22, "22 призовых места", "22 prize places"),
    ],
)
def test_sp_3_doc_4_prize_places_are_prize_places_never_paid(places, ru, en):
    """SP-3, DOC-4: places that carry prizes are prize places."""
    s = state(players_left=40, entries=40, prize_places=places)
    assert (field_text(s, "ru")["prize_places"], field_text(s, "en")["prize_places"]) == (ru, en)


def test_sp_3_where_the_field_stands_is_worded_without_money():
    """SP-3, SP-4: busts to go, the last bust before the prize places (the bubble), everyone left in
    the prize places; nothing before the start or after the finish."""
    words = [
        field_text(state(players_left=left, prize_places=2), locale)["standing"]
        for locale in ("ru", "en")
        for left in (7, 4, 3, 2)
    ]
    assert words == [
        "5 вылетов до призовых мест",
        "2 вылета до призовых мест",
        "Последний вылет до призовых мест",
        "Все оставшиеся — в призовых местах",
        "5 busts to the prize places",
        "2 busts to the prize places",
        "The last bust before the prize places",
        "Everyone left is in the prize places",
    ]
    assert field_text(state(players_left=1, status="finished"), "ru")["standing"] == ""
    before = state(players_left=0, entries=0, status="registration_open") | {"registered": 21}
    assert field_text(before, "ru") == {
        "players": "Зарегистрирован 21 игрок",
        "prize_places": "2 призовых места",
        "standing": "",
    }
    for locale in ("ru", "en"):
        text = " ".join(" ".join(field_text(state(players_left=n), locale).values()) for n in range(1, 9)).lower()
        assert not any(w in text for w in ("paid", "money", "bubble", "оплач", "денеж", "деньг"))


def test_the_screen_s_lines_before_the_start_at_a_break_and_at_the_finish():
    """3.5, DOC-4: before the start, the start time in the club's timezone (16:00 UTC is 19:00 in
    Moscow) and the first level's blinds; at a break the next level's blinds; at the finish, the
    winner and where the clock stopped."""
    first = {"level": 1, "small_blind": 100, "big_blind": 200, "ante": 0}
    before = screen_text(
        state(status="registration_open", level=None, next_level=first)
        | {"clock": state()["clock"] | {"status": "registration open", "level": None, "next_level": first}},
        "ru",
    )
    assert (before["level"], before["status"], before["blinds_label"], before["blinds"], before["ante"]) == (
        "Старт в 19:00",
        "идёт регистрация",
        "Уровень 1",
        "100 / 200",
        "",
    )
    after_the_break = {"level": 4, "small_blind": 300, "big_blind": 600, "ante": 75}
    on_break = screen_text(state(level=3, is_break=True, next_level=after_the_break), "ru")
    assert (on_break["level"], on_break["blinds_label"], on_break["blinds"], on_break["ante"]) == (
        "Перерыв",
        "После перерыва — уровень 4",
        "300 / 600",
        "анте 75",
    )
    assert (
        screen_text(state(level=3, is_break=True, next_level=after_the_break, bb_ante=True), "en")["ante"]
        == "BB ante 75"
    )
    done = screen_text(
        state(players_left=1, status="finished", stopped_at="2026-11-29T20:00:00+00:00") | {"winners": ["Анна"]}, "ru"
    )
    assert (done["level"], done["status"], done["winner"], done["blinds"]) == (
        "Турнир завершён",
        "часы остановлены на уровне 2",
        "Победитель: Анна",
        "",
    )
    assert (
        screen_text(state(players_left=1, status="finished") | {"winners": ["A", "B"]}, "en")["winner"]
        == "Winners: A, B"
    )
    playing = screen_text(state(), "en")
    assert (playing["level"], playing["blinds"], playing["ante"], playing["status"]) == (
        "Level 2",
        "200 / 400",
        "ante 50",
        "",
    )


def test_the_countdown_is_written_as_the_browser_writes_it():
    assert [clock_text(s) for s in (None, -3, 0, 59, 60, 1191, 3600, 3661)] == [
        "—",
        "0:00",
        "0:00",
        "0:59",
        "1:00",
        "19:51",
        "1:00:00",
        "1:01:01",
    ]


@pytest.mark.parametrize(
    ("name", "case", "declined"),
    [
        ("Анна Петрова", "gent", "Анны Петровой"),  # «от Анны Петровой»
        ("Егор Смирнов", "gent", "Егора Смирнова"),
        ("Анна Петрова", "accs", "Анну Петрову"),  # «Кто выбил Анну Петрову?»
        ("Егор Смирнов", "accs", "Егора Смирнова"),
        ("Анна Петрова", "datv", "Анне Петровой"),
        ("Лев Соколов", "gent", "Льва Соколова"),
        ("Пётр Римский-Корсаков", "gent", "Петра Римского-Корсакова"),  # a double surname
        ("Анна Петрова-Водкина", "gent", "Анны Петровой-Водкиной"),
        ("Анна-Мария Смирнова", "gent", "Анны-Марии Смирновой"),  # a hyphenated first name
        ("Борис Иванович Лермонтов", "gent", "Бориса Ивановича Лермонтова"),  # with a patronymic
        ("Мария Ивановна Орлова", "accs", "Марию Ивановну Орлову"),
        ("Саша Петрова", "gent", "Саши Петровой"),  # a first name of either gender: the surname's
        ("Анна Ковальчук", "gent", "Анны Ковальчук"),  # a woman's surname in a consonant stays
        ("Егор Ковальчук", "gent", "Егора Ковальчука"),
        ("Семен Семенов", "gent", "Семена Семенова"),  # «ё» only where the name has it
        ("Семён Семёнов", "gent", "Семёна Семёнова"),
        ("АННА ПЕТРОВА", "gent", "АННЫ ПЕТРОВОЙ"),
        ("Анна", "gent", "Анны"),
    ],
)
def test_doc_4_a_russian_name_is_declined_with_the_first_name_s_gender(name, case, declined):
    """DOC-4: a Russian sentence that puts a person's name after a preposition or as an object says
    it in that case («Принять 1 500 ₽ от Анны Петровой?»), each word and each part of a hyphenated
    one as a name of the first name's gender."""
    assert inflect(name, case) == declined


@pytest.mark.parametrize(
    "name",
    [
        "Ann Smith",  # Latin: unchanged
        "Anna Petrova",
        "demo01",  # a handle
        "Ivan Петров",  # two alphabets
        "Анна Смирнов",  # a surname of the other gender: not a pair pymorphy3 knows
        "Зюзя Пупкин",  # a first name pymorphy3 does not know
        "Петрова Анна",  # the surname first: no first name to take the gender from
        "А. Петрова",
        "",
    ],
)
def test_doc_4_a_name_that_cannot_be_declined_is_left_as_it_is_whole(name):
    """DOC-4: never half declined: a name pymorphy3 does not know as a Russian name of one gender,
    Latin or mixed, stays exactly as written."""
    assert inflect(name, "gent") == name and inflect(name, "accs") == name


def test_inflect_knows_only_pymorphy3_s_cases():
    assert inflect("Анна Петрова", "nomn") == "Анна Петрова"
    with pytest.raises(ValueError):
        inflect("Анна Петрова", "genitive")
