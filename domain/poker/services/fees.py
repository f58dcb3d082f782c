"""Fees and settlement (Sport Poker 3.4; SP-1): every fee is a debt in minor units; a settlement
closes all of a player's unpaid fees at once; a void reopens them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session

from domain.errors import Amount, DomainError, NotFound, Problem, raise_problems
from domain.poker.rules import counter
from domain.poker.rules import entries as rules
from domain.poker.services.audit import audit
from domain.poker.services.players import find_player, locked
from domain.poker.services.tournaments import get_tournament
from domain.poker.tables.tournaments import Entry, Fee, Player, Settlement, Tournament


def charge(
    session: Session, t: Tournament, entry: Entry, kind: str, amount: int, now: datetime, topup_id: int | None = None
) -> None:
    """SP-1: record the fee as a debt (post-payment, 3.4); a zero price owes nothing."""
    if amount > 0:
        fee = Fee(
            tournament_id=t.id,
            player_id=entry.player_id,
            entry_id=entry.id,
            topup_id=topup_id,
            kind=kind,
            amount=amount,
            currency=t.currency,
            created_at=now,
        )
        session.add(fee)
        session.flush()
        audit(
            session,
            "fee-charged",
            now,
            tournament_id=t.id,
            player_id=entry.player_id,
            fee_id=fee.id,
            kind=kind,
            amount=amount,
            currency=t.currency,
            entry_id=entry.id,
        )


_SETTLE = text(
    """
    WITH owed AS (
        SELECT player_id, sum(amount) AS amount FROM poker_fees
        WHERE tournament_id = :t AND settlement_id IS NULL AND (CAST(:p AS bigint) IS NULL OR player_id = :p)
        GROUP BY player_id
    ), made AS (
        INSERT INTO poker_settlements (tournament_id, player_id, amount, currency, method, settled_by, settled_at)
        SELECT :t, player_id, amount, :currency, :method, :by, CAST(:now AS timestamptz) FROM owed
        ORDER BY player_id  -- ids in the players' order, so one batch lists the same way every time
        RETURNING id, player_id, amount
    ), paid AS (
        UPDATE poker_fees f SET settlement_id = made.id FROM made
        WHERE f.tournament_id = :t AND f.settlement_id IS NULL AND f.player_id = made.player_id
        RETURNING f.id
    ), logged AS (
        INSERT INTO poker_audit (tournament_id, player_id, kind, actor, at, data)
        SELECT :t, player_id, 'settled', :by, CAST(:now AS timestamptz),
               jsonb_build_object('settlement_id', id, 'amount', amount, 'currency', CAST(:currency AS text),
                                  'method', CAST(:method AS text))
        FROM made
    )
    SELECT id, player_id, amount FROM made ORDER BY player_id
    """
)


_LOCK_DEBTORS = text(
    """
    SELECT id FROM players WHERE id IN (
        SELECT player_id FROM poker_fees WHERE tournament_id = :t AND settlement_id IS NULL
    ) ORDER BY id FOR UPDATE
    """
)


def _settle(
    session: Session, t: Tournament, method: str, settled_by: str, now: datetime, player_id: int | None
) -> list[tuple[int, int, int]]:
    params = {"t": t.id, "p": player_id, "currency": t.currency, "method": method, "by": settled_by.strip(), "now": now}
    return [tuple(row) for row in session.execute(_SETTLE, params)]


def settle(
    session: Session,
    tournament_id: int,
    player_ref: str | int,
    method: str,
    settled_by: str,
    now: datetime,
    *,
    expected: int | None = None,
) -> Settlement | None:
    """3.4: close all of the player's unpaid fees in the tournament at once with one settlement
    record; nothing owed = nothing written (None). `expected`: the amount the cashier takes (minor
    units), read under the player's lock: refused unless it is what the player owes now (`nothing-owed`
    when another counter settled first, `amount-differs` when a fee came or went since it was shown)."""
    t, player = locked(session, tournament_id, player_ref)
    raise_problems(rules.settlement_problems(t.status, method, settled_by))
    if expected is not None:
        owed = session.scalar(
            select(func.coalesce(func.sum(Fee.amount), 0)).where(
                Fee.tournament_id == t.id, Fee.player_id == player.id, Fee.settlement_id.is_(None)
            )
        )
        if int(owed) == 0:
            raise DomainError("nothing-owed", "%(name)s owes nothing now: already settled.", name=player.display_name)
        if int(owed) != expected:
            raise DomainError(
                "amount-differs",
                "%(name)s owes %(owed)s, not %(taken)s.",
                name=player.display_name,
                owed=Amount(int(owed), t.currency),
                taken=Amount(expected, t.currency),
            )
    made = _settle(session, t, method, settled_by, now, player.id)
    return session.get(Settlement, made[0][0]) if made else None


def settle_all(
    session: Session,
    tournament_id: int,
    method: str,
    settled_by: str,
    now: datetime,
    *,
    expected: tuple[int, int] | None = None,
) -> list[tuple[int, int, int]]:
    """3.4 for every debtor of the tournament at once: (settlement id, player id, amount) each.
    A few statements whatever the number of players. `expected`: (the total, the number of players)
    the cashier confirmed, read under the debtors' locks: refused unless it is what is owed now
    (`nothing-owed`, `totals-differ`, domain/poker/rules/counter.py)."""
    t = get_tournament(session, tournament_id, lock="share")
    raise_problems(rules.settlement_problems(t.status, method, settled_by))
    session.execute(_LOCK_DEBTORS, {"t": t.id})
    if expected is not None:
        owed, debtors = session.execute(
            select(func.coalesce(func.sum(Fee.amount), 0), func.count(func.distinct(Fee.player_id))).where(
                Fee.tournament_id == t.id, Fee.settlement_id.is_(None)
            )
        ).one()
        counter.check_settle_all(int(owed), int(debtors), *expected, t.currency)
    return _settle(session, t, method, settled_by, now, None)


def get_settlement(session: Session, settlement_id: int, tournament_id: int | None = None) -> Settlement:
    """A settlement; with `tournament_id`, only one of that tournament's (another's is not found)."""
    s = session.get(Settlement, settlement_id)
    if s is None or (tournament_id is not None and s.tournament_id != tournament_id):
        where = f" in tournament {tournament_id}" if tournament_id is not None else ""
        raise NotFound(
            "settlement-not-found", "no settlement %(settlement_id)s%(where)s", settlement_id=settlement_id, where=where
        )
    return s


def void_settlement(
    session: Session, settlement_id: int, voided_by: str, reason: str, now: datetime, tournament_id: int | None = None
) -> Settlement:
    """3.4: the record stays, marked voided; its fees are owed again. With `tournament_id`, only a
    settlement of that tournament (the floor names both)."""
    s = get_settlement(session, settlement_id, tournament_id)
    find_player(session, s.player_id, lock=True)
    session.refresh(s)
    t = get_tournament(session, s.tournament_id, lock="share")
    problems = [p for p in rules.settlement_problems(t.status, s.method, voided_by)]
    if not reason.strip():
        problems.append(Problem("void-reason-blank", "say why the settlement is voided"))
    if s.voided_at is not None:
        problems.append(Problem("settlement-already-voided", "settlement %(id)s was already voided", id=s.id))
    raise_problems(problems)
    s.voided_at, s.voided_by, s.void_reason = now, voided_by.strip(), reason.strip()
    session.execute(text("UPDATE poker_fees SET settlement_id = NULL WHERE settlement_id = :s"), {"s": s.id})
    audit(
        session,
        "settlement-voided",
        now,
        tournament_id=t.id,
        player_id=s.player_id,
        actor=voided_by.strip(),
        settlement_id=s.id,
        amount=s.amount,
        currency=s.currency,
    )
    session.flush()
    return s


def debts(session: Session, tournament_id: int) -> list[dict[str, Any]]:
    """Every player owing fees in the tournament, with the total and the fees it is made of."""
    t = get_tournament(session, tournament_id)
    rows = session.execute(
        select(
            Player.id,
            func.coalesce(Player.name, Player.pseudonym),
            func.sum(Fee.amount),
            func.count(),
            func.array_agg(aggregate_order_by(Fee.kind, Fee.id)),
        )
        .join(Fee, Fee.player_id == Player.id)
        .where(Fee.tournament_id == t.id, Fee.settlement_id.is_(None))
        .group_by(Player.id)
        .order_by(Player.id)
    )
    return [
        {"player_id": pid, "player": name, "owed": int(owed), "currency": t.currency, "fees": n, "kinds": list(kinds)}
        for pid, name, owed, n, kinds in rows
    ]


def totals(session: Session, tournament_ids: Sequence[int]) -> dict[int, counter.CounterTotals]:
    """The counter's figures of each tournament (SP-1, 3.4): taken and owed by kind of fee, taken by
    method, the settlements voided. Three queries whatever the number of tournaments; a tournament
    with no fee has zero figures in its own currency."""
    ids = list(tournament_ids)
    if not ids:
        return {}
    currencies = dict(session.execute(select(Tournament.id, Tournament.currency).where(Tournament.id.in_(ids))).all())
    kinds: dict[int, list[counter.KindTotal]] = {}
    for tid, kind, n, taken, owed in session.execute(
        select(
            Fee.tournament_id,
            Fee.kind,
            func.count(),
            func.coalesce(func.sum(Fee.amount).filter(Fee.settlement_id.is_not(None)), 0),
            func.coalesce(func.sum(Fee.amount).filter(Fee.settlement_id.is_(None)), 0),
        )
        .where(Fee.tournament_id.in_(ids))
        .group_by(Fee.tournament_id, Fee.kind)
    ):
        kinds.setdefault(tid, []).append(counter.KindTotal(kind, int(n), int(taken), int(owed)))
    standing: dict[int, list[tuple[str, int, int]]] = {}
    voided: dict[int, tuple[int, int]] = {}
    for tid, method, is_void, n, amount in session.execute(
        select(
            Settlement.tournament_id,
            Settlement.method,
            Settlement.voided_at.is_not(None),
            func.count(),
            func.sum(Settlement.amount),
        )
        .where(Settlement.tournament_id.in_(ids))
        .group_by(Settlement.tournament_id, Settlement.method, Settlement.voided_at.is_not(None))
    ):
        if is_void:
            count, total = voided.get(tid, (0, 0))
            voided[tid] = (count + int(n), total + int(amount))
        else:
            standing.setdefault(tid, []).append((method, int(n), int(amount)))
    out = {}
    for tid in ids:
        if tid not in currencies:
            continue
        ks = sorted(kinds.get(tid, []), key=lambda k: counter.KINDS.index(k.kind))
        ms = sorted(standing.get(tid, []), key=lambda m: counter.METHODS.index(m[0]))
        out[tid] = counter.CounterTotals(
            currencies[tid],
            taken=sum(k.taken for k in ks),
            owed=sum(k.owed for k in ks),
            voided=voided.get(tid, (0, 0))[1],
            voided_count=voided.get(tid, (0, 0))[0],
            settlements=sum(n for _, n, _ in ms),
            kinds=tuple(ks),
            methods=tuple((m, a) for m, _, a in ms),
        )
    return out


def settlement_view(s: Settlement) -> dict[str, Any]:
    return {
        "id": s.id,
        "tournament_id": s.tournament_id,
        "player_id": s.player_id,
        "amount": s.amount,
        "currency": s.currency,
        "method": s.method,
        "settled_by": s.settled_by,
        "settled_at": s.settled_at,
        "voided_at": s.voided_at,
        "voided_by": s.voided_by,
        "void_reason": s.void_reason,
    }
