"""Imported at start-up by every Python process of the year-ahead run (`make test-shifted` puts this
folder on PYTHONPATH and preloads libfaketime); it works around two faults of libfaketime 0.9.10
(Debian 12's) that hit Python and have nothing to do with the code under test. Nothing else
imports it, and without libfaketime it changes nothing.

time.sleep: the run keeps the real monotonic clock (FAKETIME_DONT_FAKE_MONOTONIC=1), but 0.9.10
still converts an absolute CLOCK_MONOTONIC deadline given to clock_nanosleep as if that clock were
faked (upstream issue #426, fixed in 0.9.11); the deadline comes out negative and Python's
time.sleep, which sleeps that way, fails with EINVAL. Where it does, time.sleep becomes a select()
without descriptors: a relative timeout, which libfaketime passes through unchanged and which Python
resumes after a signal, as time.sleep does.

os.putenv, os.unsetenv: libfaketime calls getenv() inside its pthread_cond_timedwait, which is how a
Python thread waits for the GIL, so every thread that wants the GIL reads the environment without
holding it. glibc 2.36's setenv() frees the environment's array when it grows it, and a thread
reading that array then crashes (SIGSEGV in getenv, called from take_gil) whenever another thread
sets a new variable, as os.environ[...] = ... and monkeypatch.setenv do. Here a change publishes a
new array and never frees one, so a reader always walks a whole array.
"""

from __future__ import annotations

import ctypes
import errno
import os
import select
import threading
import time


def _sleep(seconds: float) -> None:
    if seconds < 0:
        raise ValueError("sleep length must be non-negative")
    select.select([], [], [], seconds)


class _Environment:
    """The C environment (`environ`), changed only by publishing a whole new array."""

    def __init__(self) -> None:
        self._pointer = ctypes.c_void_p.in_dll(ctypes.CDLL(None), "environ")
        self._lock = threading.Lock()

    def _entries(self) -> list[bytes]:
        if not self._pointer.value:
            return []
        array = ctypes.cast(self._pointer.value, ctypes.POINTER(ctypes.c_char_p))
        entries, i = [], 0
        while array[i] is not None:
            entries.append(array[i])
            i += 1
        return entries

    def _publish(self, name: bytes, value: bytes | None) -> None:
        prefix = name + b"="
        with self._lock:
            entries = [e for e in self._entries() if not e.startswith(prefix)]
            if value is not None:
                entries.append(prefix + value)
            array = (ctypes.c_char_p * (len(entries) + 1))(*entries, None)  # holds the strings too
            # never freed, not even when the interpreter exits: a thread, or libfaketime's own exit
            # handler, may still be reading it
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(array))
            self._pointer.value = ctypes.addressof(array)

    @staticmethod
    def _name(name: str | bytes) -> bytes:
        encoded = os.fsencode(name)
        if not encoded or b"=" in encoded:
            raise ValueError("illegal environment variable name")
        if b"\0" in encoded:
            raise ValueError("embedded null byte")
        return encoded

    def putenv(self, name: str | bytes, value: str | bytes) -> None:
        encoded = os.fsencode(value)
        if b"\0" in encoded:
            raise ValueError("embedded null byte")
        self._publish(self._name(name), encoded)

    def unsetenv(self, name: str | bytes) -> None:
        self._publish(self._name(name), None)


if "libfaketime" in os.environ.get("LD_PRELOAD", ""):
    try:
        time.sleep(0)
    except OSError as failed:
        if failed.errno != errno.EINVAL:
            raise
        _sleep.__doc__ = time.sleep.__doc__
        time.sleep = _sleep
    _environment = _Environment()
    os.putenv, os.unsetenv = _environment.putenv, _environment.unsetenv
