"""Check constraints get the names the models give them. Most migrations named their check
constraints in full (`ck_clubs_queue_is_pending`) and the naming convention added its prefix again, so the database had `ck_clubs_ck_clubs_queue_is_pending` where the models say
`ck_clubs_queue_is_pending` (and a name past PostgreSQL's 63 characters was cut and hashed).
Renamed here, one statement each; tests/integration/test_schema.py checks every name from now on.

This revision joins the areas' branches: every later migration follows it.

Revision ID: 0900
Revises: 0102, 0201, 0410, 0513, 0603, 0800
"""

from alembic import op

revision = "0900"
down_revision = ("0102", "0201", "0410", "0513", "0603", "0800")
branch_labels = None
depends_on = None

# table -> the constraints renamed: a name after `ck_<table>_`, or (that name, the old name in full)
# where the old one was cut to 63 characters and hashed; else the old one is `ck_<table>_ck_<table>_<name>`
RENAMED: dict[str, tuple[str | tuple[str, str], ...]] = {
    "club_decisions": (
        "action",
        "source",
    ),
    "club_logos": (
        "data_size",
        "dimensions",
        "media_type",
    ),
    "clubs": (
        "contact_email",
        "counters",
        "identifiers_match_form",
        "legal_form",
        "listing_status",
        "name_given",
        "queue_is_pending",
        "verification_status",
    ),
    "document_locales": (
        "locale",
        "scope",
    ),
    "document_publications": (
        "attempts",
        ("recipient_unless_stored", "ck_document_publications_ck_document_publications_recip_8a70"),
        ("season_when_season", "ck_document_publications_ck_document_publications_seaso_e327"),
        ("sent_at_when_sent", "ck_document_publications_ck_document_publications_sent__89e0"),
        "source",
        "state",
    ),
    "documents": (
        "kind",
        "serial_on_certificates",
    ),
    "players": (
        "block_has_reason",
        "profile_or_forgotten",
    ),
    "poker_clock": (
        "hands_per_hour",
        "started",
    ),
    "poker_clock_events": (
        "kind",
        "level",
    ),
    "poker_dead_stack_charges": (
        "amounts",
    ),
    "poker_dead_stacks": (
        "arrived_or_busted",
        "busted_at_zero",
        "chips",
    ),
    "poker_entries": (
        "busted_at",
        "reentry_linked",
        "sequence_positive",
        "starting_chips",
        "state",
    ),
    "poker_fees": (
        "amount",
        "currency",
        "kind",
        "topup_for_topup_fees",
    ),
    "poker_levels": (
        "blinds",
        "duration_positive",
        "position_positive",
    ),
    "poker_moves": (
        "kind",
        "only_moves_undone",
    ),
    "poker_registrations": (
        ("ended_when_not_active", "ck_poker_registrations_ck_poker_registrations_ended_whe_1dd4"),
        "status",
    ),
    "poker_seats": (
        "seat_no",
    ),
    "poker_settlements": (
        "amount",
        "currency",
        "method",
        "settled_by",
        "void_complete",
    ),
    "poker_structures": (
        "ante_type",
        "name_not_blank",
    ),
    "poker_tables": (
        "table_no",
    ),
    "poker_topups": (
        "chips",
        "kind",
    ),
    "poker_tournaments": (
        "addon_after_start",
        "addon_break",
        "addon_chips",
        "amounts",
        "bounty_type",
        "currency",
        "format",
        "itm",
        "late_reg_after_start",
        "name_not_blank",
        "no_show_policy",
        "reentry_after_start",
        ("reentry_not_before_late_reg", "ck_poker_tournaments_ck_poker_tournaments_reentry_not_b_bfcf"),
        "seat_cap",
        "starting_stack",
        "status",
    ),
    "pusoy_draws": (
        "revealed",
    ),
    "pusoy_finishes": (
        "position",
        "two_of_diamonds",
    ),
    "pusoy_game_audit": (
        "action",
    ),
    "pusoy_games": (
        "game_no",
    ),
    "pusoy_rounds": (
        "advancing",
        "stage",
        "status",
    ),
    "pusoy_seats": (
        "seat_no",
    ),
    "pusoy_tournaments": (
        "bracket",
        "capacity",
        "champion",
        "code",
        "entrants",
        "games_per_round",
        "status",
    ),
    "series": (
        "horizon",
        "kind",
        "opens_before",
        "status",
        "template_object",
    ),
    "series_occurrence": (
        "opened_at",
        "opens_before_start",
        "problem",
        "status",
    ),
}


def _pairs():
    for table, names in RENAMED.items():
        for name in names:
            short, old = name if isinstance(name, tuple) else (name, f"ck_{table}_ck_{table}_{name}")
            yield table, old, f"ck_{table}_{short}"


def upgrade() -> None:
    for table, old, new in _pairs():
        op.execute(f'ALTER TABLE "{table}" RENAME CONSTRAINT "{old}" TO "{new}"')


def downgrade() -> None:
    for table, old, new in _pairs():
        op.execute(f'ALTER TABLE "{table}" RENAME CONSTRAINT "{new}" TO "{old}"')
