"""Run ``tpkit bench allreduce`` under torchrun (one process per GPU) or plain python (--nproc spawns).

    torchrun --nproc-per-node 2 bench/allreduce.py --json prof.json --plot ar.png --explain
"""

import sys

from tpkit.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", "allreduce", *sys.argv[1:]]))
