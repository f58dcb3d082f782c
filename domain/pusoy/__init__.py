"""Pusoy Dos bracket tournaments (RULES PD-1..PD-13): pure rules here, persistence in
domain/pusoy/tables.py, services in service.py."""
