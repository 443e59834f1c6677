"""The ``tpkit`` console script: ``tpkit.cli.main``, with a ^C that arrives while ``tpkit.cli`` itself is imported
(argparse and the command's modules: the first ~50 ms) answered like one during the command, "interrupted" and
exit 130, not a traceback.  Nothing else here: the package root stays cheap to import."""

from __future__ import annotations

import sys


def main() -> int:
    """Import the command line and run it; ^C during the import exits 130 with one word."""
    try:
        from tpkit.cli import main as cli_main
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return cli_main()
