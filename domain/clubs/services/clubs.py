"""Club services: short functions over a Session (the caller owns the transaction) — the catalog,
applications, moderation and the operator's powers, and the set-based claim/record pair the
`verify-clubs` and `reverify-clubs` jobs put around their registry lookups."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import or_, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from domain.clubs.rules.catalog import NewClub, club_problems, profile_problems
from domain.clubs.rules.status import Action, Listing, State, Verification, transition
from domain.clubs.rules.verification import Candidate, Check, step_for
from domain.clubs.tables import Club, ClubDecision
from domain.errors import DomainError, NotFound, raise_problems

NO_PROVIDER = "no registry provider is configured: a moderator checks the details by hand"
_REASON_NEEDED = {Action.REFUSE, Action.REVOKE, Action.SUSPEND, Action.REINSTATE, Action.TERMINATE}


def _state(club: Club) -> State:
    return State(Listing(club.listing_status), Verification(club.verification_status), club.queued_at is not None)


def _audit(
    session: Session,
    club: Club,
    action: Action,
    source: str,
    actor: str,
    reason: str | None,
    now: datetime,
    raw: str | None = None,
) -> None:
    session.add(
        ClubDecision(
            club_id=club.id,
            application_no=club.application_no,
            action=action.value,
            verification_status=club.verification_status,
            listing_status=club.listing_status,
            source=source,
            actor=actor,
            reason=reason,
            raw_answer=raw,
            decided_at=now,
        )
    )


def add_club(session: Session, new: NewClub, now: datetime, actor: str = "operator") -> Club:
    """List a new club, unverified. Any problem with its details, or an INN/OGRN another club already
    holds, refuses it and writes nothing."""
    raise_problems(club_problems(new))
    club_id = session.execute(
        insert(Club)
        .values(
            name=new.name.strip(),
            legal_form=new.legal_form,
            inn=new.inn,
            ogrn=new.ogrn,
            contact_email=new.contact_email,
            timezone=new.timezone,
            created_at=now,
            updated_at=now,
        )
        .on_conflict_do_nothing()
        .returning(Club.id)
    ).scalar()
    if club_id is None:
        holder = session.scalars(select(Club).where(or_(Club.inn == new.inn, Club.ogrn == new.ogrn))).first()
        field, value = ("INN", new.inn) if holder is None or holder.inn == new.inn else ("OGRN", new.ogrn)
        who = f"club {holder.id} ({holder.name})" if holder else "another club"
        raise DomainError(f"{field.lower()}-taken", f"{field} {value} is already listed by {who}")
    club = session.get_one(Club, club_id)
    _audit(session, club, Action.CREATE, "operator", actor, None, now)
    return club


def club_view(club: Club) -> dict:
    """A club as the operator reads it (the CLI's `tourney club`, the platform's queue): its details,
    listing and verification with their reasons, its application and the registry's checks."""
    return {
        "id": club.id,
        "name": club.name,
        "legal_form": club.legal_form,
        "inn": club.inn,
        "ogrn": club.ogrn,
        "contact_email": club.contact_email,
        "timezone": club.timezone,
        "listing_status": club.listing_status,
        "listing_reason": club.listing_reason,
        "verification_status": club.verification_status,
        "verification_reason": club.verification_reason,
        "in_moderation_queue": club.queued_at is not None,
        "application_no": club.application_no,
        "applied_at": club.applied_at,
        "queued_at": club.queued_at,
        "attempts": club.attempts,
        "last_error": club.last_error,
        "verified_at": club.verified_at,
        "last_checked_at": club.last_checked_at,
    }


def get_club(session: Session, club_id: int, lock: bool = False) -> Club:
    club = session.get(Club, club_id, with_for_update=lock, populate_existing=lock)
    if club is None:
        raise NotFound("club-not-found", f"there is no club {club_id}")
    return club


def edit_profile(
    session: Session, club_id: int, now: datetime, *, name: str, contact_email: str, timezone: str
) -> bool:
    """The owner's edit of the club's profile (its name, the e-mail its documents go to, its timezone),
    under the club's row lock: every problem at once and nothing written, else the profile saved.
    False when it is so already (nothing written)."""
    raise_problems(profile_problems(name, contact_email, timezone))
    club = get_club(session, club_id, lock=True)
    new = (name.strip(), contact_email.strip(), timezone)
    if (club.name, club.contact_email, club.timezone) == new:
        return False
    club.name, club.contact_email, club.timezone = new
    club.updated_at = now
    session.flush()
    return True


def _act(
    session: Session,
    club_id: int,
    action: Action,
    source: str,
    actor: str,
    reason: str | None,
    now: datetime,
) -> Club:
    """One decision on one club, under its row lock: the pure transition, the new state, the audit."""
    reason = (reason or "").strip() or None
    if action in _REASON_NEEDED and reason is None:
        raise DomainError("reason-missing", f"a reason is required to {action.value} a club")
    club = get_club(session, club_id, lock=True)
    before = _state(club)
    after = transition(before, action)
    if action is Action.APPLY:
        club.application_no += 1
        club.applied_at = now
        club.attempts = 0
        club.last_error = None
    if action in (Action.SUSPEND, Action.REINSTATE, Action.TERMINATE):
        club.listing_reason = reason
    else:
        club.verification_reason = reason
    if after.verification is Verification.VERIFIED and before.verification is not Verification.VERIFIED:
        club.verified_at = now
    club.listing_status = after.listing.value
    club.verification_status = after.verification.value
    club.queued_at = (club.queued_at or now) if after.queued else None
    club.claimed_until = None
    club.updated_at = now
    _audit(session, club, action, source, actor, reason, now)
    session.flush()
    return club


def apply(session: Session, club_id: int, now: datetime, provider_configured: bool, actor: str = "club") -> Club:
    """The club applies for verification (CL-2). Without a provider it goes straight to the moderator
    queue (CL-3); otherwise the next `verify-clubs` run checks it."""
    club = _act(session, club_id, Action.APPLY, "club", actor, None, now)
    if not provider_configured:
        club = _act(session, club_id, Action.QUEUE, "registry", "none configured", NO_PROVIDER, now)
    return club


def approve(session: Session, club_id: int, moderator: str, reason: str | None, now: datetime) -> Club:
    """CL-3: a moderator verifies a pending application by hand."""
    return _act(session, club_id, Action.VERIFY, "moderator", moderator, reason or "checked by hand", now)


def refuse(session: Session, club_id: int, moderator: str, reason: str | None, now: datetime) -> Club:
    """CL-3, CL-4: a pending application refused, with the reason."""
    return _act(session, club_id, Action.REFUSE, "moderator", moderator, reason, now)


def revoke(session: Session, club_id: int, operator: str, reason: str | None, now: datetime) -> Club:
    """CL-4: a verified club loses the status, with the reason."""
    return _act(session, club_id, Action.REVOKE, "operator", operator, reason, now)


def suspend(session: Session, club_id: int, operator: str, reason: str | None, now: datetime) -> Club:
    """CL-4: the listing suspended, with the reason."""
    return _act(session, club_id, Action.SUSPEND, "operator", operator, reason, now)


def reinstate(session: Session, club_id: int, operator: str, reason: str | None, now: datetime) -> Club:
    """CL-4: a suspended club listed again, with the reason."""
    return _act(session, club_id, Action.REINSTATE, "operator", operator, reason, now)


def terminate(session: Session, club_id: int, operator: str, reason: str | None, now: datetime) -> Club:
    """CL-4: the listing ended for good, with the reason."""
    return _act(session, club_id, Action.TERMINATE, "operator", operator, reason, now)


def moderation_queue(session: Session) -> list[Club]:
    """CL-3: applications waiting for a moderator, oldest first."""
    return list(
        session.scalars(
            select(Club)
            .where(Club.verification_status == Verification.PENDING.value, Club.queued_at.is_not(None))
            .order_by(Club.queued_at, Club.id)
        )
    )


def list_clubs(session: Session, listing: str | None = None, verification: str | None = None) -> list[Club]:
    """Every club by id, or those with the given listing and/or verification status."""
    query = select(Club).order_by(Club.id)
    for column, value, kind in (
        (Club.listing_status, listing, Listing),
        (Club.verification_status, verification, Verification),
    ):
        if value is None:
            continue
        if value not in kind.__members__.values():
            known = ", ".join(k.value for k in kind)
            raise DomainError("unknown-status", f"unknown status '{value}'; use one of: {known}")
        query = query.where(column == value)
    return list(session.scalars(query))


def history(session: Session, club_id: int) -> list[ClubDecision]:
    return list(
        session.scalars(
            select(ClubDecision)
            .where(ClubDecision.club_id == club_id)
            .order_by(ClubDecision.decided_at, ClubDecision.id)
        )
    )


# -- the jobs: claim a batch, look it up outside any transaction, record the outcomes ---------------

_CLAIM = text(
    """
    UPDATE clubs c SET claimed_until = :until
    FROM (
        SELECT id FROM clubs
        WHERE id > :after
          AND (claimed_until IS NULL OR claimed_until <= :now)
          AND (
                (:recheck = false AND verification_status = 'pending' AND queued_at IS NULL)
             OR (:recheck = true AND verification_status = 'verified' AND listing_status <> 'terminated'
                 AND (last_checked_at IS NULL OR last_checked_at <= :checked_before))
          )
        ORDER BY id
        LIMIT :limit
        FOR UPDATE SKIP LOCKED
    ) due
    WHERE c.id = due.id
    RETURNING c.id, c.application_no, c.legal_form, c.inn, c.ogrn, c.verification_status, c.attempts
    """
)


def claim(
    session: Session,
    now: datetime,
    *,
    recheck: bool = False,
    after_id: int = 0,
    limit: int = 100,
    lease: timedelta = timedelta(minutes=15),
    max_age: timedelta = timedelta(days=30),
) -> list[Candidate]:
    """One statement: the next `limit` rows by id after `after_id` — pending applications, or (recheck)
    verified clubs last checked `max_age` ago or earlier — that no other run holds, leased to this one."""
    rows = session.execute(
        _CLAIM,
        {
            "until": now + lease,
            "now": now,
            "after": after_id,
            "recheck": recheck,
            "checked_before": now - max_age,
            "limit": limit,
        },
    ).all()
    return sorted(
        (
            Candidate(
                r.id, r.application_no, r.legal_form, r.inn, r.ogrn, Verification(r.verification_status), r.attempts
            )
            for r in rows
        ),
        key=lambda c: c.club_id,
    )


_DECIDE = text(
    """
    WITH v AS (
        SELECT * FROM unnest(
            CAST(:ids AS bigint[]), CAST(:apps AS int[]), CAST(:before AS text[]), CAST(:after AS text[]),
            CAST(:queued AS boolean[]), CAST(:checked AS boolean[]), CAST(:actions AS text[]),
            CAST(:reasons AS text[]), CAST(:raws AS text[]), CAST(:attempts AS int[])
        ) AS v(id, app, before, after, queued, checked, action, reason, raw, attempts)
    ), changed AS (
        UPDATE clubs c SET
            verification_status = v.after,
            verification_reason = v.reason,
            queued_at = CASE WHEN v.queued THEN :now END,
            verified_at = CASE WHEN v.after = 'verified' AND v.before <> 'verified' THEN :now ELSE c.verified_at END,
            last_checked_at = CASE WHEN v.checked THEN :now ELSE c.last_checked_at END,
            attempts = c.attempts + v.attempts,
            last_error = CASE WHEN v.attempts > 0 THEN v.reason ELSE c.last_error END,
            claimed_until = NULL,
            updated_at = :now
        FROM v
        WHERE c.id = v.id AND c.application_no = v.app AND c.verification_status = v.before
          AND c.queued_at IS NULL
        RETURNING c.id, c.listing_status
    )
    INSERT INTO club_decisions
        (club_id, application_no, action, verification_status, listing_status, source, actor,
         reason, raw_answer, decided_at)
    SELECT v.id, v.app, v.action, v.after, changed.listing_status, 'registry', :actor, v.reason, v.raw, :now
    FROM v JOIN changed ON changed.id = v.id
    ON CONFLICT DO NOTHING
    RETURNING club_id
    """
)

_UNDECIDED = text(
    """
    UPDATE clubs c SET
        attempts = c.attempts + v.attempts,
        last_error = v.note,
        claimed_until = NULL,
        updated_at = :now
    FROM unnest(CAST(:ids AS bigint[]), CAST(:apps AS int[]), CAST(:notes AS text[]), CAST(:attempts AS int[]))
        AS v(id, app, note, attempts)
    WHERE c.id = v.id AND c.application_no = v.app
    """
)


def record(
    session: Session, checks: Sequence[Check], now: datetime, actor: str, max_attempts: int
) -> dict[int, tuple[str, str]]:
    """Two statements for any number of checks: every decision (compare-and-set on the claimed state,
    so a decision lands once even when two runs checked the same row) with its audit entry and the
    raw answer, then the undecided ones (attempt counted, claim released). Returns club id ->
    (outcome, reason) for each check: the action taken, `skipped` when another run decided first,
    or `retry` when nothing was decided this time."""
    decided, undecided, outcomes = [], [], {}
    for check in checks:
        step = step_for(check, max_attempts)
        candidate = check.candidate
        if step.action is None:
            undecided.append((candidate, step))
            outcomes[candidate.club_id] = ("retry", step.reason)
        else:
            decided.append((check, step))
            outcomes[candidate.club_id] = (step.action.value, step.reason)
    if decided:
        # registry decisions touch only the verification status: the listing does not matter here
        afters = [transition(State(Listing.LISTED, c.candidate.verification), s.action) for c, s in decided]
        written = set(
            session.execute(
                _DECIDE,
                {
                    "ids": [c.candidate.club_id for c, _ in decided],
                    "apps": [c.candidate.application_no for c, _ in decided],
                    "before": [c.candidate.verification.value for c, _ in decided],
                    "after": [a.verification.value for a in afters],
                    "queued": [a.queued for a in afters],
                    "checked": [s.checked for _, s in decided],
                    "actions": [s.action.value for _, s in decided],
                    "reasons": [s.reason for _, s in decided],
                    "raws": [c.raw for c, _ in decided],
                    "attempts": [int(s.counts_attempt) for _, s in decided],
                    "now": now,
                    "actor": actor,
                },
            ).scalars()
        )
        for check, _ in decided:
            if check.candidate.club_id not in written:
                outcomes[check.candidate.club_id] = ("skipped", "decided by another run")
    if undecided:
        session.execute(
            _UNDECIDED,
            {
                "ids": [c.club_id for c, _ in undecided],
                "apps": [c.application_no for c, _ in undecided],
                "notes": [s.reason for _, s in undecided],
                "attempts": [int(s.counts_attempt) for _, s in undecided],
                "now": now,
            },
        )
    return outcomes


def queue_all_pending(session: Session, now: datetime) -> int:
    """CL-3 with no provider configured: every pending application goes to the moderator queue."""
    rows = session.execute(
        text(
            """
            WITH queued AS (
                UPDATE clubs SET queued_at = :now, verification_reason = :reason, claimed_until = NULL,
                    updated_at = :now
                WHERE verification_status = 'pending' AND queued_at IS NULL
                RETURNING id, application_no, listing_status
            )
            INSERT INTO club_decisions
                (club_id, application_no, action, verification_status, listing_status, source, actor,
                 reason, decided_at)
            SELECT id, application_no, 'queue', 'pending', listing_status, 'registry', 'none configured',
                   :reason, :now
            FROM queued
            ON CONFLICT DO NOTHING
            RETURNING club_id
            """
        ),
        {"now": now, "reason": NO_PROVIDER},
    ).all()
    return len(rows)
