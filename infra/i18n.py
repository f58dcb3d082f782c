"""The documents' language and formats (RULES DOC-4): gettext catalogs compiled from
`templates/locale/<lang>/LC_MESSAGES/messages.po` (extracted with Babel from the templates and the
few labels made in code, see `babel.cfg` and `infra/catalogs.py`), and dates, numbers and places
formatted by Babel (CLDR) in the document's locale.

`certificate_lines` is the one place that words a certificate's lines: the template prints them and
the check (`infra.pdf.verify`) looks for exactly them on the page, in the certificate's own locale.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from functools import cache, lru_cache
from pathlib import Path

from babel import Locale
from babel.dates import format_date, format_skeleton, format_time
from babel.numbers import format_currency, format_decimal, get_currency_precision
from babel.support import Translations

from domain.documents.rules.model import LOCALES, Certificate

LOCALE_DIR = Path(__file__).resolve().parents[1] / "templates" / "locale"
DOMAIN = "messages"


def PN_(context: str, message: str) -> tuple[str, str]:
    """Marks a message with a context for extraction (pgettext); translated where it is shown."""
    return context, message


# A place in words, by the locale's CLDR ordinal category (English: 1st 2nd 3rd 4th 11th 21st).
ORDINAL_PLACE = {
    "zero": PN_("ordinal zero", "%(n)sth place"),
    "one": PN_("ordinal one", "%(n)sst place"),
    "two": PN_("ordinal two", "%(n)snd place"),
    "few": PN_("ordinal few", "%(n)srd place"),
    "many": PN_("ordinal many", "%(n)sth place"),
    "other": PN_("ordinal other", "%(n)sth place"),
}


def checked(locale: str) -> str:
    if locale not in LOCALES:
        raise ValueError(f"unknown document locale {locale!r}")
    return locale


@cache
def translations(locale: str, domain: str = DOMAIN) -> Translations:
    """The compiled catalog of a locale (`domain`: the documents' and pages' messages, or the poker
    services' `refusals`); a missing .mo is an error, never a silent fallback."""
    path = LOCALE_DIR / checked(locale) / "LC_MESSAGES" / f"{domain}.mo"
    if not path.is_file():
        from domain.errors import ConfigurationError

        raise ConfigurationError("document-asset-missing", f"the document asset {path} is missing")
    with path.open("rb") as fp:
        return Translations(fp, domain=domain)


def gettext(message: str, locale: str) -> str:
    return translations(locale).gettext(message)


def page_footer(locale: str) -> str:
    """The sheets' page footer, with %(page)s and %(pages)s for the CSS counters."""
    return translations(locale).gettext("page %(page)s of %(pages)s")


def long_date(day: date, locale: str) -> str:
    """27 ноября 2026 г. / November 27, 2026 (CLDR long date)."""
    return format_date(day, "long", locale=checked(locale))


def short_time(at: datetime, locale: str) -> str:
    """19:30 / 7:30 PM (CLDR short time) of an instant, in its own timezone."""
    return format_time(at, "short", tzinfo=at.tzinfo, locale=checked(locale))


def instant_utc(at: datetime, locale: str) -> str:
    """27 нояб. 2026 г., 16:30 UTC / Nov 27, 2026, 4:30 PM UTC: an instant in UTC (CLDR medium date,
    short time), for what has no club's timezone (an account's sessions and tokens)."""
    at = at.astimezone(UTC)
    return f"{format_date(at, 'medium', locale=checked(locale))}, {format_time(at, 'short', tzinfo=UTC, locale=checked(locale))} UTC"


def day_and_time(at: datetime, locale: str) -> str:
    """вс, 29 ноября, 19:30 / Sun, November 29, 7:30 PM: an instant's day and time in its own
    timezone (CLDR's day skeleton `MMMMEd` and short time)."""
    day = format_skeleton("MMMMEd", at, tzinfo=at.tzinfo, locale=checked(locale))
    return f"{day}, {short_time(at, locale)}"


@lru_cache(maxsize=4096)  # a cup's standings write every rank and points at each change: the same few numbers
def number(value: int | Decimal, locale: str) -> str:
    """1 234 / 2,5 (CLDR decimal format; no-break space grouping in Russian)."""
    return format_decimal(value, locale=checked(locale))


@lru_cache(maxsize=4096)  # a desk state writes every player's debt: most are the same few amounts
def money(minor: int, currency: str, locale: str) -> str:
    """1 500,00 ₽ / RUB 1,500.00: an amount in minor units, in the currency's major units as the locale
    writes them (SP-1)."""
    return format_currency(Decimal(minor).scaleb(-get_currency_precision(currency)), currency, locale=checked(locale))


@lru_cache(maxsize=4096)
def amount_input(minor: int, currency: str, locale: str) -> str:
    """1500 / 1500,50 (Russian) / 1500.50 (English): an amount as a person types it back into a field,
    ungrouped (a grouping comma would read as a decimal mark), decimals only when there are any."""
    precision = get_currency_precision(currency)
    whole, rest = divmod(minor, 10**precision)
    if rest == 0:
        return str(whole)
    return format_decimal(Decimal(minor).scaleb(-precision), format="0." + "0" * precision, locale=checked(locale))


def points(value: Decimal, locale: str) -> str:
    """21,55 / 21.55: league points, always to hundredths (LG-2)."""
    return format_decimal(value, format="#,##0.00", locale=checked(locale))


def place(n: int, locale: str) -> str:
    """1st place / 1-е место: the locale's CLDR ordinal category picks the wording."""
    category = Locale.parse(checked(locale)).ordinal_form(n)
    context, message = ORDINAL_PLACE[category]
    return translations(locale).pgettext(context, message) % {"n": number(n, locale)}


def certificate_title(cert: Certificate) -> str:
    """A certificate's PDF title (its document information's /Title) in its locale: Сертификат SP-000042-01."""
    return translations(cert.locale).gettext("Certificate %(serial)s") % {"serial": cert.serial}


def certificate_lines(cert: Certificate, code: str) -> dict[str, str]:
    """The lines a certificate prints, exactly as printed in its locale; the check looks for each."""
    t = translations(cert.locale)
    lines = {
        "title": t.gettext(cert.title),
        "player": cert.player,
        "place": place(cert.place, cert.locale),
        "tournament": cert.tournament,
        "date": long_date(cert.held_on, cert.locale),
        "serial": t.gettext("Serial %(serial)s") % {"serial": cert.serial},
        "code": t.gettext("Verification code %(code)s") % {"code": code},
    }
    if cert.club:
        lines["club"] = cert.club
    if cert.prize:
        lines["prize"] = cert.prize
    return lines
