"""The platform's Pusoy Dos organizer (RULES AC-1, PD-2, PD-5, PD-11; docs/cups.md): `organizer` is a
role of the platform, held with no club like `operator`, granted by the operator
(`tourney user grant EMAIL --role organizer`). Only the check of which roles a grant may hold changes.

Revision ID: 1050
Revises: 1040
"""

from alembic import op

revision = "1050"
down_revision = "1040"
branch_labels = None
depends_on = None

NAME = "ck_account_roles_role_in_club"
CLUB_ROLES = "role IN ('owner', 'floor', 'cashier') AND club_id IS NOT NULL"


def upgrade() -> None:
    op.drop_constraint(op.f(NAME), "account_roles", type_="check")
    op.create_check_constraint(
        op.f(NAME), "account_roles", f"({CLUB_ROLES}) OR (role IN ('operator', 'organizer') AND club_id IS NULL)"
    )


def downgrade() -> None:
    op.execute("DELETE FROM account_roles WHERE role = 'organizer'")
    op.drop_constraint(op.f(NAME), "account_roles", type_="check")
    op.create_check_constraint(
        op.f(NAME), "account_roles", f"({CLUB_ROLES}) OR (role = 'operator' AND club_id IS NULL)"
    )
