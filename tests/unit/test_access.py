"""Accounts and access without a database: docs/access.md lists every action of the policy table
(AC-1), the letter with a password link, and `tourney --help` (and `user`, `token`) loading neither
SQLAlchemy nor argon2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from domain.access.rules.policy import POLICY
from flows.letters import letter
from infra.config import load_settings

ROOT = Path(__file__).resolve().parents[2]


def test_ac_1_the_access_doc_lists_every_action_of_the_policy():
    doc = (ROOT / "docs" / "access.md").read_text()
    assert [action for action in POLICY if f"`{action}`" not in doc] == []


@pytest.mark.parametrize(
    ("locale", "words"),
    [("ru", "Ссылка действует один раз, 60 минут."), ("en", "The link works once, for 60 minutes.")],
)
def test_ac_4_the_password_letter_carries_the_link_in_the_account_s_language(locale, words):
    """AC-4: the new account's letter, in its language, with its one-time link."""
    subject, body = letter(load_settings(), locale, "welcome", "S3CRET")
    assert subject and words in body
    assert f"{load_settings().public_url()}/reset/S3CRET\n" in body


def test_the_access_commands_help_loads_no_database_nor_argon2():
    probe = (
        "import sys\n"
        "from flows.cli.app import main\n"
        "for args in (['--help'], ['user', '--help'], ['token', 'create', '--help'], ['audit', '--help']):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(sorted(m for m in ('sqlalchemy', 'argon2', 'rich', 'prefect') if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
