"""Signing in and who a request is (RULES AC-1, AC-4): the throttled sign-in, sessions, machine
tokens, and the `Actor` a session or a token stands for, read afresh at every request (a block, a
revoked role or an ended session takes effect at the next one).

The throttle counts failures in PostgreSQL under a transaction-scoped advisory lock per e-mail, so
concurrent guesses at one account are counted one after another, never past the limit. The caller
commits a refused or failed sign-in too: the attempt is what throttles the next one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from domain.access.ports import PasswordHasher
from domain.access.rules import credentials
from domain.access.rules.policy import Actor, Role
from domain.access.services import accounts
from domain.access.services.secrets import TOKEN_PREFIX, digest, new_secret, new_token
from domain.access.tables import Account, SignInAttempt, Token, UserSession
from domain.errors import DomainError, NotFound

_NOBODY: dict[int, str] = {}


def _nobody(hasher: PasswordHasher) -> str:
    """A hash of a password nobody has: a sign-in for an unknown e-mail costs the same one argon2 verify."""
    if id(hasher) not in _NOBODY:
        _NOBODY[id(hasher)] = hasher.hash(new_secret())
    return _NOBODY[id(hasher)]


@dataclass(frozen=True)
class SignIn:
    """What a sign-in came to: a session's secret (for the cookie), or a refusal with its code."""

    secret: str | None
    code: str | None = None
    message: str = ""
    retry_after_s: int = 0


def _failures(session: Session, column, value: str, now: datetime) -> list[datetime]:
    return list(
        session.scalars(
            select(SignInAttempt.at).where(
                column == value,
                SignInAttempt.succeeded.is_(False),
                SignInAttempt.at > now - credentials.THROTTLE_WINDOW,
            )
        )
    )


def sign_in(
    session: Session,
    hasher: PasswordHasher,
    email: str,
    password: str,
    now: datetime,
    *,
    address: str,
    agent: str | None = None,
) -> SignIn:
    """One sign-in: throttled per account and per address; one argon2 verify; a session on success."""
    key = credentials.email_key(email)[:254]
    refused = _throttled(session, key, address, now)
    if refused is not None:
        return refused
    account = session.scalar(select(Account).where(Account.email_key == key))
    matched = hasher.verify(account.password_hash if account and account.password_hash else _nobody(hasher), password)
    ok = matched and account is not None and account.password_hash is not None
    session.add(SignInAttempt(email_key=key, address=address, at=now, succeeded=ok and account.blocked_at is None))
    if not ok:
        return SignIn(None, "wrong-password", "That e-mail and password do not match.")
    if account.blocked_at is not None:
        return SignIn(None, "account-blocked", "This account is blocked. Write to the platform to know why.")
    if hasher.needs_rehash(account.password_hash):
        account.password_hash = hasher.hash(password)
    return SignIn(start_session(session, account.id, now, address=address, agent=agent))


def _throttled(session: Session, key: str, address: str, now: datetime) -> SignIn | None:
    """The throttle's refusal, if the account or the address failed too often lately (under the
    account's advisory lock, held to the end of the transaction)."""
    session.execute(text("SELECT pg_advisory_xact_lock(hashtext('sign-in'), hashtext(:key))"), {"key": key})
    gate = credentials.throttle(
        _failures(session, SignInAttempt.email_key, key, now),
        _failures(session, SignInAttempt.address, address, now),
        now,
    )
    if gate.allowed:
        return None
    return SignIn(
        None,
        "too-many-attempts",
        f"Too many failed sign-ins: try again in {gate.retry_after_s} s.",
        gate.retry_after_s,
    )


def confirm_password(
    session: Session, hasher: PasswordHasher, account: Account, password: str, now: datetime, *, address: str
) -> SignIn | None:
    """A signed-in person's current password, before it changes: throttled and counted as a sign-in
    is (a stolen session cannot guess it faster). None when it matches; the caller commits a miss."""
    refused = _throttled(session, account.email_key, address, now)
    if refused is not None:
        return refused
    ok = account.password_hash is not None and hasher.verify(account.password_hash, password)
    session.add(SignInAttempt(email_key=account.email_key, address=address, at=now, succeeded=ok))
    return None if ok else SignIn(None, "wrong-password", "That is not your current password.")


def start_session(session: Session, account_id: int, now: datetime, *, address: str | None, agent: str | None) -> str:
    secret = new_secret()
    session.add(
        UserSession(
            account_id=account_id,
            secret_hash=digest(secret),
            started_at=now,
            last_seen_at=now,
            address=address,
            agent=(agent or "")[:200] or None,
        )
    )
    session.flush()
    return secret


def actor_of(session: Session, account: Account) -> Actor:
    """The actor an account is, signed in as a person (its roles, and `player` when it is a player's)."""
    return _actor("person", account.id, account.email, account.player_id, accounts.roles_of(session, account.id))


def _actor(
    kind: str,
    account_id: int,
    email: str,
    player_id: int | None,
    grants,
    token: tuple[int, str, list[str]] | None = None,
) -> Actor:
    """An actor from its account's grants, narrowed to a token's scopes (token: id, name, scopes)."""
    roles = {(Role(role), club) for role, club in grants}
    if player_id is not None:
        roles.add((Role.PLAYER, None))
    cups: frozenset[str] = frozenset()
    label = email
    if token is not None:
        token_id, name, scopes = token
        roles = {(role, club) for role, club in roles if scope_name(role, club) in scopes}
        cups = frozenset(s.removeprefix("cup:") for s in scopes if s.startswith("cup:"))
        if cups:
            roles.add((Role.GAME_SERVER, None))
        label = f"token {token_id} ({name}) of {email}"
    return Actor(
        kind,
        label,
        account_id=account_id,
        roles=frozenset(roles),
        player_id=player_id,
        cups=cups,
        token_id=token[0] if token else None,
        account_scope=token is None or ACCOUNT_SCOPE in token[2],
    )


# One statement finds a credential, its account and the account's grants (AC-4: read afresh at every
# request), as plain SQL: the hot path of every authenticated request (bench/bench_access.py).
_FOUND = """
SELECT c.id, c.account_id, {columns}, a.email, a.player_id, a.blocked_at,
       ARRAY(SELECT r.role || '@' || coalesce(r.club_id::text, '') FROM account_roles r
             WHERE r.account_id = a.id ORDER BY r.id) AS grants
FROM {table} c JOIN accounts a ON a.id = c.account_id
WHERE c.secret_hash = :digest AND c.{alive} IS NULL
"""
_SESSION = text(_FOUND.format(columns="c.started_at, c.last_seen_at", table="account_sessions", alive="ended_at"))
_TOKEN = text(_FOUND.format(columns="c.name, c.scopes, c.last_used_at", table="account_tokens", alive="revoked_at"))


def _grants(held: list[str]) -> list[tuple[str, int | None]]:
    return [(role, int(club) if club else None) for role, _, club in (g.partition("@") for g in held)]


ACCOUNT_SCOPE = "account"  # a token's scope to act on its own account: its tokens, password, data, sessions


def scope_name(role: Role, club_id: int | None) -> str:
    """A token's scope for a role: `floor@3`, `player`, `operator`; `cup:CODE` binds a game server."""
    return role.value if club_id is None else f"{role.value}@{club_id}"


def session_actor(session: Session, secret: str, now: datetime) -> Actor | None:
    """The actor of a session's secret, or None when it is unknown, ended, expired or its account blocked.
    Its last use is written at most once a minute."""
    row = session.execute(_SESSION, {"digest": digest(secret)}).first()
    if row is None:
        return None
    session_id, account_id, started, seen, email, player_id, blocked_at, grants = row
    if blocked_at is not None:
        return None
    if credentials.session_expired(started, seen, now):
        session.execute(update(UserSession).where(UserSession.id == session_id).values(ended_at=now))
        return None
    if now - seen >= credentials.SEEN_EVERY:
        session.execute(update(UserSession).where(UserSession.id == session_id).values(last_seen_at=now))
    return _actor("person", account_id, email, player_id, _grants(grants))


def end_session(session: Session, secret: str, now: datetime) -> bool:
    """End the session of this secret: False when none was open (nothing changed)."""
    ended = session.execute(
        update(UserSession)
        .where(UserSession.secret_hash == digest(secret), UserSession.ended_at.is_(None))
        .values(ended_at=now)
    )
    return ended.rowcount > 0


def sessions_of(session: Session, account_id: int, now: datetime | None) -> list[dict]:
    """The account's open sessions at `now`; every session it ever had when `now` is None (its data, AC-5)."""
    query = select(UserSession).where(UserSession.account_id == account_id)
    if now is not None:
        query = query.where(UserSession.ended_at.is_(None))
    return [
        {
            "id": s.id,
            "started_at": s.started_at,
            "last_seen_at": s.last_seen_at,
            "ended_at": s.ended_at,
            "address": s.address,
            "agent": s.agent,
        }
        for s in session.scalars(query.order_by(UserSession.last_seen_at.desc()))
        if now is None or not credentials.session_expired(s.started_at, s.last_seen_at, now)
    ]


def create_token(session: Session, account: Account, name: str, scopes: list[str], now: datetime) -> tuple[Token, str]:
    """A machine's token of `account` limited to `scopes` (roles it holds, `cup:CODE` for a game
    server, `account` to act on the account itself: its tokens, password, data and sessions); the
    secret is returned once and stored only as its digest."""
    if not name.strip():
        raise DomainError("token-needs-name", "a token needs a name (what machine holds it)")
    if not scopes:
        raise DomainError("token-needs-scope", "a token needs at least one scope")
    held = {scope_name(role, club) for role, club in accounts.roles_of(session, account.id)}
    if account.player_id is not None:
        held.add("player")
    kept = set()
    for scope in scopes:
        if scope.startswith("cup:"):
            from domain.pusoy.services.rows import find as find_cup

            kept.add(f"cup:{find_cup(session, scope.removeprefix('cup:')).code}")
        elif scope in held or scope == ACCOUNT_SCOPE:
            kept.add(scope)
        else:
            raise DomainError(
                "scope-not-held", f"{account.email} does not hold {scope!r}: a token narrows its account's roles"
            )
    secret = new_token()
    token = Token(
        account_id=account.id, name=name.strip(), secret_hash=digest(secret), scopes=sorted(kept), created_at=now
    )
    session.add(token)
    session.flush()
    return token, secret


def token_actor(session: Session, secret: str, now: datetime) -> Actor | None:
    """The actor of a bearer token, or None when it is unknown, revoked or its account blocked."""
    if not secret.startswith(TOKEN_PREFIX):
        return None
    row = session.execute(_TOKEN, {"digest": digest(secret)}).first()
    if row is None or row.blocked_at is not None:
        return None
    token_id, account_id, name, scopes, used, email, player_id, _, grants = row
    if used is None or now - used >= credentials.SEEN_EVERY:
        session.execute(update(Token).where(Token.id == token_id).values(last_used_at=now))
    return _actor("token", account_id, email, player_id, _grants(grants), (token_id, name, list(scopes)))


def revoke_token(session: Session, token_id: int, now: datetime, *, account_id: int | None = None) -> Token:
    """Revoke a token (by the operator, or by its own account when `account_id` is given)."""
    token = session.get(Token, token_id, with_for_update=True)
    if token is None or (account_id is not None and token.account_id != account_id):
        raise NotFound("token-not-found", f"no token {token_id}")
    if token.revoked_at is not None:
        raise DomainError("token-revoked", f"token {token_id} was revoked already: nothing changed")
    token.revoked_at = now
    return token


def _of_club(club_id: int):
    """Tokens whose every scope is a role in this club: the club's own machines (its owner's to see)."""
    return text(
        "cardinality(account_tokens.scopes) > 0 AND NOT EXISTS"
        " (SELECT FROM unnest(account_tokens.scopes) s WHERE s !~ ('^[a-z]+@' || :club_id || '$'))"
    ).bindparams(club_id=str(club_id))


def club_tokens(session: Session, club_id: int) -> list[dict]:
    """The club's tokens (each scope a role in it), with their accounts; never a secret."""
    return tokens_of(session, where=_of_club(club_id))


def create_club_token(
    session: Session, club_id: int, email: str, name: str, roles: list[str], now: datetime
) -> tuple[dict, str]:
    """A token of a staff account of the club narrowed to roles it holds there (its listing row and
    its secret, shown once); an account that is not the club's staff is not found, as a missing one."""
    account = accounts.find(session, email)
    if not any(club == club_id for _, club in accounts.roles_of(session, account.id)):
        raise NotFound("account-not-found", f"no account {email.strip()!r}")
    token, secret = create_token(session, account, name, [f"{r}@{club_id}" for r in roles], now)
    return next(t for t in tokens_of(session, account.id) if t["id"] == token.id), secret


def revoke_club_token(session: Session, club_id: int, token_id: int, now: datetime) -> Token:
    """Revoke one of the club's tokens; another's is not found (AC-2); revoked already: refused."""
    token = session.scalar(select(Token).where(Token.id == token_id, _of_club(club_id)).with_for_update())
    if token is None:
        raise NotFound("token-not-found", f"no token {token_id}")
    return revoke_token(session, token.id, now)


def tokens_of(session: Session, account_id: int | None = None, *, where=None) -> list[dict]:
    query = select(Token, Account.email).join(Account, Account.id == Token.account_id).order_by(Token.id)
    if account_id is not None:
        query = query.where(Token.account_id == account_id)
    if where is not None:
        query = query.where(where)
    return [
        {
            "id": t.id,
            "account": email,
            "name": t.name,
            "scopes": list(t.scopes),
            "created_at": t.created_at,
            "last_used_at": t.last_used_at,
            "revoked_at": t.revoked_at,
        }
        for t, email in session.execute(query)
    ]


def overview(session: Session, actor: Actor, now: datetime, *, current: str | None = None) -> dict:
    """My account as the API's `/me` and the `/account` page show it: who, my roles (scope names, and
    per club with the club's name), my player, my open sessions (`current`: the session of that
    secret is marked, "this device") and my tokens (never their secrets)."""
    from domain.clubs.tables import Club

    account = session.get(Account, actor.account_id)
    held = accounts.roles_of(session, actor.account_id)
    names = dict(session.execute(select(Club.id, Club.name).where(Club.id.in_({c for _, c in held if c}))).all())
    this = digest(current) if current else None
    current_id = session.scalar(select(UserSession.id).where(UserSession.secret_hash == this)) if this else None
    return {
        "actor": actor.label,
        "email": account.email,
        "locale": account.locale,
        "roles": sorted(scope_name(r, c) for r, c in actor.roles),
        "grants": [{"role": r.value, "club_id": c, "club": names.get(c)} for r, c in held],
        "player_id": actor.player_id,
        "sessions": [s | {"current": s["id"] == current_id} for s in sessions_of(session, actor.account_id, now)],
        "tokens": tokens_of(session, actor.account_id),
    }
