"""Players, structures, tournaments, registration and fees on the real PostgreSQL (Sport Poker 1.2.1, 1.6.1, 3.1, 3.4, 3.5, 3.9,
3.10; SP-1, SP-2). Bad input: a specific code and nothing written."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from sqlalchemy import select

from domain.errors import DomainError
from domain.poker.rules.settings import TournamentSettings
from domain.poker.services import entries as poker_entries
from domain.poker.services import fees as poker_fees
from domain.poker.services import players as poker_players
from domain.poker.services import structures as poker_structures
from domain.poker.services import tournaments as poker_tournaments
from domain.poker.tables.tournaments import (
    AuditEvent,
    Fee,
    Player,
    Registration,
    Tournament,
)
from tests.support.db import refused_call, row_counts
from tests.support.world import (
    NOW,
    SERVICE_LEVELS,
    START,
    S,
    bust,
    checked_in,
    club,
    player,
    tournament_through_services,
)

# -- players -----------------------------------------------------------------------------------------


def test_1_2_1_a_player_under_18_is_refused(session):
    refused_call(session, "player-under-18", poker_players.add_player, session, "Kid", "kid", date(2008, 12, 5), NOW)
    poker_players.add_player(session, "Adult", "adult", date(2008, 12, 4), NOW)


def test_1_5_3_a_blocked_player_cannot_register(session):
    tid, pid = tournament_through_services(session), player(session).id
    poker_players.block_player(session, pid, "false date of birth", NOW)
    refused_call(session, "player-blocked", poker_entries.register, session, tid, pid, NOW)
    poker_players.unblock_player(session, pid, NOW)
    assert poker_entries.register(session, tid, pid, NOW).status == "active"


def test_1_6_1_forgetting_erases_the_profile_and_keeps_fees_under_the_pseudonym(session):
    tid, pid = tournament_through_services(session), player(session, handle="ghost").id
    checked_in(session, tid, pid)
    p = poker_players.forget_player(session, "ghost", NOW)
    assert (p.name, p.handle, p.birth_date) == (None, None, None)
    assert poker_fees.debts(session, tid) == [
        {"player_id": pid, "player": p.pseudonym, "owed": 150000, "currency": "RUB", "fees": 1, "kinds": ["buy_in"]}
    ]
    assert poker_players.forget_player(session, pid, NOW).forgotten_at == NOW
    refused_call(
        session,
        "player-forgotten",
        poker_entries.register,
        session,
        tournament_through_services(session, start=START + timedelta(days=9)),
        pid,
        NOW,
    )
    with pytest.raises(DomainError):
        poker_players.find_player(session, "ghost")


def test_handles_are_unique_whatever_their_case(session):
    player(session, handle="ace")
    refused_call(session, "handle-taken", poker_players.add_player, session, "Other", "ACE", date(1990, 1, 1), NOW)


# -- structures and settings ---------------------------------------------------------------------------


def test_3_5_a_structure_is_stored_in_order_and_shown_with_its_total(session):
    c = club(session, fresh=True, at=NOW)
    s = poker_structures.import_structure(session, c.id, "Deep", "bb_ante", SERVICE_LEVELS, NOW)
    view = poker_structures.structure_view(session, s.id)
    assert view["total_minutes"] == 135 and [lv["break"] for lv in view["levels"]] == [False, False, True, False, False]
    refused_call(
        session,
        "structure-exists",
        poker_structures.import_structure,
        session,
        c.id,
        "Deep",
        "none",
        SERVICE_LEVELS,
        NOW,
    )


@pytest.mark.parametrize(
    "changes, code",
    [
        ({"seat_cap": 1}, "seat-cap-out-of-range"),
        ({"seat_cap": 11}, "seat-cap-out-of-range"),
        ({"late_reg_deadline": START - S}, "late-registration-before-start"),
        ({"reentry_deadline": START + timedelta(hours=1) - S}, "reentry-before-late-registration"),
        ({"buy_in": -1}, "amount-negative"),
        ({"rebuy_amount": 0.5}, "amount-fractional"),
        ({"currency": "XXY"}, "currency-unknown"),
    ],
)
def test_3_9_and_sp_1_bad_settings_are_refused_with_their_code_and_nothing_written(session, changes, code):
    tid = tournament_through_services(session, status="draft")
    refused_call(session, code, poker_tournaments.edit_tournament, session, tid, changes, NOW)
    assert session.get(Tournament, tid).seat_cap == 9


def test_3_9_bad_settings_at_creation_write_nothing(session):
    c = club(session, fresh=True, at=NOW)
    s = poker_structures.import_structure(session, c.id, "X", "none", SERVICE_LEVELS, NOW)
    bad = TournamentSettings(name="X", scheduled_start=START, starting_stack=1, currency="RUB", buy_in=1, seat_cap=11)
    refused_call(session, "seat-cap-out-of-range", poker_tournaments.create_tournament, session, c.id, s.id, bad, NOW)


@pytest.mark.parametrize("status", ["running", "finished", "cancelled"])
def test_3_9_an_edit_after_the_start_is_refused(session, status):
    tid = tournament_through_services(session, status="running")
    if status != "running":
        poker_tournaments.change_status(session, tid, "finish" if status == "finished" else "cancel", NOW)
    refused_call(session, "settings-frozen", poker_tournaments.edit_tournament, session, tid, {"name": "Renamed"}, NOW)


@pytest.mark.parametrize("status", ["draft", "registration_open"])
def test_3_9_settings_change_before_the_start(session, status):
    tid = tournament_through_services(session, status=status)
    poker_tournaments.edit_tournament(session, tid, {"seat_cap": 6, "rebuy_amount": 100000}, NOW)
    t = session.get(Tournament, tid)
    assert (t.seat_cap, t.rebuy_amount) == (6, 100000)


def test_3_9_the_lifecycle_refuses_skipping_a_step(session):
    tid = tournament_through_services(session, status="draft")
    refused_call(session, "cannot-start", poker_tournaments.change_status, session, tid, "start", NOW)
    assert [poker_tournaments.change_status(session, tid, a, NOW).status for a in ("open", "start", "finish")] == [
        "registration_open",
        "running",
        "finished",
    ]
    refused_call(session, "cannot-cancel", poker_tournaments.change_status, session, tid, "cancel", NOW)


# -- registration (3.10, SP-2) -------------------------------------------------------------------------


def test_sp_2_a_second_registration_in_an_overlapping_tournament_is_refused(session):
    c = club(session, fresh=True, at=NOW)
    first = tournament_through_services(session, c.id)
    overlapping = tournament_through_services(session, c.id, start=START + timedelta(hours=2, minutes=15) - S)
    back_to_back = tournament_through_services(session, c.id, start=START + timedelta(hours=2, minutes=15))
    pid = player(session).id
    poker_entries.register(session, first, pid, NOW)
    refused_call(session, "registration-overlaps", poker_entries.register, session, overlapping, pid, NOW)
    assert poker_entries.register(session, back_to_back, pid, NOW).status == "active"


def test_sp_2_a_withdrawn_registration_no_longer_blocks(session):
    c = club(session, fresh=True, at=NOW)
    a, b = tournament_through_services(session, c.id), tournament_through_services(session, c.id)
    pid = player(session).id
    poker_entries.register(session, a, pid, NOW)
    poker_entries.unregister(session, a, pid, NOW)
    assert poker_entries.register(session, b, pid, NOW).status == "active"


@pytest.mark.parametrize(
    "offset, code", [(-S, None), (timedelta(0), "late-registration-closed"), (S, "late-registration-closed")]
)
def test_3_10_late_registration_by_the_regular_buy_in_until_its_deadline(session, offset, code):
    tid = tournament_through_services(session, status="running")
    pid = player(session).id
    at = START + timedelta(hours=1) + offset
    if code:
        refused_call(session, code, poker_entries.register, session, tid, pid, at)
        return
    reg = poker_entries.register(session, tid, pid, at)
    entry = poker_entries.check_in(session, tid, pid, at)
    assert reg.late and entry.sequence == 1
    assert [(f.kind, f.amount) for f in session.scalars(select(Fee).where(Fee.player_id == pid))] == [
        ("buy_in", 150000)
    ]


def test_3_10_check_in_opens_the_first_entry_and_records_the_buy_in_as_debt(session):
    tid, pid = tournament_through_services(session), player(session).id
    entry = checked_in(session, tid, pid)
    assert (entry.sequence, entry.state, entry.starting_chips, entry.previous_entry_id) == (1, "active", 20000, None)
    assert session.get(Registration, entry.registration_id).checked_in_at == NOW
    assert poker_fees.debts(session, tid)[0]["owed"] == 150000
    refused_call(session, "already-checked-in", poker_entries.check_in, session, tid, pid, NOW)
    refused_call(session, "unregister-after-check-in", poker_entries.unregister, session, tid, pid, NOW)


def test_3_10_registration_is_refused_in_draft_and_twice(session):
    tid, pid = tournament_through_services(session, status="draft"), player(session).id
    refused_call(session, "registration-not-open", poker_entries.register, session, tid, pid, NOW)
    poker_tournaments.change_status(session, tid, "open", NOW)
    poker_entries.register(session, tid, pid, NOW)
    refused_call(session, "already-registered", poker_entries.register, session, tid, pid, NOW)


def test_3_10_a_freeroll_check_in_owes_nothing(session):
    tid, pid = tournament_through_services(session, buy_in=0), player(session).id
    checked_in(session, tid, pid)
    assert poker_fees.debts(session, tid) == []


# -- top-ups (3.1) ------------------------------------------------------------------------------------


def test_3_1_a_rebuy_tops_up_the_current_entry_until_the_finish(session):
    tid = tournament_through_services(session, status="running", rebuy_amount=100000)
    pid = player(session).id
    entry = checked_in(session, tid, pid, START)
    top = poker_entries.rebuy(session, tid, pid, START + timedelta(hours=5))
    assert (top.entry_id, top.kind, top.chips) == (entry.id, "rebuy", 20000)
    poker_tournaments.change_status(session, tid, "finish", START + timedelta(hours=6))
    refused_call(session, "rebuy-tournament-over", poker_entries.rebuy, session, tid, pid, START + timedelta(hours=6))


@pytest.mark.parametrize(
    "offset, code", [(-S, None), (timedelta(0), "reentry-window-closed"), (S, "reentry-window-closed")]
)
def test_3_1_reentry_after_a_bust_within_its_deadline(session, offset, code):
    deadline = START + timedelta(hours=2)
    tid = tournament_through_services(session, status="running", reentry_amount=120000, reentry_deadline=deadline)
    pid = player(session).id
    first = checked_in(session, tid, pid, START)
    refused_call(session, "reentry-without-bust", poker_entries.reenter, session, tid, pid, START + S)
    bust(session, first.id, START + timedelta(minutes=30))
    if code:
        refused_call(session, code, poker_entries.reenter, session, tid, pid, deadline + offset)
        return
    second = poker_entries.reenter(session, tid, pid, deadline + offset)
    assert (second.sequence, second.previous_entry_id, second.state) == (2, first.id, "active")
    assert [(f.kind, f.amount) for f in session.scalars(select(Fee).where(Fee.player_id == pid).order_by(Fee.id))] == [
        ("buy_in", 150000),
        ("reentry", 120000),
    ]


def test_3_1_reentry_costs_the_rebuy_amount_when_no_reentry_amount_is_set(session):
    tid = tournament_through_services(session, status="running", rebuy_amount=90000)
    pid = player(session).id
    bust(session, checked_in(session, tid, pid, START).id, START + S)
    poker_entries.reenter(session, tid, pid, START + timedelta(minutes=5))
    assert poker_fees.debts(session, tid)[0]["owed"] == 240000


@pytest.mark.parametrize(
    "offset, code", [(-S, None), (timedelta(0), "addon-window-closed"), (S, "addon-window-closed")]
)
def test_3_1_an_addon_within_its_deadline_once(session, offset, code):
    deadline = START + timedelta(hours=2)
    tid = tournament_through_services(
        session, status="running", addon_amount=50000, addon_chips=30000, addon_deadline=deadline
    )
    pid = player(session).id
    checked_in(session, tid, pid, START)
    if code:
        refused_call(session, code, poker_entries.add_on, session, tid, pid, deadline + offset)
        return
    top = poker_entries.add_on(session, tid, pid, deadline + offset)
    assert (top.kind, top.chips) == ("addon", 30000)
    refused_call(session, "addon-already-taken", poker_entries.add_on, session, tid, pid, deadline + offset)


def test_3_1_an_addon_at_the_nth_break(session):
    tid = tournament_through_services(session, status="running", addon_amount=50000, addon_break=1)
    pid = player(session).id
    checked_in(session, tid, pid, START)
    refused_call(session, "addon-window-closed", poker_entries.add_on, session, tid, pid, START, breaks_reached=0)
    assert poker_entries.add_on(session, tid, pid, START, breaks_reached=1).chips == 20000


# -- settlement (3.4) ---------------------------------------------------------------------------------


def test_3_4_settling_closes_every_unpaid_fee_with_one_record_and_again_changes_nothing(session):
    tid = tournament_through_services(session, status="running", rebuy_amount=100000)
    pid = player(session).id
    checked_in(session, tid, pid, START)
    poker_entries.rebuy(session, tid, pid, START + S)
    s = poker_fees.settle(session, tid, pid, "card", "Olga", START + timedelta(hours=1))
    assert (s.amount, s.currency, s.method, s.settled_by, s.settled_at) == (
        250000,
        "RUB",
        "card",
        "Olga",
        START + timedelta(hours=1),
    )
    assert poker_fees.debts(session, tid) == []
    before = row_counts(session)
    assert poker_fees.settle(session, tid, pid, "card", "Olga", START + timedelta(hours=2)) is None
    assert row_counts(session) == before


def test_3_4_voiding_a_settlement_returns_the_debt_and_keeps_the_record(session):
    tid, pid = tournament_through_services(session), player(session).id
    checked_in(session, tid, pid)
    s = poker_fees.settle(session, tid, pid, "cash", "Olga", NOW)
    voided = poker_fees.void_settlement(session, s.id, "Igor", "wrong player", NOW + S)
    assert (voided.voided_by, voided.void_reason) == ("Igor", "wrong player")
    assert poker_fees.debts(session, tid)[0]["owed"] == 150000
    refused_call(session, "settlement-already-voided", poker_fees.void_settlement, session, s.id, "Igor", "again", NOW)
    again = poker_fees.settle(session, tid, pid, "cash", "Olga", NOW + 2 * S)
    assert again.id != s.id and again.amount == 150000


@pytest.mark.parametrize("status", ["draft", "registration_open", "running", "finished"])
def test_3_4_settling_is_allowed_in_every_status_but_cancelled(session, status):
    tid, pid = tournament_through_services(session), player(session).id
    checked_in(session, tid, pid)
    if status in ("running", "finished"):
        poker_tournaments.change_status(session, tid, "start", NOW)
    if status == "finished":
        poker_tournaments.change_status(session, tid, "finish", NOW)
    if status == "draft":  # a draft has no entries: settling owes nothing and writes nothing
        tid = tournament_through_services(session, status="draft")
        assert poker_fees.settle(session, tid, pid, "cash", "Olga", NOW) is None
        return
    assert poker_fees.settle(session, tid, pid, "cash", "Olga", NOW).amount == 150000


def test_3_4_settling_in_a_cancelled_tournament_is_refused(session):
    tid, pid = tournament_through_services(session), player(session).id
    checked_in(session, tid, pid)
    poker_tournaments.change_status(session, tid, "cancel", NOW)
    refused_call(session, "settlement-tournament-cancelled", poker_fees.settle, session, tid, pid, "cash", "Olga", NOW)
    refused_call(session, "settlement-tournament-cancelled", poker_fees.settle_all, session, tid, "cash", "Olga", NOW)


def test_3_4_settle_all_closes_every_debtor_in_one_batch(session):
    tid = tournament_through_services(session, status="running", rebuy_amount=100000)
    pids = [player(session).id for _ in range(3)]
    for pid in pids:
        checked_in(session, tid, pid, START)
    poker_entries.rebuy(session, tid, pids[0], START + S)
    made = poker_fees.settle_all(session, tid, "cash", "Olga", START + timedelta(hours=1))
    assert [(p, a) for _, p, a in made] == [(pids[0], 250000), (pids[1], 150000), (pids[2], 150000)]
    assert sorted(made) == made  # the settlements' ids in the players' order, so the desk lists one batch one way
    assert poker_fees.debts(session, tid) == []
    assert poker_fees.settle_all(session, tid, "cash", "Olga", START + timedelta(hours=2)) == []


def test_the_audit_trail_records_every_fee_topup_and_settlement(session):
    tid = tournament_through_services(session, status="running", rebuy_amount=100000)
    pid = player(session).id
    checked_in(session, tid, pid, START)
    poker_entries.rebuy(session, tid, pid, START + S)
    s = poker_fees.settle(session, tid, pid, "cash", "Olga", START + 2 * S)
    poker_fees.void_settlement(session, s.id, "Igor", "typo", START + 3 * S)
    kinds = session.scalars(
        select(AuditEvent.kind)
        .where(AuditEvent.tournament_id == tid, AuditEvent.player_id == pid)
        .order_by(AuditEvent.id)
    ).all()
    assert kinds == [
        "registered",
        "entry-opened",
        "fee-charged",
        "topup",
        "fee-charged",
        "settled",
        "settlement-voided",
    ]


def test_sp_2_moving_a_tournament_onto_a_registrants_other_tournament_is_refused(session):
    c = club(session, fresh=True, at=NOW)
    a, b = (
        tournament_through_services(session, c.id),
        tournament_through_services(session, c.id, start=START + timedelta(hours=3)),
    )
    pid = player(session).id
    poker_entries.register(session, a, pid, NOW)
    poker_entries.register(session, b, pid, NOW)
    refused_call(
        session,
        "edit-creates-overlap",
        poker_tournaments.edit_tournament,
        session,
        b,
        {
            "scheduled_start": START + timedelta(hours=2, minutes=15) - S,
            "late_reg_deadline": START + timedelta(hours=4),
        },
        NOW,
    )
    poker_tournaments.edit_tournament(session, b, {"scheduled_start": START + timedelta(hours=2, minutes=15)}, NOW)


def test_3_5_a_tournament_uses_a_structure_of_its_own_club_and_a_listed_club(session):
    a, b = club(session, fresh=True, at=NOW), club(session, fresh=True, at=NOW)
    theirs = poker_structures.import_structure(session, b.id, "Theirs", "none", SERVICE_LEVELS, NOW)
    s = TournamentSettings(name="X", scheduled_start=START, starting_stack=20000, currency="RUB", buy_in=0)
    refused_call(session, "structure-other-club", poker_tournaments.create_tournament, session, a.id, theirs.id, s, NOW)
    b.listing_status = "suspended"
    session.flush()
    refused_call(session, "club-not-listed", poker_tournaments.create_tournament, session, b.id, theirs.id, s, NOW)


def test_1_2_1_registration_is_refused_to_a_profile_under_18_on_the_day(session):
    """A profile that came in under 18 (e.g. imported) is refused at registration until the birthday."""
    tid = tournament_through_services(session)
    young = Player(pseudonym="Player-young", name="Young", handle="young", birth_date=date(2008, 12, 5), created_at=NOW)
    session.add(young)
    session.flush()
    refused_call(session, "player-under-18", poker_entries.register, session, tid, young.id, NOW)
    young.birth_date = date(2008, 12, 4)
    assert poker_entries.register(session, tid, young.id, NOW).status == "active"
