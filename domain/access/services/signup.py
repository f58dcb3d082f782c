"""A player signs up (RULES AC-1, AC-4): a player profile and an account linked to it, with no password
yet: the welcome link sets it and confirms the address. The caller answers the same whether or not
the e-mail had an account already (the answer never tells), so an existing account gets a reset
link instead (at most one a minute, none when blocked) and nothing is created."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from domain.access.rules import credentials
from domain.access.services import accounts
from domain.access.tables import Account
from domain.errors import Problem, raise_problems
from domain.poker.rules.players import profile_problems
from domain.poker.services.players import add_player
from domain.poker.tables.tournaments import Player


@dataclass(frozen=True)
class Letter:
    """The letter to send after the answer: to whom, in which language, which kind, the link's secret."""

    email: str
    locale: str
    kind: str  # "welcome" (a new account) | "reset" (the address had an account)
    secret: str


def problems(session: Session, email: str, name: str, handle: str, birth_date: date | None, today: date):
    """Every problem of a sign-up form at once (the e-mail's, the profile's, a handle taken)."""
    found = list(credentials.email_problems(email))
    if birth_date is None:
        found.append(Problem("birth-date-missing", "the date of birth is needed (the service is for adults only)"))
        found += [p for p in profile_problems(name, handle, date(2000, 1, 1), today) if "birth" not in p.code]
    else:
        found += profile_problems(name, handle, birth_date, today)
    if handle and session.scalar(select(Player.id).where(func.lower(Player.handle) == handle.lower())) is not None:
        found.append(Problem("handle-taken", f"handle '{handle}' is taken"))
    return found


def sign_up(
    session: Session, email: str, name: str, handle: str, birth_date: date | None, locale: str, now: datetime
) -> Letter | None:
    """The sign-up: every problem at once (nothing written), else the letter to send (None: nothing to
    send, e.g. a reset link was sent to that address less than a minute ago)."""
    raise_problems(problems(session, email, name, handle, birth_date, now.date()))  # the same whoever asks
    existing = session.scalar(select(Account.id).where(Account.email_key == credentials.email_key(email)))
    if existing is not None:
        found = accounts.reset_link(session, email, now)
        return None if found is None else Letter(found[0].email, found[0].locale, "reset", found[1])
    player = add_player(session, name, handle, birth_date, now)
    session.flush()
    account = accounts.add(session, email, now, player_id=player.id, locale=locale)
    return Letter(account.email, account.locale, "welcome", accounts.issue_link(session, account, "reset", now))
