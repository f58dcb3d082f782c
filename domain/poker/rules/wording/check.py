"""SP-4's verdict on a text: the money found in it, quoted as written, and the seal only an accepted
text gets. The entry points of the wording check: `verdict`, `names_money`, `money_problem`,
`wording_seal`, `seal_for`."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache

from domain.errors import DomainError, Problem
from domain.poker.rules.wording.classify import _hits
from domain.poker.rules.wording.lexicon import _lexicon
from domain.poker.rules.wording.normalisation import (
    _normalise_mapped,
    _unicode,
    normalise,
)

MAX_DESCRIPTION_CHARS = 500  # a prize line or a mystery prize description (3.4)
CHECKER = "sp4-3"  # names the check that sealed a line; a change in what is refused bumps it


@dataclass(frozen=True)
class MoneyFinding:
    """A word or sign that names money: as written, as read after normalisation, and why."""

    written: str
    reads: str
    reason: str

    def describe(self) -> str:
        text = f"'{self.written}' {self.reason}"
        if self.reads.casefold() != self.written.casefold():
            shown = self.reads if self.written.isupper() else self.reads.lower()
            text += f" (read as '{shown}')"
        return text


@dataclass(frozen=True)
class Verdict:
    """SP-4 on one text: the money found in it (empty: accepted)."""

    text: str
    findings: tuple[MoneyFinding, ...]

    @property
    def accepted(self) -> bool:
        return not self.findings

    @property
    def seal(self) -> str:
        """The verdict stored with an accepted line: `CHECKER:sha256(CHECKER:text)`. A refused text
        has none."""
        if self.findings:
            raise DomainError(
                "money-wording", "no seal for a text that names money: %(value)s", value=self.findings[0].describe()
            )
        return seal_for(CHECKER, self.text)


def seal_for(checker: str, text: str) -> str:
    """The seal's recipe, which the database's CHECK repeats (domain/poker/tables/knockouts_places.py)."""
    return f"{checker}:{hashlib.sha256(f'{checker}:{text}'.encode()).hexdigest()}"


def verdict(text: str) -> Verdict:
    """SP-4 on `text`: every word or sign in it that names money, quoted as written."""
    if not isinstance(text, str):
        raise DomainError("wording-not-text", "SP-4 checks text; got %(name)s", name=type(text).__name__)
    return _verdict(text)


@lru_cache(maxsize=4096)
def _verdict(text: str) -> Verdict:
    lex = _lexicon()
    norm = normalise(text)
    hits = _hits(norm, lex)
    u = _unicode()
    raw_signs = [  # ₨ reads Rs once normalised: the sign as written still names money
        c for c in {m.group() for m in u.signs.finditer(text)} & u.sign_chars if not u.signs.search(normalise(c))
    ]
    if not hits and not raw_signs:
        return Verdict(text, ())
    mapped, origin = (norm, list(range(len(text)))) if norm == text else _normalise_mapped(text)
    findings: list[MoneyFinding] = []
    for h in hits:
        if mapped == norm and origin:
            written = text[origin[h.start] : origin[h.end - 1] + 1]
        else:
            written = norm[h.start : h.end]
        finding = MoneyFinding(written.strip().rstrip("."), h.reads, h.reason)
        if finding not in findings:
            findings.append(finding)
    findings.extend(MoneyFinding(c, c, "is a currency sign") for c in sorted(raw_signs))
    return Verdict(text, tuple(findings))


def names_money(text: str) -> str | None:
    """The first word or sign of `text` that names money, as written; None when there is none."""
    found = verdict(text).findings
    return found[0].written if found else None


def money_problem(text: str, what: str) -> Problem | None:
    """SP-4 for one piece of text; `what` names it for the floor ("prize line 3")."""
    found = verdict(text).findings
    if not found:
        return None
    return Problem(
        "money-wording",
        "%(what)s names money: %(found)s — prizes are non-monetary only; describe the award itself (a cup, a certificate, a free entry)",
        what=what,
        found="; ".join(f.describe() for f in found),
    )


def wording_seal(text: str) -> str:
    """The seal a table stores with an accepted prize line or description; DomainError when the
    text names money. The one way to a seal goes through the check."""
    return verdict(text).seal


def warm_up() -> None:
    """Builds the lexicon and loads the analyzer now rather than on the first check."""
    _lexicon()
