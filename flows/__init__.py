"""Prefect flows and deployments: thin orchestration over the domain services."""
