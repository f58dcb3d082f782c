"""The demo's players' names, pure: a Russian club's players get Russian names in Cyrillic (DOC-3),
first name and surname, the surname in the form of the first name's gender (Егор Смирнов, Анна
Смирнова), drawn from fixed lists by the `random.Random` passed in, so one seed gives one field.

Every first name is tagged with its gender; every surname is written in its masculine form and takes
its feminine form by its ending (-ов, -ев, -ёв, -ин: + «а»; -ский: «-ская»). Handles are not names:
they stay the demo's ASCII ones (`demo01`, `pd01`), which public pages show (AC-5)."""

from __future__ import annotations

import random

MASC, FEMN = "masc", "femn"
FIRST_NAMES: tuple[tuple[str, str], ...] = tuple(
    (name, MASC)
    for name in (
        "Алексей",
        "Артём",
        "Борис",
        "Глеб",
        "Григорий",
        "Денис",
        "Дмитрий",
        "Егор",
        "Иван",
        "Илья",
        "Кирилл",
        "Лев",
        "Максим",
        "Никита",
        "Олег",
        "Павел",
        "Роман",
        "Семён",
        "Степан",
        "Тимофей",
        "Фёдор",
        "Юрий",
    )
) + tuple(
    (name, FEMN)
    for name in (
        "Алиса",
        "Анна",
        "Варвара",
        "Вера",
        "Галина",
        "Дарья",
        "Екатерина",
        "Елена",
        "Зоя",
        "Ирина",
        "Кира",
        "Людмила",
        "Мария",
        "Надежда",
        "Ольга",
        "Полина",
        "Светлана",
        "Софья",
        "Татьяна",
        "Ульяна",
        "Юлия",
        "Яна",
    )
)
SURNAMES: tuple[str, ...] = (  # the masculine form
    "Андреев",
    "Баранов",
    "Белов",
    "Беляев",
    "Богданов",
    "Васильев",
    "Виноградов",
    "Волков",
    "Воробьёв",
    "Голубев",
    "Гусев",
    "Жуков",
    "Зайцев",
    "Иванов",
    "Ильин",
    "Киселёв",
    "Ковалевский",
    "Козлов",
    "Комаров",
    "Кузнецов",
    "Лебедев",
    "Макаров",
    "Медведев",
    "Михайлов",
    "Морозов",
    "Никитин",
    "Новиков",
    "Орлов",
    "Островский",
    "Павлов",
    "Петров",
    "Попов",
    "Семёнов",
    "Смирнов",
    "Соколов",
    "Соловьёв",
    "Сорокин",
    "Тарасов",
    "Титов",
    "Фёдоров",
)


def surname_for(surname: str, gender: str) -> str:
    """The surname (its masculine form, one of `SURNAMES`) in the form of `gender`."""
    if gender == MASC:
        return surname
    if surname.endswith("ий"):
        return surname[:-2] + "ая"
    return surname + "а"


def russian_names(rng: random.Random, count: int) -> tuple[str, ...]:
    """`count` names "First Surname", different from each other while the lists allow it (1 760
    of them), drawn by `rng`."""
    size = len(FIRST_NAMES) * len(SURNAMES)
    picks = rng.sample(range(size), min(count, size)) + [rng.randrange(size) for _ in range(count - size)]
    names = []
    for pick in picks:
        (first, gender), surname = FIRST_NAMES[pick // len(SURNAMES)], SURNAMES[pick % len(SURNAMES)]
        names.append(f"{first} {surname_for(surname, gender)}")
    return tuple(names)
