"""Timestamped progress lines for a job's log file (every workflow rule writes one)."""

import sys
import time


def logger(path=None):
    """A print-like function writing timestamped lines to ``path`` (or stderr), flushed at once."""
    stream = open(path, "a") if path else sys.stderr

    def log(message):
        stream.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}\n")
        stream.flush()

    return log
