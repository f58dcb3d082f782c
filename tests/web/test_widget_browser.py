"""The widget for clubs' sites (issue 38): a page of another origin with one script tag shows the
tournament live in a frame, and a bust made through the services reaches it without a reload (SP-3);
only the widget may be framed by another site; axe-core finds nothing serious in it."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support import world
from tests.support.axe import serious
from tests.support.net import free_port

WAIT_S = 15.0


def _club_site(html: str):
    """A club's own site on another loopback port: one page."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self):
            body = html.encode()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_only_the_widget_may_be_framed_by_another_site(committed, http):
    t = world.running_poker(committed, players=6)
    framed = http.get(f"/widget/t/{t['id']}")
    assert framed.status_code == 200
    assert "frame-ancestors *" in framed.headers["content-security-policy"]
    assert "x-frame-options" not in framed.headers
    screen = http.get(f"/t/{t['id']}/screen")
    assert screen.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in screen.headers["content-security-policy"]


def test_sp_3_a_club_s_site_shows_the_tournament_live_through_one_script_tag(committed, web, browser):
    t = world.running_poker(committed, players=12)
    site = _club_site(
        f'<!doctype html><html lang="ru"><title>Клуб</title><h1>Наш турнир</h1>'
        f'<script src="{web.url}/static/embed.js" data-tournament="{t["id"]}" data-title="Турнир"></script></html>'
    )
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{site.server_address[1]}/")
        page.wait_for_selector("iframe", timeout=WAIT_S * 1000)
        frame = page.frame_locator("iframe")
        frame.locator('#live[data-state="live"]').wait_for(timeout=WAIT_S * 1000)
        assert frame.locator("#players").text_content() == "Осталось 12 игроков из 12 входов"
        world.knock_out(committed, t["id"], t["entries"][0], t["entries"][-1])
        start = time.monotonic()
        while frame.locator("#players").text_content() != "Осталось 11 игроков из 12 входов":
            assert time.monotonic() - start < WAIT_S, frame.locator("#players").text_content()
            time.sleep(0.05)
        checked = browser.new_context(bypass_csp=True)  # axe is injected as a script of its own
        widget = checked.new_page()
        widget.goto(f"{web.url}/widget/t/{t['id']}")
        assert serious(widget) == []
        checked.close()
        context.close()
    finally:
        site.shutdown()
