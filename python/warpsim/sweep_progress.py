"""The sweep's progress line on stderr: points done / failed / running and an ETA.
Redrawn in place on a terminal; elsewhere (a log, a batch job) one line every few seconds."""

from __future__ import annotations

import sys
import time


def duration(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s" if m else f"{s}s"


class Progress:
    def __init__(self, total: int, skipped: int, jobs: int, stream=None, quiet: bool = False):
        self.total, self.skipped, self.jobs = total, skipped, jobs
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.quiet = quiet
        self.t0 = time.monotonic()
        self.last = 0.0

    def line(self, counts: dict, running: int) -> str:
        finished = sum(counts.values())
        remaining = self.total - self.skipped - finished
        elapsed = time.monotonic() - self.t0
        # Points finish `jobs` at a time, so the rate so far already includes the parallelism.
        eta = f", ETA {duration(elapsed / finished * remaining)}" if finished and remaining else ""
        failed = counts.get("failed", 0)
        stopped = counts.get("interrupted", 0)
        return (f"sweep: {self.skipped + finished}/{self.total} points"
                + (f" ({self.skipped} from before)" if self.skipped else "")
                + (f", {failed} failed" if failed else "") + (f", {stopped} interrupted" if stopped else "")
                + f", {running} running, {duration(elapsed)} elapsed{eta}")

    def update(self, counts: dict, running: int) -> None:
        if self.quiet:
            return
        t = time.monotonic()
        if self.tty:
            self.stream.write("\r\x1b[K" + self.line(counts, running))
        elif t - self.last >= 5:
            self.stream.write(self.line(counts, running) + "\n")
        else:
            return
        self.last = t
        self.stream.flush()

    def finish(self, counts: dict) -> None:
        if self.quiet:
            return
        self.stream.write(("\r\x1b[K" if self.tty else "") + self.line(counts, 0) + "\n")
        self.stream.flush()
