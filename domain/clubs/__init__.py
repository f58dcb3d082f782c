"""Club catalog: identifiers (CL-1), registry verification (CL-2), moderation (CL-3, CL-4)."""
