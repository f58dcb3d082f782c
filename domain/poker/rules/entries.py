"""Registration, check-in, top-ups and settlement gates (Sport Poker 3.1, 3.4, 3.10; SP-1, SP-2).

Every window is open strictly before its deadline: at the deadline itself it is closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from domain.errors import Problem, Word
from domain.poker.rules.lifecycle import CANCELLED, DRAFT, FINISHED, RUNNING
from domain.poker.rules.settings import TournamentSettings

REBUY, REENTRY, ADDON = "rebuy", "reentry", "addon"
SETTLEMENT_METHODS = ("cash", "card", "transfer", "other")


@dataclass(frozen=True)
class Window:
    """SP-2: a tournament's scheduled window, from its start to start + its structure's total
    duration, half-open (a tournament ending at 20:00 does not overlap one starting at 20:00)."""

    start: datetime
    end: datetime

    @classmethod
    def scheduled(cls, start: datetime, duration: timedelta) -> Window:
        return cls(start, start + duration)

    def overlaps(self, other: Window) -> bool:
        return self.start < other.end and other.start < self.end


def parallel_problems(window: Window, held: list[tuple[int, str, Window]]) -> list[Problem]:
    """SP-2: refused when an active registration (tournament id, name, window) overlaps `window`."""
    return [
        Problem(
            "registration-overlaps",
            "the player is already registered in tournament %(tid)s '%(name)s' (%(other_start)s to %(other_end)s), which overlaps this one (SP-2)",
            tid=tid,
            name=name,
            other_start=other.start,
            other_end=other.end,
        )
        for tid, name, other in held
        if window.overlaps(other)
    ]


def registration_problems(status: str, late_reg_deadline: datetime | None, now: datetime) -> list[Problem]:
    """3.10: sign-up and check-in are open in registration_open, and while running only before the
    late-registration deadline (late registration by the regular buy-in). A set deadline also
    closes sign-up of a tournament not yet started."""
    if status == DRAFT:
        return [
            Problem("registration-not-open", "the tournament is still a draft: registration is not open (rule 3.9)")
        ]
    if status in (FINISHED, CANCELLED):
        return [
            Problem(
                "registration-closed",
                "the tournament is %(status)s: registration is closed (rule 3.9)",
                status=Word(status),
            )
        ]
    if status == RUNNING and late_reg_deadline is None:
        return [
            Problem(
                "late-registration-closed",
                "the tournament is running and has no late-registration deadline: registration closed at the start (rule 3.10)",
            )
        ]
    if late_reg_deadline is not None and now >= late_reg_deadline:
        return [
            Problem(
                "late-registration-closed",
                "late registration closed at %(late_reg_deadline)s (rule 3.10)",
                late_reg_deadline=late_reg_deadline,
            )
        ]
    return []


def _over(kind: str, status: str) -> list[Problem]:
    if status not in (FINISHED, CANCELLED):
        return []
    if kind == REBUY:
        return [
            Problem("rebuy-tournament-over", "the tournament is %(status)s: no rebuy (rule 3.1)", status=Word(status))
        ]
    return [Problem("addon-tournament-over", "the tournament is %(status)s: no addon (rule 3.1)", status=Word(status))]


def _needs_active(kind: str, has_active_entry: bool) -> list[Problem]:
    if has_active_entry:
        return []
    return [
        Problem(
            "no-active-entry", "the player has no entry in play to take a %(kind)s into (rule 3.1)", kind=Word(kind)
        )
    ]


def rebuy_problems(
    status: str,
    s: TournamentSettings,
    has_active_entry: bool,
    *,
    now: datetime | None = None,
    level: int | None = None,
    rebuys_taken: int = 0,
) -> list[Problem]:
    """3.1 rebuy: tops up the current entry, refused once the tournament is finished or cancelled.
    SP-12 options: the window `rebuy_until` (open strictly before that instant) or
    `rebuy_until_level` N (open while the furthest level the clock has reached, `level`, is N or
    earlier: it closes when level N ends, for good); `rebuy_limit` rebuys per player over all their
    entries. Unset: no window, no limit."""
    out = _over(REBUY, status)
    if s.rebuy_amount is None:
        out.append(Problem("rebuy-not-offered", "this tournament sets no rebuy amount (rule 3.1)"))
    if out:
        return out
    if s.rebuy_until is not None and now is not None and now >= s.rebuy_until:
        out.append(
            Problem(
                "rebuy-window-closed",
                "the rebuy window closed at %(rebuy_until)s (rebuy_until, SP-12)",
                rebuy_until=s.rebuy_until,
            )
        )
    if s.rebuy_until_level is not None and level is not None and level > s.rebuy_until_level:
        out.append(
            Problem(
                "rebuy-window-closed",
                "the rebuy window closed when level %(rebuy_until_level)s ended; the clock has reached level %(level)s (rebuy_until_level, SP-12)",
                rebuy_until_level=s.rebuy_until_level,
                level=level,
            )
        )
    if s.rebuy_limit is not None and rebuys_taken >= s.rebuy_limit:
        out.append(
            Problem(
                "rebuy-limit-reached",
                "the player has taken %(rebuys_taken)s rebuy(s): the limit is %(rebuy_limit)s per player (rebuy_limit, SP-12)",
                rebuys_taken=rebuys_taken,
                rebuy_limit=s.rebuy_limit,
            )
        )
    return out + _needs_active(REBUY, has_active_entry)


def reentry_deadline(s: TournamentSettings) -> datetime | None:
    """3.1: the re-entry deadline, or when unset the late-registration deadline."""
    return s.reentry_deadline if s.reentry_deadline is not None else s.late_reg_deadline


def reentry_problems(
    status: str, s: TournamentSettings, latest_state: str | None, now: datetime, *, reentries_taken: int = 0
) -> list[Problem]:
    """3.1 re-entry: a new entry after a bust, only while running, within the re-entry deadline
    (or the late-registration deadline when unset); SP-12: at most `reentry_limit` re-entries per
    player (unset: no limit)."""
    out: list[Problem] = []
    if s.reentry_limit is not None and reentries_taken >= s.reentry_limit:
        out.append(
            Problem(
                "reentry-limit-reached",
                "the player has re-entered %(reentries_taken)s time(s): the limit is %(reentry_limit)s per player (reentry_limit, SP-12)",
                reentries_taken=reentries_taken,
                reentry_limit=s.reentry_limit,
            )
        )
    if status != RUNNING:
        out.append(
            Problem(
                "reentry-not-running",
                "re-entry is possible only while the tournament runs; it is %(status)s (rule 3.1)",
                status=Word(status.replace("_", " ")),
            )
        )
    if topup_price(REENTRY, s) is None:
        out.append(Problem("reentry-not-offered", "this tournament sets no re-entry or rebuy amount (rule 3.1)"))
    deadline = reentry_deadline(s)
    if deadline is None:
        out.append(
            Problem(
                "reentry-window-closed", "this tournament sets no re-entry or late-registration deadline (rule 3.1)"
            )
        )
    elif now >= deadline:
        out.append(
            Problem("reentry-window-closed", "the re-entry window closed at %(deadline)s (rule 3.1)", deadline=deadline)
        )
    if latest_state is None:
        out.append(Problem("no-entry", "the player has no entry in this tournament: check in first (rule 3.10)"))
    elif latest_state != "busted":
        out.append(
            Problem(
                "reentry-without-bust",
                "re-entry is possible only after a bust; the player's entry is still in play (rule 3.1)",
            )
        )
    return out


def addon_window_open(s: TournamentSettings, breaks_reached: int, now: datetime) -> bool:
    """3.1 add-on window: open before the add-on deadline, or once the clock has reached the N-th
    break; unlimited when neither is set."""
    if s.addon_deadline is None and s.addon_break is None:
        return True
    before_deadline = s.addon_deadline is not None and now < s.addon_deadline
    at_break = s.addon_break is not None and breaks_reached >= s.addon_break
    return before_deadline or at_break


def addon_problems(
    status: str, s: TournamentSettings, has_active_entry: bool, addons_taken: int, breaks_reached: int, now: datetime
) -> list[Problem]:
    out = _over(ADDON, status)
    if s.addon_amount is None:
        out.append(Problem("addon-not-offered", "this tournament sets no add-on amount (rule 3.1)"))
    if not addon_window_open(s, breaks_reached, now):
        gates = {"deadline": s.addon_deadline, "break_": s.addon_break, "reached": breaks_reached}
        if s.addon_break is None:
            closed = Problem(
                "addon-window-closed", "the add-on window is open only before %(deadline)s (rule 3.1)", **gates
            )
        elif s.addon_deadline is None:
            closed = Problem(
                "addon-window-closed",
                "the add-on window is open only from break %(break_)s (breaks reached: %(reached)s) (rule 3.1)",
                **gates,
            )
        else:
            closed = Problem(
                "addon-window-closed",
                "the add-on window is open only before %(deadline)s or from break %(break_)s (breaks reached: "
                "%(reached)s) (rule 3.1)",
                **gates,
            )
        out.append(closed)
    if s.addon_once and addons_taken > 0:
        out.append(
            Problem(
                "addon-already-taken",
                "the add-on is one-time in this tournament and the player already took it (rule 3.1)",
            )
        )
    return out + (_needs_active(ADDON, has_active_entry) if not out else [])


def topup_price(kind: str, s: TournamentSettings) -> int | None:
    """3.1 prices: rebuy amount; re-entry amount or else the rebuy amount; add-on amount."""
    if kind == REBUY:
        return s.rebuy_amount
    if kind == REENTRY:
        return s.reentry_amount if s.reentry_amount is not None else s.rebuy_amount
    return s.addon_amount


def topup_chips(kind: str, s: TournamentSettings) -> int:
    """3.1 chips: the starting stack; an add-on gives its own chip amount when set."""
    if kind == ADDON and s.addon_chips is not None:
        return s.addon_chips
    return s.starting_stack


def settlement_problems(status: str, method: str, settled_by: str) -> list[Problem]:
    """3.4: settling (and voiding) is allowed in every status but cancelled."""
    out: list[Problem] = []
    if status == CANCELLED:
        out.append(
            Problem("settlement-tournament-cancelled", "the tournament is cancelled: fees are not settled (rule 3.4)")
        )
    if method not in SETTLEMENT_METHODS:
        out.append(
            Problem(
                "settlement-method-unknown",
                "payment method '%(method)s' is not one of %(value)s",
                method=method,
                value=", ".join(SETTLEMENT_METHODS),
            )
        )
    if not settled_by.strip():
        out.append(Problem("settled-by-blank", "say who takes the payment (rule 3.4: who settled and when)"))
    return out
