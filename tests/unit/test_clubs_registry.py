"""CL-2: deciding an application from the registry's answer; CL-3/CL-4: status transitions."""

from __future__ import annotations

import pytest

from domain.clubs.rules.registry import Outcome, decide
from domain.clubs.rules.status import (
    Action,
    Listing,
    State,
    Verification,
    transition,
    transition_problems,
)
from domain.errors import DomainError
from tests.clubs_registry_data import answer, party

SBER = ("legal_entity", "7707083893", "1027700132195")
IP = ("entrepreneur", "500100732259", "304500116000157")


def test_cl_2_the_active_head_office_with_that_inn_and_ogrn_verifies():
    decision = decide(*SBER, answer(party("7707083893", "1027700132195")))
    assert (decision.outcome, decision.reason) == (Outcome.VERIFY, "matches the registry: ПАО СБЕРБАНК, ACTIVE")


def test_cl_2_the_head_office_verifies_among_its_branches():
    raw = answer(
        party("7707083893", "1027700132195", branch_type="BRANCH", kpp="540602001"),
        party("7707083893", "1027700132195"),
    )
    assert decide(*SBER, raw).outcome is Outcome.VERIFY


def test_cl_2_an_active_entrepreneur_verifies_by_fio():
    raw = answer(party("500100732259", "304500116000157", kind="INDIVIDUAL", name="Иванов Иван Иванович"))
    decision = decide(*IP, raw)
    assert (decision.outcome, decision.reason) == (Outcome.VERIFY, "matches the registry: Иванов Иван Иванович, ACTIVE")


@pytest.mark.parametrize(
    ("status", "reason"),
    [
        ("LIQUIDATING", "ПАО СБЕРБАНК is being liquidated (LIQUIDATING)"),
        ("LIQUIDATED", "ПАО СБЕРБАНК has been liquidated (LIQUIDATED)"),
        ("BANKRUPT", "ПАО СБЕРБАНК is bankrupt (BANKRUPT)"),
        ("REORGANIZING", "ПАО СБЕРБАНК is being reorganised (REORGANIZING)"),
    ],
)
def test_cl_2_a_head_office_not_active_is_refused_with_its_state(status, reason):
    decision = decide(*SBER, answer(party("7707083893", "1027700132195", status=status)))
    assert (decision.outcome, decision.reason) == (Outcome.REFUSE, reason)


def test_cl_2_an_inn_the_registry_does_not_know_is_refused_as_not_found():
    decision = decide(*SBER, answer())
    assert (decision.outcome, decision.reason) == (Outcome.REFUSE, "INN 7707083893 is not found in the registry")


def test_cl_2_an_ogrn_of_another_entity_is_refused():
    decision = decide("legal_entity", "7707083893", "1027700229193", answer(party("7707083893", "1027700132195")))
    assert (decision.outcome, decision.reason) == (
        Outcome.REFUSE,
        "OGRN 1027700229193 belongs to another entity: the registry lists INN 7707083893 with OGRN 1027700132195",
    )


def test_cl_2_only_branch_records_do_not_verify():
    raw = answer(party("7707083893", "1027700132195", branch_type="BRANCH"))
    decision = decide(*SBER, raw)
    assert (decision.outcome, decision.reason) == (
        Outcome.REFUSE,
        "the registry has only branch records for INN 7707083893, no head office",
    )


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (
            "{not json",
            "the registry's answer is malformed: not JSON (Expecting property name enclosed in double quotes at position 1)",
        ),
        ('{"items": []}', "the registry's answer is malformed: no 'suggestions' list"),
        ('{"suggestions": [{"value": "x"}]}', "the registry's answer is malformed: suggestion 0 has no data.inn"),
        ("[]", "the registry's answer is malformed: no 'suggestions' list"),
        (
            answer(party("7736207543", "1027700229193")),
            "the registry answered for INN 7736207543 when asked for INN 7707083893",
        ),
        (
            answer(party("7707083893", "1027700132195"), party("7707083893", "1027700132195")),
            "the registry has 2 head-office records for INN 7707083893",
        ),
        (
            answer(party("7707083893", "1027700132195", status="SLEEPING")),
            "the registry gives an unknown state 'SLEEPING' for INN 7707083893",
        ),
    ],
)
def test_cl_2_a_malformed_or_contradicting_answer_never_verifies_it_goes_to_moderation(raw, reason):
    decision = decide(*SBER, raw)
    assert (decision.outcome, decision.reason) == (Outcome.MODERATE, reason)


def test_cl_2_a_record_of_the_wrong_type_for_the_legal_form_goes_to_moderation():
    raw = answer(party("500100732259", "304500116000157", kind="LEGAL", branch_type="MAIN"))
    decision = decide(*IP, raw)
    assert decision.outcome is Outcome.MODERATE
    assert decision.reason == "the registry's record for INN 500100732259 is of type LEGAL, expected INDIVIDUAL"


LISTED = Listing.LISTED


@pytest.mark.parametrize(
    ("before", "action", "after"),
    [
        (State(LISTED, Verification.UNVERIFIED), Action.APPLY, State(LISTED, Verification.PENDING)),
        (State(LISTED, Verification.REFUSED), Action.APPLY, State(LISTED, Verification.PENDING)),
        (State(LISTED, Verification.REVOKED), Action.APPLY, State(LISTED, Verification.PENDING)),
        (
            State(Listing.SUSPENDED, Verification.UNVERIFIED),
            Action.APPLY,
            State(Listing.SUSPENDED, Verification.PENDING),
        ),
        (State(LISTED, Verification.PENDING), Action.QUEUE, State(LISTED, Verification.PENDING, queued=True)),
        (State(LISTED, Verification.PENDING), Action.VERIFY, State(LISTED, Verification.VERIFIED)),
        (State(LISTED, Verification.PENDING, queued=True), Action.VERIFY, State(LISTED, Verification.VERIFIED)),
        (State(LISTED, Verification.PENDING, queued=True), Action.REFUSE, State(LISTED, Verification.REFUSED)),
        (State(LISTED, Verification.VERIFIED), Action.REVOKE, State(LISTED, Verification.REVOKED)),
        (State(LISTED, Verification.VERIFIED), Action.RECHECK, State(LISTED, Verification.VERIFIED)),
        (State(LISTED, Verification.VERIFIED), Action.SUSPEND, State(Listing.SUSPENDED, Verification.VERIFIED)),
        (
            State(LISTED, Verification.PENDING, True),
            Action.TERMINATE,
            State(Listing.TERMINATED, Verification.PENDING, True),
        ),
        (
            State(Listing.SUSPENDED, Verification.REFUSED),
            Action.TERMINATE,
            State(Listing.TERMINATED, Verification.REFUSED),
        ),
        (State(Listing.SUSPENDED, Verification.VERIFIED), Action.REINSTATE, State(LISTED, Verification.VERIFIED)),
        (
            State(Listing.SUSPENDED, Verification.PENDING, True),
            Action.REINSTATE,
            State(LISTED, Verification.PENDING, True),
        ),
    ],
)
def test_cl_3_cl_4_allowed_transitions(before, action, after):
    assert transition(before, action) == after


@pytest.mark.parametrize(
    ("before", "action", "code", "message"),
    [
        (
            State(LISTED, Verification.PENDING),
            Action.APPLY,
            "cannot-apply",
            "the club is pending: an unverified, refused or revoked club can apply",
        ),
        (
            State(LISTED, Verification.VERIFIED),
            Action.APPLY,
            "cannot-apply",
            "the club is verified: an unverified, refused or revoked club can apply",
        ),
        (
            State(Listing.TERMINATED, Verification.UNVERIFIED),
            Action.APPLY,
            "cannot-apply",
            "the club's listing is terminated: it cannot apply",
        ),
        (
            State(LISTED, Verification.PENDING, True),
            Action.QUEUE,
            "cannot-queue",
            "the application is already in the moderator queue",
        ),
        (
            State(LISTED, Verification.UNVERIFIED),
            Action.VERIFY,
            "cannot-verify",
            "the club is unverified: only a pending application can be verified",
        ),
        (
            State(LISTED, Verification.VERIFIED),
            Action.REFUSE,
            "cannot-refuse",
            "the club is verified: only a pending application can be refused",
        ),
        (
            State(LISTED, Verification.PENDING),
            Action.REVOKE,
            "cannot-revoke",
            "the club is pending: only a verified club can lose its status",
        ),
        (
            State(Listing.SUSPENDED, Verification.VERIFIED),
            Action.SUSPEND,
            "cannot-suspend",
            "the club is suspended: only a listed club can be suspended",
        ),
        (
            State(Listing.TERMINATED, Verification.VERIFIED),
            Action.TERMINATE,
            "cannot-terminate",
            "the club is terminated: a terminated club's listing is final",
        ),
        (
            State(LISTED, Verification.VERIFIED),
            Action.REINSTATE,
            "cannot-reinstate",
            "the club is listed: only a suspended club can be reinstated",
        ),
        (
            State(Listing.TERMINATED, Verification.VERIFIED),
            Action.REINSTATE,
            "cannot-reinstate",
            "the club is terminated: only a suspended club can be reinstated",
        ),
    ],
)
def test_cl_3_cl_4_refused_transitions_say_why(before, action, code, message):
    assert [(p.code, p.message) for p in transition_problems(before, action)] == [(code, message)]
    with pytest.raises(DomainError) as caught:
        transition(before, action)
    assert caught.value.code == code
