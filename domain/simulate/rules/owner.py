"""What a club's owner sets up for next week, as the console's forms send it (pure): next week's Friday at
19:00 in the club's zone, a 20-minute structure with a break, a mystery-bounty re-entry tournament with
its prize lines (SP-4: no money named) and its mystery table (SP-12). The demo's simulator sends it
through `/api/v1` as the demo club's owner (flows/simulate_api.py), so the audit trail says the owner
did each step; `make screenshots` sends the same for its club."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

NAME = "Пятничный мистери"
STRUCTURE = "Турбо 20 минут"
BLINDS = (100, 200, 300, 400, 600, 800, 1000, 1500)
BREAK_AFTER = 4  # levels
PRIZES = ("Кубок и вход на главный турнир серии", "Вход на турнир клуба", "Медаль")
MYSTERY = ("Худи клуба", "Ужин на двоих", "Вход на турнир клуба", "Кепка")
BUY_IN = 150000  # minor units of the club's currency
FRIDAY = 4


@dataclass(frozen=True)
class NextWeek:
    """Next week's tournament: its start and the bodies of the operations that set it up."""

    start: datetime
    currency: str = "RUB"

    def structure(self) -> dict:
        levels = [
            {"small_blind": sb, "big_blind": 2 * sb, "ante": 2 * sb, "minutes": 20, "break": False} for sb in BLINDS
        ]
        levels.insert(BREAK_AFTER, {"small_blind": 0, "big_blind": 0, "ante": 0, "minutes": 10, "break": True})
        return {"name": STRUCTURE, "ante_type": "bb_ante", "levels": levels}

    def tournament(self, structure_id: int) -> dict:
        return {
            "name": NAME,
            "scheduled_start": self.start.isoformat(),
            "structure_id": structure_id,
            "starting_stack": 20000,
            "currency": self.currency,
            "buy_in": BUY_IN,
            "format": "reentry",
            "reentry_amount": BUY_IN,
            "reentry_limit": 2,
            "late_reg_deadline": (self.start + timedelta(minutes=100)).isoformat(),
            "bounty_type": "mystery",
            "mystery_draw": True,
            "mystery_phase": "itm",
            "seat_cap": 9,
            "itm_percent": 15,
        }

    def prizes(self) -> dict:
        return {"lines": list(PRIZES)}

    def mystery_table(self) -> dict:
        return {"lines": list(MYSTERY)}


def next_friday(today: date) -> date:
    """The first Friday at least four days after `today` (from a Friday: the one a week on)."""
    day = today + timedelta(days=4)
    return day + timedelta(days=(FRIDAY - day.weekday()) % 7)


def next_week(now: datetime, zone: ZoneInfo, currency: str = "RUB") -> NextWeek:
    """Next week's tournament of a club in `zone`, seen at `now`: next Friday 19:00 there."""
    day = next_friday(now.astimezone(zone).date())
    return NextWeek(datetime(day.year, day.month, day.day, 19, tzinfo=zone), currency)
