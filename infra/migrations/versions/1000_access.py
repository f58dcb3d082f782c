"""Accounts and access (RULES AC-1..AC-4): accounts and their roles per club, sessions, machine tokens,
e-mail links, sign-in attempts (the throttle) and the audit trail of every change.

Revision ID: 1000
Revises: 0900
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

revision = "1000"
down_revision = "0900"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)


def _id():
    return sa.Column("id", sa.BigInteger, sa.Identity(), nullable=False)


def _account(t: str):
    return sa.Column(
        "account_id", sa.BigInteger, sa.ForeignKey("accounts.id", name=f"fk_{t}_account_id_accounts", ondelete="CASCADE"),
        nullable=False,
    )


def upgrade() -> None:
    t = "accounts"
    op.create_table(
        t,
        _id(),
        sa.Column("email", sa.Text, nullable=False),
        sa.Column("email_key", sa.Text, nullable=False),
        sa.Column("password_hash", sa.Text),
        sa.Column("email_verified_at", TZ),
        sa.Column("player_id", sa.BigInteger, sa.ForeignKey("players.id", name=f"fk_{t}_player_id_players")),
        sa.Column("locale", sa.Text, nullable=False, server_default="ru"),
        sa.Column("blocked_at", TZ),
        sa.Column("blocked_reason", sa.Text),
        sa.Column("created_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("id", name=f"pk_{t}"),
        sa.UniqueConstraint("email_key", name=f"uq_{t}_email_key"),
        sa.UniqueConstraint("player_id", name=f"uq_{t}_player_id"),
        sa.CheckConstraint("password_hash IS NULL OR password_hash LIKE '$argon2id$%'", name="argon2id_only"),
        sa.CheckConstraint("(blocked_at IS NULL) = (blocked_reason IS NULL)", name="block_has_reason"),
    )
    t = "account_roles"
    op.create_table(
        t,
        _id(),
        _account(t),
        sa.Column("role", sa.Text, nullable=False),
        sa.Column("club_id", sa.BigInteger, sa.ForeignKey("clubs.id", name=f"fk_{t}_club_id_clubs")),
        sa.Column("granted_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("id", name=f"pk_{t}"),
        sa.CheckConstraint(
            "(role IN ('owner', 'floor', 'cashier') AND club_id IS NOT NULL)"
            " OR (role = 'operator' AND club_id IS NULL)",
            name="role_in_club",
        ),
    )
    op.create_index("uq_account_roles_held", t, ["account_id", "role", sa.text("coalesce(club_id, 0)")], unique=True)
    op.create_index("ix_account_roles_club_id", t, ["club_id"])
    for t in ("account_sessions", "account_tokens", "account_links"):
        columns = {
            "account_sessions": [
                sa.Column("started_at", TZ, nullable=False),
                sa.Column("last_seen_at", TZ, nullable=False),
                sa.Column("ended_at", TZ),
                sa.Column("address", sa.Text),
                sa.Column("agent", sa.Text),
            ],
            "account_tokens": [
                sa.Column("name", sa.Text, nullable=False),
                sa.Column("scopes", ARRAY(sa.Text), nullable=False),
                sa.Column("created_at", TZ, nullable=False),
                sa.Column("last_used_at", TZ),
                sa.Column("revoked_at", TZ),
            ],
            "account_links": [
                sa.Column("purpose", sa.Text, nullable=False),
                sa.Column("created_at", TZ, nullable=False),
                sa.Column("expires_at", TZ, nullable=False),
                sa.Column("used_at", TZ),
                sa.CheckConstraint("purpose IN ('verify', 'reset')", name="purpose"),
            ],
        }[t]
        op.create_table(
            t,
            _id(),
            _account(t),
            sa.Column("secret_hash", sa.LargeBinary, nullable=False),
            *columns,
            sa.PrimaryKeyConstraint("id", name=f"pk_{t}"),
            sa.UniqueConstraint("secret_hash", name=f"uq_{t}_secret_hash"),
        )
        op.create_index(f"ix_{t}_account_id", t, ["account_id"])
    t = "account_sign_ins"
    op.create_table(
        t,
        _id(),
        sa.Column("email_key", sa.Text, nullable=False),
        sa.Column("address", sa.Text, nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.Column("succeeded", sa.Boolean, nullable=False),
        sa.PrimaryKeyConstraint("id", name=f"pk_{t}"),
    )
    op.create_index("ix_account_sign_ins_email_key_at", t, ["email_key", "at"])
    op.create_index("ix_account_sign_ins_address_at", t, ["address", "at"])
    t = "audit_trail"
    op.create_table(
        t,
        _id(),
        sa.Column("at", TZ, nullable=False),
        sa.Column("actor_kind", sa.Text, nullable=False),
        sa.Column("actor_label", sa.Text, nullable=False),
        sa.Column("account_id", sa.BigInteger, sa.ForeignKey("accounts.id", name=f"fk_{t}_account_id_accounts")),
        sa.Column("token_id", sa.BigInteger, sa.ForeignKey("account_tokens.id", name=f"fk_{t}_token_id_account_tokens")),
        sa.Column("club_id", sa.BigInteger, sa.ForeignKey("clubs.id", name=f"fk_{t}_club_id_clubs")),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("data", JSONB, nullable=False, server_default="{}"),
        sa.PrimaryKeyConstraint("id", name=f"pk_{t}"),
    )
    op.create_index("ix_audit_trail_club_id_at", t, ["club_id", "at"])


def downgrade() -> None:
    for t in ("audit_trail", "account_sign_ins", "account_links", "account_tokens", "account_sessions", "account_roles",
              "accounts"):
        op.drop_table(t)
