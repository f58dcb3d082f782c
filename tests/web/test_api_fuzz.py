"""`/api/v1` proved by tools nobody here wrote (issue 38): the OpenAPI document is valid by
openapi-spec-validator, and schemathesis (every check, every role's token, links between operations
so stateful chains run) finds no failure in a bounded run against the real server over PostgreSQL.
The long run is `make soak` (SOAK_SECONDS)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.world import access_world

ST = Path(sys.executable).with_name("st")
CONFIG = Path(__file__).with_name("schemathesis.toml")
ROLES = ("operator", "owner", "floor", "cashier", "player", "server", None)  # None: anonymous
SECONDS = int(os.environ.get("TOURNEY_FUZZ_SECONDS", "14"))  # a role's budget in `make test`


@pytest.fixture
def world(web, committed):
    return access_world(committed)


def test_the_openapi_document_is_valid(http):
    """openapi-spec-validator: the document is a valid OpenAPI 3.1 document."""
    from openapi_spec_validator import validate

    document = http.get("/api/v1/openapi.json").json()
    validate(document)
    assert "HTTPValidationError" not in document["components"]["schemas"]


def _fuzz(web, world, role: str | None, seconds: int, tmp: Path) -> subprocess.CompletedProcess:
    headers = ["-H", f"Authorization: Bearer {world.tokens[role]}"] if role else []
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


@pytest.mark.timeout(600)
def test_schemathesis_finds_no_failure_for_any_role(web, world, tmp_path):
    """Every operation, every role (and none): no server error, every answer as declared (status,
    content type, headers, schema), bad input refused, good input accepted, auth not ignored."""
    failed = {}
    for role in ROLES:
        done = _fuzz(web, world, role, SECONDS, tmp_path)
        if done.returncode != 0:
            failed[role or "anonymous"] = done.stdout[-6000:] + done.stderr[-2000:]
            if os.environ.get("TOURNEY_FUZZ_LOG"):
                Path(os.environ["TOURNEY_FUZZ_LOG"], f"{role or 'anonymous'}.txt").write_text(done.stdout + done.stderr)
    assert not failed, "\n\n".join(f"== {role} ==\n{out}" for role, out in failed.items())
