"""The world builder's access part (RULES AC-1..AC-5), `access_world()`: two clubs, each with an owner,
a floor manager and a cashier; one person on the staff of both (floor in A, cashier in B); players
with accounts; a game server's token bound to one cup; the operator; a Pusoy Dos organizer with a cup of
their own and another organizer's cup beside it. Every actor gets a bearer token
holding all its roles (the matrix calls through tokens: a sign-in costs an argon2 hash, a token does
not); `password` accounts get a password too. Times are the real now's (the web server runs on the
wall clock)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy.orm import Session

from domain.access.services import accounts, signin
from domain.pusoy.services import setup as pusoy_setup
from domain.store.db import unit_of_work
from flows.web.auth import COOKIE, CSRF_HEADER, Auth
from infra.config import load_settings
from tests.support.world import poker

PASSWORD = "correct horse battery staple"


@dataclass
class AccessWorld:
    club_a: int
    club_b: int
    tournament_a: int
    tournament_b: int
    settlement_a: int
    settlement_b: int
    cup: str  # the game server's
    other_cup: str
    tokens: dict[str, str] = field(default_factory=dict)  # actor name -> bearer token
    emails: dict[str, str] = field(default_factory=dict)
    account_ids: dict[str, int] = field(default_factory=dict)
    players: dict[str, int] = field(default_factory=dict)  # player actor -> player id
    sessions: dict[str, str] = field(default_factory=dict)  # actor name -> session secret (signed in by cookie)
    certificate: str = ""  # the player's own stored certificate (`certificates=True`)
    other_certificate: str = ""  # another player's
    organizer_cup: str = ""  # a private cup of the organizer's (its organizer_email is the organizer's account)
    others_cup: str = ""  # a private cup of another organizer's

    def headers(self, who: str) -> dict[str, str]:
        """What a request of `who` carries: its bearer token, else its session cookie and CSRF token."""
        if who in self.tokens:
            return {"authorization": f"Bearer {self.tokens[who]}"}
        if who in self.sessions:
            auth = web_auth()
            secret = self.sessions[who]
            return {"cookie": f"{COOKIE}={auth.cookie(secret)}", CSRF_HEADER: auth.csrf(secret)}
        return {}


def web_auth() -> Auth:
    """The web app's cookie and CSRF signer, with the test session's platform key."""
    return Auth(load_settings().secret_key(), secure=False)


def _account(session, w: AccessWorld, name: str, now, *, roles=(), player_id=None, hasher=None) -> None:
    account = accounts.add(session, f"{name}@example.org", now, player_id=player_id)
    for role, club in roles:
        accounts.grant(session, account, role, club, now)
    if hasher is not None:
        accounts.set_password(session, hasher, account, PASSWORD, now)
    held = [signin.scope_name(r, c) for r, c in accounts.roles_of(session, account.id)]
    w.emails[name], w.account_ids[name] = account.email, account.id
    if held or player_id:
        _, w.tokens[name] = signin.create_token(
            session, account, "tests", [*held, *(["player"] if player_id else []), signin.ACCOUNT_SCOPE], now
        )
    else:  # an account with no role holds no token: it signs in
        w.sessions[name] = signin.start_session(session, account.id, now, address="127.0.0.1", agent="tests")


def access_world(engine, hasher=None, passwords: tuple[str, ...] = (), outbox: Path | None = None) -> AccessWorld:
    """The world, committed. `passwords`: the actors that also get a password (hashed with `hasher`).
    `outbox`: also a finished tournament of club A that the player won, another player taking the 2nd
    place's prize, each with a stored certificate (its file in `outbox`)."""
    now = datetime.now(UTC)
    with unit_of_work(engine) as session:
        a = poker.club(session, fresh=True)
        b = poker.club(session, fresh=True)
        tournaments = []
        for club in (a, b):
            t = poker.tournament(
                session, club_id=club.id, start=now - timedelta(minutes=5), late_reg=timedelta(hours=1)
            )
            poker.enter(session, t, name=f"Owing Player {club.id}")
            tournaments.append(t)
        settlements = [_settled(session, t, now) for t in tournaments]
        cup = pusoy_setup.create(session, name="Cup", capacity=8, games_per_round=1, now=now, organizer="org")
        other = pusoy_setup.create(session, name="Other", capacity=8, games_per_round=1, now=now, organizer="org")
        w = AccessWorld(a.id, b.id, tournaments[0].id, tournaments[1].id, *settlements, cup.code, other.code)
        made = {
            "operator": [("operator", None)],
            "owner": [("owner", a.id)],
            "floor": [("floor", a.id)],
            "cashier": [("cashier", a.id)],
            "owner_b": [("owner", b.id)],
            "both": [("floor", a.id), ("cashier", b.id)],
            "organizer": [("organizer", None)],
        }
        for name, roles in made.items():
            _account(session, w, name, now, roles=roles, hasher=hasher if name in passwords else None)
        p = poker.player(session, "Anna Karenina", handle="anna")
        w.players["player"] = p.id
        _account(session, w, "player", now, player_id=p.id, hasher=hasher if "player" in passwords else None)
        server = accounts.add(session, "games@example.org", now)
        w.account_ids["server"] = server.id
        _, w.tokens["server"] = signin.create_token(session, server, "game server 1", [f"cup:{cup.code}"], now)
        _account(session, w, "nobody", now)  # an account with no role: nothing to act on
        for field_name, name, email in (
            ("organizer_cup", "maria", w.emails["organizer"]),
            ("others_cup", "royal", "royal@example.org"),
        ):
            made_cup = pusoy_setup.create(
                session, name=f"{name}'s", capacity=8, now=now, organizer=name, organizer_email=email, private=True
            )
            setattr(w, field_name, made_cup.code)
        w.account_ids["spare"] = accounts.add(session, "spare@example.org", now).id  # to be blocked, granted
        if outbox is not None:
            w.certificate, w.other_certificate = _certificates(session, a.id, p, outbox, now)
        return w


def _certificates(session: Session, club_id: int, anna, outbox: Path, now) -> tuple[str, str]:
    """Anna wins a tournament of the club, Boris takes the 2nd place's prize; their certificates' rows
    and files as publishing leaves them (a stand-in PDF: the matrix checks who may take it, not its
    contents). Returns (Anna's serial, Boris's)."""
    from domain.documents.tables import Document, DocumentPublication

    boris = poker.player(session, "Boris Godunov", handle="boris")
    t = poker.played(session, [boris, anna], now - timedelta(days=2), "Won", prizes=["Cup", "Medal"], club_id=club_id)
    folder = f"{club_id}-club/poker-{t.id}"
    pub = DocumentPublication(
        source="poker", tournament_id=t.id, tournament=t.name, folder=folder, state="stored", created_at=now
    )
    session.add(pub)
    session.flush()
    serials = []
    for n, name in ((1, anna.name), (2, boris.name)):
        serial = f"SP-{t.id:06d}-{n:02d}"
        data = f"%PDF-1.7 stand-in {serial}".encode()
        (outbox / folder).mkdir(parents=True, exist_ok=True)
        (outbox / folder / f"certificate-{serial}.pdf").write_bytes(data)
        session.add(
            Document(
                publication_id=pub.id,
                kind="certificate",
                filename=f"certificate-{serial}.pdf",
                serial=serial,
                player=name,
                sha256=hashlib.sha256(data).hexdigest(),
                signature="0" * 64,
                size_bytes=len(data),
                created_at=now,
            )
        )
        serials.append(serial)
    session.flush()
    return serials[0], serials[1]


def _settled(session: Session, t, now) -> int:
    """A settlement of the tournament's first debtor (a player checked in owes the buy-in)."""
    from domain.poker.services import fees

    p = poker.player(session)
    poker.checked_in(session, t.id, p.id, now)
    return fees.settle(session, t.id, p.id, "cash", "cashier", now).id
