"""A refusal in the club's language (DOC-4, docs/desk.md): the domain's refusals carry their stable
code, their English template and its values (domain/errors.py); here each is said by its code and
template through the `refusals` gettext catalog (`pgettext(code, template)`, extracted from
domain/poker by infra/catalogs.py), its values in the language's formats: an amount as the club writes it (Babel, "1 500,00
₽"), an instant in the club's time (today: "21:30", another day: "вс, 29 ноября, 21:30"), a date as
a long date, a `Word` (a status, a kind of top-up) translated. English is the source language: an
English club's refusal stays the English message the CLI prints."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from domain.errors import Amount, DomainError, Problem, Word
from infra import i18n
from infra.i18n import PN_

# the words a refusal is filled in with (`Word`): tournament and club statuses, kinds of top-up
WORDS = {
    "draft": PN_("refusal word", "draft"),
    "registration open": PN_("refusal word", "registration open"),
    "registration_open": PN_("refusal word", "registration_open"),
    "running": PN_("refusal word", "running"),
    "finished": PN_("refusal word", "finished"),
    "cancelled": PN_("refusal word", "cancelled"),
    "listed": PN_("refusal word", "listed"),
    "suspended": PN_("refusal word", "suspended"),
    "terminated": PN_("refusal word", "terminated"),
    "rebuy": PN_("refusal word", "rebuy"),
    "addon": PN_("refusal word", "addon"),
}
SOURCE = "en"


def _value(value: object, locale: str, zone: ZoneInfo, now: datetime) -> str:
    t = i18n.translations(locale)
    if isinstance(value, Amount):
        return i18n.money(value.minor, value.currency, locale)
    if isinstance(value, datetime):
        local = value.astimezone(zone)
        if local.date() == now.astimezone(zone).date():
            return i18n.short_time(local, locale)
        return i18n.day_and_time(local, locale)
    if isinstance(value, date):
        return i18n.long_date(value, locale)
    if isinstance(value, Word) and value in WORDS:
        return t.pgettext(*WORDS[value])
    return str(value)


def said(problem: Problem, locale: str, zone: ZoneInfo, now: datetime) -> str:
    """One problem in `locale`: its template by its code, filled in with its values in that language
    (in English, the message as the CLI prints it)."""
    if locale == SOURCE:
        return problem.message
    text = i18n.translations(locale, "refusals").pgettext(problem.code, problem.template)
    if not problem.values:
        return text
    return text % {k: _value(v, locale, zone, now) for k, v in problem.values.items()}


def in_language(exc: DomainError, locale: str, zone: ZoneInfo, now: datetime) -> DomainError:
    """The same refusal (class, code, problems) said in `locale`; a message that is not its problems'
    (made in another language already, as the desk's own) stays as it is."""
    if locale == SOURCE:
        return exc
    problems = tuple(Problem(p.code, said(p, locale, zone, now)) for p in exc.problems)
    joined = exc.message == "; ".join(p.message for p in exc.problems)
    return type(exc)(exc.code, " ".join(p.message for p in problems) if joined else exc.message, problems)
