"""A committed change's word to every web process: `changed(session, key)` sends `NOTIFY tourney_live`
with the topic's key (`pusoy:CODE`, `poker:ID`) in the change's transaction, so it is delivered when
the transaction commits and never when it rolls back. Each web process LISTENs on the channel and
wakes the event streams of that key and of the keys under it (flows/web/live.py). The notification is
only a wake-up: the streams read the state from the database again, so a lost or extra one changes
nothing but how soon a follower sees it."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.orm import Session

CHANNEL = "tourney_live"
_NOTIFY = text("SELECT pg_notify(:channel, key) FROM unnest(CAST(:keys AS text[])) AS key")


def changed(session: Session, *keys: str) -> None:
    """The topics `keys` change when this transaction commits (one statement however many)."""
    if keys:
        session.execute(_NOTIFY, {"channel": CHANNEL, "keys": list(keys)})


def poker(tournament_id: int) -> str:
    """A poker tournament's topic key."""
    return f"poker:{tournament_id}"
