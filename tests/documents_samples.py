"""Sample documents shared by the documents tests: user text with Cyrillic and markup characters."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from domain.documents.model import (
    PokerPlace,
    PokerSheet,
    PusoyPlayoff,
    PusoyRound,
    PusoySheet,
    PusoyStanding,
)


def poker_sheet(players: int = 10, paid: int = 3) -> PokerSheet:
    names = ["<b>Иван</b>", "Zoë O'Hara & Co", "Пётр Ёлкин"] + [f"Player {i}" for i in range(4, players + 1)]
    places = tuple(
        PokerPlace(
            place=i,
            player=names[i - 1],
            knockouts=Decimal("2.5") if i == 1 else Decimal(i % 2),
            prize=("Кубок чемпиона", "Club hoodie", "Dinner for 2")[i - 1] if i <= min(paid, 3) else (
                f"Freeroll ×{i}" if i <= paid else None
            ),
        )
        for i in range(1, players + 1)
    )
    return PokerSheet(
        tournament_id=42,
        tournament="Пятничный турнир <i>Deepstack</i>",
        club="Клуб «Туз»",
        held_on=date(2026, 11, 27),
        entries=players + 2,
        reentries=2,
        addons=5,
        paid_places=paid,
        places=places,
    )


def pusoy_sheet() -> PusoySheet:
    """The 8-player worked example of RULES PD-6/PD-7, then a final table settled by a playoff."""
    r1 = (
        PusoyStanding(1, "Борис", 6, None, True),
        PusoyStanding(2, "E", 5, None, True),
        PusoyStanding(3, "A", 5, "first places won on the 2 of diamonds", True),
        PusoyStanding(4, "G", 4, None, True),
        PusoyStanding(5, "H", 2, None, False),
        PusoyStanding(6, "F", 2, "finish in the round's last game", False),
        PusoyStanding(7, "D", 1, None, False),
        PusoyStanding(8, "C", 1, "finish in the round's last game", False),
    )
    r2 = (
        PusoyStanding(1, "Борис", 3, None, True),
        PusoyStanding(2, "E", 3, "playoff", False),
        PusoyStanding(3, "A", 2, None, False),
        PusoyStanding(4, "G", 1, None, False),
    )
    return PusoySheet(
        tournament_id=7,
        tournament="Кубок <Пусой>",
        club=None,
        held_on=date(2026, 11, 28),
        capacity=8,
        bracket=(8, 4),
        games_per_round=2,
        rounds=(PusoyRound(1, 2, r1), PusoyRound(2, 2, r2)),
        playoffs=(PusoyPlayoff(2, 1, ("Борис", "E")),),
        champion="Борис",
    )
