"""The command line in the desk's words (issue 28; docs/cli.md#the-desks-words): writes name the player
beside the ids and say what is owed now, in roubles; amounts are typed in roubles through the desk's
parser; `void-knockout` takes the bust number; `poker entries` fits 120 columns; refusals give times
in the club's time; the clock of a finished tournament says finished (SP-1, SP-5, 3.2, 3.4, 3.6)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from domain.store.db import unit_of_work
from tests.support.cli import j, refused, run
from tests.support.world import club, structure

WIDE = {"COLUMNS": "120"}


def test_sp_1_the_cli_names_players_says_what_is_owed_and_takes_roubles(committed):
    with unit_of_work(committed) as session:
        club_id, structure_id = club(session).id, structure(session).id
    start = (datetime.now(UTC) + timedelta(seconds=2)).replace(microsecond=0)
    late = (datetime.now(UTC) + timedelta(hours=2)).replace(second=0, microsecond=0)
    created = j(
        "poker", "create", "--club", str(club_id), "--structure", str(structure_id), "--name", "Среда",
        "--start", start.isoformat(), "--stack", "20000", "--currency", "RUB", "--buy-in", "1 500",
        "--set", "rebuy_amount=1000,50", "--set", "seat_cap=2", "--set", f"late_reg_deadline={late.isoformat()}",
    )  # fmt: skip
    assert (created["buy_in"], created["rebuy_amount"]) == (150000, 100050)  # typed in roubles, kept in kopecks
    t = str(created["id"])
    line = refused(committed, "poker", "edit", t, "--set", "buy_in=1500,555", "--set", "seat_cap=11")
    assert (
        line
        == "error: buy_in: 1500,555 has 3 decimals: RUB has 2.; seat cap 11 is outside 2–10 players a table (rule 3.6)"
    )
    j("poker", "open", t)
    for name, handle in (
        ("Anna Petrova", "anna"),
        ("Boris Ivanovich Lermontov-Sokolovsky", "boris"),
        ("Vera Orlova", "vera"),
    ):
        j("player", "add", name, handle, "--born", "1991-04-12")
    registered = run("poker", "register", t, "anna", env=WIDE).stdout
    assert "│ player          │ Anna Petrova" in registered and "│ owed            │ 0,00\xa0₽" in registered
    checked = j("poker", "checkin", t, "anna")
    assert (checked["player"], checked["owed"]) == ("Anna Petrova", 150000)
    for handle in ("boris", "vera"):
        j("poker", "register", t, handle)
        j("poker", "checkin", t, handle)
    # one player, for the amount typed: refused unless it is what is owed; then named with what is owed now
    assert refused(committed, "poker", "settle", t, "anna", "--amount", "1 000", "--by", "Olga") == (
        "error: Anna Petrova owes 1500.00 RUB, not 1000.00 RUB."
    )
    one = j("poker", "settle", t, "anna", "--amount", "1 500", "--by", "Olga")
    assert (one["player"], one["amount"], one["owed"]) == ("Anna Petrova", 150000, 0)
    everyone = run("poker", "settle", t, "--all", "--by", "Olga", env=WIDE).stdout
    assert everyone.splitlines()[-1] == "2 players settled: 3\xa0000,00\xa0₽; nobody owes anything now."
    assert "Vera Orlova" in everyone
    # a void asks first, naming the player and the amount in roubles
    settlement = str(one["id"])
    # (an error line has plain spaces)
    assert refused(committed, "poker", "void-settlement", t, settlement, "--by", "Igor", "--reason", "typo") == (
        f"error: void settlement {settlement} of tournament {t}: Anna Petrova, 1 500,00 ₽ by cash; the fees "
        "are owed again: pass --yes to go ahead (no terminal to ask on)"
    )
    voided = j("poker", "void-settlement", t, settlement, "--by", "Igor", "--reason", "typo", "--yes")
    assert (voided["player"], voided["owed"]) == ("Anna Petrova", 150000)

    # `poker entries` for people: seven columns within 120, names whole
    table = run("poker", "entries", t, env=WIDE).stdout
    assert max(len(line) for line in table.splitlines()) <= 120
    assert "Boris Ivanovich Lermontov-Sokolovsky" in table and "1\xa0500,00\xa0₽" in table
    assert [c.strip() for c in table.splitlines()[2].split("┃")[1:-1]] == [
        "entry", "player", "handle", "state", "seat", "re-entries", "owed",
    ]  # fmt: skip

    # the final table waits for late registration: the deadline in the club's time
    j("poker", "start", t)
    j("poker", "seat", "draw", t)
    j("poker", "clock", "start", t)
    local = late.astimezone(ZoneInfo("Europe/Moscow")).strftime("%d.%m.%Y, %H:%M")
    assert refused(committed, "poker", "seat", "final-table", t, "--confirm") == (
        f"error: late registration is open until {local} MSK: the final table waits for it to close "
        "(a new entry could still come)"
    )

    # a void by the bust number the floor sees, said first by name; the final table's proposal by name
    [ko] = j("poker", "knockout", t, "boris", "--killer", "anna")
    proposal = j("poker", "seat", "final-table", t)
    assert (proposal["proposed"], sorted(proposal["players"])) == (True, ["Anna Petrova", "Vera Orlova"])
    assert refused(committed, "poker", "void-knockout", t, str(ko["bust_number"])) == (
        f"error: void bust 1 of tournament {t}: Boris Ivanovich Lermontov-Sokolovsky (knocked out by Anna Petrova) "
        "comes back into play and is seated again; the bust stays on record, marked voided: pass --yes to go ahead "
        "(no terminal to ask on)"
    )
    back = j("poker", "void-knockout", t, "1", "--yes")
    assert (back["busted"], back["bust_number"], back["voided_at"] is not None) == (
        "Boris Ivanovich Lermontov-Sokolovsky", 1, True,
    )  # fmt: skip
    assert refused(committed, "poker", "void-knockout", t, "7", "--yes") == f"error: no bust 7 in tournament {t}"
    assert j("poker", "clock", "status", t)["status"] == "running"
    for handle in ("boris", "vera"):
        j("poker", "knockout", t, handle, "--killer", "anna")
    assert j("poker", "finish", t, "--yes")["status"] == "finished"
    assert j("poker", "clock", "status", t)["status"] == "finished"  # not "running, level 1"
