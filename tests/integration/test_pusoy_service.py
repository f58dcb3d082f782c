"""Pusoy Dos services against the real PostgreSQL (PD-1..PD-13)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from domain.pusoy.rules.advancement import seats
from domain.pusoy.services import reports as pusoy_reports
from domain.pusoy.services import rounds as pusoy_rounds
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.services import views as pusoy_views
from domain.pusoy.tables import (
    PusoyDraw,
    PusoyEntry,
    PusoyFinish,
    PusoyGame,
    PusoyGameAudit,
    PusoyRound,
    PusoyStanding,
    PusoyTournament,
)
from tests.support.db import contents, refused_call
from tests.support.world import (
    PUSOY_NOW as NOW,
)
from tests.support.world import (
    created,
    filled,
    play,
    play_playoff,
    seating,
)
from tests.unit.pusoy_cases import (
    SIX_FOR_THREE,
    THREE_FOR_TWO,
    TWO_FOR_ONE,
    WORKED_EXAMPLE,
)


def counts(session):
    return tuple(
        session.scalar(select(func.count()).select_from(m))
        for m in (PusoyTournament, PusoyEntry, PusoyDraw, PusoyRound, PusoyGame, PusoyFinish, PusoyGameAudit)
    )


# -- creation (PD-1, PD-2, PD-3, PD-5) --------------------------------------------------------


def test_pd_1_pd_2_a_tournament_stores_its_bracket_default_or_custom(session):
    """PD-1, PD-2"""
    default = created(session, 32, private=True)
    custom = created(session, 32, advancing=[12, 4])
    assert default.bracket == [32, 16, 8, 4] and not default.custom_bracket
    assert custom.bracket == [32, 12, 4] and custom.custom_bracket
    assert default.status == "setup" and len(default.code) == 6


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"capacity": 12}, "bad-capacity"),
        ({"games_per_round": 0}, "bad-games-per-round"),
        ({"games_per_round": 11}, "bad-games-per-round"),
        ({"advancing": [16, 8]}, "bad-bracket"),
        ({"advancing": [10, 4]}, "bad-bracket"),
        ({"organizer": "two words"}, "bad-organizer"),
        ({"organizer_email": "nope"}, "bad-email"),
        ({"club_id": 987654321}, "unknown-club"),
    ],
)
def test_bad_creation_is_refused_with_its_code_and_nothing_is_written(session, kwargs, code):
    """PD-1, PD-2, PD-5"""
    args = {"name": "x", "organizer": "org", "capacity": 32, "now": NOW, **kwargs}
    refused_call(session, code, pusoy_setup.create, session, **args)


def test_pd_3_the_browser_lists_open_filling_tournaments_newest_first_never_private_ones(session):
    """PD-3"""
    older = created(session, 8, name="older")
    newer = pusoy_setup.create(session, name="newer", organizer="org", capacity=16, now=NOW + timedelta(minutes=1))
    created(session, 8, name="hidden", private=True)
    full = filled(session, 8, name="full")
    listed = [t.code for t in pusoy_setup.browse(session)]
    assert listed[:2] == [newer.code, older.code]
    assert full.code not in listed and len(listed) == 2


def test_pd_3_codes_are_unique_and_a_collision_draws_again(session):
    """PD-3"""
    import random

    first = created(session, rng=random.Random(1))
    second = created(session, rng=random.Random(1))  # the same first code: drawn again
    assert first.code != second.code


# -- filling (PD-4, PD-11, PD-12) --------------------------------------------------------------


def test_pd_4_joining_by_code_any_case_and_starting_at_capacity_in_the_same_transaction(session):
    """PD-4, PD-10, PD-12"""
    t = created(session, 8)
    for i in range(7):
        joined = pusoy_setup.join(session, t.code.lower(), f"u{i}", NOW)
        assert not joined.started
    last = pusoy_setup.join(session, f" {t.code} ", "u7", NOW)
    assert last.started and t.status == "active" and t.entrants == 8 and t.current_round == 1
    tables = seating(session, t.id, 1)
    assert sorted(tables) == [1, 2] and sorted(p for ps in tables.values() for p in ps) == [f"u{i}" for i in range(8)]
    proof = pusoy_views.draw_proof(session, t.code)
    assert proof[0]["purpose"] == "round-1 seating" and proof[0]["verified"] is True
    assert [s.player for s in seats(proof[0]["outcome"])] == proof[0]["outcome"]
    assert {(s.table, s.player) for s in seats(proof[0]["outcome"])} == {
        (tb, p) for tb, ps in tables.items() for p in ps
    }
    assert proof[1]["seed"] is None and proof[1]["verified"] is None  # the next draw's seed stays secret


def test_bad_joins_each_have_their_code_and_write_nothing(session):
    """PD-3, PD-4, PD-11"""
    t = created(session, 8)
    pusoy_setup.join(session, t.code, "ann", NOW)
    refused_call(session, "unknown-code", pusoy_setup.join, session, "ZZZZZZ", "bob", NOW)
    refused_call(session, "already-joined", pusoy_setup.join, session, t.code, "ann", NOW)
    refused_call(session, "bad-player", pusoy_setup.join, session, t.code, "a b", NOW)
    gone = created(session, 8)
    pusoy_setup.cancel(session, gone.code, "org", NOW)
    refused_call(session, "tournament-cancelled", pusoy_setup.join, session, gone.code, "bob", NOW)
    full = filled(session, 8)
    err = refused_call(session, "tournament-full", pusoy_setup.join, session, full.code, "late", NOW)
    assert err.message == "tournament is full"


def test_pd_4_withdrawal_only_while_filling(session):
    """PD-4"""
    t = created(session, 8)
    pusoy_setup.join(session, t.code, "ann", NOW)
    pusoy_setup.withdraw(session, t.code, "ann", NOW)
    assert t.entrants == 0
    refused_call(session, "not-entered", pusoy_setup.withdraw, session, t.code, "ann", NOW)
    full = filled(session, 8)
    refused_call(session, "withdraw-after-start", pusoy_setup.withdraw, session, full.code, "u01", NOW)


def test_pd_11_only_the_organizer_cancels_and_only_while_filling(session):
    """PD-11"""
    t = created(session, 8)
    refused_call(session, "not-organizer", pusoy_setup.cancel, session, t.code, "someone", NOW)
    pusoy_setup.cancel(session, t.code, "org", NOW)
    assert t.status == "cancelled"
    full = filled(session, 8)
    refused_call(session, "bad-status-change", pusoy_setup.cancel, session, full.code, "org", NOW)


# -- reports and amendments (PD-5, PD-6, PD-11) ------------------------------------------------


def report(session, t, table=1, game=1, order=None, diamond=None, round_no=1, playoff=0):
    order = order if order is not None else seating(session, t.id, round_no, playoff)[table]
    return pusoy_reports.report(
        session,
        t.code,
        round_no=round_no,
        table=table,
        game=game,
        playoff=playoff,
        finishes=[(p, i) for i, p in enumerate(order, start=1)],
        two_of_diamonds=diamond,
        now=NOW,
    )


def test_bad_reports_each_have_their_code_and_write_nothing(session):
    """PD-5, PD-6, PD-11"""
    t = filled(session, 8, games=2)
    at = seating(session, t.id, 1)
    one, two = at[1], at[2]
    cases = [
        ("not-at-table", dict(order=[*one[:3], two[0]])),
        ("repeated-player", dict(order=[one[0], one[0], one[2], one[3]])),
        ("two-of-diamonds-not-winner", dict(diamond=one[1])),
        ("bad-game-number", dict(game=3)),
        ("unknown-table", dict(table=3, order=one)),
        ("unknown-round", dict(round_no=2, order=one)),
        ("unknown-playoff", dict(playoff=1, order=one)),
    ]
    for code, kwargs in cases:
        refused_call(session, code, report, session, t, **kwargs)
    refused_call(
        session,
        "repeated-position",
        pusoy_reports.report,
        session,
        t.code,
        round_no=1,
        table=1,
        game=1,
        finishes=[(one[0], 1), (one[1], 1), (one[2], 3), (one[3], 4)],
        two_of_diamonds=None,
        now=NOW,
    )
    report(session, t)
    order = seating(session, t.id, 1, 0)[1]
    refused_call(session, "already-reported", report, session, t, order=[order[1], order[0], *order[2:]])
    setup = created(session, 8)
    refused_call(session, "tournament-not-active", report, session, setup, order=["a", "b", "c", "d"])


def _amend_first_game(session, t, order: list[str], two_of_diamonds: str | None, now) -> None:
    """The floor's correction of round 1, table 1, game 1: the players finished in `order`."""
    pusoy_reports.amend(
        session,
        t.code,
        round_no=1,
        table=1,
        game=1,
        finishes=[(p, n) for n, p in enumerate(order, 1)],
        two_of_diamonds=two_of_diamonds,
        now=now,
        by="floor",
        reason="scores swapped",
    )


def test_pd_6_an_amendment_changes_the_cups_version_for_its_live_pages_and_so_does_the_next(session):
    """PD-6: an amendment keeps the finishes' count, yet the followers' pages must see it."""
    from domain.public.services.views import pusoy_version

    t = filled(session, 8)
    a, b, c, d = seating(session, t.id, 1)[1]
    report(session, t, order=[a, b, c, d])
    versions = [pusoy_version(session, t.code)]
    for minutes, order in ((1, [b, a, c, d]), (2, [a, b, c, d])):
        _amend_first_game(session, t, order, None, NOW + timedelta(minutes=minutes))
        versions.append(pusoy_version(session, t.code))
    assert len(set(versions)) == 3 and None not in versions


def test_an_amendment_replaces_the_finishes_and_keeps_both_in_the_audit(session):
    """PD-6"""
    t = filled(session, 8)
    a, b, c, d = seating(session, t.id, 1)[1]
    report(session, t, order=[a, b, c, d])
    _amend_first_game(session, t, [b, a, c, d], b, NOW)
    stored = dict(
        session.execute(select(PusoyFinish.player, PusoyFinish.position).where(PusoyFinish.tournament_id == t.id)).all()
    )
    assert stored == {b: 1, a: 2, c: 3, d: 4}
    audit = session.scalars(
        select(PusoyGameAudit).where(PusoyGameAudit.tournament_id == t.id).order_by(PusoyGameAudit.id)
    ).all()
    assert [x.action for x in audit] == ["report", "amend"]
    assert audit[1].before == {"finishes": {a: 1, b: 2, c: 3, d: 4}, "two_of_diamonds": None}
    assert audit[1].after == {"finishes": {b: 1, a: 2, c: 3, d: 4}, "two_of_diamonds": b}
    assert audit[1].reason == "scores swapped" and audit[1].by == "floor"
    refused_call(
        session,
        "not-reported",
        pusoy_reports.amend,
        session,
        t.code,
        round_no=1,
        table=2,
        game=1,
        finishes=[(p, i) for i, p in enumerate(seating(session, t.id, 1)[2], start=1)],
        two_of_diamonds=None,
        now=NOW,
    )


def test_pd_5_a_round_completes_only_when_every_table_reported_every_game_then_locks(session):
    """PD-5"""
    t = filled(session, 8, games=2)
    assert not report(session, t, table=1, game=1).round_ready
    assert pusoy_rounds.complete_round(session, t.id, 1, NOW) is None
    report(session, t, table=1, game=2)
    report(session, t, table=2, game=1)
    assert report(session, t, table=2, game=2).round_ready
    assert pusoy_rounds.ready_rounds(session, t.id) == [(t.id, 1)]
    done = pusoy_rounds.complete_round(session, t.id, 1, NOW)
    assert done.outcome == "advanced" and len(done.advanced) == 4
    refused_call(
        session,
        "round-locked",
        pusoy_reports.amend,
        session,
        t.code,
        round_no=1,
        table=1,
        game=1,
        finishes=[(p, i) for i, p in enumerate(seating(session, t.id, 1)[1], start=1)],
        two_of_diamonds=None,
        now=NOW,
    )
    assert pusoy_rounds.complete_round(session, t.id, 1, NOW) is None


# -- completion, advancement, playoffs (PD-7..PD-10, PD-13) ------------------------------------


def test_pd_7_pd_10_the_worked_example_through_the_services(session):
    """PD-6, PD-7, PD-8, PD-10: B, E, A, G advance and sit at seats 1-4 of the final table."""
    t = filled(session, 8, games=2)
    roles = play(session, t, 1, WORKED_EXAMPLE)
    done = pusoy_rounds.complete_round(session, t.id, 1, NOW)
    assert done.outcome == "advanced"
    assert done.advanced == tuple(roles[r] for r in "BEAG")
    assert seating(session, t.id, 2) == {1: [roles[r] for r in "BEAG"]}
    rows = session.scalars(
        select(PusoyStanding).where(PusoyStanding.tournament_id == t.id).order_by(PusoyStanding.listed)
    ).all()
    by_role = {v: k for k, v in roles.items()}
    assert [(by_role[r.player], r.points, r.rank, r.decided_by, r.advanced) for r in rows] == [
        ("B", 6, 1, None, True),
        ("E", 5, 2, "points", True),
        ("A", 5, 3, "first-places-on-2d", True),
        ("G", 4, 4, "points", True),
        ("H", 2, 5, "points", False),
        ("F", 2, 6, "last-game-position", False),
        ("D", 1, 7, "points", False),
        ("C", 1, 8, "last-game-position", False),
    ]
    eliminated = dict(
        session.execute(
            select(PusoyEntry.player, PusoyEntry.final_position).where(
                PusoyEntry.tournament_id == t.id, PusoyEntry.left_round == 1
            )
        ).all()
    )
    assert {by_role[p]: pos for p, pos in eliminated.items()} == {"H": 5, "F": 6, "D": 7, "C": 8}


def test_pd_9_two_tied_for_one_spot_play_off(session):
    """PD-9"""
    t = filled(session, 8, games=2)
    roles = play(session, t, 1, TWO_FOR_ONE)
    done = pusoy_rounds.complete_round(session, t.id, 1, NOW)
    assert done.outcome == "playoff"
    assert sorted(p for table in done.playoff_tables for p in table) == sorted([roles["p02"], roles["p06"]])
    refused_call(session, "round-locked", report, session, t, table=1, game=1)
    (table,) = done.playoff_tables
    assert play_playoff(session, t, 1, 1, {1: [roles["p06"], roles["p02"]]}).round_ready
    done = pusoy_rounds.complete_round(session, t.id, 1, NOW)
    assert done.outcome == "advanced"
    assert done.advanced == tuple(roles[p] for p in ("p05", "p07", "p01", "p06"))
    final = {s.player: (s.rank, s.decided_by) for s in done.standings}
    assert final[roles["p06"]] == (4, "first-places") and final[roles["p02"]] == (5, "playoff-1")


def test_pd_9_three_tied_for_two_spots_play_one_table(session):
    """PD-9"""
    t = filled(session, 16, games=2)
    roles = play(session, t, 1, THREE_FOR_TWO)
    done = pusoy_rounds.complete_round(session, t.id, 1, NOW)
    assert done.outcome == "playoff" and len(done.playoff_tables) == 1
    assert sorted(done.playoff_tables[0]) == sorted(roles[p] for p in ("p03", "p09", "p15"))
    play_playoff(session, t, 1, 1, {1: [roles["p15"], roles["p03"], roles["p09"]]})
    done = pusoy_rounds.complete_round(session, t.id, 1, NOW)
    assert done.outcome == "advanced" and len(done.advanced) == 8
    assert roles["p15"] in done.advanced and roles["p03"] in done.advanced and roles["p09"] not in done.advanced


def test_pd_9_six_tied_for_three_spots_two_tables_and_a_playoff_that_ties_again(session):
    """PD-9: two playoff tables of three; both winners advance; the two seconds tie again on the
    cutoff and play a further playoff."""
    t = filled(session, 32, games=2, advancing=[8, 4])
    roles = play(session, t, 1, SIX_FOR_THREE)
    first = pusoy_rounds.complete_round(session, t.id, 1, NOW)
    assert first.outcome == "playoff" and sorted(len(x) for x in first.playoff_tables) == [3, 3]
    tied = sorted(roles[p] for p in ("p02", "p06", "p10", "p14", "p26", "p30"))
    assert sorted(p for x in first.playoff_tables for p in x) == tied
    play_playoff(session, t, 1, 1, {i: list(x) for i, x in enumerate(first.playoff_tables, start=1)})
    second = pusoy_rounds.complete_round(session, t.id, 1, NOW)
    seconds = sorted(x[1] for x in first.playoff_tables)
    assert second.outcome == "playoff" and second.playoff_tables[0] and sorted(second.playoff_tables[0]) == seconds
    play_playoff(session, t, 1, 2, {1: [seconds[1], seconds[0]]})
    done = pusoy_rounds.complete_round(session, t.id, 1, NOW)
    assert done.outcome == "advanced"
    assert {x[0] for x in first.playoff_tables} | {seconds[1]} <= set(done.advanced)
    assert seconds[0] not in done.advanced
    proof = pusoy_views.draw_proof(session, t.code)
    assert [d["purpose"] for d in proof if d["purpose"]] == [
        "round-1 seating",
        "round-1 playoff-1 tables",
        "round-1 playoff-2 tables",
        "round-2 reseat order",
    ]
    assert all(d["verified"] for d in proof if d["purpose"])


def test_pd_5_the_same_report_again_is_answered_with_the_first_and_counted_once(session):
    """PD-5 (a game server's retry): the same game reported again, even after its round locked,
    changes nothing and answers as the first did; another result for it is refused."""
    t = filled(session, 8)
    assert not report(session, t).repeated
    before = contents(session)
    again = report(session, t)
    assert again.repeated and not again.round_ready and contents(session) == before
    assert report(session, t, table=2).round_ready
    pusoy_rounds.complete_round(session, t.id, 1, NOW)
    assert report(session, t).repeated  # the round has locked: a late retry still gets its answer
