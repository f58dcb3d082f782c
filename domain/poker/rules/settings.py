"""Tournament settings (Sport Poker 3.1, 3.2, 3.6, 3.8, 3.9; SP-1, SP-3) and their validation.

The format is a label only: which top-ups a tournament offers follows from which amounts and
windows are set (3.1). Amounts are integers in minor units of one ISO 4217 currency (SP-1).
`settings_problems` returns every problem at once; nothing is clamped.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation

from domain.errors import Problem
from domain.poker.rules.mystery import mode_problems, parse_phase

FORMATS = ("freezeout", "rebuy", "reentry", "addon", "bounty")
BOUNTY_TYPES = ("none", "classic", "pko", "mystery")
NO_SHOW_POLICIES = ("drop", "absent_mode")
SEAT_CAP_MIN, SEAT_CAP_MAX = 2, 10
AMOUNT_FIELDS = ("buy_in", "rebuy_amount", "reentry_amount", "addon_amount")
MAX_AMOUNT = 2**63 - 1  # the database's BIGINT
MAX_NAME = 200
MAX_CHIPS = 2**63 - 1  # stacks are BIGINT too
MAX_COUNT = 2**31 - 1  # seat caps, break numbers, ITM figures are INTEGER
# A time typed for a tournament: far from the calendar's edges, so adding a structure's length or
# a timezone offset never leaves it.
EARLIEST_TIME = datetime(1970, 1, 1, tzinfo=UTC)
LATEST_TIME = datetime(9000, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class TournamentSettings:
    name: str
    scheduled_start: datetime
    starting_stack: int
    currency: str
    buy_in: int
    format: str = "freezeout"
    bounty_type: str = "none"
    mystery_draw: bool = False
    seat_cap: int = 9
    late_reg_deadline: datetime | None = None
    reentry_deadline: datetime | None = None
    addon_deadline: datetime | None = None
    addon_break: int | None = None
    addon_once: bool = True
    addon_chips: int | None = None
    rebuy_amount: int | None = None
    reentry_amount: int | None = None
    addon_amount: int | None = None
    no_show_policy: str = "drop"
    itm_percent: int = 15
    itm_min: int = 1
    pko_head: int | None = None  # SP-9: with bounty_type=pko, every entry's starting head (points)
    shared_knockouts: bool = False  # SP-10: k >= 2 killers share a bust equally
    rebuy_until: datetime | None = None  # SP-12: rebuys open strictly before this instant
    rebuy_until_level: int | None = None  # SP-12: rebuys open until level N ends
    rebuy_limit: int | None = None  # SP-12: rebuys per player, over all their entries
    reentry_limit: int | None = None  # SP-12: re-entries per player
    mystery_phase: str = "start"  # SP-11: start | itm | level:N (with a declared prize table)
    mystery_draw_per: str = "per_killer_entry"  # SP-11: per_killer_entry (3.3) | per_knockout


SETTING_FIELDS = tuple(f.name for f in fields(TournamentSettings))


def amount_from_text(raw: str) -> int | Decimal:
    """A CLI amount in minor units: an int when whole, else the Decimal (the validator names it
    fractional); text that is no number becomes NaN."""
    try:
        value = Decimal(raw.strip())
    except InvalidOperation:
        return Decimal("NaN")
    if value.is_finite() and value == value.to_integral_value():
        return int(value)
    return value


def amount_problems(field: str, value: object) -> list[Problem]:
    """SP-1: a whole, non-negative number of minor units (None = not set, for optional amounts)."""
    label = field.replace("_", " ")
    if value is None:
        return []
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, float)):
        return [Problem("amount-not-a-number", "%(label)s must be a whole number of minor units (SP-1)", label=label)]
    if isinstance(value, (Decimal, float)):
        if not Decimal(value).is_finite():
            return [
                Problem("amount-not-a-number", "%(label)s must be a whole number of minor units (SP-1)", label=label)
            ]
        if value != int(value):
            return [
                Problem(
                    "amount-fractional",
                    "%(label)s %(value)s is fractional: amounts are whole minor units (SP-1)",
                    label=label,
                    value=value,
                )
            ]
    if value < 0:
        return [
            Problem(
                "amount-negative",
                "%(label)s %(value)s is negative: fees are never below zero (SP-1)",
                label=label,
                value=value,
            )
        ]
    if not isinstance(value, int):
        return [
            Problem(
                "amount-fractional",
                "%(label)s %(value)s must be an integer of minor units (SP-1)",
                label=label,
                value=value,
            )
        ]
    if value > MAX_AMOUNT:
        return [
            Problem(
                "amount-too-large",
                "%(label)s %(value)s is beyond the largest amount %(max_amount)s (SP-1)",
                label=label,
                value=value,
                max_amount=MAX_AMOUNT,
            )
        ]
    return []


def currency_problems(code: str) -> list[Problem]:
    import pycountry  # here: reading settings (every `tourney poker` command) needs no currency table

    if (
        not isinstance(code, str)
        or len(code) != 3
        or not code.isupper()
        or pycountry.currencies.get(alpha_3=code) is None
    ):
        return [
            Problem("currency-unknown", "currency '%(code_)s' is not an ISO 4217 code such as RUB (SP-1)", code_=code)
        ]
    return []


def _one_of(field: str, value: object, allowed: tuple[str, ...], rule: str) -> list[Problem]:
    if value in allowed:
        return []
    values = {"value": value, "allowed": ", ".join(allowed), "rule": rule}
    unknown = {
        "format": lambda: Problem(
            "format-unknown", "format '%(value)s' is not one of %(allowed)s (%(rule)s)", **values
        ),
        "bounty_type": lambda: Problem(
            "bounty-type-unknown", "bounty type '%(value)s' is not one of %(allowed)s (%(rule)s)", **values
        ),
        "no_show_policy": lambda: Problem(
            "no-show-policy-unknown", "no show policy '%(value)s' is not one of %(allowed)s (%(rule)s)", **values
        ),
    }
    return [unknown[field]()]


def _aware(field: str, value: datetime | None) -> list[Problem]:
    if value is not None and not isinstance(value, datetime):
        return [
            Problem(
                "time-not-aware",
                "%(field)s must be a time with a timezone, not '%(value)s'",
                field=field.replace("_", " "),
                value=value,
            )
        ]
    if value is None or value.tzinfo is not None:
        return []
    return [Problem("time-not-aware", "%(field)s must carry a timezone (times are UTC)", field=field.replace("_", " "))]


def deadline_problems(s: TournamentSettings) -> list[Problem]:
    """3.9: late registration after the start; re-entry no earlier than late registration. The
    add-on deadline and a re-entry deadline without late registration must also fall after the
    start."""
    out: list[Problem] = []
    start = s.scheduled_start
    if s.late_reg_deadline is not None and s.late_reg_deadline <= start:
        out.append(
            Problem(
                "late-registration-before-start",
                "the late-registration deadline %(late_reg_deadline)s must be after the start %(start)s (rule 3.9)",
                late_reg_deadline=s.late_reg_deadline,
                start=start,
            )
        )
    if s.reentry_deadline is not None:
        if s.late_reg_deadline is not None and s.reentry_deadline < s.late_reg_deadline:
            out.append(
                Problem(
                    "reentry-before-late-registration",
                    "the re-entry deadline %(reentry_deadline)s is earlier than the late-registration deadline %(late_reg_deadline)s (rule 3.9)",
                    reentry_deadline=s.reentry_deadline,
                    late_reg_deadline=s.late_reg_deadline,
                )
            )
        elif s.reentry_deadline <= start:
            out.append(
                Problem(
                    "reentry-deadline-before-start",
                    "the re-entry deadline %(reentry_deadline)s must be after the start (rule 3.9)",
                    reentry_deadline=s.reentry_deadline,
                )
            )
    if s.addon_deadline is not None and s.addon_deadline <= start:
        out.append(
            Problem(
                "addon-deadline-before-start",
                "the add-on deadline %(addon_deadline)s must be after the start (rule 3.9)",
                addon_deadline=s.addon_deadline,
            )
        )
    return out


def bounty_problems(s: TournamentSettings) -> list[Problem]:
    """SP-9: `pko_head` is a whole number of points, at least 2, set exactly when the bounty type is
    pko (a pko tournament without heads would record classic credits under the PKO label)."""
    if s.pko_head is None:
        if s.bounty_type == "pko":
            return [
                Problem(
                    "pko-head-missing",
                    "bounty type pko needs a PKO head: set pko_head to a whole number of points, at least 2 (SP-9)",
                )
            ]
        return []
    if isinstance(s.pko_head, bool) or not isinstance(s.pko_head, int) or s.pko_head < 2:
        return [
            Problem(
                "pko-head-bad",
                "the PKO head %(pko_head)s must be a whole number of points, at least 2 (SP-9)",
                pko_head=s.pko_head,
            )
        ]
    if s.bounty_type != "pko":
        return [
            Problem(
                "pko-head-without-pko",
                "a PKO head needs bounty type pko, not '%(bounty_type)s' (SP-9)",
                bounty_type=s.bounty_type,
            )
        ]
    return []


def topup_limit_problems(s: TournamentSettings) -> list[Problem]:
    """SP-12: one rebuy window at most (an instant or a level), after the start; a level from 1;
    limits whole numbers from 0."""
    out: list[Problem] = []
    if s.rebuy_until is not None and s.rebuy_until_level is not None:
        out.append(
            Problem(
                "rebuy-window-twice", "set rebuy_until (an instant) or rebuy_until_level (a level), not both (SP-12)"
            )
        )
    if (
        isinstance(s.rebuy_until, datetime)
        and s.rebuy_until.tzinfo is not None
        and s.scheduled_start.tzinfo is not None
        and s.rebuy_until <= s.scheduled_start
    ):
        out.append(
            Problem(
                "rebuy-until-before-start",
                "rebuy_until %(rebuy_until)s must be after the start %(scheduled_start)s (SP-12)",
                rebuy_until=s.rebuy_until,
                scheduled_start=s.scheduled_start,
            )
        )
    if s.rebuy_until_level is not None and (
        isinstance(s.rebuy_until_level, bool) or not isinstance(s.rebuy_until_level, int) or s.rebuy_until_level < 1
    ):
        out.append(
            Problem(
                "rebuy-until-level-bad",
                "rebuy_until_level %(rebuy_until_level)s must be a level number from 1 (SP-12)",
                rebuy_until_level=s.rebuy_until_level,
            )
        )

    def bad(value: object) -> bool:
        return value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0)

    if bad(s.rebuy_limit):
        out.append(
            Problem(
                "rebuy-limit-bad", "rebuy_limit %(value)s must be a whole number from 0 (SP-12)", value=s.rebuy_limit
            )
        )
    if bad(s.reentry_limit):
        out.append(
            Problem(
                "reentry-limit-bad",
                "reentry_limit %(value)s must be a whole number from 0 (SP-12)",
                value=s.reentry_limit,
            )
        )
    return out


def mystery_setting_problems(s: TournamentSettings) -> list[Problem]:
    """SP-11: the phase and the draw mode of the mystery prize table."""
    return parse_phase(s.mystery_phase)[1] + mode_problems(s.mystery_draw_per)


def settings_problems(s: TournamentSettings) -> list[Problem]:
    """Every problem with a tournament's settings, in field order."""
    out: list[Problem] = []
    if not isinstance(s.name, str) or not s.name.strip():
        out.append(Problem("name-blank", "the tournament needs a name"))
    elif len(s.name) > MAX_NAME:
        out.append(
            Problem(
                "name-too-long",
                "the tournament name is %(count_x)s characters long: at most %(max_name)s",
                count_x=len(s.name),
                max_name=MAX_NAME,
            )
        )
    for field in ("scheduled_start", "late_reg_deadline", "reentry_deadline", "addon_deadline", "rebuy_until"):
        out += _aware(field, getattr(s, field))
    out += _one_of("format", s.format, FORMATS, "rule 3.1")
    out += _one_of("bounty_type", s.bounty_type, BOUNTY_TYPES, "rule 3.2")
    if s.mystery_draw and s.bounty_type != "mystery":
        out.append(
            Problem(
                "mystery-draw-without-mystery-bounty",
                "the mystery draw can be switched on only with the mystery bounty type (rule 3.3)",
            )
        )
    out += bounty_problems(s)
    out += topup_limit_problems(s)
    out += mystery_setting_problems(s)
    if (
        isinstance(s.seat_cap, bool)
        or not isinstance(s.seat_cap, int)
        or not SEAT_CAP_MIN <= s.seat_cap <= SEAT_CAP_MAX
    ):
        out.append(
            Problem(
                "seat-cap-out-of-range",
                "seat cap %(seat_cap)s is outside %(seat_cap_min)s–%(seat_cap_max)s players a table (rule 3.6)",
                seat_cap=s.seat_cap,
                seat_cap_min=SEAT_CAP_MIN,
                seat_cap_max=SEAT_CAP_MAX,
            )
        )
    if isinstance(s.starting_stack, bool) or not isinstance(s.starting_stack, int) or s.starting_stack <= 0:
        out.append(
            Problem(
                "starting-stack-not-positive",
                "starting stack %(starting_stack)s must be a positive number of chips (rule 3.1)",
                starting_stack=s.starting_stack,
            )
        )
    elif s.starting_stack > MAX_CHIPS:
        out.append(
            Problem(
                "starting-stack-too-large",
                "starting stack %(starting_stack)s is beyond the largest stack %(max_chips)s",
                starting_stack=s.starting_stack,
                max_chips=MAX_CHIPS,
            )
        )
    if s.addon_chips is not None and (not isinstance(s.addon_chips, int) or s.addon_chips <= 0):
        out.append(
            Problem(
                "addon-chips-not-positive",
                "add-on chips %(addon_chips)s must be positive (rule 3.1)",
                addon_chips=s.addon_chips,
            )
        )
    elif s.addon_chips is not None and s.addon_chips > MAX_CHIPS:
        out.append(
            Problem(
                "addon-chips-too-large",
                "add-on chips %(addon_chips)s is beyond the largest stack %(max_chips)s",
                addon_chips=s.addon_chips,
                max_chips=MAX_CHIPS,
            )
        )
    if s.addon_break is not None and (not isinstance(s.addon_break, int) or not 1 <= s.addon_break <= MAX_COUNT):
        out.append(
            Problem(
                "addon-break-not-positive",
                "the add-on break number %(addon_break)s must be 1 to %(max_count)s (rule 3.1)",
                addon_break=s.addon_break,
                max_count=MAX_COUNT,
            )
        )
    if s.buy_in is None:
        out.append(Problem("amount-not-a-number", "buy in must be set, in minor units (0 for a freeroll) (SP-1)"))
    for field in AMOUNT_FIELDS:
        out += amount_problems(field, getattr(s, field))
    out += currency_problems(s.currency)
    out += _one_of("no_show_policy", s.no_show_policy, NO_SHOW_POLICIES, "rule 3.8")
    if not isinstance(s.itm_percent, int) or not 0 <= s.itm_percent <= 100:
        out.append(
            Problem(
                "itm-percent-out-of-range",
                "ITM percent %(itm_percent)s must be 0 to 100 (SP-3)",
                itm_percent=s.itm_percent,
            )
        )
    if not isinstance(s.itm_min, int) or not 1 <= s.itm_min <= MAX_COUNT:
        out.append(
            Problem(
                "itm-min-below-one",
                "ITM minimum %(itm_min)s must be 1 to %(max_count)s (SP-3)",
                itm_min=s.itm_min,
                max_count=MAX_COUNT,
            )
        )
    if not any(p.code == "time-not-aware" for p in out):
        out += deadline_problems(s)
    return out


_TIME_FIELDS = ("scheduled_start", "late_reg_deadline", "reentry_deadline", "addon_deadline", "rebuy_until")
_INT_FIELDS = (
    "starting_stack",
    "seat_cap",
    "addon_break",
    "addon_chips",
    "itm_percent",
    "itm_min",
    "pko_head",
    "rebuy_until_level",
    "rebuy_limit",
    "reentry_limit",
)
_BOOL_FIELDS = ("mystery_draw", "addon_once", "shared_knockouts")
OPTIONAL = (  # the settings that may be unset (None): typed as none or empty, or sent as null
    "late_reg_deadline",
    "reentry_deadline",
    "addon_deadline",
    "addon_break",
    "addon_chips",
    "rebuy_amount",
    "reentry_amount",
    "addon_amount",
    "pko_head",
    "rebuy_until",
    "rebuy_until_level",
    "rebuy_limit",
    "reentry_limit",
)


def time_from_text(field: str, raw: str) -> tuple[datetime | None, list[Problem]]:
    """An ISO 8601 time with its offset (e.g. 2026-12-04T19:00+03:00), as UTC."""
    try:
        value = datetime.fromisoformat(raw.strip())
    except ValueError:
        return None, [
            Problem(
                "time-invalid", "%(field)s '%(raw)s' is not an ISO 8601 time", field=field.replace("_", " "), raw=raw
            )
        ]
    if value.tzinfo is None:
        return None, [
            Problem(
                "time-not-aware",
                "%(field)s '%(raw)s' needs an offset, e.g. +03:00 or Z",
                field=field.replace("_", " "),
                raw=raw,
            )
        ]
    try:
        value = value.astimezone(UTC)
    except OverflowError:
        value = None
    if value is None or not EARLIEST_TIME <= value < LATEST_TIME:
        return None, [
            Problem(
                "time-out-of-range",
                "%(field)s '%(raw)s' is outside %(year)s–%(n)s",
                field=field.replace("_", " "),
                raw=raw,
                year=EARLIEST_TIME.year,
                n=LATEST_TIME.year - 1,
            )
        ]
    return value, []


def setting_from_text(field: str, raw: str) -> tuple[object, list[Problem]]:
    """One setting typed in a command (`--set field=value`); 'none' unsets an optional one."""
    if field not in SETTING_FIELDS:
        return None, [
            Problem(
                "setting-unknown",
                "no such setting '%(field)s'; settings: %(value)s",
                field=field,
                value=", ".join(SETTING_FIELDS),
            )
        ]
    raw = raw.strip()
    if field in OPTIONAL and raw.lower() in ("none", ""):
        return None, []
    if field in AMOUNT_FIELDS:
        return amount_from_text(raw), []
    if field in _TIME_FIELDS:
        return time_from_text(field, raw)
    if field in _BOOL_FIELDS:
        if raw.lower() in ("true", "yes", "1", "on"):
            return True, []
        if raw.lower() in ("false", "no", "0", "off"):
            return False, []
        return None, [
            Problem("setting-not-a-flag", "%(field)s takes true or false, got '%(raw)s'", field=field, raw=raw)
        ]
    if field in _INT_FIELDS:
        try:
            return int(raw), []
        except ValueError:
            return None, [
                Problem("setting-not-a-number", "%(field)s takes a whole number, got '%(raw)s'", field=field, raw=raw)
            ]
    if field == "currency":
        return raw.upper(), []
    return raw, []
