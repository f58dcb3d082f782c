"""Accounts and access (RULES AC-1..AC-5): who acts, what each may do, the walls between clubs, the
credentials (passwords, sessions, tokens, throttles) and the audit trail."""
