"""Free TCP ports on loopback, for the real servers the tests start (SMTP, HTTP, PostgreSQL, Prefect)."""

from __future__ import annotations

import os
import random
import socket
from pathlib import Path


def free_port() -> int:
    """A port the kernel has free now, for a server bound at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def reserved_port() -> int:
    """A free port for a server bound long after it is chosen (the session's Prefect server, started by the
    first test that needs it): below the kernel's ephemeral range, where neither `free_port()` nor any
    outgoing connection's local port lands meanwhile, and spread by the process id so that the suite's
    parallel workers do not pick the same one."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    candidates = random.Random(os.getpid()).sample(range(10000, low), 200)
    for port in candidates:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port below {low} on loopback")
