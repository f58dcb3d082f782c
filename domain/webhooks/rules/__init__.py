"""Webhooks, pure: signing and verifying deliveries, the back-off schedule, what an endpoint may be."""
