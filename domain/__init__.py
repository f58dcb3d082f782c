"""Tourney's rules and the data they live on. Imports no Prefect, Typer or Jinja."""
