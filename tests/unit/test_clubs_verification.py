"""What one registry check means (CL-2, CL-3, CL-4): attempts, queueing, re-checks."""

from __future__ import annotations

import pytest

from domain.clubs.rules.status import Action, Verification
from domain.clubs.rules.verification import Candidate, Check, Step, step_for
from tests.clubs_registry_data import answer, party

INN, OGRN = "7707083893", "1027700132195"


def _check(verification: Verification, raw: str | None, attempts: int = 0, error: str | None = None) -> Check:
    return Check(Candidate(1, 1, "legal_entity", INN, OGRN, verification, attempts), raw, error)


@pytest.mark.parametrize(
    ("attempts_before", "expected"),
    [
        (1, Step(None, "HTTP 500", counts_attempt=True)),  # the 2nd failure of 3 allowed
        (2, Step(Action.QUEUE, "the registry kept failing (3 attempts): HTTP 500", counts_attempt=True)),
    ],
)
def test_cl_3_a_failed_lookup_counts_an_attempt_and_queues_exactly_at_the_limit(attempts_before, expected):
    assert step_for(_check(Verification.PENDING, None, attempts_before, "HTTP 500"), max_attempts=3) == expected


@pytest.mark.parametrize(
    ("raw", "action"),
    [
        (answer(party(INN, OGRN)), Action.VERIFY),
        (answer(party(INN, OGRN, status="BANKRUPT")), Action.REFUSE),
        ("<html>captcha</html>", Action.QUEUE),
    ],
)
def test_cl_2_an_answer_decides_a_pending_application(raw, action):
    assert step_for(_check(Verification.PENDING, raw), max_attempts=3).action is action


@pytest.mark.parametrize(
    ("raw", "error", "expected"),
    [
        (
            answer(party(INN, OGRN)),
            None,
            Step(Action.RECHECK, "matches the registry: ПАО СБЕРБАНК, ACTIVE", checked=True),
        ),
        (
            answer(party(INN, OGRN, status="LIQUIDATING")),
            None,
            Step(
                Action.REVOKE,
                "no longer matches the registry: ПАО СБЕРБАНК is being liquidated (LIQUIDATING)",
                checked=True,
            ),
        ),
        (
            "{",
            None,
            Step(
                None,
                "the registry's answer is malformed: not JSON (Expecting property name enclosed in double quotes at position 1)",
            ),
        ),
        (None, "HTTP 429", Step(None, "HTTP 429")),
    ],
)
def test_cl_4_a_recheck_keeps_revokes_or_leaves_the_verified_status_for_later(raw, error, expected):
    assert step_for(_check(Verification.VERIFIED, raw, 5, error), max_attempts=3) == expected
