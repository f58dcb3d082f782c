"""A client generated from `/api/v1/openapi.json` by openapi-python-client (issue 38) does a whole
flow against the real server: typed models for every answer, the RFC 9457 problem for a refusal, and a
player's certificate downloaded as the PDF it is (AC-5). The generator lives in its own virtualenv
(`.venv/tools`, made by `make setup`)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.world import access_world

TOOLS = Path(sys.executable).parent.parent / "tools" / "bin"
CONFIG = "content_type_overrides:\n  application/pdf: application/octet-stream\n"  # a PDF is bytes


@pytest.fixture
def world(web, committed):
    return access_world(committed, outbox=web.outbox)


@pytest.fixture
def tourney_client(http, tmp_path):
    """The client package generated from the running server's document, importable as `tourney_client`."""
    (tmp_path / "openapi.json").write_text(json.dumps(http.get("/api/v1/openapi.json").json()))
    (tmp_path / "config.yml").write_text(CONFIG)
    done = subprocess.run(
        [str(TOOLS / "openapi-python-client"), "generate", "--path", "openapi.json", "--meta", "none"]
        + ["--output-path", "tourney_client", "--config", "config.yml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
        env=os.environ | {"PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},  # its ruff: ours
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout, done.stdout  # nothing of the document left out
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("tourney_client")
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == "tourney_client" or m.startswith("tourney_client.")]:
            del sys.modules[name]


def _client(package, web, token: str):
    return package.AuthenticatedClient(base_url=f"{web.url}/api/v1", token=token)


def test_a_generated_client_does_a_whole_flow(web, world, tourney_client):
    """The floor registers a player and reads the entries, the cashier reads the debts, the player
    reads their entries and downloads their certificate, a refusal is a typed problem: every answer a
    model of the document, none a bag of dicts."""
    models = importlib.import_module("tourney_client.models")
    floor = _client(tourney_client, web, world.tokens["floor"])
    cashier = _client(tourney_client, web, world.tokens["cashier"])
    player = _client(tourney_client, web, world.tokens["player"])

    club = importlib.import_module("tourney_client.api.club.club_tournaments")
    listed = club.sync(world.club_a, client=floor)
    assert {type(t).__name__ for t in listed} == {"TournamentRow"}
    assert world.tournament_a in [t.id for t in listed]

    register = importlib.import_module("tourney_client.api.floor.poker_register")
    made = register.sync(world.tournament_a, client=floor, body=models.PlayerBody(player="anna"))
    assert type(made).__name__ == "RegistrationMade" and made.status == "active"

    entries = importlib.import_module("tourney_client.api.floor.poker_entries").sync(world.tournament_a, client=floor)
    assert {type(e).__name__ for e in entries} == {"EntryRow"}
    assert "Anna Karenina" in [e.player for e in entries]

    debts = importlib.import_module("tourney_client.api.cashier.poker_debts").sync(world.tournament_a, client=cashier)
    assert all(type(d).__name__ == "DebtRow" and d.total > 0 for d in debts)

    other = club.sync(world.club_b, client=floor)  # another club's: the missing one's problem (AC-2)
    assert isinstance(other, models.Problem) and (other.status, other.code) == (404, "club-not-found")

    mine = importlib.import_module("tourney_client.api.players.player_entries").sync(client=player)
    assert isinstance(mine, models.MyEntries)
    serial = next(e.certificate for e in mine.poker if e.certificate)
    assert serial == world.certificate
    certificate = importlib.import_module("tourney_client.api.players.player_certificate")
    pdf = certificate.sync(serial, client=player)
    assert pdf.payload.read()[:5] == b"%PDF-"
    refused = certificate.sync(world.other_certificate, client=player)
    assert isinstance(refused, models.Problem) and refused.code == "certificate-not-found"
