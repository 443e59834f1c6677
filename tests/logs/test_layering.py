"""tpkit.logs is pure: it imports units, errors, records (the dataclass decorator), hardware and models only; never
torch, never engines."""

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "tpkit"
ALLOWED = ("tpkit.units", "tpkit.errors", "tpkit.records", "tpkit.hardware", "tpkit.models", "tpkit.logs")


def test_imports_stay_in_the_allowed_layers():
    for path in sorted((SRC / "logs").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else (
                [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                assert name.split(".")[0] not in ("torch", "triton", "pynvml"), f"{path.name} imports {name}"
                if name.startswith("tpkit"):
                    assert name.startswith(ALLOWED), f"{path.name} imports {name}"


def test_reader_runs_with_torch_blocked():
    code = (
        "import sys, importlib.abc\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('torch', 'triton', 'pynvml'):\n"
        "            raise ImportError('blocked ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from tpkit.logs import parse_log\n"
        "p = parse_log(b'[2025-01-01 00:00:00 TP0] Load weight begin. avail mem=1.00 GB')\n"
        "assert p.anchors and 'torch' not in sys.modules\n"
        "assert not any(m.startswith('tpkit.engines') for m in sys.modules)\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=SRC.parents[1])
    assert out.returncode == 0, out.stderr
