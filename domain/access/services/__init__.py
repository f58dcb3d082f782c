"""Accounts and access: the use cases (sign-in, sessions, tokens, grants, the gate, the audit trail)."""
