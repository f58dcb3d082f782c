"""What vulture (`make test`: tests/unit/test_code_health.py) would call dead in domain, flows and
infra but a framework uses: each name below counts as used. Commands, routes, fixtures and event
listeners are left out by their decorators (`[tool.vulture]` in pyproject.toml); a name goes here only
with the framework that reads it."""

# SQLAlchemy: tables written and read through SQL text (the models give the schema and the drift test)
RegistryRate  # domain/clubs/tables.py: registry_rate (infra/registry_rate.py)
MomentFailure  # domain/poker/tables/moments.py: poker_moment_failures
SeriesSkip  # domain/series/tables.py: series_skip
ThrottleHit  # domain/access/tables.py: web_throttle_hits (flows/web/site.RateLimit)

# SQLAlchemy: columns written by the services (and read by SQL text, the pages or nobody yet, as recorded facts)
applied_at
claimed_until
updated_at
next_at
chips_after
dead_stack_id
opened_at
drawn_by
placed_at
amended_at
locked_at
reported_at
reported_by
last_status

date_until  # domain/documents/rules/model.py: read by the templates (Jinja)
prec  # domain/leagues/rules/points.py: decimal's context precision
task_run  # flows/retrying.py: Prefect's retry_condition_fn signature
model_config  # flows/web/api/core.py: Pydantic's model configuration
dictionaries  # infra/stamp_layout.py: read by WeasyPrint's layout
