"""Players (Sport Poker 1.6.1): profiles, blocking, forgetting, and finding one by id, handle or name.

Every write about a player in a tournament goes through `locked`: the tournament's row (shared),
then the player's (`SELECT ... FOR UPDATE`), so SP-2 checks, add-on-once checks and settlements for
one player are serialised and never deadlock with an edit."""

from __future__ import annotations

import secrets
from datetime import date, datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from domain.errors import DomainError, NotFound, raise_problems
from domain.poker.rules.players import profile_problems
from domain.poker.services.audit import audit
from domain.poker.services.tournaments import get_tournament
from domain.poker.tables.tournaments import Player, Tournament


def add_player(session: Session, name: str, handle: str, birth_date: date, now: datetime) -> Player:
    raise_problems(profile_problems(name, handle, birth_date, now.date()))
    taken = session.scalar(select(Player.id).where(func.lower(Player.handle) == handle.lower()))
    if taken is not None:
        raise DomainError("handle-taken", "handle '%(handle)s' is taken", handle=handle)
    player = Player(
        pseudonym=f"Player-{secrets.token_hex(4)}",
        name=name.strip(),
        handle=handle,
        birth_date=birth_date,
        created_at=now,
    )
    try:
        with session.begin_nested():  # a concurrent add of the same handle loses here, not at commit
            session.add(player)
    except IntegrityError as exc:
        if "uq_players_handle_lower" not in str(exc.orig):
            raise
        raise DomainError("handle-taken", "handle '%(handle)s' is taken", handle=handle) from None
    return player


def find_player(session: Session, ref: str | int, *, lock: bool = False) -> Player:
    """A player by id (digits) or handle (any case); `lock` takes the row lock."""
    query = select(Player).execution_options(populate_existing=True)
    digits = isinstance(ref, int) or (str(ref).isascii() and str(ref).isdigit())  # "³" is a digit, not a number
    if digits:
        if not 0 < int(ref) <= 2**63 - 1:  # beyond BIGINT no player can have it
            raise NotFound("player-not-found", "no player '%(ref)s'", ref=ref)
        query = query.where(Player.id == int(ref))
    else:
        query = query.where(func.lower(Player.handle) == str(ref).lstrip("@").lower())
    player = session.scalar(query.with_for_update() if lock else query)
    if player is None and not digits:
        player = _by_name(session, str(ref), lock)
    if player is None:
        raise NotFound("player-not-found", "no player '%(ref)s'", ref=ref)
    return player


def _by_name(session: Session, name: str, lock: bool) -> Player | None:
    """The one player with that name (any case, spaces trimmed); several: the candidates listed."""
    query = (
        select(Player)
        .where(func.lower(Player.name) == " ".join(name.split()).lower())
        .order_by(Player.id)
        .limit(11)
        .execution_options(populate_existing=True)
    )
    found = list(session.scalars(query))
    if len(found) > 1:
        shown = ", ".join(f"@{p.handle} (id {p.id})" for p in found[:10])
        raise DomainError(
            "player-ambiguous",
            "several players are named '%(name)s': %(shown)s; name one by handle or id",
            name=name.strip(),
            shown=shown,
        )
    if found and lock:
        return session.scalar(
            select(Player).where(Player.id == found[0].id).with_for_update().execution_options(populate_existing=True)
        )
    return found[0] if found else None


def block_player(session: Session, ref: str | int, reason: str, now: datetime) -> Player:
    if not reason.strip():
        raise DomainError("block-reason-blank", "say why the player is blocked (rule 1.5.3)")
    player = find_player(session, ref, lock=True)
    player.blocked_at, player.blocked_reason = now, reason.strip()
    audit(session, "player-blocked", now, player_id=player.id)
    return player


def unblock_player(session: Session, ref: str | int, now: datetime) -> Player:
    player = find_player(session, ref, lock=True)
    player.blocked_at = player.blocked_reason = None
    audit(session, "player-unblocked", now, player_id=player.id)
    return player


def forget_player(session: Session, ref: str | int, now: datetime) -> Player:
    """1.6.1: erase name, handle and date of birth; results, knockouts and fee records stay under
    the player's stable pseudonym. Forgetting twice changes nothing."""
    player = find_player(session, ref, lock=True)
    if player.forgotten_at is None:
        player.name = player.handle = player.birth_date = None
        player.forgotten_at = now
        audit(session, "player-forgotten", now, player_id=player.id)
    return player


def player_view(player: Player) -> dict[str, Any]:
    return {
        "id": player.id,
        "name": player.display_name,
        "handle": player.handle,
        "birth_date": player.birth_date,
        "pseudonym": player.pseudonym,
        "blocked": player.blocked_at is not None,
        "blocked_reason": player.blocked_reason,
        "forgotten": player.forgotten_at is not None,
    }


def locked(session: Session, tournament_id: int, player_ref: str | int) -> tuple[Tournament, Player]:
    """Every write about a player in a tournament locks the tournament's row (shared), then the
    player's: the order an edit takes (the tournament, then its registrants), so the two never
    deadlock, and two writes about one player are serialised."""
    return get_tournament(session, tournament_id, lock="share"), find_player(session, player_ref, lock=True)
