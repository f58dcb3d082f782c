"""The desk state built once per change (flows/web/api/desk.py `DeskStates`, docs/desk.md "Speed"): a
build is reused for the same change key until the clock may have changed what it shows (a deadline of
the tournament, exactly at it; the level's end; MAX_AGE), never for an earlier instant; two desks asking
at once for one tournament wait for one build; the held builds are bounded."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from sqlalchemy import DateTime

from flows.web.api.desk import MAX_AGE, Built, DeskStates, _until
from flows.web.api.desk import Tournament as TournamentRow

T0 = datetime(2026, 5, 1, 18, 0, tzinfo=UTC)
MS = timedelta(milliseconds=1)


def _tournament(**instants: datetime) -> SimpleNamespace:
    """A tournament row's instants: every datetime column None but those given."""
    names = [c.key for c in TournamentRow.__table__.columns if isinstance(c.type, DateTime)]
    return SimpleNamespace(**dict.fromkeys(names) | instants)


def _builder(states: list[str], key: str, at: datetime, until: datetime | None = None):
    def build() -> Built:
        states.append(key)
        return Built(key, at, until or at + MAX_AGE, {"n": len(states)}, {})

    return build


def test_a_build_is_reused_for_its_key_until_it_may_no_longer_hold():
    desks, made = DeskStates(), []
    first = desks.get(1, "k1", T0, _builder(made, "k1", T0))
    assert desks.get(1, "k1", T0 + MAX_AGE - MS, _builder(made, "k1", T0)) is first  # another desk, no change
    assert made == ["k1"]
    assert desks.get(1, "k2", T0 + MS, _builder(made, "k2", T0 + MS)).key == "k2"  # a change: built again
    assert desks.get(1, "k2", T0 + MS + MAX_AGE, _builder(made, "k2", T0 + MS + MAX_AGE)).state == {"n": 3}  # aged
    assert desks.get(1, "k2", T0, _builder(made, "k2", T0)).state == {"n": 4}  # an earlier instant than the build
    assert desks.builds == 4


def test_the_build_holds_until_the_first_instant_the_clock_alone_may_change_it():
    deadline = T0 + timedelta(milliseconds=400)
    t = _tournament(late_reg_deadline=deadline, scheduled_start=T0 - timedelta(hours=1))
    assert _until(t, None, T0) == deadline  # exactly at the deadline it no longer holds
    assert _until(t, None, deadline) == deadline + MAX_AGE  # a deadline passed is no bound
    level_end = T0 + timedelta(milliseconds=250)
    screen = {"clock": {"level_ends_at": level_end.isoformat(), "next_break_at": None, "counts_to": None}}
    assert _until(t, screen, T0) == level_end
    assert _until(_tournament(rebuy_until=T0 + timedelta(hours=2)), None, T0) == T0 + MAX_AGE
    built = Built("k", T0, deadline, {}, {})
    assert (built.holds("k", deadline - MS), built.holds("k", deadline), built.holds("other", T0)) == (
        True,
        False,
        False,
    )


def test_two_desks_asking_at_once_for_one_tournament_wait_for_one_build():
    desks, made = DeskStates(), []
    building, release = threading.Event(), threading.Event()

    def slow() -> Built:
        building.set()
        release.wait(10)
        return _builder(made, "k", T0)()

    got: list[Built] = []
    first = threading.Thread(target=lambda: got.append(desks.get(1, "k", T0, slow)))
    first.start()
    assert building.wait(10)
    second = threading.Thread(target=lambda: got.append(desks.get(1, "k", T0, _builder(made, "k", T0))))
    second.start()
    second.join(0.2)
    assert second.is_alive()  # it waits for the build under way, it does not make its own
    release.set()
    first.join(10)
    second.join(10)
    assert made == ["k"] and got[0] is got[1]


def test_the_held_builds_are_bounded_the_oldest_asked_for_go_first():
    desks, made = DeskStates(size=2), []
    for tournament in (1, 2, 1, 3):
        desks.get(tournament, "k", T0, _builder(made, "k", T0))
    assert sorted(desks._built) == [1, 3]
    assert desks.builds == 3


def test_desks_that_waited_out_a_build_for_an_older_key_share_the_next_one():
    """A burst of changes and redraws: the desks that asked while a build was under way (each with a
    newer key than it) take the first build begun after they asked, whatever key it was for."""
    desks, made = DeskStates(), []
    building, release = threading.Event(), threading.Event()

    def slow() -> Built:
        building.set()
        release.wait(10)
        return _builder(made, "k1", T0)()

    got: dict[str, Built] = {}
    first = threading.Thread(target=lambda: desks.get(1, "k1", T0, slow))
    first.start()
    assert building.wait(10)
    waiting = [
        threading.Thread(target=lambda k=k: got.setdefault(k, desks.get(1, k, T0, _builder(made, k, T0))))
        for k in ("k2", "k3")
    ]
    for thread in waiting:
        thread.start()
    for thread in waiting:
        thread.join(0.2)
    release.set()
    for thread in (first, *waiting):
        thread.join(10)
    assert len(made) == 2 and made[0] == "k1"  # the first build, then one for both waiting desks
    assert got["k2"] is got["k3"]
