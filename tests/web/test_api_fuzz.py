"""`/api/v1` proved by tools nobody here wrote (issue 38): the OpenAPI document is valid by
openapi-spec-validator, and schemathesis (every check, every role's token, links between operations
so stateful chains run) finds no failure in a bounded run against the real server over PostgreSQL.
The long run is `make soak` (SOAK_SECONDS)."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from domain.access.services import accounts, signin
from domain.access.tables import Account
from domain.store.db import unit_of_work
from tests.support.world import access_world

ST = Path(sys.executable).with_name("st")
CONFIG = Path(__file__).with_name("schemathesis.toml")
# None: anonymous; "nobody": a person signed in by the session cookie (the account's operations)
ROLES = (None, "player", "server", "organizer", "cashier", "floor", "nobody", "owner", "operator")
SECONDS = int(os.environ.get("TOURNEY_FUZZ_SECONDS", "6"))  # a role's budget in `make test` (`make soak`: 60)


@pytest.fixture
def world(web, committed):
    return access_world(committed)


def test_the_openapi_document_is_valid(http):
    """openapi-spec-validator: the document is a valid OpenAPI 3.1 document."""
    from openapi_spec_validator import validate

    document = http.get("/api/v1/openapi.json").json()
    validate(document)
    assert "HTTPValidationError" not in document["components"]["schemas"]


def _credentials(committed, world, role: str | None) -> list[str]:
    """A role's headers: a token of its roles alone (no `account` scope: the fuzzer cannot revoke the
    token it runs with), or the session cookie with its CSRF token."""
    if role is None:
        return []
    if role in world.sessions:
        return [arg for name, value in world.headers(role).items() for arg in ("-H", f"{name}: {value}")]
    with unit_of_work(committed) as session:
        account = session.get(Account, world.account_ids[role])
        scopes = [signin.scope_name(r, c) for r, c in accounts.roles_of(session, account.id)]
        scopes += ["player"] if account.player_id else []
        scopes = scopes or [f"cup:{world.cup}"]
        _, secret = signin.create_token(session, account, "fuzz", scopes, datetime.now(UTC))
    return ["-H", f"Authorization: Bearer {secret}"]


def _fuzz(web, headers: list[str], seconds: int, tmp: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            str(ST),
            "--config-file",
            str(CONFIG),
            "run",
            f"{web.url}/api/v1/openapi.json",
            "--checks",
            "all",
            "--max-time",
            str(seconds),
            "--workers",
            "1",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--seed",
            "1",
            "--request-timeout",
            "10",
            "--no-color",
            *headers,
        ],
        capture_output=True,
        text=True,
        timeout=seconds * 6 + 120,
        cwd=tmp,
        env=os.environ | {"SCHEMATHESIS_HOOKS": ""},
    )


def _one_role(web, committed, world, tmp: Path, role: str | None, seconds: int) -> None:
    done = _fuzz(web, _credentials(committed, world, role), seconds, tmp)
    if os.environ.get("TOURNEY_FUZZ_LOG"):  # a folder for each role's whole report
        Path(os.environ["TOURNEY_FUZZ_LOG"], f"{role or 'anonymous'}.txt").write_text(done.stdout + done.stderr)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]


# one test a role, each in a world of its own (the pytest-xdist workers share them out; a role that
# takes credentials away takes no other role's)
@pytest.mark.timeout(300)
@pytest.mark.parametrize("role", ROLES, ids=lambda r: r or "anonymous")
def test_schemathesis_finds_no_failure_for_the_role(web, committed, world, tmp_path, role):
    """Every operation, as the role (or none): no server error, every answer as declared (status,
    content type, headers, schema), bad input refused, good input accepted, auth not ignored."""
    _one_role(web, committed, world, tmp_path, role, SECONDS)


@pytest.mark.soak
@pytest.mark.timeout(900)
@pytest.mark.parametrize("role", ROLES, ids=lambda r: r or "anonymous")
def test_schemathesis_long_run_finds_no_failure_for_the_role(web, committed, world, tmp_path, role):
    """The same, a minute a role (`make soak`)."""
    _one_role(web, committed, world, tmp_path, role, 60)
