"""The public pages rendered once per change (issue 41; flows/web/cached.py, docs/web.md#caching): the same
bytes for every request while nothing changes, one statement each and no render; a write, here a desk
action through /api/v1, a new ETag and the new page at the next request; 304 to a matching If-None-Match;
gzip decoding to the same bytes; the headers exact; a session's pages private and not kept; a draft
still a missing page (AC-2)."""

from __future__ import annotations

import gzip
import re
from datetime import datetime, timedelta

import httpx
from sqlalchemy import event

from domain.pusoy.services import setup as pusoy_setup
from domain.store.db import unit_of_work
from flows.web.cached import accepts_gzip, matches
from tests.support import world
from tests.support.net import free_port
from tests.support.web_server import Server

LIVE = "public, max-age=5, must-revalidate"
FINISHED = "public, max-age=600"
CLOCK = "public, max-age=1, must-revalidate"
VARY = "Accept-Encoding, Cookie"
ETAG = re.compile(r'^W/"[0-9a-f]{24}"$')


def _renders(web, key) -> int:
    return web.app.state.pages.renders[key]


def _statements(engine):
    """The SQL statements the engine runs, as a list that grows (remove the listener with `.stop()`)."""
    seen: list[str] = []

    def on(conn, cursor, statement, *args):
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", on)
    return seen, lambda: event.remove(engine, "before_cursor_execute", on)


def test_issue_41_the_results_page_is_rendered_once_for_many_requests_each_one_statement(committed, web, http):
    """Issue 41: 20 requests while nothing changes get the same bytes and ETag from one render; each costs
    one statement (the page's version) and no render."""
    t = world.running_poker(committed, players=6)
    first = http.get(f"/t/{t['id']}")
    assert first.status_code == 200 and "Осталось 6 игроков из 6 входов" in first.text
    seen, stop = _statements(committed)
    try:
        answers = [http.get(f"/t/{t['id']}") for _ in range(20)]
    finally:
        stop()
    assert {(a.status_code, a.content, a.headers["etag"]) for a in answers} == {
        (200, first.content, first.headers["etag"])
    }
    assert _renders(web, ("results", t["id"], False)) == 1
    assert len(seen) == 20 and len(set(seen)) == 1 and seen[0].startswith("SELECT md5(concat_ws(")


def test_issue_41_a_desk_action_through_the_api_gives_a_new_etag_and_the_new_page_at_once(committed, web, http):
    """Issue 41: the floor's arrival and a bust through /api/v1: the next request has the new content and a
    new ETag, never the page kept before (no stale page after a write); the ETag asked with is then not
    matched (200, not 304)."""
    w = world.access_world(committed)
    t = w.tournament_a
    before = http.get(f"/t/{t}")
    assert before.status_code == 200 and "Anna Karenina" not in before.text and "anna" not in before.text
    api = {"floor": w.headers("floor")}
    assert http.post(f"/api/v1/desk/tournaments/{t}/arrivals", json={"player": "anna"}, headers=api["floor"]).is_success
    arrived = http.get(f"/t/{t}", headers={"if-none-match": before.headers["etag"]})
    assert arrived.status_code == 200 and arrived.headers["etag"] != before.headers["etag"]
    assert http.post(f"/api/v1/tournaments/{t}/knockouts", json={"busted": ["anna"]}, headers=api["floor"]).is_success
    busted = http.get(f"/t/{t}")
    assert busted.headers["etag"] not in (before.headers["etag"], arrived.headers["etag"])
    assert re.search(r'<table id="knockouts">.*<td>anna</td>', busted.text, re.S)
    assert _renders(web, ("results", t, False)) == 3


def test_issue_41_if_none_match_is_answered_304_with_the_headers_and_no_body(committed, web, http):
    """Issue 41: 304 to the page's own ETag (weak or strong, among others, or `*`), with its ETag,
    Cache-Control and Vary; 200 to another tag."""
    t = world.running_poker(committed, players=3)
    page = http.get(f"/t/{t['id']}")
    tag = page.headers["etag"]
    assert ETAG.match(tag)
    for asked in (tag, tag.removeprefix("W/"), f'"other", {tag}', "*"):
        r = http.get(f"/t/{t['id']}", headers={"if-none-match": asked})
        assert r.status_code == 304 and r.content == b""
        assert (r.headers["etag"], r.headers["cache-control"], r.headers["vary"]) == (tag, LIVE, VARY)
        assert "content-type" not in r.headers
    assert http.get(f"/t/{t['id']}", headers={"if-none-match": '"other"'}).status_code == 200
    assert _renders(web, ("results", t["id"], False)) == 1


def test_issue_41_gzip_when_accepted_decodes_to_the_same_bytes(committed, web):
    """Issue 41: gzip to a client that takes it (compressed once: the same gzip bytes each time), the page
    as it is to one that does not; both under the same ETag and Vary: Accept-Encoding."""
    t = world.running_poker(committed, players=3)
    with httpx.Client(base_url=web.url, timeout=10) as client:
        plain = client.get(f"/t/{t['id']}", headers={"accept-encoding": "identity"})
        with client.stream("GET", f"/t/{t['id']}", headers={"accept-encoding": "gzip, br"}) as r:
            raw = b"".join(r.iter_raw())
            zipped = r
        with client.stream("GET", f"/t/{t['id']}", headers={"accept-encoding": "gzip"}) as r:
            again = b"".join(r.iter_raw())
    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip" and int(zipped.headers["content-length"]) == len(raw)
    assert gzip.decompress(raw) == plain.content and len(raw) < len(plain.content)
    assert again == raw
    assert zipped.headers["etag"] == plain.headers["etag"] and zipped.headers["vary"] == VARY


def test_issue_41_gzip_and_if_none_match_read_as_rfc_9110_says():
    """Issue 41: Accept-Encoding's gzip or `*` unless at q=0; If-None-Match compared weakly."""
    assert [accepts_gzip(v) for v in ("gzip", "br, gzip;q=0.5", "*", "gzip;q=0", "identity", "", "gzip;q=x")] == [
        True,
        True,
        True,
        False,
        False,
        False,
        False,
    ]
    assert [matches(v, 'W/"ab"') for v in ('W/"ab"', '"ab"', '"x", W/"ab"', "*", '"abc"', None, "")] == [
        True,
        True,
        True,
        True,
        False,
        False,
        False,
    ]


def test_issue_41_the_headers_of_live_and_finished_pages_and_of_a_session(committed, web, http):
    """Issue 41: a live tournament's results are public for 5 s and must be revalidated, a finished one's
    public for 10 minutes; its screen and widget (which show the clock) for a second; a request with a
    session is rendered for it, private and not stored, and not kept."""
    live = world.running_poker(committed, players=3)
    done = world.running_poker(committed, players=2, handles="done{n}")
    world.knock_out(committed, done["id"], done["entries"][1], done["entries"][0])
    world.finish(committed, done["id"])
    expected = {
        f"/t/{live['id']}": LIVE,
        f"/t/{live['id']}?fragment=1": LIVE,
        f"/t/{live['id']}/screen": CLOCK,
        f"/widget/t/{live['id']}": CLOCK,
        f"/t/{done['id']}": FINISHED,
        f"/t/{done['id']}/screen": FINISHED,
    }
    for path, cache in expected.items():
        r = http.get(path)
        assert r.status_code == 200, path
        assert (r.headers["cache-control"], r.headers["vary"], bool(ETAG.match(r.headers["etag"]))) == (
            cache,
            VARY,
            True,
        ), path
        assert r.headers["content-type"] == "text/html; charset=utf-8"
        assert r.headers["x-content-type-options"] == "nosniff"  # the security headers as on every page
    assert http.get(f"/widget/t/{live['id']}").headers["content-security-policy"].endswith("frame-ancestors *")
    assert http.get(f"/t/{live['id']}").headers["content-security-policy"].endswith("frame-ancestors 'none'")


def test_issue_41_a_session_gets_its_own_page_private_and_not_kept(committed, web, http):
    """Issue 41: the header of a page asked with this site's session cookie names the person's places: it is
    rendered for that request, `private, no-store`, and neither kept nor counted as the public page's."""
    t = world.running_poker(committed, players=3)
    public = http.get(f"/t/{t['id']}")
    w = world.access_world(committed)
    mine = http.get(f"/t/{t['id']}", headers=w.headers("nobody"))
    assert mine.status_code == 200 and mine.headers["cache-control"] == "private, no-store"
    assert mine.headers["vary"] == VARY and "etag" not in mine.headers
    assert 'action="/signout"' in mine.text and 'action="/signout"' not in public.text
    assert _renders(web, ("results", t["id"], False)) == 1
    assert http.get(f"/t/{t['id']}").content == public.content


def test_issue_41_the_same_page_has_the_same_etag_on_another_process(committed, web, http):
    """Issue 41: the ETag comes from the page's bytes, which come from its version: a second server over
    the same database answers the same bytes under the same tag, and 304 to the first server's tag."""
    from flows.web.app import create_app

    t = world.running_poker(committed, players=4)
    here = http.get(f"/t/{t['id']}")
    with Server(create_app(committed, outbox=web.outbox), free_port()) as other:
        with httpx.Client(base_url=other.url, timeout=10) as client:
            there = client.get(f"/t/{t['id']}")
            revalidated = client.get(f"/t/{t['id']}", headers={"if-none-match": here.headers["etag"]})
    assert (there.content, there.headers["etag"]) == (here.content, here.headers["etag"])
    assert revalidated.status_code == 304


def test_ac_2_a_draft_tournament_stays_a_missing_page_and_is_never_rendered(committed, web, http):
    """AC-2: a draft's results, screen and widget answer 404 as a missing tournament's, with no render."""
    with unit_of_work(committed) as session:
        draft = world.tournament(session, status="draft", start=world.now() + timedelta(days=1)).id
    for path in (f"/t/{draft}", f"/t/{draft}?fragment=1", f"/t/{draft}/screen", f"/widget/t/{draft}"):
        r = http.get(path)
        assert (r.status_code, "etag" in r.headers) == (404, False), path
        assert r.text == http.get(f"/t/{draft + 1000}").text.replace(str(draft + 1000), str(draft))
    assert sum(web.app.state.pages.renders.values()) == 0


def test_issue_41_the_screen_is_rendered_at_most_once_a_second(committed, web, http):
    """Issue 41: the club's screen shows the clock, so its version is the tournament's and the current
    second: requests within one second get one render (its server instant in that second), each render
    is one ETag."""
    t = world.running_poker(committed, players=3)
    answers = [http.get(f"/t/{t['id']}/screen") for _ in range(10)]
    nows = [datetime.fromisoformat(re.search(r'data-server-now="([^"]+)"', a.text)[1]) for a in answers]
    assert len({n.replace(microsecond=0) for n in nows}) == len(set(nows)) == _renders(web, ("screen", t["id"]))
    assert len({a.headers["etag"] for a in answers}) == len(set(nows))


def test_issue_41_a_cup_page_and_the_front_page_follow_a_write_at_once(committed, web, http):
    """Issue 41 (PD-3): a join written by another process is on the cup's page and the front page's seat
    count at the next request, under new ETags."""
    with unit_of_work(committed) as session:
        code = pusoy_setup.create(session, name="Cache cup", organizer="org", capacity=8, now=world.now()).code
    cup, front = http.get(f"/p/{code}"), http.get("/")
    assert "0 of 8 players" in cup.text and ">0 / 8<" in front.text
    assert front.headers["vary"] == "Accept-Encoding, Cookie, Accept-Language"
    with unit_of_work(committed) as session:
        pusoy_setup.join(session, code, "newcomer", world.now())
    cup2, front2 = http.get(f"/p/{code}"), http.get("/")
    assert "1 of 8 players" in cup2.text and cup2.headers["etag"] != cup.headers["etag"]
    assert ">1 / 8<" in front2.text and front2.headers["etag"] != front.headers["etag"]
    english = http.get("/", headers={"accept-language": "en"})
    assert english.headers["etag"] != front2.headers["etag"] and "Open tournaments" in english.text
    assert _renders(web, ("cup", code, False)) == 2 and _renders(web, ("home", "ru")) == 2
