"""Webhooks: the use cases (register, list and disable endpoints; emit events; deliver them)."""
