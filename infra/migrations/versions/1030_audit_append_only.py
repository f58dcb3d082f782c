"""The audit trail is append-only (RULES AC-3): a trigger refuses UPDATE, DELETE and TRUNCATE of
`audit_trail`, with no exception. Rows hold no handle, name or date of birth of a player (each is a
mark of the player's id, read back from `players`, which forgetting clears: AC-5), so forgetting
never needs to touch them.

Revision ID: 1030
Revises: 1020
"""

from alembic import op

revision = "1030"
down_revision = "1020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION audit_trail_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'audit_trail is append-only: % refused', TG_OP
                USING ERRCODE = 'restrict_violation';
        END $$;
        CREATE TRIGGER audit_trail_append_only BEFORE UPDATE OR DELETE ON audit_trail
            FOR EACH ROW EXECUTE FUNCTION audit_trail_append_only();
        CREATE TRIGGER audit_trail_no_truncate BEFORE TRUNCATE ON audit_trail
            FOR EACH STATEMENT EXECUTE FUNCTION audit_trail_append_only();
        """
    )


def downgrade() -> None:
    op.execute(
        "DROP TRIGGER audit_trail_no_truncate ON audit_trail;"
        " DROP TRIGGER audit_trail_append_only ON audit_trail;"
        " DROP FUNCTION audit_trail_append_only();"
    )
