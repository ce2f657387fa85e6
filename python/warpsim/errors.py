"""Errors about the user's input, worded like the simulator's: file, line, column."""

from __future__ import annotations


class InputError(Exception):
    """A problem in a file the user gave; the message names where it is."""

    def __init__(self, path, message: str, line: int | None = None, column: str | None = None):
        self.path = str(path)
        self.line = line
        self.column = column
        where = self.path if line is None else f"{self.path}:{line}"
        what = f"column '{column}': " if column is not None else ""
        super().__init__(f"{where}: {what}{message}")
