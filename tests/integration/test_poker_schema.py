"""The live-poker schema as migrated matches the models, and the database itself backs the
invariants a race or a bad write could break (SP-1, 3.5, 3.6, 3.9, 3.4)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import text

from domain.clubs.tables import Club
from domain.poker.tables.tournaments import (
    AuditEvent,
    Entry,
    Level,
    Player,
    Registration,
    Structure,
    Tournament,
)
from tests.support.db import refused

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.fixture
def tournament(session) -> Tournament:
    club = Club(
        name="Pik",
        legal_form="legal_entity",
        inn="7707083893",
        ogrn="1027700132195",
        contact_email="floor@example.org",
        timezone="Europe/Moscow",
        created_at=NOW,
        updated_at=NOW,
    )
    session.add(club)
    session.flush()
    structure = Structure(club_id=club.id, name="Turbo", ante_type="none", created_at=NOW)
    session.add(structure)
    session.flush()
    t = Tournament(
        club_id=club.id,
        name="Friday",
        status="draft",
        scheduled_start=NOW,
        format="freezeout",
        bounty_type="none",
        mystery_draw=False,
        starting_stack=20000,
        structure_id=structure.id,
        seat_cap=9,
        addon_once=True,
        currency="RUB",
        buy_in=150000,
        no_show_policy="drop",
        itm_percent=15,
        itm_min=1,
        created_at=NOW,
    )
    session.add(t)
    session.flush()
    return t


def test_3_6_the_database_refuses_a_seat_cap_outside_2_to_10(session, tournament):
    for cap in (1, 11):
        refused(
            session,
            "ck_poker_tournaments_seat_cap",
            "UPDATE poker_tournaments SET seat_cap = :cap WHERE id = :id",
            cap=cap,
            id=tournament.id,
        )


def test_3_9_the_database_refuses_a_late_registration_deadline_at_the_start(session, tournament):
    refused(
        session,
        "ck_poker_tournaments_late_reg_after_start",
        "UPDATE poker_tournaments SET late_reg_deadline = scheduled_start WHERE id = :id",
        id=tournament.id,
    )


def test_sp_1_the_database_refuses_negative_amounts_and_lowercase_currency(session, tournament):
    refused(
        session,
        "ck_poker_tournaments_amounts",
        "UPDATE poker_tournaments SET buy_in = -1 WHERE id = :id",
        id=tournament.id,
    )
    refused(
        session,
        "ck_poker_tournaments_currency",
        "UPDATE poker_tournaments SET currency = 'rub' WHERE id = :id",
        id=tournament.id,
    )


def test_3_5_the_database_refuses_a_play_level_with_big_below_small_and_a_break_with_blinds(session, tournament):
    base = "INSERT INTO poker_levels (structure_id, position, small_blind, big_blind, ante, duration_seconds, is_break)"
    refused(
        session, "ck_poker_levels_blinds", base + " VALUES (:s, 1, 200, 100, 0, 600, false)", s=tournament.structure_id
    )
    refused(
        session, "ck_poker_levels_blinds", base + " VALUES (:s, 1, 100, 200, 0, 600, true)", s=tournament.structure_id
    )
    refused(
        session,
        "ck_poker_levels_duration_positive",
        base + " VALUES (:s, 1, 100, 200, 0, 0, false)",
        s=tournament.structure_id,
    )
    session.add(
        Level(
            structure_id=tournament.structure_id,
            position=1,
            small_blind=100,
            big_blind=100,
            ante=0,
            duration_seconds=600,
            is_break=False,
        )
    )
    session.flush()


def test_a_player_may_hold_one_active_registration_and_one_active_entry_per_tournament(session, tournament):
    p = Player(pseudonym="Player 1a2b", name="Anna", handle="anna", birth_date=date(1990, 1, 1), created_at=NOW)
    session.add(p)
    session.flush()
    reg = Registration(tournament_id=tournament.id, player_id=p.id, status="active", late=False, registered_at=NOW)
    session.add(reg)
    session.flush()
    refused(
        session,
        "uq_poker_registrations_active",
        "INSERT INTO poker_registrations (tournament_id, player_id, status, late, registered_at)"
        " VALUES (:t, :p, 'active', false, now())",
        t=tournament.id,
        p=p.id,
    )
    session.add(
        Entry(
            tournament_id=tournament.id,
            player_id=p.id,
            registration_id=reg.id,
            sequence=1,
            state="active",
            starting_chips=20000,
            created_at=NOW,
        )
    )
    session.flush()
    refused(
        session,
        "uq_poker_entries_one_active",
        "INSERT INTO poker_entries (tournament_id, player_id, registration_id, sequence, previous_entry_id, state,"
        " starting_chips, created_at) SELECT :t, :p, :r, 2, id, 'active', 20000, now() FROM poker_entries",
        t=tournament.id,
        p=p.id,
        r=reg.id,
    )


def test_handles_are_unique_whatever_their_case(session):
    session.add(Player(pseudonym="Player aaaa", name="A", handle="Ace", birth_date=date(1990, 1, 1), created_at=NOW))
    session.flush()
    refused(
        session,
        "uq_players_handle_lower",
        "INSERT INTO players (pseudonym, name, handle, birth_date, created_at)"
        " VALUES ('Player bbbb', 'B', 'ace', '1990-01-01', now())",
    )


def test_the_audit_trail_refuses_updates_and_deletes(session, tournament):
    session.add(AuditEvent(tournament_id=tournament.id, kind="fee", at=NOW, data={"amount": 1}))
    session.flush()
    refused(session, "poker_audit is append-only: UPDATE refused", "UPDATE poker_audit SET kind = 'x'")
    refused(session, "poker_audit is append-only: DELETE refused", "DELETE FROM poker_audit")
    assert session.execute(text("SELECT count(*) FROM poker_audit")).scalar_one() == 1


def test_deadlines_may_be_equal_for_reentry_and_late_registration(session, tournament):
    tournament.late_reg_deadline = NOW + timedelta(hours=1)
    tournament.reentry_deadline = NOW + timedelta(hours=1)
    session.flush()
