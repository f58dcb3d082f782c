"""The documents' data read from the other areas' tables: a finished live poker tournament played
through the poker services, and a complete Pusoy Dos tournament with a playoff played through the
Pusoy Dos services (DOC-1)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from domain.clubs.tables import Club
from domain.documents.rules.model import Bundle, PokerPlace
from domain.documents.services import sources
from domain.documents.services.publish import publish
from domain.errors import DomainError
from infra.render import Renderer
from tests.support import world as w
from tests.support.world import SP7_FINISHED_AT, complete_pusoy, filled, finished_poker


def test_doc_1_a_finished_poker_tournament_becomes_a_sheet_with_its_counts_places_and_prizes(session):
    """DOC-1, SP-3, SP-7"""
    t = finished_poker(session)
    (found,) = [b for b in sources.due(session) if isinstance(b, Bundle) and b.sheet.tournament_id == t.id]
    sheet = found.sheet
    assert (sheet.tournament, sheet.club) == ("<b>Пятница</b>", session.get(Club, t.club_id).name)
    assert sheet.held_on == date(2026, 11, 30)  # finished 21:10 UTC: the next day at the club (Moscow)
    assert (sheet.entries, sheet.reentries, sheet.addons, sheet.prize_places) == (11, 1, 0, 2)
    assert [(p.place, p.player) for p in sheet.places] == [
        (1, "Кирилл"),
        (2, "J"),
        (3, "I"),
        (4, "H"),
        (5, "Борис"),
        (6, "G"),
        (7, "F"),
        (8, "D"),
        (8, "E"),
        (10, "C"),
    ]
    assert sheet.places[0] == PokerPlace(1, "Кирилл", Decimal(6), "Кубок чемпиона")
    assert sheet.places[4].knockouts == Decimal(2)  # both D and E, one credit each, summed over entries
    assert (found.club_id, found.recipient) == (t.club_id, "floor@example.org")
    assert [(c.serial, c.player, c.prize) for c in found.certificates] == [
        (f"SP-{t.id:06d}-01", "Кирилл", "Кубок чемпиона"),
        (f"SP-{t.id:06d}-02", "J", "Medal"),
    ]


def test_a_published_tournament_is_no_longer_due(session, tmp_path):
    t = finished_poker(session)
    (found,) = [b for b in sources.due(session) if isinstance(b, Bundle) and b.sheet.tournament_id == t.id]
    publish(session, Renderer(b"k"), tmp_path, found, SP7_FINISHED_AT)
    assert t.id not in sources.due_poker_ids(session)


def test_a_running_tournament_is_refused_with_a_clear_reason(session):
    t = w.tournament(session, **w.BOUNTY)
    with pytest.raises(DomainError) as caught:
        sources.bundle(session, "poker", t.id)
    assert (caught.value.code, caught.value.message) == (
        "not-publishable",
        f"tournament {t.id} is running, not finished",
    )
    assert t.id not in sources.due_poker_ids(session)
    with pytest.raises(DomainError) as unknown:
        sources.bundle(session, "poker", 999999)
    assert unknown.value.code == "tournament-unknown"


def test_doc_1_a_complete_pusoy_tournament_becomes_a_sheet_with_rounds_steps_playoff_and_champion(session):
    """DOC-1, PD-7, PD-9"""
    t, roles, finalists = complete_pusoy(session, organizer_email="org@example.org")
    found = sources.bundle(session, "pusoy", t.id)
    sheet = found.sheet
    assert sheet.champion == finalists["f1"] == t.champion
    assert (sheet.capacity, sheet.bracket, sheet.games_per_round, sheet.club) == (8, (8, 4), 2, None)
    r1, r2 = sheet.rounds
    assert [s.advanced for s in r1.standings] == [True] * 4 + [False] * 4
    by_player = {s.player: s for s in r1.standings}
    assert (by_player[roles["p06"]].rank, by_player[roles["p02"]].rank) == (4, 5)
    assert by_player[roles["p02"]].decided_by == "the playoff"
    assert r1.standings[0].decided_by is None
    assert [s.player for s in r2.standings][0] == sheet.champion
    assert [(s.player, s.points, s.decided_by) for s in r2.standings[:2]] == [
        (finalists["f1"], 5, None),
        (finalists["f2"], 5, "a later first win (or none)"),
    ]
    (playoff,) = sheet.playoffs
    assert (playoff.round_number, playoff.spots, playoff.finish) == (1, 1, (roles["p06"], roles["p02"]))
    assert (found.club_id, found.recipient) == (None, "org@example.org")
    assert [c.player for c in found.certificates] == [sheet.champion]


def test_a_pusoy_tournament_without_club_or_organizer_address_is_stored_only(session):
    t, _, _ = complete_pusoy(session)
    found = sources.bundle(session, "pusoy", t.id)
    assert found.recipient is None and t.id in sources.due_pusoy_ids(session)


def test_an_active_pusoy_tournament_is_not_publishable(session):
    t = filled(session, 8)
    with pytest.raises(DomainError) as caught:
        sources.bundle(session, "pusoy", t.id)
    assert caught.value.message == f"tournament {t.id} is active, not complete"


def test_the_status_report_counts_tournaments_to_publish_and_deliveries_due(session, tmp_path):

    from domain.ops.services.status import PENDING_WORK

    count = PENDING_WORK["publish-results"]
    before = session.execute(count).scalar_one()
    t = finished_poker(session)
    assert session.execute(count).scalar_one() == before + 1
    publish(session, Renderer(b"k"), tmp_path, sources.bundle(session, "poker", t.id), SP7_FINISHED_AT)
    assert session.execute(count).scalar_one() == before + 1  # now a delivery due to its club


def test_doc_1_the_poker_sheet_counts_rebuys_and_add_ons_of_live_entries(session):
    """DOC-1: rebuys and add-ons counted per tournament, each kind apart."""
    from sqlalchemy import select

    from domain.poker.tables.tournaments import Entry, TopUp

    t = finished_poker(session)
    entries = session.scalars(select(Entry).where(Entry.tournament_id == t.id).order_by(Entry.id)).all()
    for entry, kind in [(entries[0], "rebuy"), (entries[1], "rebuy"), (entries[2], "addon")]:
        session.add(
            TopUp(
                tournament_id=t.id,
                player_id=entry.player_id,
                entry_id=entry.id,
                kind=kind,
                chips=20000,
                created_at=w.EVENING,
            )
        )
    session.flush()
    sheet = sources.bundle(session, "poker", t.id).sheet
    assert (sheet.rebuys, sheet.addons, sheet.reentries) == (2, 1, 1)
