"""SP-4 at the database door: prize lines and mystery descriptions carry the domain's verdict.

The check (normalisation, lemmas by pymorphy3, CLDR currency names) cannot run in PostgreSQL, so the
regular-expression CHECK of 0500 gives way to a seal: `wording_seal` = `<checker>:<hex sha256 of
"<checker>:<description>">`, which the domain gives only a text its check accepts
(domain.poker.rules.wording.check.wording_seal), and a CHECK that refuses a row whose seal is missing or is not
its text's. A raw INSERT or UPDATE that did not go through the domain's check is refused.

Existing rows are checked once more here, by the domain's check of today, and sealed; a row it
refuses stops the upgrade with the rows named (a person decides the new wording; this migration
changes no club's text).

Revision ID: 0501
Revises: 0500
"""

import sqlalchemy as sa
from alembic import op

revision = "0501"
down_revision = "0500"
branch_labels = None
depends_on = None

# the seal's recipe in SQL, frozen as written here (domain/poker/tables/results.py: sealed_sql)
_CHECKER = "split_part(wording_seal, ':', 1)"
_SEALED = (
    f"(wording_seal IS NOT NULL AND description IS NOT NULL AND wording_seal = {_CHECKER} || ':' || "
    f"encode(sha256(convert_to({_CHECKER} || ':' || description, 'UTF8')), 'hex'))"
)
PRIZE_CHECK = f"length(btrim(description)) > 0 AND char_length(description) <= 500 AND {_SEALED}"
DRAW_CHECK = (
    f"(description IS NULL AND wording_seal IS NULL) OR (char_length(description) <= 500 AND {_SEALED})"
)


def _seal_existing(conn: sa.Connection) -> None:
    from domain.poker.rules.wording.check import verdict

    refused: list[str] = []
    for table, key in (("poker_prizes", "place"), ("poker_mystery_draws", "id")):
        rows = conn.execute(
            sa.text(f"SELECT tournament_id, {key}, description FROM {table} WHERE description IS NOT NULL")
        ).all()
        for tournament_id, k, description in rows:
            found = verdict(description)
            if not found.accepted:
                refused.append(
                    f"{table} tournament {tournament_id} {key} {k}: {found.findings[0].describe()}"
                )
                continue
            conn.execute(
                sa.text(f"UPDATE {table} SET wording_seal = :seal WHERE tournament_id = :t AND {key} = :k"),
                {"seal": found.seal, "t": tournament_id, "k": k},
            )
    if refused:
        raise RuntimeError(
            "SP-4: these stored texts name money under today's check; reword them, then upgrade again:\n"
            + "\n".join(refused)
        )


def upgrade() -> None:
    op.add_column("poker_prizes", sa.Column("wording_seal", sa.Text))
    op.add_column("poker_mystery_draws", sa.Column("wording_seal", sa.Text))
    # draws are append-only (a trigger); sealing them is this migration's one write to them
    op.execute("ALTER TABLE poker_mystery_draws DISABLE TRIGGER poker_mystery_draws_append_only")
    _seal_existing(op.get_bind())
    op.execute("ALTER TABLE poker_mystery_draws ENABLE TRIGGER poker_mystery_draws_append_only")
    op.alter_column("poker_prizes", "wording_seal", nullable=False)
    for table, check in (("poker_prizes", PRIZE_CHECK), ("poker_mystery_draws", DRAW_CHECK)):
        op.drop_constraint(op.f(f"ck_{table}_description"), table, type_="check")
        op.create_check_constraint(op.f(f"ck_{table}_description"), table, check)


def downgrade() -> None:
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("m0500", Path(__file__).with_name("0500_poker_results.py"))
    m0500 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m0500)
    no_money = m0500.NO_MONEY
    checks = {
        "poker_prizes": f"length(btrim(description)) > 0 AND char_length(description) <= 500 AND {no_money}",
        "poker_mystery_draws": f"description IS NULL OR (char_length(description) <= 500 AND {no_money})",
    }
    for table, check in checks.items():
        op.drop_constraint(op.f(f"ck_{table}_description"), table, type_="check")
        op.create_check_constraint(op.f(f"ck_{table}_description"), table, check)
        op.drop_column(table, "wording_seal")
