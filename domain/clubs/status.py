"""The club's two statuses, the audited actions, and which transitions each action allows (CL-3, CL-4)."""

from __future__ import annotations

from enum import StrEnum


class LegalForm(StrEnum):
    LEGAL_ENTITY = "legal_entity"  # INN 10 digits + OGRN 13
    ENTREPRENEUR = "entrepreneur"  # INN 12 digits + OGRNIP 15


class Listing(StrEnum):
    LISTED = "listed"
    SUSPENDED = "suspended"
    TERMINATED = "terminated"


class Verification(StrEnum):
    UNVERIFIED = "unverified"
    PENDING = "pending"
    VERIFIED = "verified"
    REFUSED = "refused"
    REVOKED = "revoked"


class Action(StrEnum):
    """What an audit entry records. Every action but `recheck` happens at most once per application."""

    CREATE = "create"
    APPLY = "apply"
    QUEUE = "queue"  # to the moderator queue (CL-3)
    VERIFY = "verify"  # by the registry or a moderator
    REFUSE = "refuse"
    REVOKE = "revoke"
    RECHECK = "recheck"  # a verified club still matches the registry (CL-4)
    SUSPEND = "suspend"
    TERMINATE = "terminate"
