"""Public reads of `/api/v1` for integrators and clubs' sites (issue 38; RULES AC-5, AC-2, PD-3, LG-3):
no sign-in, typed answers, what the public pages show and nothing more: players by their handles,
never a full name or an e-mail; a draft answers as a missing tournament; a public ETag and cache."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import text

from domain.pusoy.services import reports as pusoy_reports
from domain.pusoy.services import setup as pusoy_setup
from domain.pusoy.services import views as pusoy_views
from domain.store.db import unit_of_work
from tests.support import world


def test_ac_5_a_finished_tournament_read_publicly_names_players_by_handle(committed, http):
    with unit_of_work(committed) as session:
        t = world.finished_poker(session)
        draft = world.tournament(session, club_id=t.club_id, status="draft")
        people = session.execute(
            text(
                "SELECT p.name, p.handle FROM players p JOIN poker_entries e ON e.player_id = p.id WHERE e.tournament_id = :t"
            ),
            {"t": t.id},
        ).all()
    assert people
    answer = http.get(f"/api/v1/public/tournaments/{t.id}")
    assert answer.status_code == 200, answer.text
    assert answer.headers["cache-control"] == "public, max-age=5" and answer.headers["etag"]
    live = answer.json()
    assert live["screen"]["status"] == "finished" and live["screen"]["clock"]["stopped_at"]
    assert [p["place"] for p in live["places"]][:2] == [1, 2]
    assert live["knockouts"] and all(k["busted"] for k in live["knockouts"])
    handles = {handle for _, handle in people}
    assert {p["player"] for p in live["places"]} <= handles
    assert {k["busted"] for k in live["knockouts"]} <= handles
    hidden, missing = (
        http.get(f"/api/v1/public/tournaments/{draft.id}"),
        http.get("/api/v1/public/tournaments/900000001"),
    )
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["code"] == missing.json()["code"] == "tournament-not-found"
    listed = http.get(f"/api/v1/public/clubs/{t.club_id}/tournaments").json()
    assert [r["id"] for r in listed] == [t.id]  # the draft is not announced


def test_lg_3_a_season_s_standings_read_publicly(committed, http):
    s = world.season(committed)
    answer = http.get(f"/api/v1/public/seasons/{s['id']}")
    assert answer.status_code == 200, answer.text
    rows = answer.json()["rows"]
    assert [(r["player"], r["total"]) for r in rows] == [("boris", "16.0"), ("anna", "13.0"), ("<b>vera</b>", "9.0")]
    assert "Белова" not in answer.text


def test_pd_7_a_cup_s_bracket_and_standings_read_publicly(committed, http):
    with unit_of_work(committed) as session:
        cup = pusoy_setup.create(
            session, name="Cup", organizer="org", capacity=8, now=world.now(), organizer_email="org@example.org"
        )
        for i in range(8):
            pusoy_setup.join(session, cup.code, f"u{i:02d}", world.now() + timedelta(seconds=i))
        first = pusoy_views.show(session, cup.code)["tables"]["table 1"]
        pusoy_reports.report(
            session,
            cup.code,
            round_no=1,
            table=1,
            game=1,
            finishes=[(p, n) for n, p in enumerate(first, start=1)],
            two_of_diamonds=None,
            now=world.now(),
            by="server",
        )
    answer = http.get(f"/api/v1/public/cups/{cup.code}")
    assert answer.status_code == 200, answer.text
    shown = answer.json()
    assert shown["code"] == cup.code and "org@example.org" not in answer.text
    assert [t["players"] for t in shown["tables"] if t["table"] == 1] == [first]
    standings = shown["rounds"][0]["standings"]
    assert standings[0]["player"] == first[0] and standings[0]["points"] == 3  # a win is 3 points (PD-6)
