"""Hand-built Pusoy Dos rounds shared by the unit, integration and bench tests.

A round is `{table: [(finishing order, 2♦ winner or None) per game]}`."""

from __future__ import annotations

from domain.pusoy.rules.scoring import Finish

Round = dict[int, list[tuple[str, str | None]]]


def finishes(games: Round) -> list[Finish]:
    out = []
    for table, played in games.items():
        for number, (order, diamond) in enumerate(played, start=1):
            for position, player in enumerate(order.split(), start=1):
                out.append(Finish(table, number, player, position, player == diamond))
    return out


def players(games: Round) -> list[str]:
    return sorted({p for played in games.values() for order, _ in played for p in order.split()})


# RULES.md worked example (PD-6/PD-7): an 8-player round of 2 games.
WORKED_EXAMPLE: Round = {
    1: [("A B C D", None), ("B A D C", "B")],
    2: [("E F G H", "E"), ("G H E F", None)],
}

# PD-9: p02 and p06 are level after all eight steps on rank 4 of 8, one spot left.
TWO_FOR_ONE: Round = {
    1: [("p01 p02 p00 p03", None), ("p03 p02 p01 p00", None)],
    2: [("p05 p06 p04 p07", "p05"), ("p07 p06 p05 p04", "p07")],
}

# PD-9: p03, p09 and p15 share rank 7 of 16 with 8 advancing: three for two spots.
THREE_FOR_TWO: Round = {
    1: [("p02 p03 p01 p00", None), ("p02 p03 p01 p00", None)],
    2: [("p06 p07 p05 p04", None), ("p07 p05 p06 p04", None)],
    3: [("p11 p09 p10 p08", None), ("p10 p09 p11 p08", "p10")],
    4: [("p14 p15 p13 p12", "p14"), ("p14 p15 p13 p12", None)],
}

# PD-9: six players (second twice each) share rank 6 of 32 with 8 advancing: six for three spots.
SIX_FOR_THREE: Round = {
    1: [("p01 p02 p00 p03", None), ("p01 p02 p00 p03", None)],
    2: [("p05 p06 p04 p07", None), ("p07 p06 p04 p05", "p07")],
    3: [("p09 p10 p08 p11", None), ("p09 p10 p08 p11", None)],
    4: [("p13 p14 p12 p15", None), ("p13 p14 p12 p15", None)],
    5: [("p17 p16 p18 p19", None), ("p19 p18 p16 p17", None)],
    6: [("p23 p22 p20 p21", None), ("p21 p20 p22 p23", None)],
    7: [("p25 p26 p24 p27", "p25"), ("p25 p26 p24 p27", "p25")],
    8: [("p29 p30 p28 p31", None), ("p31 p30 p28 p29", None)],
}
