"""Flows the work-pool tests deploy: they leave a file per execution, so a test can count how many
times each run really executed and in which process."""

from __future__ import annotations

import os
import time
from pathlib import Path

from prefect import flow
from prefect.runtime import flow_run


@flow(name="record-execution")
def record(marker_dir: str) -> None:
    Path(marker_dir, f"{flow_run.id}.{os.getpid()}").touch()


@flow(name="hold-until-released")
def hold(marker_dir: str) -> None:
    """Runs until the test creates `release` (a job killed mid-run needs a run that is mid-way)."""
    folder = Path(marker_dir)
    (folder / f"started.{os.getpid()}.{os.getppid()}").touch()  # the parent: the worker that runs it
    while not (folder / "release").exists():
        time.sleep(0.2)
    (folder / f"done.{os.getpid()}").touch()
