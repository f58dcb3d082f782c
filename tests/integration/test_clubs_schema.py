"""The database backs the catalog's invariants (tests/integration/test_schema.py compares the clubs
tables, with every other, to the models)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from domain.clubs.tables import Club
from tests.support.db import refused_by

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _club(**overrides) -> Club:
    values = dict(
        name="Sber Poker",
        legal_form="legal_entity",
        inn="7707083893",
        ogrn="1027700132195",
        contact_email="results@example.org",
        timezone="Europe/Moscow",
        created_at=NOW,
        updated_at=NOW,
    )
    values.update(overrides)
    return Club(**values)


def test_a_club_gets_an_identity_id_and_starts_listed_and_unverified(session):
    club = _club()
    session.add(club)
    session.flush()
    session.refresh(club)
    assert club.id >= 1
    assert (club.listing_status, club.verification_status, club.attempts) == ("listed", "unverified", 0)


@pytest.mark.parametrize(
    "overrides, constraint",
    [
        ({"inn": "770708389"}, "ck_clubs_identifiers_match_form"),
        ({"legal_form": "entrepreneur"}, "ck_clubs_identifiers_match_form"),
        ({"ogrn": "102770013219"}, "ck_clubs_identifiers_match_form"),
        ({"contact_email": "nobody"}, "ck_clubs_contact_email"),
        ({"verification_status": "maybe"}, "ck_clubs_verification_status"),
        ({"queued_at": NOW}, "ck_clubs_queue_is_pending"),
    ],
)
def test_the_database_refuses_a_row_breaking_the_catalog_rules(session, overrides, constraint):
    """CL-1: each rule by its own constraint."""
    session.add(_club(**overrides))
    with refused_by(constraint), session.begin_nested():
        session.flush()


def test_the_database_refuses_a_second_club_with_the_same_inn(session):
    session.add(_club())
    session.flush()
    session.add(_club(ogrn="1027700229193"))
    with refused_by("uq_clubs_inn"), session.begin_nested():
        session.flush()
