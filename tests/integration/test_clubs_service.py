"""The catalog, applications, moderation and the operator's powers on the real PostgreSQL
(CL-1, CL-3, CL-4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from domain.clubs.rules.catalog import NewClub
from domain.clubs.services import clubs as service
from domain.clubs.tables import Club, ClubDecision
from domain.errors import DomainError

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
SBER = NewClub("Sber Poker", "legal_entity", "7707083893", "1027700132195", "results@sber.example", "Europe/Moscow")


def _counts(session) -> tuple[int, int]:
    return (
        session.scalar(select(func.count()).select_from(Club)),
        session.scalar(select(func.count()).select_from(ClubDecision)),
    )


def _actions(session, club_id) -> list[tuple]:
    return [
        (d.action, d.verification_status, d.listing_status, d.source, d.actor, d.reason)
        for d in service.history(session, club_id)
    ]


def test_a_new_club_is_listed_unverified_with_a_create_entry(session):
    club = service.add_club(session, SBER, NOW)
    assert (club.name, club.listing_status, club.verification_status, club.timezone) == (
        "Sber Poker",
        "listed",
        "unverified",
        "Europe/Moscow",
    )
    assert _actions(session, club.id) == [("create", "unverified", "listed", "operator", "operator", None)]


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"inn": "7707083894"}, "inn-check-digit"),
        ({"inn": "77070838"}, "inn-length"),
        ({"inn": "77070838AB"}, "inn-not-digits"),
        ({"ogrn": "1027700132196"}, "ogrn-check-digit"),
        ({"inn": "500100732259"}, "inn-form-mismatch"),
        ({"timezone": "Moscow"}, "timezone-unknown"),
        ({"contact_email": "sber"}, "email-invalid"),
        ({"name": " "}, "name-missing"),
    ],
)
def test_cl_1_bad_details_are_refused_with_a_specific_code_and_nothing_is_written(session, changes, code):
    values = {**SBER.__dict__, **changes}
    with pytest.raises(DomainError) as caught:
        service.add_club(session, NewClub(**values), NOW)
    assert caught.value.code == code
    assert _counts(session) == (0, 0)


def test_an_inn_already_listed_by_another_club_is_refused_and_nothing_more_is_written(session):
    first = service.add_club(session, SBER, NOW)
    other = NewClub("Copycat", "legal_entity", "7707083893", "1027700229193", "x@y.example", "Europe/Moscow")
    with pytest.raises(DomainError) as caught:
        service.add_club(session, other, NOW)
    assert (caught.value.code, caught.value.message) == (
        "inn-taken",
        f"INN 7707083893 is already listed by club {first.id} (Sber Poker)",
    )
    assert _counts(session) == (1, 1)


def test_cl_3_without_a_provider_an_application_goes_straight_to_the_moderator_queue(session):
    club = service.add_club(session, SBER, NOW)
    service.apply(session, club.id, NOW, provider_configured=False)
    assert [c.id for c in service.moderation_queue(session)] == [club.id]
    assert (club.verification_status, club.application_no, club.queued_at) == ("pending", 1, NOW)
    assert _actions(session, club.id)[1:] == [
        ("apply", "pending", "listed", "club", "club", None),
        ("queue", "pending", "listed", "registry", "none configured", service.NO_PROVIDER),
    ]


def test_cl_3_a_moderator_approves_from_the_queue_and_the_decision_is_audited(session):
    club = service.add_club(session, SBER, NOW)
    service.apply(session, club.id, NOW, provider_configured=False)
    later = NOW + timedelta(hours=2)
    service.approve(session, club.id, "anna", "EGRUL extract checked", later)
    assert (club.verification_status, club.verified_at, club.queued_at) == ("verified", later, None)
    assert service.moderation_queue(session) == []
    decision = service.history(session, club.id)[-1]
    assert (decision.action, decision.source, decision.actor, decision.reason, decision.decided_at) == (
        "verify",
        "moderator",
        "anna",
        "EGRUL extract checked",
        later,
    )


def test_cl_3_a_refusal_needs_a_reason_and_a_refused_club_may_apply_again(session):
    club = service.add_club(session, SBER, NOW)
    service.apply(session, club.id, NOW, provider_configured=False)
    with pytest.raises(DomainError) as caught:
        service.refuse(session, club.id, "anna", "  ", NOW)
    assert caught.value.code == "reason-missing"
    service.refuse(session, club.id, "anna", "the OGRN on the form differs", NOW)
    assert (club.verification_status, club.verification_reason) == ("refused", "the OGRN on the form differs")
    service.apply(session, club.id, NOW, provider_configured=True)
    assert (club.verification_status, club.application_no, club.queued_at) == ("pending", 2, None)


def test_cl_4_the_operator_revokes_suspends_and_terminates_with_reasons(session):
    club = service.add_club(session, SBER, NOW)
    service.apply(session, club.id, NOW, provider_configured=False)
    service.approve(session, club.id, "anna", None, NOW)
    service.revoke(session, club.id, "oleg", "complaint 17: events for money", NOW)
    service.suspend(session, club.id, "oleg", "under investigation", NOW)
    service.terminate(session, club.id, "oleg", "confirmed", NOW)
    assert (club.verification_status, club.listing_status, club.listing_reason) == (
        "revoked",
        "terminated",
        "confirmed",
    )
    assert [a[:3] for a in _actions(session, club.id)][-3:] == [
        ("revoke", "revoked", "listed"),
        ("suspend", "revoked", "suspended"),
        ("terminate", "revoked", "terminated"),
    ]
    with pytest.raises(DomainError) as caught:
        service.apply(session, club.id, NOW, provider_configured=True)
    assert caught.value.code == "cannot-apply"


def test_cl_4_a_suspended_club_is_reinstated_with_a_reason_and_may_list_tournaments_again(session):
    club = service.add_club(session, SBER, NOW)
    service.suspend(session, club.id, "oleg", "under investigation", NOW)
    with pytest.raises(DomainError) as caught:
        service.reinstate(session, club.id, "oleg", "  ", NOW)
    assert (caught.value.code, caught.value.message) == ("reason-missing", "a reason is required to reinstate a club")
    service.reinstate(session, club.id, "oleg", "investigation closed: no fault", NOW)
    assert (club.listing_status, club.listing_reason) == ("listed", "investigation closed: no fault")
    assert _actions(session, club.id)[-2:] == [
        ("suspend", "unverified", "suspended", "operator", "oleg", "under investigation"),
        ("reinstate", "unverified", "listed", "operator", "oleg", "investigation closed: no fault"),
    ]
    with pytest.raises(DomainError) as caught:
        service.reinstate(session, club.id, "oleg", "again", NOW)
    assert caught.value.code == "cannot-reinstate"


def test_cl_4_only_a_verified_club_can_be_revoked_and_nothing_is_written_otherwise(session):
    club = service.add_club(session, SBER, NOW)
    with pytest.raises(DomainError) as caught:
        service.revoke(session, club.id, "oleg", "why not", NOW)
    assert (caught.value.code, caught.value.message) == (
        "cannot-revoke",
        "the club is unverified: only a verified club can lose its status",
    )
    assert club.verification_status == "unverified"
    assert _counts(session) == (1, 1)


def test_an_unknown_club_is_not_found(session):
    with pytest.raises(DomainError) as caught:
        service.approve(session, 424242, "anna", None, NOW)
    assert (caught.value.code, caught.value.message) == ("club-not-found", "there is no club 424242")
