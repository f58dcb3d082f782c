"""Webhooks (issue "Players online"): clubs and Pusoy Dos organizers register HTTPS endpoints and hear
results as they happen (a round completed, a champion, a tournament finished, documents ready). Each
event is written to an outbox in the transaction of the change that caused it; `deliver-webhooks`
POSTs it, signed (HMAC-SHA256 with a timestamp), at least once, with retries and back-off
(docs/webhooks.md)."""
