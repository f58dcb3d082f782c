"""`tourney user ...`, `tourney token ...` and `tourney audit` as the operator runs them (AC-1, AC-3,
AC-4), in process on the test database: exact outputs, one line and exit 2 on refusal with nothing
written, a token's secret printed once and stored nowhere, a password link never printed, and one
audit row per change made from the command line."""

from __future__ import annotations

import email
import email.policy
import json
import re
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, select, text

from domain.access.services import accounts, signin
from domain.access.tables import AuditRecord
from domain.simulate.services.demo import DEMO_CLUB_2_DETAILS
from domain.store.db import unit_of_work
from tests.documents_samples import smtp_inbox
from tests.support import world
from tests.support.cli import refused, run


def j(*args: str, env: dict[str, str] | None = None):
    result = run("--json", *args, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def said(*args: str, env: dict[str, str] | None = None) -> str:
    """`tourney --json ARGS`'s one confirmation line."""
    return j(*args, env=env)["message"]


@contextmanager
def json_invocation():
    """Inside, a function of the CLI runs as in `tourney --json simulate`: in that command's Typer
    context, whose object is a JSON invocation's output state."""
    import typer

    from flows.cli.app import _command
    from flows.cli.output import Invocation

    command = _command("simulate").commands["simulate"]
    with typer.Context(command, info_name="simulate", obj=Invocation(json=True)):
        yield


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """A data folder of the test's own (its outbox) and no SMTP server: letters go to .eml files."""
    return {"TOURNEY_HOME": str(tmp_path), "SMTP_URL": ""}


@pytest.fixture
def club_id(committed: Engine) -> int:
    with unit_of_work(committed) as session:
        return world.club(session, fresh=True, at=datetime.now(UTC)).id


def _trail(engine: Engine) -> list[AuditRecord]:
    with unit_of_work(engine) as session:
        return list(session.scalars(select(AuditRecord).order_by(AuditRecord.id)))


def _letter(folder: Path) -> tuple[Path, email.message.EmailMessage]:
    (path,) = sorted((folder / "outbox" / "accounts").glob("*.eml"))
    return path, email.message_from_bytes(path.read_bytes(), policy=email.policy.default)


def _link_secret(letter: email.message.EmailMessage) -> str:
    (secret,) = re.findall(r"/reset/([A-Za-z0-9_-]+)", letter.get_content())
    return secret


def test_ac_1_user_add_grant_revoke_block_and_unblock_round_trip(committed, club_id, home):
    added = j("user", "add", "Anna@Example.org", "--club", str(club_id), "--role", "owner", env=home)
    (path, _letter_) = _letter(Path(home["TOURNEY_HOME"]))
    assert added == {
        "id": added["id"],
        "email": "Anna@Example.org",
        "roles": [f"owner@{club_id}"],
        "player_id": None,
        "locale": "ru",
        "verified": False,
        "password_set": False,
        "blocked": None,
        "password_link": f"SMTP_URL is not set: the letter with a link to set the password was written to {path}",
    }
    assert said("user", "grant", "anna@example.org", "--role", "floor", "--club", str(club_id)) == (
        f"Anna@Example.org holds floor@{club_id} now"
    )
    assert said("user", "grant", "anna@example.org", "--role", "floor", "--club", str(club_id)) == (
        f"Anna@Example.org holds floor@{club_id} already: nothing changed"
    )
    assert said("user", "revoke", "anna@example.org", "--role", "owner", "--club", str(club_id)) == (
        f"Anna@Example.org no longer holds owner@{club_id}"
    )
    assert said("user", "revoke", "anna@example.org", "--role", "owner", "--club", str(club_id)) == (
        f"Anna@Example.org does not hold owner@{club_id}: nothing changed"
    )
    assert said("user", "grant", "anna@example.org", "--role", "operator") == "Anna@Example.org holds operator now"
    assert said("user", "block", "anna@example.org", "--reason", "left the club") == (
        "Anna@Example.org blocked: left the club"
    )
    assert [(a["email"], a["roles"], a["blocked"]) for a in j("user", "list", "--club", str(club_id))] == [
        ("Anna@Example.org", [f"floor@{club_id}"], "left the club")
    ]
    assert j("user", "list")[0]["roles"] == [f"floor@{club_id}", "operator"]
    assert said("user", "unblock", "anna@example.org") == "Anna@Example.org unblocked"
    assert said("user", "unblock", "anna@example.org") == "Anna@Example.org is not blocked: nothing changed"
    assert said("user", "sign-out", "anna@example.org") == "Anna@Example.org: 0 sessions ended"
    text_out = run("user", "grant", "anna@example.org", "--role", "cashier", "--club", str(club_id))
    assert (text_out.returncode, text_out.stdout) == (0, f"Anna@Example.org holds cashier@{club_id} now\n")


def test_ac_4_user_add_links_the_player_and_refuses_a_second_account_for_them(committed, club_id, home):
    with unit_of_work(committed) as session:
        player = world.player(session, "Boris Ivanov", handle="boris")
    added = j("user", "add", "boris@example.org", "--player", "boris", "--locale", "en", env=home)
    assert (added["roles"], added["player_id"], added["locale"]) == (["player"], player.id, "en")
    line = refused(committed, "user", "add", "other@example.org", "--player", str(player.id))
    assert line == f"error: player {player.id} has an account already"


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("user", "add", "not-an-address"), "error: 'not-an-address' is not an e-mail address."),
        (("user", "add", "a@b.example", "--club", "1"), "error: --club names where a role is held: give --role too"),
        (("user", "add", "a@b.example", "--locale", "de"), "error: No language 'de': the languages are ru, en."),
        (("user", "add", "a@b.example", "--role", "floor"), "error: The role floor is held in a club: name the club."),
        (("user", "add", "a@b.example", "--player", "nobody"), "error: no player 'nobody'"),
        (("user", "grant", "nobody@b.example", "--role", "operator"), "error: no account 'nobody@b.example'"),
        (("token", "revoke", "999"), "error: no token 999"),
        (("--as", " ", "user", "list"), "error: --as takes a name: who is at the keyboard"),
    ],
)
def test_ac_4_a_bad_user_or_token_command_exits_2_with_one_line_and_writes_nothing(engine, args, line):
    assert refused(engine, *args) == line  # (nothing written: no table to empty afterwards)


def test_ac_4_a_refused_role_writes_no_account_either(committed, club_id):
    assert refused(committed, "user", "add", "a@b.example", "--club", str(club_id), "--role", "boss").startswith(
        "error: No role 'boss'"
    )


def test_ac_4_the_password_link_goes_to_the_outbox_opens_the_account_once_and_is_never_printed(committed, home):
    result = run("user", "add", "vera@example.org", env=home)
    assert result.returncode == 0, result.stderr
    path, letter = _letter(Path(home["TOURNEY_HOME"]))
    assert path.stat().st_mode & 0o777 == 0o600
    assert (letter["To"], letter["Subject"]) == ("vera@example.org", "Ваша учётная запись Tourney: выберите пароль")
    secret = _link_secret(letter)
    assert secret not in result.stdout + result.stderr
    again = run("--json", "user", "password", "vera@example.org", env=home)
    assert secret not in again.stdout and "/reset/" not in again.stdout
    newer = sorted((Path(home["TOURNEY_HOME"]) / "outbox" / "accounts").glob("*.eml"))[-1]
    newest = _link_secret(email.message_from_bytes(newer.read_bytes(), policy=email.policy.default))
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:  # the first link stopped working when the second was sent
        with pytest.raises(Exception, match="expired or was used"):
            accounts.use_link(session, secret, "reset", now)
    with unit_of_work(committed) as session:
        assert accounts.use_link(session, newest, "reset", now).email == "vera@example.org"
    for row in _trail(committed):
        assert secret not in json.dumps(row.data) + row.target and newest not in json.dumps(row.data) + row.target


def test_ac_4_with_smtp_the_password_link_is_mailed_in_the_account_s_language(committed):
    with smtp_inbox() as (url, inbox):
        result = run("--json", "user", "add", "gleb@example.org", "--locale", "en", env={"SMTP_URL": url})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["password_link"] == "a link to set the password was sent to gleb@example.org"
    (letter,) = inbox.messages
    assert (letter["To"], letter["Subject"], letter.is_multipart()) == (
        "gleb@example.org",
        "Your Tourney account: choose your password",
        False,
    )
    assert _link_secret(letter) not in result.stdout


def test_ac_4_token_is_printed_once_and_stored_only_as_its_digest(committed, club_id, home):
    j("user", "add", "dina@example.org", "--club", str(club_id), "--role", "floor", env=home)
    made = run("--json", "token", "create", "dina@example.org", "--name", "desk 1", "--scope", f"floor@{club_id}")
    assert made.returncode == 0, made.stderr
    token = json.loads(made.stdout)
    secret = token.pop("token")
    assert secret.startswith("tny_")
    assert token == {"id": token["id"], "account": "dina@example.org", "name": "desk 1", "scopes": [f"floor@{club_id}"]}
    listed = run("--json", "token", "list", "dina@example.org")
    assert secret not in listed.stdout and [t["name"] for t in json.loads(listed.stdout)] == ["desk 1"]
    from domain.tables import metadata

    with committed.connect() as conn:
        holding = [
            t.name
            for t in metadata.sorted_tables
            if conn.execute(
                text(f"SELECT count(*) FROM \"{t.name}\" x WHERE x::text LIKE '%' || :s || '%'"),
                {"s": secret.removeprefix("tny_")},
            ).scalar_one()
        ]
    assert holding == []  # every column of every row, as text (bytea as hex, JSON, arrays)
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        assert signin.token_actor(session, secret, now).label == f"token {token['id']} (desk 1) of dina@example.org"
    assert said("token", "revoke", str(token["id"])) == f"token {token['id']} (desk 1) revoked"
    assert (
        said("token", "revoke", str(token["id"]))
        == f"token {token['id']} (desk 1) was revoked already: nothing changed"
    )
    with unit_of_work(committed) as session:
        assert signin.token_actor(session, secret, now + timedelta(minutes=2)) is None


def test_ac_4_a_token_takes_only_scopes_its_account_holds(committed, club_id, home):
    j("user", "add", "egor@example.org", "--club", str(club_id), "--role", "cashier", env=home)
    line = refused(committed, "token", "create", "egor@example.org", "--name", "t", "--scope", f"owner@{club_id}")
    assert line == f"error: egor@example.org does not hold 'owner@{club_id}': a token narrows its account's roles"


def test_ac_3_a_cli_write_leaves_one_audit_row_as_the_operator_named_by_as(committed, club_id, home):
    j("user", "add", "zoya@example.org", env=home)
    before = len(_trail(committed))
    said("--as", "Olga at the desk", "user", "grant", "zoya@example.org", "--role", "floor", "--club", str(club_id))
    (row,) = _trail(committed)[before:]
    assert (row.actor_kind, row.actor_label, row.action, row.target, row.club_id, row.account_id) == (
        "operator",
        "Olga at the desk",
        "user grant",
        "zoya@example.org",
        club_id,
        None,
    )
    assert row.data == {"email": "zoya@example.org", "role": "floor", "club": club_id}
    said("user", "grant", "zoya@example.org", "--role", "floor", "--club", str(club_id))  # held: nothing written
    assert len(_trail(committed)) == before + 1


def test_ac_3_a_poker_command_s_audit_row_names_the_tournament_s_club(committed, club_id):
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)
    with unit_of_work(committed) as session:
        t = world.tournament(session, club_id=club_id, status="registration_open", start=start, late_reg=None)
        ilya = world.player(session, "Ilya Orlov", handle="ilya")
    before = len(_trail(committed))
    assert j("--as", "floor-kira", "poker", "register", str(t.id), "ilya")["status"] == "active"
    (row,) = _trail(committed)[before:]
    assert (row.actor_label, row.action, row.target, row.club_id) == (
        "floor-kira",
        "poker register",
        f"{t.id} ⟦handle {ilya.id}⟧",  # AC-5: the trail keeps the player's id; a reader sees the handle
        club_id,
    )
    assert j("audit")[0]["target"] == f"{t.id} ilya"


def test_ac_3_reads_leave_no_audit_row_and_the_trail_shows_the_newest_first(committed, club_id, home):
    j("--as", "anna", "user", "add", "kira@example.org", env=home)
    j("--as", "boris", "user", "block", "kira@example.org", "--reason", "spam")
    before = len(_trail(committed))
    for args in (("user", "list"), ("token", "list"), ("audit",), ("user", "list", "--club", str(club_id))):
        j(*args)
    assert len(_trail(committed)) == before
    trail = j("audit")
    assert [(r["actor"], r["action"], r["target"]) for r in trail[:2]] == [
        ("boris", "user block", "kira@example.org"),
        ("anna", "user add", "kira@example.org"),
    ]
    assert trail[0]["data"] == {"email": "kira@example.org", "reason": "spam"}
    assert j("audit", "--club", str(club_id)) == []
    assert [r["action"] for r in j("audit", "--before", str(trail[0]["id"]), "--limit", "1")] == ["user add"]


def test_ac_3_no_token_secret_reaches_the_audit_trail(committed, home):
    j("user", "add", "lev@example.org", "--role", "operator", env=home)
    secret = j("token", "create", "lev@example.org", "--name", "ops", "--scope", "operator")["token"]
    rows = _trail(committed)
    assert rows[-1].action == "token create"
    assert rows[-1].data == {"email": "lev@example.org", "name": "ops", "scope": ["operator"]}
    assert all(secret not in json.dumps(r.data) + r.target for r in rows)


def test_ac_4_make_run_seeds_the_demo_s_accounts_once_and_writes_their_passwords_once(committed, tmp_path, monkeypatch):
    """`tourney simulate --demo` seeding (what `make run` does): both demo clubs' staff and the players;
    the passwords go to TOURNEY_HOME/demo-accounts.txt (0600) and nowhere else; the output says how to
    sign in as each (e-mail, roles, clubs); a second run seeds nothing, keeps the file and says the same."""
    from flows.cli.simulate import _demo
    from infra.config import load_settings

    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    printed = []
    monkeypatch.setattr("builtins.print", lambda text, *a, **k: printed.append(text))
    with json_invocation():
        _demo(1, 4, 8)
    file = tmp_path / "demo-accounts.txt"
    assert file.stat().st_mode & 0o777 == 0o600
    rows = [line.split("\t") for line in file.read_text().splitlines() if not line.startswith("#")]
    c1 = json.loads(printed[0])["club_id"]
    with unit_of_work(committed) as session:
        c2 = session.scalar(text("SELECT id FROM clubs WHERE inn = :inn"), {"inn": DEMO_CLUB_2_DETAILS[1]})
    one, two = f"club {c1} (Демо-клуб Tourney)", f"club {c2} (Второй демо-клуб Tourney)"
    held = [
        ("owner@demo-club.example", f"owner of {one}"),
        ("floor@demo-club.example", f"floor manager of {one}, cashier of {two}"),
        ("cashier@demo-club.example", f"cashier of {one}"),
        ("owner@second-club.example", f"owner of {two}"),
        ("floor@second-club.example", f"floor manager of {two}"),
        ("demo01@demo-club.example", "player demo01"),
        ("demo02@demo-club.example", "player demo02"),
        ("demo03@demo-club.example", "player demo03"),
    ]
    assert [tuple(r[:2]) for r in rows] == held
    passwords = [r[2] for r in rows]
    assert len(set(passwords)) == 8 and "-" not in passwords
    written = file.read_text()
    with json_invocation():
        _demo(1, 4, 8)
    assert file.read_text() == written
    said = [json.loads(p) for p in printed]
    url = load_settings().public_url()
    expected = f"demo accounts: sign in at {url}/signin with an e-mail and password from {file}"
    each = [{"message": f"  sign in as {e}: {h}"} for e, h in held]
    each.append({"message": f"  the floor and the counter work at {url}/desk, players at {url}/play"})
    assert said[0]["sign_in"] == expected and said[1:10] == each
    assert said[10:] == [{"message": expected}, *each]
    assert not any(p in line for p in passwords for line in printed)
    with unit_of_work(committed) as session:
        # besides those who sign in: the cup's 8 players and the game server, with no password (the
        # simulator acts for them with tokens)
        machines = ["games@demo-club.example", *(f"pd{i:02}@demo-club.example" for i in range(1, 9))]
        assert [r["email"] for r in accounts.listing(session)] == sorted([e for e, _ in held] + machines)
    assert all(p not in json.dumps(r.data) for r in _trail(committed) for p in passwords)


def test_ac_4_a_demo_seeded_with_one_club_gets_the_second_and_keeps_the_passwords_its_file_holds(
    committed, tmp_path, monkeypatch
):
    """A demo seeded before the second club (its file listing the first club's accounts): `make run`
    again seeds the second club's staff, keeps every password written and adds the new ones."""
    import random

    from domain.simulate.services import demo
    from flows import bootstrap
    from flows.cli.simulate import _demo

    monkeypatch.setenv("TOURNEY_HOME", str(tmp_path))
    now = datetime.now(UTC)
    with unit_of_work(committed) as session:
        club = demo.seed_demo(session, now, random.Random(1), players=4, pusoy_players=8).club_id
        old = demo.seed_demo_accounts(session, bootstrap.password_hasher(), club, now)
    file = tmp_path / "demo-accounts.txt"
    file.write_text("# e-mail\trole\tpassword\n" + "".join(f"{a.email}\t{a.role}\t{a.password}\n" for a in old))
    monkeypatch.setattr("builtins.print", lambda text, *a, **k: None)
    with json_invocation():
        _demo(1, 4, 8)
    rows = {r.split("\t")[0]: r.split("\t")[2] for r in file.read_text().splitlines() if not r.startswith("#")}
    assert {a.email: a.password for a in old}.items() <= rows.items()
    assert sorted(set(rows) - {a.email for a in old}) == ["floor@second-club.example", "owner@second-club.example"]
    hasher = bootstrap.password_hasher()
    with unit_of_work(committed) as session:
        assert all(hasher.verify(accounts.find(session, e).password_hash, p) for e, p in rows.items())


def test_ac_3_a_player_s_name_and_birth_date_stay_out_of_the_trail(committed):
    """Forgetting (1.6.1) erases them from the player's row: the trail never held them, nor the handle
    (a mark of the player's id, tests/integration/test_audit_trail.py)."""
    made = j("--as", "desk", "player", "add", "Rita Sokolova", "rita", "--born", "1992-03-04")
    (row,) = _trail(committed)
    mark = f"⟦handle {made['id']}⟧"
    assert (row.action, row.target, row.data) == ("player add", mark, {"handle": mark})
