#!/usr/bin/env bash
# `make test-shifted`: the whole suite again with the clock of every process a year ahead (FAKETIME,
# default +365d), to prove that no test depends on today's date.
#
# libfaketime is preloaded into everything started from here: pytest, the `tourney` and `prefect`
# processes the tests start, the Prefect test server, the forkserver and the render workers, and
# PostgreSQL (runuser, which starts it as the postgres user when we are root, keeps the environment).
# FAKETIME is an offset from the real clock, so all processes agree whenever each started (a start-at
# time "@..." would restart the clock in every process).
#
# Only the calendar moves (FAKETIME_DONT_FAKE_MONOTONIC=1). libfaketime 0.9.10 (Debian 12's) cannot
# fake the monotonic clock under Python 3.11: it leaves sem_clockwait alone, so every timed lock wait
# (Event.wait, Thread.join, queue.get with a time-out) waits for the kernel's monotonic clock to reach
# a faked deadline a year away, i.e. never times out (upstream issue #390, fixed in 0.9.11). With the
# real monotonic clock, 0.9.10 still gets two waits wrong, worked around here:
# - pthread_cond_timedwait on a CLOCK_MONOTONIC condition (how a Python thread waits for the GIL)
#   converts the deadline as if that clock were faked: it lies in the past, every wait returns at
#   once and each waiting thread spins (fixed upstream after 0.9.12). FAKETIME_WAIT_MS=5 makes every
#   such wait last 5 ms, Python's switch interval; a longer wait wakes early, as waits may.
# - clock_nanosleep with an absolute monotonic deadline, i.e. Python's time.sleep, fails with EINVAL
#   (issue #426, fixed in 0.9.11): tests/shifted/sitecustomize.py replaces time.sleep in every Python
#   process, and also makes os.environ changes safe against the getenv() libfaketime does while a
#   thread waits for the GIL (glibc 2.36 frees the environment array that a setenv() outgrows).
#
# File times are not shifted (NO_FAKE_STAT=1): 0.9.10 takes a semaphore shared by a process and its
# children around every faked stat(), and a process killed inside it (the worker tests kill workers
# with SIGKILL) would leave the others waiting on their next stat() for ever.
#
# The database is a cluster of its own, TOURNEY_HOME=.tourney/shifted, started here under the
# shifted clock and stopped at the end: the cluster of `make test` and `make run` keeps the real
# clock, and a cluster started without libfaketime would answer now() with the real date. It is
# stopped before it is started, so it always runs under this run's offset (one shifted run at a
# time per checkout). DATABASE_URL is ignored here: another server's clock cannot be moved.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
tourney="$root/.venv/bin/tourney"

lib="${LIBFAKETIME:-$(ls /usr/lib/*/faketime/libfaketime.so.1 2>/dev/null | head -n1 || true)}"
if [ ! -r "$lib" ]; then
  echo "libfaketime not found (install the Debian package faketime: bash infra/setup-system.sh as root," \
    "or set LIBFAKETIME to libfaketime.so.1)" >&2
  exit 2
fi

real_now=$(date +%s)
unset DATABASE_URL TOURNEY_PG_PORT
export TOURNEY_HOME="$root/.tourney/shifted"
export FAKETIME="${FAKETIME:-+365d}"
export FAKETIME_DONT_FAKE_MONOTONIC=1 FAKETIME_WAIT_MS=5 NO_FAKE_STAT=1
export LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}"
export PYTHONPATH="$root/tests/shifted${PYTHONPATH:+:$PYTHONPATH}"

shifted_now=$("$root/.venv/bin/python" -c 'import time; print(int(time.time()))')
if [ $((shifted_now - real_now)) -gt -60 ] && [ $((shifted_now - real_now)) -lt 60 ]; then
  echo "FAKETIME=$FAKETIME did not move the clock (libfaketime is not in effect)" >&2
  exit 2
fi
echo "the clock of every process: $(date -u '+%Y-%m-%d %H:%M UTC') (FAKETIME=$FAKETIME)"

"$tourney" db stop
trap '"$tourney" db stop || true' EXIT
"$tourney" db up
if [ $# -eq 0 ]; then set -- tests -m "not soak" -n 3 --dist worksteal --durations=15; fi  # no arguments: the Makefile's SUITE
start=$(date +%s)
status=0
"$root/.venv/bin/pytest" "$@" || status=$?
echo "make test-shifted: $(( $(date +%s) - start )) s wall"
exit $status
