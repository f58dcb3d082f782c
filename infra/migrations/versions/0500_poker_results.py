"""Knockouts and their audit, mystery draws, prize lines, final places and the
per-tournament void window (Sport Poker 3.2, 3.3, 3.4, 3.7; SP-4, SP-5, SP-7).

The monetary-wording CHECK (SP-4) was the domain's regular expression of the time, frozen below as
MONEY_PATTERN; migration 0501 replaces it with the domain's seal (domain.poker.rules.wording).

Revision ID: 0500
Revises: 0300
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

# SP-4 as one regular expression, as domain.poker.rules.wording had it when this migration was written
MONEY_PATTERN = (
    '[₽$€£¥₸₴]|(?<![a-zA-Zа-яА-ЯёЁ])(?:[rR][uU][bB]|[rR][uU][rR]|[uU][sS][dD]|[eE][uU][rR]|[gG][bB][p'
    'P]|[jJ][pP][yY]|[cC][nN][yY]|[kK][zZ][tT]|[uU][aA][hH]|[bB][yY][nN]|[bB][yY][rR]|[cC][hH][fF]|[u'
    'U][sS][dD][tT]|[bB][tT][cC])(?![a-zA-Zа-яА-ЯёЁ])|(?<![a-zA-Zа-яА-ЯёЁ])(?:[рР][уУ][бБ][лЛ][а-яА-Я'
    'ёЁ]*|[рР][уУ][бБ]|[кК][оО][пП][еЕ](?:[йЙ][кК]|[еЕ][кК])[а-яА-ЯёЁ]*|[кК][оО][пП]|[дД][оО][лЛ][лЛ]'
    '[аА][рР][а-яА-ЯёЁ]*|[бБ][аА][кК][сС][а-яА-ЯёЁ]*|[еЕ][вВ][рР][оО]|[тТ][еЕ][нН][гГ][еЕ]|[гГ][рР][и'
    'И][вВ][нН][а-яА-ЯёЁ]*|[гГ][рР][нН]|[юЮ][аА][нН][а-яА-ЯёЁ]*|[дД][еЕ][нН][ьЬеЕ][гГ][а-яА-ЯёЁ]*|[дД'
    '][еЕ][нН][еЕ][жЖ][нН][а-яА-ЯёЁ]*|[нН][аА][лЛ][иИ][чЧ][нН][а-яА-ЯёЁ]*|[нН][аА][лЛ][иИ][чЧ][кК][а-'
    'яА-ЯёЁ]*|[кК][эЭеЕ][шШ][а-яА-ЯёЁ]*|[rR]?[oO][uU][bB][lL][eE][sS]?|[dD][oO][lL][lL][aA][rR][sS]?|'
    '[bB][uU][cC][kK][sS]?|[eE][uU][rR][oO][sS]?|[cC][eE][nN][tT][sS]?|[kK][oO][pP][eE][cC][kK][sS]?|'
    '[cC][aA][sS][hH](?:[eE][sS])?|[mM][oO][nN][eE](?:[yY]|[yY][sS]|[iI][eE][sS])|[mM][oO][nN][eE][tT'
    '][aA][rR][yY]|[bB][iI][tT][cC][oO][iI][nN][sS]?)(?![a-zA-Zа-яА-ЯёЁ])|[0-9](?:[0-9.,]|[ \xa0\u202f\u2009])*[рР'
    '](?![a-zA-Zа-яА-ЯёЁ])|(?<![a-zA-Zа-яА-ЯёЁ])[рР]\\.'
)

revision = "0500"
down_revision = "0300"
branch_labels = None
depends_on = None

TZ = sa.DateTime(timezone=True)
NO_MONEY = f"description !~ '{MONEY_PATTERN}'"


def _fk(table: str, column: str, target: str) -> sa.ForeignKey:
    return sa.ForeignKey(f"{target}.id", name=f"fk_{table}_{column}_{target}")


def upgrade() -> None:
    op.create_table(
        "poker_knockout_settings",
        sa.Column(
            "tournament_id", sa.BigInteger,
            _fk("poker_knockout_settings", "tournament_id", "poker_tournaments"), nullable=False,
        ),
        sa.Column("void_window_seconds", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", name="pk_poker_knockout_settings"),
        sa.CheckConstraint("void_window_seconds > 0", name="void_window_positive"),
    )

    t = "poker_knockouts"
    op.create_table(
        t,
        sa.Column("id", sa.BigInteger, sa.Identity(), nullable=False),
        sa.Column("tournament_id", sa.BigInteger, _fk(t, "tournament_id", "poker_tournaments"), nullable=False),
        sa.Column("busted_entry_id", sa.BigInteger, _fk(t, "busted_entry_id", "poker_entries"), nullable=False),
        sa.Column("killer_entry_id", sa.BigInteger, _fk(t, "killer_entry_id", "poker_entries")),
        sa.Column("bust_number", sa.Integer, nullable=False),
        sa.Column("bust_group", sa.Text),
        sa.Column("level", sa.Integer),
        sa.Column("credit_halves", sa.SmallInteger, nullable=False),
        sa.Column("recorded_at", TZ, nullable=False),
        sa.Column("recorded_by", sa.Text, nullable=False),
        sa.Column("voided_at", TZ),
        sa.Column("voided_by", sa.Text),
        sa.PrimaryKeyConstraint("id", name=f"pk_{t}"),
        sa.UniqueConstraint("id", "killer_entry_id", name="uq_poker_knockouts_id_killer"),
        sa.CheckConstraint("bust_number >= 1", name="bust_number_positive"),
        sa.CheckConstraint("level IS NULL OR level >= 1", name="level_positive"),
        sa.CheckConstraint("credit_halves IN (1, 2)", name="credit"),
        sa.CheckConstraint("killer_entry_id IS NULL OR killer_entry_id <> busted_entry_id", name="not_self"),
        sa.CheckConstraint("credit_halves = 2 OR killer_entry_id IS NOT NULL", name="half_needs_killer"),
        sa.CheckConstraint("(voided_at IS NULL) = (voided_by IS NULL)", name="void_complete"),
    )
    op.create_index(
        "uq_poker_knockouts_live_busted", t, ["busted_entry_id"], unique=True,
        postgresql_where=sa.text("voided_at IS NULL"),
    )
    op.create_index("ix_poker_knockouts_tournament_bust", t, ["tournament_id", "bust_number"])
    op.create_index("ix_poker_knockouts_killer", t, ["killer_entry_id"])

    t = "poker_knockout_audit"
    op.create_table(
        t,
        sa.Column("id", sa.BigInteger, sa.Identity(), nullable=False),
        sa.Column("tournament_id", sa.BigInteger, _fk(t, "tournament_id", "poker_tournaments"), nullable=False),
        sa.Column("knockout_id", sa.BigInteger, _fk(t, "knockout_id", "poker_knockouts"), nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("second_killer_entry_id", sa.BigInteger, _fk(t, "second_killer_entry_id", "poker_entries")),
        sa.Column("actor", sa.Text, nullable=False),
        sa.Column("at", TZ, nullable=False),
        sa.Column("data", JSONB, nullable=False),
        sa.PrimaryKeyConstraint("id", name=f"pk_{t}"),
        sa.CheckConstraint("kind IN ('recorded', 'voided', 'drawn')", name="kind"),
        sa.CheckConstraint(
            "second_killer_entry_id IS NULL OR kind = 'recorded'", name="second_killer_on_record"
        ),
    )
    op.create_index("ix_poker_knockout_audit_knockout", t, ["knockout_id"])

    t = "poker_mystery_draws"
    op.create_table(
        t,
        sa.Column("id", sa.BigInteger, sa.Identity(), nullable=False),
        sa.Column("tournament_id", sa.BigInteger, _fk(t, "tournament_id", "poker_tournaments"), nullable=False),
        sa.Column("knockout_id", sa.BigInteger, nullable=False),
        sa.Column("killer_entry_id", sa.BigInteger, _fk(t, "killer_entry_id", "poker_entries"), nullable=False),
        sa.Column("draw_number", sa.Integer, nullable=False),
        sa.Column("description", sa.Text),
        sa.Column("drawn_at", TZ, nullable=False),
        sa.Column("drawn_by", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("id", name=f"pk_{t}"),
        sa.ForeignKeyConstraint(
            ["knockout_id", "killer_entry_id"],
            ["poker_knockouts.id", "poker_knockouts.killer_entry_id"],
            name="fk_poker_mystery_draws_knockout_killer",
        ),
        sa.UniqueConstraint("knockout_id", name=f"uq_{t}_knockout_id"),
        sa.UniqueConstraint("tournament_id", "killer_entry_id", name="uq_poker_mystery_draws_killer"),
        sa.UniqueConstraint("tournament_id", "draw_number", name="uq_poker_mystery_draws_number"),
        sa.CheckConstraint("draw_number >= 1", name="draw_number_positive"),
        sa.CheckConstraint(
            f"description IS NULL OR (char_length(description) <= 500 AND {NO_MONEY})", name="description"
        ),
    )

    t = "poker_prizes"
    op.create_table(
        t,
        sa.Column("tournament_id", sa.BigInteger, _fk(t, "tournament_id", "poker_tournaments"), nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "place", name=f"pk_{t}"),
        sa.CheckConstraint("place BETWEEN 1 AND 200", name="place"),
        sa.CheckConstraint(
            f"length(btrim(description)) > 0 AND char_length(description) <= 500 AND {NO_MONEY}",
            name="description",
        ),
    )

    t = "poker_places"
    op.create_table(
        t,
        sa.Column("tournament_id", sa.BigInteger, _fk(t, "tournament_id", "poker_tournaments"), nullable=False),
        sa.Column("player_id", sa.BigInteger, _fk(t, "player_id", "players"), nullable=False),
        sa.Column("entry_id", sa.BigInteger, _fk(t, "entry_id", "poker_entries"), nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("bust_number", sa.Integer),
        sa.Column("knockouts", sa.Integer, nullable=False),
        sa.Column("credit_halves", sa.Integer, nullable=False),
        sa.Column("prize", sa.Text),
        sa.Column("placed_at", TZ, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "player_id", name=f"pk_{t}"),
        sa.CheckConstraint("place >= 1", name="place_positive"),
        sa.CheckConstraint("(place = 1) = (bust_number IS NULL)", name="champion_unbusted"),
        sa.CheckConstraint("knockouts >= 0 AND credit_halves >= 0", name="credits"),
    )
    op.create_index("ix_poker_places_tournament_place", t, ["tournament_id", "place"])

    op.execute(
        """
        CREATE FUNCTION poker_results_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP;
        END $$;
        CREATE TRIGGER poker_knockout_audit_append_only BEFORE UPDATE OR DELETE ON poker_knockout_audit
            FOR EACH ROW EXECUTE FUNCTION poker_results_append_only();
        CREATE TRIGGER poker_mystery_draws_append_only BEFORE UPDATE OR DELETE ON poker_mystery_draws
            FOR EACH ROW EXECUTE FUNCTION poker_results_append_only();
        CREATE TRIGGER poker_places_append_only BEFORE UPDATE OR DELETE ON poker_places
            FOR EACH ROW EXECUTE FUNCTION poker_results_append_only();

        -- a knockout is immutable; the one change allowed is voiding it, once
        CREATE FUNCTION poker_knockouts_void_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                RAISE EXCEPTION 'poker_knockouts are never deleted: void the knockout instead';
            END IF;
            IF OLD.voided_at IS NOT NULL OR NEW.voided_at IS NULL
               OR (to_jsonb(NEW) - 'voided_at' - 'voided_by') <> (to_jsonb(OLD) - 'voided_at' - 'voided_by') THEN
                RAISE EXCEPTION 'poker_knockouts are immutable: only voiding a live knockout is allowed';
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER poker_knockouts_void_only BEFORE UPDATE OR DELETE ON poker_knockouts
            FOR EACH ROW EXECUTE FUNCTION poker_knockouts_void_only();
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DROP TRIGGER poker_knockouts_void_only ON poker_knockouts;
        DROP FUNCTION poker_knockouts_void_only();
        DROP TRIGGER poker_places_append_only ON poker_places;
        DROP TRIGGER poker_mystery_draws_append_only ON poker_mystery_draws;
        DROP TRIGGER poker_knockout_audit_append_only ON poker_knockout_audit;
        DROP FUNCTION poker_results_append_only();
        """
    )
    for table in (
        "poker_places",
        "poker_prizes",
        "poker_mystery_draws",
        "poker_knockout_audit",
        "poker_knockouts",
        "poker_knockout_settings",
    ):
        op.drop_table(table)
