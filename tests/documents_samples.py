"""Shared by the documents tests: sample documents (user text with Cyrillic and markup characters)
and a real SMTP server on 127.0.0.1 (aiosmtpd) that keeps what it receives."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from decimal import Decimal

from aiosmtpd.controller import Controller

from domain.documents.rules.model import (
    PokerPlace,
    PokerSheet,
    PusoyPlayoff,
    PusoyRound,
    PusoySheet,
    PusoyStanding,
    SeasonRow,
    SeasonSheet,
    SheetOption,
)
from tests.support.net import free_port

# SP-9, SP-12 settings a sheet words in its language (the picture tests show them)
OPTIONS = (
    SheetOption("pko-head", number=100),
    SheetOption("rebuy-until-level", number=2),
    SheetOption("reentry-limit", number=1),
)


def poker_sheet(
    players: int = 10, paid: int = 3, locale: str = "en", options: tuple[SheetOption, ...] = ()
) -> PokerSheet:
    """A finished poker tournament's sheet: user text with Cyrillic and markup characters; the prize
    lines and the players after the third in the sheet's language, as a club would write them."""
    ru = locale == "ru"
    names = ["<b>Иван</b>", "Zoë O'Hara & Co", "Пётр Ёлкин"] + [
        f"{'Игрок' if ru else 'Player'} {i}" for i in range(4, players + 1)
    ]
    lines = (
        ("Кубок чемпиона", "Худи клуба", "Ужин на двоих") if ru else ("Кубок чемпиона", "Club hoodie", "Dinner for 2")
    )
    places = tuple(
        PokerPlace(
            place=i,
            player=names[i - 1],
            knockouts=Decimal("2.5") if i == 1 else Decimal(i % 2),
            prize=lines[i - 1]
            if i <= min(paid, 3)
            else (f"{'Фриролл' if ru else 'Freeroll'} ×{i}" if i <= paid else None),
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
        prize_places=paid,
        places=places,
        rebuys=3,
        locale=locale,
        options=options,
    )


def season_sheet(locale: str = "ru") -> SeasonSheet:
    """A season's standings (LG-3) after its third tournament: `sqrt` with a knockout bonus, best 2,
    a shared rank."""
    rows = (
        SeasonRow(1, "<b>Иван</b>", Decimal("45.70"), 2, 3, 1, Decimal("24.49")),
        SeasonRow(2, "Zoë O'Hara & Co", Decimal("38.12"), 2, 2, 1, Decimal("24.49")),
        SeasonRow(3, "Пётр Ёлкин", Decimal("30.00"), 2, 3, 0, Decimal("17.32")),
        SeasonRow(3, "Player 4", Decimal("30.00"), 2, 2, 0, Decimal("17.32")),
        SeasonRow(5, "Player 5", Decimal("12.25"), 1, 1, 0, Decimal("12.25")),
    )
    return SeasonSheet(
        season_id=3,
        season="Зима 2026/27",
        club="Клуб «Туз»",
        date_from=date(2026, 12, 1),
        date_until=date(2027, 2, 28),
        tournament_id=42,
        tournament="Пятничный турнир <i>Deepstack</i>",
        held_on=date(2026, 12, 18),
        tournaments=3,
        formula="sqrt",
        points_table=(),
        shared="average",
        bonus=Decimal("0.5"),
        best_k=2,
        rows=rows,
        locale=locale,
    )


def pusoy_sheet(locale: str = "en") -> PusoySheet:
    """The 8-player worked example of RULES PD-6/PD-7, then a final table settled by a playoff."""
    r1 = (
        PusoyStanding(1, "Борис", 6, None, True),
        PusoyStanding(2, "E", 5, None, True),
        PusoyStanding(3, "A", 5, "fewer first places won on the 2 of diamonds", True),
        PusoyStanding(4, "G", 4, None, True),
        PusoyStanding(5, "H", 2, None, False),
        PusoyStanding(6, "F", 2, "a worse finish in the round's last game", False),
        PusoyStanding(7, "D", 1, None, False),
        PusoyStanding(8, "C", 1, "a worse finish in the round's last game", False),
    )
    r2 = (
        PusoyStanding(1, "Борис", 3, None, True),
        PusoyStanding(2, "E", 3, "the playoff", False),
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
        locale=locale,
    )


class Inbox:
    """An aiosmtpd handler keeping every message; `refuse` answers 550 to every recipient."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []
        self.envelopes: list = []
        self.refuse = False

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.refuse:
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.envelopes.append(envelope)
        self.messages.append(email.message_from_bytes(envelope.content, policy=email.policy.default))
        return "250 Message accepted"


@contextmanager
def smtp_inbox() -> Iterator[tuple[str, Inbox]]:
    """A real SMTP server on 127.0.0.1: (its SMTP_URL, the inbox)."""
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield f"smtp://127.0.0.1:{controller.port}?from=docs@tourney.example", inbox
    finally:
        controller.stop()
