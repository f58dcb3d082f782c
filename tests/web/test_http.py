"""The public pages over real HTTP (uvicorn on loopback) and the real PostgreSQL: contents,
security headers, hostile input, the rate limit, calendars and certificate checks."""

from __future__ import annotations

import json

import httpx

from tests.web import world


def test_sp_8_the_screen_shows_level_blinds_players_itm_and_prizes(committed, http):
    """SP-8, SP-3"""
    t = world.running_poker(committed, players=12, name="Friday <b>Deep</b>")
    r = http.get(f"/t/{t['id']}/screen")
    assert r.status_code == 200
    body = r.text
    assert "Level 1" in body and "100 / 200" in body
    assert "Friday &lt;b&gt;Deep&lt;/b&gt;" in body and "<b>Deep</b>" not in body
    assert 'id="players-left">12<' in body and 'id="entries">12<' in body
    assert 'id="paid">2<' in body  # 15 % of 12 = 1.8 → 2
    assert "Cup and a free entry" in body
    assert "<script src=\"/static/screen.js\"" in body and "<script>" not in body
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert r.headers["x-content-type-options"] == "nosniff"


def test_sp_8_the_event_stream_sends_the_state_at_once(committed, web):
    t = world.running_poker(committed, players=3)
    with httpx.Client(base_url=web.url, timeout=10) as client:
        with client.stream("GET", f"/t/{t['id']}/events") as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            for line in r.iter_lines():
                if line.startswith("data: "):
                    state = json.loads(line[6:])
                    break
    assert state["clock"]["level"] == 1 and state["clock"]["status"] == "running"
    assert state["players_left"] == 3 and state["clock"]["level_ends_at"]
