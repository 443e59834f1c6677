"""tpkit as a user installs it: a wheel, not the repository (helper nc18, 2026-12-05).

The other CLI tests run from the repository with ``src`` on the path, where a data file that the wheel leaves out,
or a path resolved against the repository (tests/, docs/, shared/), still works.  Here the wheel is built from a copy
of ``pyproject.toml``, ``README.md`` and ``src/`` (setuptools' PEP 517 backend, no network, no build isolation),
its file list is checked against every data file a module of ``src/tpkit`` opens, and the README's commands are run
from the installed wheel (``pip install --target``, its ``tpkit`` console script) in an empty folder outside the
repository.  Run time on the project's 2-core machine shared with other jobs: 12-17 s for the file (the wheel build
about 2.5 s, the installed commands about 6 s), so it stays in the normal suite.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
PACKAGE = SRC / "tpkit"
KIMI_LOG = ROOT / "tests" / "logs" / "data" / "synthetic" / "kimi_k25_8x_rtx_pro_6000_sglang.log"
SHIPPED = {"tpkit/models/data/catalog.json", "tpkit/hardware/data/gpus.json", "tpkit/startup/data/table.json",
           "tpkit/comm/data/h200_nvlink_defaults.json"}
"""the data files the planner, perf and explain read (2026-12-05): the scan below must find at least these"""
DATA_NAME = re.compile(r"""["']([\w.-]+\.(?:json|md|csv|txt|toml|yaml))["']""")


def opened_data_files() -> dict[str, str]:
    """Package path (``tpkit/…``) → the module that opens it: every string literal naming a file that lies beside
    the module or in its ``data/`` folder, in a module that reads package files (``__file__``, ``data_text``,
    ``importlib.resources`` / ``files(``)."""
    found = {}
    for module in sorted(PACKAGE.rglob("*.py")):
        text = module.read_text(encoding="utf-8")
        if not re.search(r"__file__|data_text\(|resources|files\(", text):
            continue
        for name in DATA_NAME.findall(text):
            for where in (module.parent / "data" / name, module.parent / name):
                if where.is_file():
                    found[where.relative_to(SRC).as_posix()] = module.relative_to(SRC).as_posix()
    return found


def test_no_module_resolves_a_path_against_the_repository():
    """A path built from ``__file__`` that climbs out of the package (``parents[2] / "tests"``) exists only in a
    clone: the wheel has no tests/, docs/ or shared/."""
    bad = []
    for module in sorted(PACKAGE.rglob("*.py")):
        for no, line in enumerate(module.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0]
            if re.search(r"__file__\)?\.(?:resolve\(\)\.)?parents\[|\.parent\.parent|os\.pardir|\"\.\./", code):
                bad.append(f"{module.relative_to(SRC)}:{no}: {line.strip()}")
    assert bad == []


def test_every_text_read_names_its_encoding():
    """``read_text()`` / ``open(path)`` without an encoding reads in the locale's: under ``LC_ALL=C`` (Python's
    UTF-8 mode off) the start-up table's "±" raised UnicodeDecodeError on every plan (tests/cli/
    test_newcomer_session18.py).  Binary opens and ``/proc`` / ``/sys`` reads with ``encoding="ascii"`` pass."""
    bad = []
    for module in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            keywords = {k.arg for k in node.keywords}
            if name == "read_text" and "encoding" not in keywords:
                bad.append(f"{module.relative_to(SRC)}:{node.lineno}")
            if name == "open" and isinstance(node.func, ast.Name) and "encoding" not in keywords:
                mode = node.args[1] if len(node.args) > 1 else next(
                    (k.value for k in node.keywords if k.arg == "mode"), None)
                if not (isinstance(mode, ast.Constant) and "b" in str(mode.value)):
                    bad.append(f"{module.relative_to(SRC)}:{node.lineno}")
    assert bad == []


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    pytest.importorskip("setuptools", minversion="68", reason="the build backend pyproject.toml names")
    work = tmp_path_factory.mktemp("wheel")
    project = work / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, project / name)
    shutil.copytree(SRC, project / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc"))
    out = work / "dist"
    build = subprocess.run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                            "print(build_meta.build_wheel(sys.argv[1]))", str(out)],
                           cwd=project, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-3000:]
    return out / build.stdout.strip().splitlines()[-1]


def test_the_wheel_ships_every_data_file_the_package_opens(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    opened = opened_data_files()
    assert SHIPPED <= set(opened), sorted(opened)  # the scan finds what the planner reads
    assert {path: module for path, module in opened.items() if path not in names} == {}
    beside = {p.relative_to(SRC).as_posix() for p in PACKAGE.rglob("*")
              if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts}
    assert sorted(beside - names) == []  # every file inside the package folder (evidence.json, README.md, …)
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "tpkit = tpkit._entry:main" in zipfile.ZipFile(wheel).read(entry).decode()


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """The wheel installed with pip into a folder of its own (no dependencies: tpkit's CLI needs none)."""
    pytest.importorskip("pip")
    target = tmp_path_factory.mktemp("site")
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--no-compile",
                          "--disable-pip-version-check", "--quiet", "--target", str(target), str(wheel)],
                         capture_output=True, text=True, timeout=300)
    assert pip.returncode == 0, pip.stderr[-3000:]
    return target


def run_installed(installed: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    """``tpkit ARGV`` through the installed console script, from ``cwd``, with nothing of the repository on the
    path (PYTHONPATH is the install folder only)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COLUMNS", "PYTHONHOME")}
    env["PYTHONPATH"] = str(installed)
    script = installed / "bin" / "tpkit"
    cmd = [sys.executable, str(script), *argv] if script.is_file() else [sys.executable, "-m", "tpkit", *argv]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_the_readme_commands_run_from_the_installed_wheel(installed, tmp_path):
    where = run_installed(installed, tmp_path, "--version")
    assert where.returncode == 0 and where.stdout.startswith("tpkit ")
    probe = subprocess.run([sys.executable, "-c", "import tpkit.cli, tpkit.startup.table as t; "
                            "print(tpkit.cli.__file__); print(t.table_path())"],
                           cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(installed)}, capture_output=True,
                           text=True)
    assert all(line.startswith(str(installed)) for line in probe.stdout.splitlines()), probe  # not src/
    log = tmp_path / "server.log"
    shutil.copy2(KIMI_LOG, log)  # a log the user has, outside the repository
    runs = {
        "plan": (["plan", "moonshotai/Kimi-K2.5", "--engine", "sglang", "--gpu", "RTX-PRO-6000", "--tp", "8",
                  "--mem-fraction-static", "0.85"], "KV cache: 125,354"),
        "explain": (["explain", str(log)], "KV tokens   printed 117,631"),
        "perf": (["perf", "moonshotai/Kimi-K2.5", "--tp", "8", "--speculative-algorithm", "EAGLE3",
                  "--engine-version", "0.5.10", "--context", "16384", "--accept-length", "2.04", "--gpu",
                  "RTX-PRO-6000"], "plain decoding   87.0 tok/s"),
        "from-log": (["plan", "--from-log", str(log), "--gpu", "RTX-PRO-6000", "--mem-fraction-static", "0.9"],
                     "188,675 ± 15 tokens"),
        "list": (["plan", "--list-models"], "moonshotai/Kimi-K2.5"),
    }
    names = {p.relative_to(installed).as_posix() for p in installed.rglob("*") if p.is_file()}
    for name, (argv, says) in runs.items():
        got = run_installed(installed, tmp_path, *argv)
        assert got.returncode == 0 and says in got.stdout and not got.stderr, (name, got.stderr[-2000:])
        cited = set(re.findall(r"\btpkit/[\w/]+\.json\b", got.stdout))
        assert cited <= names, (name, cited - names)  # a ledger's source names a file the install has
        assert "src/tpkit" not in got.stdout  # a repository path means nothing to a wheel's user
    for argv in (["--help"], ["plan", "--help"], ["explain", "--help"], ["perf", "--help"], ["probe", "--help"],
                 ["bench", "allreduce", "--help"]):
        got = run_installed(installed, tmp_path, *argv)
        assert got.returncode == 0 and got.stdout.startswith("usage: tpkit") and not got.stderr, (argv, got.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["server.log"]  # nothing written into the cwd
