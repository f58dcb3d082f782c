"""The demo's seed: a club, a series, a live tournament open with its players, a Pusoy Dos cup
filling (its players made, the simulator joins them), every player with a Russian name in Cyrillic
and an ASCII handle; seeded once (a second seed is refused and writes nothing)."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select, update

from domain.clubs.tables import Club
from domain.errors import DomainError
from domain.poker.services import structures as poker_structures
from domain.poker.services import tournaments as poker_tournaments
from domain.poker.tables.tournaments import Player, Registration, Tournament
from domain.pusoy.rules.codes import new_code
from domain.pusoy.services import rows as pusoy_rows
from domain.pusoy.tables import PusoyTournament
from domain.series.tables import Series
from domain.simulate.rules.names import russian_names
from domain.simulate.services.demo import cup_joiners, demo_club, find_demo, poker_facts, seed_demo

NOW = datetime(2026, 11, 29, 12, 0, 30, 123456, tzinfo=UTC)


def test_the_demo_seeds_a_club_a_series_a_live_tournament_two_minutes_ahead_and_a_filling_pusoy_cup(session):
    """The cup's players are made, not joined: the simulator joins them (over /api/v1 on the wall clock)."""
    demo = seed_demo(session, NOW, random.Random(1))
    t = poker_tournaments.get_tournament(session, demo.poker_id)
    assert (t.status, t.scheduled_start, t.club_id) == (
        "registration_open",
        datetime(2026, 11, 29, 12, 2, 30, tzinfo=UTC),
        demo.club_id,
    )
    assert [lv.duration_seconds for lv in poker_structures.structure_levels(session, t.structure_id)][:3] == [
        60,
        60,
        60,
    ]
    assert session.scalar(select(func.count()).where(Registration.tournament_id == t.id)) == 30
    cup = pusoy_rows.find(session, demo.pusoy_code)
    assert (cup.status, cup.entrants, cup.club_id) == ("setup", 0, demo.club_id)
    assert cup_joiners(session, demo.pusoy_code) == tuple(f"pd{i:02d}" for i in range(1, 17))
    assert demo_club(session) == demo.club_id and demo.series_id
    facts = poker_facts(session, t.id, NOW, timedelta(minutes=4))
    assert len(facts.arriving) == 30 and facts.in_play == ()
    assert facts.times.addon_at == t.scheduled_start + timedelta(minutes=2, seconds=1)  # at the break
    assert facts.times.finish_by == t.scheduled_start + timedelta(minutes=4)


def test_doc_3_the_demo_s_russian_club_s_players_have_cyrillic_names_drawn_by_the_seed_and_ascii_handles(session):
    """DOC-3, AC-5: the demo club is Russian, so its 30 live players and 16 cup players have Russian
    names (first name and surname of one gender) in Cyrillic, different from each other, drawn by the
    seed after the cup's join code (so a seed keeps its code); the handles public pages show stay
    `demo01`.., `pd01`.."""
    demo = seed_demo(session, NOW, random.Random(1))
    players = session.execute(select(Player.name, Player.handle).order_by(Player.id)).all()
    assert [h for _, h in players] == [f"demo{i:02d}" for i in range(1, 31)] + [f"pd{i:02d}" for i in range(1, 17)]
    assert all(re.fullmatch(r"[А-ЯЁ][а-яё]+ [А-ЯЁ][а-яё]+", name) for name, _ in players)
    rng = random.Random(1)
    assert demo.pusoy_code == new_code(rng)
    assert tuple(n for n, _ in players) == russian_names(rng, 46) and len({n for n, _ in players}) == 46


def test_sp_3_the_demo_s_prize_places_are_its_prize_lines_in_the_club_s_language(session):
    """SP-3, 3.4, DOC-4: three prize lines of the cup preset, in Russian (the demo club chose no
    language), and three prize places whatever the field grows to with re-entries."""
    from domain.poker.rules.prizes import paid_places
    from domain.poker.services import results

    demo = seed_demo(session, NOW, random.Random(1))
    t = poker_tournaments.get_tournament(session, demo.poker_id)
    assert results.prizes(session, t.id) == (
        "Кубок и вход на турнир клуба",
        "Вход на турнир клуба",
        "Вход на турнир клуба",
    )
    assert results.itm_status(session, t.id).paid_places == 3
    assert {paid_places(entries, 30, t.itm_percent, t.itm_min) for entries in range(30, 200)} == {3}


def test_a_second_demo_seed_is_refused_and_writes_nothing(session):
    seed_demo(session, NOW, random.Random(1))
    clubs = session.scalar(select(func.count()).select_from(Club))
    with pytest.raises(DomainError) as refused:
        seed_demo(session, NOW + timedelta(minutes=5), random.Random(2))
    assert refused.value.code == "demo-exists"
    assert session.scalar(select(func.count()).select_from(Club)) == clubs


def test_ac_4_the_demo_s_accounts_are_seeded_once_with_argon2id_passwords(session):
    """The demo club's owner, floor manager and cashier (the second club's are test_demo_accounts.py's)
    and three players' accounts, their passwords drawn at seeding and hashed by the port; the cup's 8
    players and the game server get accounts with no password (the simulator acts for them with
    tokens); a second seed adds nothing and changes no account (`make run` again)."""
    from domain.access.services import accounts
    from domain.access.tables import Account
    from domain.simulate.services.demo import seed_demo_accounts
    from flows import bootstrap
    from tests.support.db import contents

    demo = seed_demo(session, NOW, random.Random(1), players=4, pusoy_players=8)
    hasher = bootstrap.password_hasher()
    made = seed_demo_accounts(session, hasher, demo.club_id, NOW)
    c = demo.club_id
    assert [(a.email, a.role) for a in made] == [
        ("owner@demo-club.example", f"owner@{c}"),
        ("floor@demo-club.example", f"floor@{c}"),
        ("cashier@demo-club.example", f"cashier@{c}"),
        ("demo01@demo-club.example", "player demo01"),
        ("demo02@demo-club.example", "player demo02"),
        ("demo03@demo-club.example", "player demo03"),
    ]
    assert all(a.password not in repr(a) for a in made)
    for a in made:
        account = accounts.find(session, a.email)
        assert account.password_hash.startswith("$argon2id$") and hasher.verify(account.password_hash, a.password)
        assert account.email_verified_at == NOW
    assert [r["roles"] for r in accounts.listing(session, c)] == [[f"cashier@{c}"], [f"floor@{c}"], [f"owner@{c}"]]
    before = contents(session)
    assert seed_demo_accounts(session, hasher, demo.club_id, NOW + timedelta(minutes=5)) == []
    assert contents(session) == before
    assert session.scalar(select(func.count()).select_from(Account)) == 6 + 8 + 1
    machines = session.execute(
        select(Account.email, Account.player_id.is_not(None))
        .where(Account.password_hash.is_(None))
        .order_by(Account.id)
    ).all()
    assert machines == [(f"pd{i:02d}@demo-club.example", True) for i in range(1, 9)] + [
        ("games@demo-club.example", False)
    ]


def test_doc_4_the_demo_s_club_and_tournaments_have_russian_names_and_are_found_after_the_owner_renames_them(session):
    """DOC-4: the demo club is Russian, and so are the names its documents and pages show. The demo is
    found by its club's INN and the first series, tournament and cup of that club, so an owner who
    renames them in the console (or a demo seeded under older names) is still resumed, not seeded twice."""
    demo = seed_demo(session, NOW, random.Random(1))
    named = (
        session.scalar(select(Club.name).where(Club.id == demo.club_id)),
        session.scalar(select(Series.name).where(Series.id == demo.series_id)),
        poker_tournaments.get_tournament(session, demo.poker_id).name,
        pusoy_rows.find(session, demo.pusoy_code).name,
    )
    assert named == ("Демо-клуб Tourney", "Пятничный турбо", "Демо-турбо", "Демо-кубок Пусой Дос")
    session.execute(update(Club).where(Club.id == demo.club_id).values(name="Tourney Demo Club"))
    session.execute(update(Series).where(Series.id == demo.series_id).values(name="Demo Friday Turbo"))
    session.execute(update(Tournament).where(Tournament.id == demo.poker_id).values(name="Demo Turbo"))
    session.execute(update(PusoyTournament).where(PusoyTournament.code == demo.pusoy_code).values(name="Demo Cup"))
    assert find_demo(session) == demo
    with pytest.raises(DomainError) as refused:
        seed_demo(session, NOW, random.Random(2))
    assert refused.value.code == "demo-exists"
