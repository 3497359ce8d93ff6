"""Checked flag values for the command line, and its exit statuses: a bad value is one line naming
the flag and the value, exit status 2, before any file is read."""

from __future__ import annotations

import argparse
import math
from typing import Callable

from inferboard.printable import shown

#: the same status for the same failure in every command (README "Exit status")
EXIT_OK, EXIT_FINDING, EXIT_BAD_INPUT = 0, 1, 2


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line (escaped) and exit status 2."""

    def error(self, message: str):  # noqa: D401 - argparse hook
        """Exit 2 with one line naming the problem, no usage dump."""
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: {shown(message)} (see {self.prog} --help)\n")


def _shown_value(text: str) -> str:
    return shown(text if len(text) <= 40 else text[:37] + "...")


def number(low: float | None = None, high: float | None = None, *, above: bool = False,
           whole: bool = False) -> Callable[[str], float | int]:
    """An argparse type: a finite number (a whole one when ``whole``) of at least ``low`` (more
    than ``low`` when ``above``) and at most ``high``."""
    def parse(text: str) -> float | int:
        try:
            value = int(text) if whole else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"'{_shown_value(text)}' is not {'a whole number' if whole else 'a number'}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, not '{_shown_value(text)}'")
        if low is not None and (value <= low if above else value < low):
            raise argparse.ArgumentTypeError(f"must be {'more than' if above else 'at least'} {low:g}, "
                                             f"not '{_shown_value(text)}'")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high:g}, not '{_shown_value(text)}'")
        return value
    parse.__name__ = "whole number" if whole else "number"
    return parse
