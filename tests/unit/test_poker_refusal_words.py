"""DOC-4: every refusal the poker services raise is said in Russian at a Russian club's desk: its code
and English template are in the `refusals` catalog with a Russian translation that takes only the
values the refusal carries; its values in the club's formats; the English message unchanged."""

from __future__ import annotations

import ast
import re
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from domain.errors import Amount, DomainError, Problem, Word, raise_problems
from domain.poker.rules.entries import addon_problems
from domain.poker.rules.lifecycle import STATUSES
from domain.poker.rules.settings import TournamentSettings
from flows.web import refusals
from infra import i18n
from infra.catalogs import REFUSAL_KEYWORDS

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"%\((\w+)\)s")
MOSCOW = ZoneInfo("Europe/Moscow")
NOW = datetime(2026, 11, 27, 16, 0, tzinfo=UTC)  # 19:00 in Moscow


def _refusals() -> list[tuple[str, int, str | None, str | None, set[str]]]:
    """Every refusal made in domain/poker: (file, line, code, template, the values it passes); a code or
    a template that is not written out as a literal is None."""
    found = []
    for path in sorted((ROOT / "domain" / "poker").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name not in REFUSAL_KEYWORDS or not node.args:
                continue
            code, template = (a.value if isinstance(a, ast.Constant) else None for a in (node.args + [None])[:2])
            values = {k.arg for k in node.keywords if k.arg}
            for k in node.keywords:
                if k.arg is None and isinstance(k.value, ast.Name):  # **values: a dict written out above it
                    values |= {"*"}
            found.append((str(path.relative_to(ROOT)), node.lineno, code, template, values))
    return found


def test_doc_4_every_poker_refusal_has_a_russian_translation_taking_only_its_values():
    """DOC-4: a new English-only refusal fails here (run `make catalogs` and translate it): each has a
    literal code and template, the Russian catalog translates it, and the translation names no value
    the refusal does not pass."""
    russian = i18n.translations("ru", "refusals")
    made = _refusals()
    assert len(made) > 200
    for where, line, code, template, values in made:
        assert code is not None and template is not None, f"{where}:{line}: write the code and the template out"
        translated = russian.pgettext(code, template)
        assert translated != template, f"{where}:{line}: {code} {template!r} has no Russian translation"
        assert re.search("[а-яё]", translated, re.IGNORECASE), f"{where}:{line}: {translated!r}"
        if "*" not in values:
            assert set(PLACEHOLDER.findall(translated)) <= values, f"{where}:{line}: {translated!r}"
            assert set(PLACEHOLDER.findall(template)) <= values, f"{where}:{line}: {template!r}"


def test_doc_4_every_word_a_refusal_is_filled_in_with_is_translated():
    """DOC-4: the statuses and kinds a refusal names (`Word`) are words of the catalogs."""
    words = {s.replace("_", " ") for s in STATUSES} | set(STATUSES) | {"listed", "suspended", "terminated"}
    assert words | {"rebuy", "addon"} == set(refusals.WORDS)
    for word in refusals.WORDS:
        assert refusals._value(Word(word), "ru", MOSCOW, NOW) not in ("", word)


def test_doc_4_a_refusal_is_said_in_russian_with_roubles_and_the_club_s_time():
    """DOC-4, SP-1: amounts as the club writes them, an instant in the club's time (today: the time;
    another day: the day too), a date as a long date; in English the message is the CLI's."""
    owes = DomainError(
        "amount-differs", "%(name)s owes %(owed)s, not %(taken)s.", name="Вера", owed=Amount(150000, "RUB"),
        taken=Amount(100000, "RUB"),
    )  # fmt: skip
    assert owes.message == "Вера owes 1500.00 RUB, not 1000.00 RUB."
    said = refusals.in_language(owes, "ru", MOSCOW, NOW)
    assert (type(said), said.code, said.message) == (
        DomainError,
        "amount-differs",
        "Вера: долг 1\xa0500,00\xa0₽, а не 1\xa0000,00\xa0₽.",
    )
    assert [(p.code, p.message) for p in said.problems] == [("amount-differs", said.message)]
    assert refusals.in_language(owes, "en", MOSCOW, NOW) is owes
    closed = Problem("reentry-window-closed", "the re-entry window closed at %(deadline)s (rule 3.1)",
                     deadline=datetime(2026, 11, 27, 18, 30, tzinfo=UTC))  # fmt: skip
    assert closed.message == "the re-entry window closed at 2026-11-27T18:30:00+00:00 (rule 3.1)"
    assert refusals.said(closed, "ru", MOSCOW, NOW) == "Повторный вход закрылся в 21:30 (правило 3.1)."
    later = datetime(2026, 11, 29, 16, 30, tzinfo=UTC)
    assert refusals.said(Problem(closed.code, closed.template, deadline=later), "ru", MOSCOW, NOW) == (
        "Повторный вход закрылся в вс, 29 ноября, 19:30 (правило 3.1)."
    )
    born = Problem("birth-date-in-future", "date of birth %(birth_date)s is in the future", birth_date=date(2027, 1, 2))
    assert refusals.said(born, "ru", MOSCOW, NOW) == "Дата рождения 2 января 2027\u202fг. ещё не наступила."


def test_doc_4_several_problems_are_said_each_and_a_message_made_in_russian_stays():
    """DOC-4: a refusal of several problems says each; the desk's own words pass unchanged."""
    s = TournamentSettings("Пятница", NOW, 10000, "RUB", 100000, addon_amount=50000, addon_break=1)
    try:
        raise_problems(addon_problems("finished", s, False, 0, 0, NOW))
    except DomainError as exc:
        refused = exc
    assert refused.message == (
        "the tournament is finished: no addon (rule 3.1); "
        "the add-on window is open only from break 1 (breaks reached: 0) (rule 3.1)"
    )
    assert refusals.in_language(refused, "ru", MOSCOW, NOW).message == (
        "Турнир завершён: аддонов нет (правило 3.1). "
        "Аддон открывается с перерыва 1 (перерывов пройдено: 0) (правило 3.1)."
    )
    desk = DomainError("desk-same-player", "Назовите каждого игрока один раз: выбывшего и каждого выбившего.")
    assert refusals.in_language(desk, "ru", MOSCOW, NOW).message == desk.message
