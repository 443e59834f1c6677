"""Record the output of a fixed set of `tpkit plan` / `perf` / `explain` commands, or compare two records.

    PYTHONPATH=<src A> python scripts/cli_output_compare.py --write /tmp/a.json
    PYTHONPATH=<src B> python scripts/cli_output_compare.py --write /tmp/b.json
    python scripts/cli_output_compare.py --compare /tmp/a.json /tmp/b.json

Each command (text and ``--json``, the help pages, a few user errors) runs through ``tpkit.cli.main`` in this
interpreter, or with ``--fresh`` as ``python -m tpkit`` in one of its own; its stdout, stderr and exit code are
recorded. Used to check that a change meant to be invisible (the cold-start work: lazy imports, deferred dataclass
methods) leaves every byte of output as it was. COLUMNS is fixed so that argparse's help wraps alike.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/: cli_inproc
from cli_inproc import run_tpkit  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "tests/logs/data"

_PLAN = [
    ["moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--mem-fraction-static", "0.85"],
    ["meta-llama/Llama-3.1-8B-Instruct", "--engine", "vllm", "--gpu", "H100"],
    ["meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--context-length", "32768"],
    ["deepseek-ai/DeepSeek-V3", "--gpu", "H200", "--tp", "8"],
    ["deepseek-ai/DeepSeek-V3", "--engine", "vllm", "--gpu", "H200", "--tp", "8", "--max-model-len", "8192"],
    ["Qwen/Qwen3-30B-A3B", "--engine", "vllm", "--gpu", "L40S", "--tp", "2", "--kv-cache-dtype", "fp8"],
    ["Qwen/Qwen3-30B-A3B", "--gpu", "A100-80GB", "--tp", "2", "--speculative-algorithm", "EAGLE3"],
]
_PERF = [
    ["moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8"],
    ["moonshotai/Kimi-K2.5", "--gpu", "RTX-PRO-6000", "--tp", "8", "--speculative-algorithm", "EAGLE3"],
    ["meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--tp", "2", "--engine", "vllm", "--batch", "8"],
    ["deepseek-ai/DeepSeek-V3", "--gpu", "H200", "--tp", "8", "--speculative-algorithm", "NEXTN"],
    ["Qwen/Qwen3-30B-A3B", "--gpu", "L40S", "--tp", "4", "--kv-cache-dtype", "fp8"],
]
_ERRORS = [
    ["plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H999"],
    ["plan", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--gpu-memory-utilisation", "0.9"],
    ["perf", "meta-llama/Llama-3.1-8B-Instruct", "--gpu-memory", "80GB"],
    ["perf", "no/such-model", "--gpu", "H100"],
    ["explain", "/nonexistent/log.txt"],
    ["nosuch"],
    [],
]


def commands() -> list[list[str]]:
    """The command lines recorded, in order."""
    cmds: list[list[str]] = [["--help"], ["--version"], ["plan", "--help"], ["perf", "--help"],
                             ["explain", "--help"], ["plan", "--list-gpus"], ["plan", "--list-models"]]
    for args in _PLAN:
        cmds += [["plan", *args], ["plan", *args, "--json"]]
    for args in _PERF:
        cmds += [["perf", *args], ["perf", *args, "--json"]]
    logs = sorted((LOGS / "sglang").glob("*.log"))[:8] + sorted((LOGS / "vllm").glob("*.log"))[:8] \
        + sorted((LOGS / "synthetic").glob("*.log"))
    for log in logs:
        rel = str(log.relative_to(ROOT))
        cmds += [["explain", rel], ["explain", rel, "--json"]]
    cmds.append(["plan", "moonshotai/Kimi-K2.5", "--from-log", "tests/logs/data/synthetic/"
                 "kimi_k25_8x_rtx_pro_6000_sglang.log", "--gpu", "RTX-PRO-6000", "--tp", "8"])
    return cmds + _ERRORS


def run(argv: list[str], fresh: bool = False) -> dict:
    """stdout, stderr and exit code of ``tpkit ARGV`` (``fresh``: in an interpreter of its own)."""
    if fresh:
        import subprocess

        done = subprocess.run([sys.executable, "-m", "tpkit", *argv], capture_output=True, text=True)
        return {"argv": argv, "code": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
    code, out, err = run_tpkit(argv)
    return {"argv": argv, "code": code, "stdout": out, "stderr": err}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", type=Path, help="record the outputs of this PYTHONPATH's tpkit into this file")
    ap.add_argument("--fresh", action="store_true", help="run each command in a fresh interpreter (slower)")
    ap.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args()
    if args.write:
        os.environ["COLUMNS"] = "100"
        os.chdir(ROOT)
        records = [run(c, args.fresh) for c in commands()]
        args.write.write_text(json.dumps(records, indent=1))
        print(f"{len(records)} commands recorded in {args.write}")
    if args.compare:
        before, after = (json.loads(p.read_text()) for p in args.compare)
        if [r["argv"] for r in before] != [r["argv"] for r in after]:
            print("the two records ran different command lines")
            return 1
        diff = [b["argv"] for b, a in zip(before, after) if b != a]
        for argv in diff:
            print("differs: tpkit", " ".join(argv))
        print(f"{len(before) - len(diff)}/{len(before)} commands byte-identical")
        return 1 if diff else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
