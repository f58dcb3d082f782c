"""Passwords (RULES AC-3, AC-4): a reset asked for by e-mail and set by the e-mailed link, and a change
by a signed-in person, each through the gate and audited in its own transaction: who, when, which
account; never the password, nor the link or its secret. The pages and `/api/v1` both call these.

- Asking for a reset writes a row only when a link went out (an address with no account changes
  nothing); its actor is the caller (anonymous, usually), its target the account.
- Setting a password by a link is done as the account the link opens: the link is its credential.
- A change asks for the current password, throttled and counted as a sign-in is; a wrong one changes
  nothing (its attempt is kept, for the throttle) and is answered, not raised, so the caller commits it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from domain.access.ports import PasswordHasher
from domain.access.rules import credentials
from domain.access.rules.policy import Actor
from domain.access.services import accounts, gate, signin
from domain.access.tables import Account
from domain.errors import Problem, raise_problems


def ask_reset(session: Session, actor: Actor, email: str, now: datetime) -> tuple[Account, str] | None:
    """A reset link for `email`'s account (to be sent by the caller), or None: no such account, a
    blocked one, or one sent in the last minute. The caller answers the same either way."""
    return gate.act(
        session,
        actor,
        "account.reset",
        now,
        lambda s, a, n: accounts.reset_link(s, email, n),
        describe=lambda found: None if found is None else f"account {found[0].id}",
        data={"by": "e-mail"},
    )


def reset(
    session: Session, hasher: PasswordHasher, secret: str, password: str, repeated: str, now: datetime
) -> Account:
    """A new password by a reset link, as the link's account: the link spent, every session ended."""
    holder = accounts.link_holder(session, secret, "reset", now)
    return gate.act(
        session,
        signin.actor_of(session, holder),
        "account.set-password",
        now,
        lambda s, a, n: accounts.reset_password(s, hasher, secret, password, repeated, n),
        describe=f"account {holder.id}",
        data={"by": "reset link"},
    )


def change(
    session: Session,
    hasher: PasswordHasher,
    actor: Actor,
    current: str,
    password: str,
    repeated: str,
    now: datetime,
    *,
    address: str,
) -> signin.SignIn | None:
    """A signed-in person's new password: None when changed (every session of the account ended),
    else the refusal of the current password (`wrong-password`, `too-many-attempts`). A new password's
    problems (and two that differ) are raised, all at once, before the current one is tried."""

    def do(s: Session, a: Actor, n: datetime) -> signin.SignIn | None:
        account = s.get(Account, a.account_id, with_for_update=True)
        problems = credentials.password_problems(password, account.email)
        if password != repeated:
            problems.append(Problem("passwords-differ", "The two passwords are not the same."))
        raise_problems(problems)
        refused = signin.confirm_password(s, hasher, account, current, n, address=address)
        if refused is None:
            accounts.set_password(s, hasher, account, password, n)
        return refused

    return gate.act(
        session,
        actor,
        "account.change-password",
        now,
        do,
        describe=lambda refused: None if refused is not None else f"account {actor.account_id}",
        data={"by": "current password"},
    )
