"""Accounts and their roles (RULES AC-1, AC-4): add, find, grant, revoke, block, passwords and the
one-time links that verify an address or reset a password. The caller owns the transaction; the
operator's commands and the owner's staff page call these same functions."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from domain.access.ports import PasswordHasher
from domain.access.rules import credentials
from domain.access.rules.policy import Role, problems_of_grant
from domain.access.services.secrets import digest, new_secret
from domain.access.tables import Account, Grant, Link, UserSession
from domain.documents.rules.model import LOCALES
from domain.errors import DomainError, NotFound, Problem, raise_problems


def find(session: Session, email: str, *, lock: bool = False) -> Account:
    query = select(Account).where(Account.email_key == credentials.email_key(email))
    found = session.scalar(query.with_for_update() if lock else query)
    if found is None:
        raise NotFound("account-not-found", f"no account {email.strip()!r}")
    return found


def add(
    session: Session,
    email: str,
    now: datetime,
    *,
    player_id: int | None = None,
    locale: str = "ru",
) -> Account:
    """A new account for `email` (no password yet: the person sets it by the link sent to them)."""
    problems = credentials.email_problems(email)
    if locale not in LOCALES:
        problems.append(Problem("unknown-locale", f"No language {locale!r}: the languages are {', '.join(LOCALES)}."))
    raise_problems(problems)
    key = credentials.email_key(email)
    if session.scalar(select(Account.id).where(Account.email_key == key)) is not None:
        raise DomainError("account-exists", f"an account {email.strip()!r} exists already")
    if player_id is not None and session.scalar(select(Account.id).where(Account.player_id == player_id)):
        raise DomainError("player-has-account", f"player {player_id} has an account already")
    account = Account(email=email.strip(), email_key=key, player_id=player_id, locale=locale, created_at=now)
    session.add(account)
    session.flush()
    return account


def set_password(session: Session, hasher: PasswordHasher, account: Account, password: str, now: datetime) -> None:
    """A new password (argon2id); every session of the account ends (a changed password signs out everywhere)."""
    raise_problems(credentials.password_problems(password, account.email))
    account.password_hash = hasher.hash(password)
    end_all_sessions(session, account.id, now)


def grant(session: Session, account: Account, role: str, club_id: int | None, now: datetime) -> bool:
    """Give `account` the role (in the club); False when it held it already."""
    raise_problems(problems_of_grant(role, club_id))
    if club_id is not None:
        from domain.clubs.tables import Club

        if session.get(Club, club_id) is None:
            raise NotFound("club-not-found", f"no club {club_id}")
    held = session.scalar(
        select(Grant.id).where(
            Grant.account_id == account.id, Grant.role == role, func.coalesce(Grant.club_id, 0) == (club_id or 0)
        )
    )
    if held is not None:
        return False
    session.add(Grant(account_id=account.id, role=role, club_id=club_id, granted_at=now))
    session.flush()
    return True


def revoke(session: Session, account: Account, role: str, club_id: int | None) -> bool:
    """Take the role (in the club) away; False when it was not held."""
    raise_problems(problems_of_grant(role, club_id))
    gone = session.execute(
        delete(Grant).where(
            Grant.account_id == account.id, Grant.role == role, func.coalesce(Grant.club_id, 0) == (club_id or 0)
        )
    )
    return gone.rowcount > 0


def block(session: Session, account: Account, reason: str, now: datetime) -> None:
    """Block the account (1.5.3): its sessions end and its tokens stop at the next request (AC-4)."""
    if not reason.strip():
        raise DomainError("reason-required", "a block needs a reason")
    account.blocked_at, account.blocked_reason = now, reason.strip()
    end_all_sessions(session, account.id, now)


def unblock(session: Session, account: Account) -> None:
    account.blocked_at = account.blocked_reason = None


def end_all_sessions(session: Session, account_id: int, now: datetime) -> int:
    """Sign out everywhere: every open session of the account ends now."""
    ended = session.execute(
        update(UserSession)
        .where(UserSession.account_id == account_id, UserSession.ended_at.is_(None))
        .values(ended_at=now)
    )
    return ended.rowcount


def issue_link(session: Session, account: Account, purpose: str, now: datetime) -> str:
    """A one-time link's secret (to verify the address or reset the password), valid for an hour; an
    earlier unused link of the same purpose stops working."""
    session.execute(
        update(Link)
        .where(Link.account_id == account.id, Link.purpose == purpose, Link.used_at.is_(None))
        .values(used_at=now)
    )
    secret = new_secret()
    session.add(
        Link(
            account_id=account.id,
            purpose=purpose,
            secret_hash=digest(secret),
            created_at=now,
            expires_at=now + credentials.LINK_LIFETIME,
        )
    )
    session.flush()
    return secret


def reset_link(session: Session, email: str, now: datetime) -> tuple[Account, str] | None:
    """A password reset asked for `email`: the account and a fresh link's secret, or None when there is
    no such account, it is blocked, or a reset link was issued less than a minute ago (asking again
    and again sends no flood of mail). The caller answers the same in every case (the answer never
    tells whether the e-mail has an account)."""
    if credentials.email_problems(email):
        return None
    account = session.scalar(select(Account).where(Account.email_key == credentials.email_key(email)).with_for_update())
    if account is None or account.blocked_at is not None:
        return None
    recent = session.scalar(
        select(Link.id).where(
            Link.account_id == account.id,
            Link.purpose == "reset",
            Link.used_at.is_(None),
            Link.created_at > now - credentials.LINK_RESEND,
        )
    )
    if recent is not None:
        return None
    return account, issue_link(session, account, "reset", now)


def _open_link(session: Session, secret: str, purpose: str, now: datetime, *, lock: bool) -> Link | None:
    query = select(Link).where(Link.secret_hash == digest(secret), Link.purpose == purpose)
    link = session.scalar(query.with_for_update() if lock else query)
    return None if link is None or link.used_at is not None or now >= link.expires_at else link


def link_opens(session: Session, secret: str, purpose: str, now: datetime) -> bool:
    """Whether the link would open an account now (it is not spent: the form it leads to asks first)."""
    return _open_link(session, secret, purpose, now, lock=False) is not None


def link_holder(session: Session, secret: str, purpose: str, now: datetime) -> Account:
    """The account a link would open now (not spent yet); an unknown, spent or expired link is refused."""
    link = _open_link(session, secret, purpose, now, lock=False)
    if link is None:
        raise DomainError("link-expired", "This link has expired or was used already: ask for a new one.")
    return session.get(Account, link.account_id)


def use_link(session: Session, secret: str, purpose: str, now: datetime) -> Account:
    """The account a link opens, once: the link is spent. An unknown, spent or expired link is refused."""
    link = _open_link(session, secret, purpose, now, lock=True)
    if link is None:
        raise DomainError("link-expired", "This link has expired or was used already: ask for a new one.")
    link.used_at = now
    account = session.get(Account, link.account_id)
    if purpose == "verify" or purpose == "reset":  # following either link proves the address
        account.email_verified_at = account.email_verified_at or now
    return account


def reset_password(
    session: Session, hasher: PasswordHasher, secret: str, password: str, repeated: str, now: datetime
) -> Account:
    """A new password by a reset link: the link is spent, the password set and every session of the
    account ended (AC-4). A bad or expired link is refused (`link-expired`); a password's problems
    (and two that differ) all at once, and then the link is not spent (the caller's transaction
    rolls back)."""
    account = use_link(session, secret, "reset", now)
    problems = credentials.password_problems(password, account.email)
    if password != repeated:
        problems.append(Problem("passwords-differ", "The two passwords are not the same."))
    raise_problems(problems)
    set_password(session, hasher, account, password, now)
    return account


def roles_of(session: Session, account_id: int) -> tuple[tuple[Role, int | None], ...]:
    rows = session.execute(
        select(Grant.role, Grant.club_id).where(Grant.account_id == account_id).order_by(Grant.club_id, Grant.role)
    ).all()
    return tuple((Role(role), club) for role, club in rows)


def listing(session: Session, club_id: int | None = None) -> list[dict[str, Any]]:
    """Every account (or the staff of one club) with its roles, for the operator or the club's owner."""
    query = select(Account).order_by(Account.email_key)
    if club_id is not None:
        query = query.where(Account.id.in_(select(Grant.account_id).where(Grant.club_id == club_id)))
    accounts = session.scalars(query).all()
    grants: dict[int, list[str]] = {}
    for account_id, role, club in session.execute(
        select(Grant.account_id, Grant.role, Grant.club_id).order_by(Grant.club_id, Grant.role)
    ):
        if club_id is None or club == club_id:
            grants.setdefault(account_id, []).append(role if club is None else f"{role}@{club}")
    return [
        {
            "id": a.id,
            "email": a.email,
            "roles": grants.get(a.id, []) + (["player"] if a.player_id is not None else []),
            "player_id": a.player_id,
            "verified": a.email_verified_at is not None,
            "password_set": a.password_hash is not None,
            "blocked": a.blocked_reason,
        }
        for a in accounts
    ]
