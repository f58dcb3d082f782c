"""SP-4 wording: checking 200 prize lines of 500 characters (the limits), the old regular expression
(migration 0500's pattern) beside today's check (normalisation, tokens, lemmas, CLDR data). Target
for the check: under 50 ms for the 200 lines. Measured on a clean corpus (the common case: nothing
is refused) and on one where every tenth line hides money (the refusal path quotes the word as
written). Caches of whole lines are cleared before every run; the per-word caches stay warm, as in
a running process — the cold figure (a fresh process's first call) is noted apart."""

from __future__ import annotations

import importlib.util
import random
import re
import time
from pathlib import Path

from bench.harness import Report
from domain.poker.rules.wording import check, classify, lexicon

LINES = 200
CHARS = check.MAX_DESCRIPTION_CHARS

_RU = (
    "Кубок медаль сертификат на ужин для двоих в ресторане клуба бесплатный вход в следующий турнир "
    "серии футболка с логотипом кепка худи размер кружка термос рюкзак абонемент в спортзал билет на "
    "концерт поездка в Европу набор для покера фишки карты книга о стратегии мастер-класс от чемпиона "
    "фотосессия трофей статуэтка при наличии на выбор победителю за первое место второе третье Рублёвка "
    "кешью наличник р-р"
).split()
_EN = (
    "Cup medal certificate dinner for two at the club restaurant free entry to the next tournament of "
    "the series hoodie cap mug backpack gym membership concert ticket trip to Europe poker set chips "
    "cards strategy book masterclass with the champion photo session trophy statuette winner first "
    "second third place cashmere TOP"
).split()
_HIDDEN = ["саsh", "ру\u0301блей", "ＵＳＤ 100", "₹500", "200 PLN", "10к р", "5 тыс. р", "100 rubles", "m0ney"]


def corpus(seed: int = 4, money_every: int = 0) -> list[str]:
    """200 lines of prize wording, 500 characters each; with `money_every`, every n-th line hides money."""
    rng = random.Random(seed)
    lines = []
    for n in range(LINES):
        words: list[str] = []
        while len(" ".join(words)) < CHARS - 10:
            words.append(rng.choice(_RU if rng.random() < 0.7 else _EN))
            if rng.random() < 0.05:
                words.append(str(rng.randint(1, 20000)))
        if money_every and n % money_every == 0:
            words.insert(rng.randrange(len(words)), rng.choice(_HIDDEN))
        lines.append(" ".join(words)[:CHARS])
    return lines


def _legacy_pattern() -> re.Pattern[str]:
    """Migration 0500's pattern: SP-4 as the one regular expression it was."""
    path = Path(__file__).resolve().parents[1] / "infra" / "migrations" / "versions" / "0500_poker_results.py"
    spec = importlib.util.spec_from_file_location("tourney_migration_0500", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return re.compile(module.MONEY_PATTERN)


def run(report: Report) -> None:
    start = time.perf_counter()
    check.warm_up()
    report.note(
        "wording",
        "first call in a fresh process: lexicon and analyzer (ms)",
        round((time.perf_counter() - start) * 1e3, 1),
    )
    legacy = _legacy_pattern()
    for name, lines in (("clean", corpus()), ("every 10th line hides money", corpus(money_every=10))):

        def old(lines: list[str] = lines) -> list[bool]:
            return [legacy.search(line) is None for line in lines]

        def new(lines: list[str] = lines) -> list[bool]:
            return [check.verdict(line).accepted for line in lines]

        new()  # the per-word caches of a running process
        report.compare(
            f"SP-4, {LINES} lines of {CHARS} characters, {name}",
            ("regex (0500)", old),
            ("normalised words", new),
            repeat=15,
            before_each=check._verdict.cache_clear,
        )
        disagree = sum(a != b for a, b in zip(old(), new(), strict=True))
        report.note(f"SP-4, {name}", "lines the two ways disagree on", disagree)
    check._verdict.cache_clear()
    for cached in (classify._chunk_flag, classify._compound_class, classify._word_class, lexicon._lemmas):
        cached.cache_clear()
    start = time.perf_counter()
    new()
    report.note(
        f"SP-4, {name}",
        "the same with every per-word cache cold, once (ms)",
        round((time.perf_counter() - start) * 1e3, 1),
    )
