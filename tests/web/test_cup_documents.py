"""The organizer's cup documents (issue 39; `cups.documents`, `cups.download-document`,
`cups.resend-documents`, flows/web/api/cups.py) over `/api/v1` against a real server and PostgreSQL:
before the cup is complete it has none; complete and published, its results sheet and champion's
certificate with their delivery (to the organizer's e-mail: a cup of no club); a file downloaded as the
signed PDF stored; sent, sent again as a new delivery, asked twice while on its way 204 writing nothing;
another organizer's cup answered as a missing one, nothing written (AC-2); a club's owner, not an organizer, gets the same 404."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from domain.documents.services import sources
from domain.documents.services.publish import publish
from domain.pusoy.tables import PusoyTournament
from domain.store.db import unit_of_work
from infra.config import load_settings
from infra.render import Renderer
from tests.support.world import access_world, complete_pusoy
from tests.web.test_api_owner_series import Mailer, _call, _rows, _send, _trail


def test_issue_39_the_organizer_lists_downloads_and_re_sends_a_cup_s_documents(web, http, committed):
    w = access_world(committed)
    with unit_of_work(committed) as session:
        t, _, _ = complete_pusoy(session, organizer="maria", organizer_email=w.emails["organizer"])
        code, cup_id = t.code, t.id
        session.get(PusoyTournament, cup_id).private = True
    assert _call(http, w, "organizer", "GET", f"/cups/{code}/documents").json() == [
        {"id": None, "source": "pusoy", "tournament_id": cup_id, "tournament": "Кубок <Пусой>", "season_id": None,
         "season": None, "state": "not-published", "recipient": None, "attempts": 0, "last_error": None,
         "next_attempt_at": None, "sent_at": None, "published_at": None, "files": []}
    ]  # fmt: skip
    with unit_of_work(committed) as session:
        publish(session, Renderer(load_settings().secret_key()), web.outbox, sources.bundle(session, "pusoy", cup_id),
                datetime.now(UTC))  # fmt: skip
    [listed] = _call(http, w, "organizer", "GET", f"/cups/{code}/documents").json()
    assert (listed["state"], listed["recipient"]) == ("pending", w.emails["organizer"])
    assert [f["kind"] for f in listed["files"]] == ["results", "certificate"]
    results = listed["files"][0]
    pdf = _call(http, w, "organizer", "GET", f"/cups/{code}/documents/{listed['id']}/files/{results['id']}")
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF") and len(pdf.content) == results["size_bytes"]

    path = f"/cups/{code}/documents/{listed['id']}/deliveries"
    before = _rows(committed)
    on_its_way = _call(http, w, "organizer", "POST", path)
    assert (on_its_way.status_code, on_its_way.content) == (204, b"") and _rows(committed) == before
    mailer = Mailer()
    _send(committed, web.outbox, mailer)
    assert [(to, files) for to, _, files, _ in mailer.sent] == [
        (w.emails["organizer"], ["results.pdf", listed["files"][1]["filename"]])
    ]
    again = _call(http, w, "organizer", "POST", path)
    assert again.status_code == 202, again.text
    assert again.json()["state"] == "pending" and _trail(committed, 1) == [
        ("cups.resend-documents", f"documents {listed['id']} of cup {code}")
    ]
    _send(committed, web.outbox, mailer)
    assert len(mailer.sent) == 2 and mailer.sent[0][3] != mailer.sent[1][3]  # a new message, its own Message-ID

    # AC-2: another organizer's cup, and a missing one, answer the same; nothing written
    before = _rows(committed)
    theirs = _call(http, w, "organizer", "GET", f"/cups/{w.others_cup}/documents")
    missing = _call(http, w, "organizer", "GET", "/cups/ZZZZZZ/documents")
    assert (
        (theirs.status_code, theirs.json()["code"])
        == (missing.status_code, missing.json()["code"])
        == (404, "unknown-code")
    )
    mine_elsewhere = _call(http, w, "organizer", "POST", f"/cups/{w.others_cup}/documents/{listed['id']}/deliveries")
    assert mine_elsewhere.status_code == 404 and _rows(committed) == before
    owner = _call(http, w, "owner", "GET", f"/cups/{code}/documents")  # not an organizer: as missing too
    assert (owner.status_code, owner.json()["code"]) == (404, "unknown-code")


def test_issue_39_the_cup_s_page_lists_its_documents_downloads_and_sends_them_again(web, committed):
    """The organizer's `/cups/<code>` of a complete cup: «Документы» with its delivery, the results sheet
    and the champion's certificate to download (the stored PDF), «Отправить документы ещё раз» (sent:
    a new delivery, said «Документы будут отправлены ещё раз.»); another organizer gets the 404 page for
    either, nothing written (AC-2)."""
    from flows import bootstrap
    from tests.web.test_cup_pages import _csrf, _last, _signed_in

    w = access_world(committed, bootstrap.password_hasher(), passwords=("organizer", "owner"))
    with unit_of_work(committed) as session:
        t, _, _ = complete_pusoy(session, organizer="maria", organizer_email=w.emails["organizer"])
        code, cup_id = t.code, t.id
        publish(session, Renderer(load_settings().secret_key()), web.outbox, sources.bundle(session, "pusoy", cup_id),
                datetime.now(UTC))  # fmt: skip
    _send(committed, web.outbox, Mailer())  # sent once
    with _signed_in(web, w) as client:
        page = client.get(f"/cups/{code}")
        assert page.status_code == 200, page.text
        links = re.findall(rf'<a href="(/cups/{code}/documents/\d+/files/\d+)" download>([^<]+)</a>', page.text)
        delivery = re.findall(r'<p class="delivery"[^>]*>([^<]*)</p>', page.text)
        assert delivery == [f"отправлены на {w.emails['organizer']}"] and "Документы" in page.text
        assert [label for _, label in links] == ["итоги", "сертификат: u01"]  # the champion's
        pdf = client.get(links[0][0])
        assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
        pid = int(re.search(r"/documents/(\d+)/files/", links[0][0]).group(1))
        done = client.post(f"/cups/{code}/documents/{pid}/resend", data={"csrf": _csrf(page.text)})
        assert (done.status_code, done.headers["location"]) == (303, f"/cups/{code}?done=resent#documents-heading")
        assert _last(committed) == ("cups.resend-documents", f"documents {pid} of cup {code}")
        assert "Документы будут отправлены ещё раз." in client.get(f"/cups/{code}?done=resent").text
    with _signed_in(web, w, "owner") as other:
        before = _rows(committed)
        assert other.get(links[0][0]).status_code == 404
        csrf = _csrf(other.get("/account").text)
        assert other.post(f"/cups/{code}/documents/{pid}/resend", data={"csrf": csrf}).status_code == 404
        assert _rows(committed) == before


def test_ac_3_the_organizer_reads_the_cup_s_audit_trail(web, http, committed):
    """AC-3: `GET /cups/<code>/audit` and the cup's page list the changes that name the cup, newest first:
    its amendment, a game server's token made and revoked (named "… of cup CODE"), its documents sent
    again; another cup's rows are not among them; another organizer's cup answers as a missing one."""
    w = access_world(committed)
    code = w.organizer_cup
    assert _call(http, w, "organizer", "POST", f"/cups/{code}/settings", {"name": "Кубок Марии"}).status_code == 200
    made = _call(http, w, "organizer", "POST", f"/cups/{code}/tokens", {"name": "сервер"}).json()
    assert _call(http, w, "organizer", "DELETE", f"/cups/{code}/tokens/{made['id']}").status_code == 200
    trail = _call(http, w, "organizer", "GET", f"/cups/{code}/audit")
    assert trail.status_code == 200, trail.text
    assert [(r["action"], r["target"]) for r in trail.json()] == [
        ("cups.revoke-token", f"token {made['id']} of cup {code}"),
        ("cups.create-token", f"token 'сервер' of cup {code}"),
        ("cups.edit", f"cup {code}"),
    ]
    [actor] = {r["actor"] for r in trail.json()}  # the organizer's token: "token N (tests) of <e-mail>"
    assert actor.startswith("token ") and actor.endswith(f" (tests) of {w.emails['organizer']}")
    theirs = _call(http, w, "organizer", "GET", f"/cups/{w.others_cup}/audit")
    missing = _call(http, w, "organizer", "GET", "/cups/ZZZZZZ/audit")
    assert (
        (theirs.status_code, theirs.json()["code"])
        == (missing.status_code, missing.json()["code"])
        == (404, "unknown-code")
    )
