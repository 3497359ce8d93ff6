"""The ``inferboard`` console script: subcommands go to the Qt-free CLI; no command (or a design
file) opens the desktop app. Qt is imported only when a window is opened, so subcommands stay fast."""

from __future__ import annotations

import sys
from typing import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """The ``inferboard`` command: open a design file in the app, or hand any other arguments to the command line."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and (args[0].startswith("-") or not args[0].lower().endswith(".json")):
        # loaded only when the command runs, so --help stays light
        from inferboard.cli import main as cli_main

        return cli_main(args)
    # loaded only when the command runs, so --help stays light
    from desktop.app import run_app

    return run_app(args[0] if args else None)


if __name__ == "__main__":
    sys.exit(main())
