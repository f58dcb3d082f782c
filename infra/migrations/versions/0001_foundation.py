"""Foundation: the baseline every area's migration branches from.

Each area (clubs, pusoy, poker, documents, series) adds its own migration with
down_revision = "0001" (and depends_on for the areas it references), so `upgrade heads`
applies them all whatever order they were written in.

Revision ID: 0001
Revises:
"""

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
