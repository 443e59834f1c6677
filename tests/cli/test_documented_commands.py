"""Every command the docs show a user runs as shown (helper nc17, 2026-12-05).

The commands are read from the docs when the tests are collected, so a command added to a doc is covered without
editing this file:

- every line of a fenced code block in README.md and docs/*.md that runs ``tpkit``, ``python -m tpkit``, a
  ``.venv/bin/`` tool, or ``python``/``bash`` on a file under scripts/ or bench/ (``K="…"`` assignments are
  expanded in the lines after them; ``a && b`` and ``a; b`` run in turn; ``> FILE`` keeps the output; ``test $? -eq
  N`` checks the exit code; ``jq .KEY FILE`` checks the JSON has the key);
- every inline ``tpkit …`` command of those docs that is complete: a MODEL, log or file in it, or ``--help`` /
  ``--list-gpus``, and no placeholder (``…``, ``<…>``, ``MODEL``, ``LOG``, ``N`` …);
- the inline ``python scripts/…`` / ``python bench/…`` commands of README.md (the docs/ prose keeps the maintainers'
  reproduction commands; see ``SCRIPTS``).

Each runs in-process through ``tpkit.cli.main`` (scripts in a subprocess) and must exit 0 (``tpkit plan`` 3 where its
verdict is DOES NOT FIT, or what the doc's ``test $? -eq N`` says), print no traceback, and print every decimal
number that the line's ``# comment`` shows (``# 8× PCIe: 87.0 → 69.4 tok/s (0.80×)``).  The example files the docs
name stand for files of the reader's: ``server.log`` is the synthetic Kimi-K2.5 log, ``crash.log`` a real vLLM
Qwen3-8B crash log (vl_017), ``pod.log`` an SGLang start in a HAMi slice (sg_495), ``machine.json`` the H200 machine
profile of docs/runs/2026-11-30-final; a file the
reader would write (``plan.json``) goes to a temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from clirun import SYNTHETIC_KIMI, cli

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

EXAMPLE_FILES = {
    "server.log": SYNTHETIC_KIMI,
    "crash.log": ROOT / "tests/logs/data/vllm/vl_017.log",  # Qwen3-8B, vLLM: "No available memory for the cache blocks"
    "machine.json": ROOT / "docs/runs/2026-11-30-final/machine.json",  # `tpkit probe --out` on 2× H200
    "pod.log": ROOT / "tests/logs/data/sglang/sg_495.log",  # SGLang 0.5.20 in a 38,000 MiB HAMi slice (gs_342)
}
"""the example files the docs name, standing for the reader's own"""

OUTPUT_FILES = ("plan.json",)
"""files a documented command writes with ``> FILE`` and a later command reads"""

SCRIPTS = {
    "scripts/device_final_check.sh": "GPU only: runs on the GPU box (probe, memory check, GPU tests)",
    "scripts/gpu_memory_check.py": "GPU only: allocates a plan's KV pool on the GPU",
    "scripts/validate.py": "slow: scores all 400+ validation cases (50 s on one core); the CI runs "
                           "tests/validation instead",
}
"""scripts the docs show that this test does not run, with the reason (any other documented script runs)"""

SLOW = {
    "tpkit bench allreduce": "slow: spawns 2 torch CPU ranks and times every size up to 1 MiB (43 s on one core); "
                             "`tpkit bench allreduce --nproc 1` runs here",
    "tpkit bench allreduce --backend gloo --nproc 2": "slow: the same 2-rank CPU run (30 s on one core)",
}
"""documented commands not run here because they take long, with the reason"""

PLACEHOLDER = re.compile(r"…|\.\.\.|<[^>]*>|\||\[")
"""text that stands for the reader's value: ``…``, ``<model>``, ``on|off``, ``[--out FILE]``"""

PLACEHOLDER_WORDS = {"MODEL", "LOG", "FILE", "N", "NAME", "GIB", "X", "SIZE", "E", "A", "B", "F", "GBPS", "ID"}
"""the docs' capitalised stand-ins (``tpkit plan MODEL --from-log LOG``, ``--gpu A,B``, ``--tp N``)"""


def _has_placeholder(text: str) -> bool:
    return bool(PLACEHOLDER.search(text)) or any(w in PLACEHOLDER_WORDS for w in re.split(r"[\s,=\[\]]+", text))

SUBCOMMANDS = ("plan", "perf", "explain", "probe", "bench")


@dataclass
class Command:
    """One documented command line: where it is, the words to run, and what the doc says of it."""
    where: str
    text: str
    steps: list[list[str]] = field(default_factory=list)
    comment: str = ""

    def __str__(self) -> str:
        return f"{self.where}: {self.text}"


def _split_comment(line: str) -> tuple[str, str]:
    """``cmd  # comment`` → (cmd, comment); a ``#`` inside quotes stays."""
    quote = None
    for i, ch in enumerate(line):
        if ch in "'\"" and quote in (None, ch):
            quote = None if quote else ch
        elif ch == "#" and quote is None and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line, ""


def _steps(text: str) -> list[list[str]]:
    """The shell line as steps: words of each command, with ``&&`` / ``;`` between them dropped."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|>")
    lexer.whitespace_split = True
    steps, words = [], []
    for word in lexer:
        if word in (";", "&&"):
            steps.append(words)
            words = []
        else:
            words.append(word)
    steps.append(words)
    return [s for s in steps if s]


def _runs_something(words: list[str]) -> bool:
    first = words[0].removeprefix(".venv/bin/")
    if first == "tpkit" or words[:3] == ["python", "-m", "tpkit"] or words[0].startswith(".venv/bin/"):
        return True
    return first in ("python", "python3", "bash") and any(w.startswith(("scripts/", "bench/")) for w in words[1:3])


def _fenced(path: Path) -> list[Command]:
    found, fenced, variables = [], False, {}
    for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced, variables = not fenced, {} if fenced else variables
            continue
        if not fenced:
            continue
        text, comment = _split_comment(line.strip().removeprefix("$ "))
        m = re.fullmatch(r"([A-Z_]+)=(.*)", text)
        if m:
            variables[m.group(1)] = shlex.split(m.group(2))[0] if m.group(2) else ""
            continue
        for name, value in variables.items():
            text = re.sub(rf"\${name}\b|\$\{{{name}\}}", lambda _m, v=value: v, text)
        if not text:
            continue
        steps = _steps(text)
        if any(_runs_something(s) for s in steps):
            found.append(Command(f"{path.name}:{no}", text, steps, comment))
        if comment.startswith("or:") and "|" in comment:  # `# or: docker logs vllm 2>&1 | tpkit explain -`
            alternative = comment.rsplit("|", 1)[1].strip()
            if _runs_something(alternative.split()):
                found.append(Command(f"{path.name}:{no} (the comment's)", alternative, _steps(alternative)))
    return found


def _complete_inline(words: list[str]) -> bool:
    """A whole command, not a fragment such as ``tpkit plan --enable-prefix-caching``: a MODEL / LOG / FILE
    word (or --help, --list-gpus, --from-log), and no placeholder."""
    if len(words) < 2 or words[1] not in SUBCOMMANDS or _has_placeholder(" ".join(words[1:])):
        return False
    if words[-1] in VALUE_FLAGS:  # `tpkit probe --out`, `tpkit plan --from-log`: a flag named, not a command
        return False
    if words[1] == "probe":
        return True
    if words[1] == "bench":
        return words[2:3] == ["allreduce"]
    return any(w in ("--help", "--list-gpus", "--from-log") for w in words) or (len(words) > 2
                                                                               and not words[2].startswith("-"))


VALUE_FLAGS = ("--out", "--from-log", "--machine", "--gpu", "--tp", "--plot", "--engine")
"""flags that take a value: one at the end of an inline command means the text names the flag"""


def _inline(path: Path) -> list[Command]:
    found, text = [], path.read_text(encoding="utf-8")
    for m in re.finditer(r"`((?:PYTHONPATH=src )?(?:tpkit|python3?|bash) (?:[^`\n]|\n(?!\n))+)`", text):
        line = " ".join(m.group(1).removeprefix("PYTHONPATH=src ").split())  # inline code may wrap a line
        no = text.count("\n", 0, m.start()) + 1
        words = shlex.split(line) if line.count("'") % 2 == 0 and line.count('"') % 2 == 0 else []
        if not words:
            continue
        if words[0] == "tpkit" and _complete_inline(words):
            found.append(Command(f"{path.name}:{no}", line, [words]))
        elif (words[0] != "tpkit" and path.name == "README.md" and _runs_something(words)
              and not _has_placeholder(line)):
            found.append(Command(f"{path.name}:{no}", line, _steps(line)))
    return found


def documented_commands() -> list[Command]:
    """Every documented command, each once (the first place it is shown)."""
    seen, commands = set(), []
    for path in DOCS:
        for command in _fenced(path) + _inline(path):
            if command.text not in seen:
                seen.add(command.text)
                commands.append(command)
    return commands


COMMANDS = documented_commands()


def _no_gpu() -> bool:
    from tpkit.runtime.machine_probe import no_gpu_reason

    return bool(no_gpu_reason())


def _file_words(words: list[str], tmp_path: Path) -> list[str]:
    out = []
    for i, word in enumerate(words):
        if i and words[i - 1] == "--out":  # `tpkit probe --out machine.json` writes: never over an example file
            out.append(str(tmp_path / word))
        elif word in EXAMPLE_FILES:
            out.append(str(EXAMPLE_FILES[word]))
        elif word in OUTPUT_FILES:
            out.append(str(tmp_path / word))
        else:
            out.append(word)
    return out


def _run_tpkit(capsys, words: list[str], tmp_path: Path, stdin_file: Path | None, monkeypatch):
    """(code, out, err) of ``tpkit WORDS`` in-process; ``> FILE`` writes ``out`` there."""
    redirect = None
    if ">" in words:
        at = words.index(">")
        words, redirect = words[:at], words[at + 1]
    if stdin_file is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin_file.read_bytes()), encoding="utf-8"))
    code, out, err = cli(capsys, *words)
    if redirect:
        Path(redirect).write_text(out, encoding="utf-8")
    return code, out, err


def _unrunnable(command: Command) -> str | None:
    """Why a documented command is not run here, or None."""
    for words in command.steps:
        for word in words:
            for script, why in SCRIPTS.items():
                if word == script or word.endswith("/" + script):
                    return f"{script}: {why}"
    if any(w in ("probe",) for w in command.steps[0][1:2]) and not _no_gpu():
        return "tpkit probe on a machine with a GPU: the GPU tests cover it"
    for words in command.steps:
        for i, word in enumerate(words):
            if (re.search(r"\.(json|log|png|md)$", word) and word not in EXAMPLE_FILES and word not in OUTPUT_FILES
                    and words[i - 1] not in (">", "--out") and not (ROOT / word).exists()):
                return f"names a file of the reader's ({word})"
    if command.text in SLOW:
        return SLOW[command.text]
    return None


def _tpkit_words(words: list[str]) -> list[str] | None:
    first = words[0].removeprefix(".venv/bin/")
    if first == "tpkit":
        return words[1:]
    if words[:3] == ["python", "-m", "tpkit"]:
        return words[3:]
    return None


def _expected_codes(command: Command, words: list[str]) -> tuple[int, ...]:
    """0; 3 too for ``tpkit plan`` (DOES NOT FIT prints the plan); 2 for ``tpkit probe --out`` with no GPU (the
    README: "exits 2 and writes nothing")."""
    if words[:1] == ["probe"] and "--out" in words:
        return (2,)
    return (0, 3) if words[:1] == ["plan"] else (0,)


@pytest.mark.parametrize("command", COMMANDS, ids=[c.where for c in COMMANDS])
def test_documented_command_runs_as_shown(command, capsys, tmp_path, monkeypatch):
    reason = _unrunnable(command)
    if reason:
        pytest.skip(reason)
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "80")
    printed, last_code, ran = "", None, 0
    for words in command.steps:
        words = _file_words(words, tmp_path)
        first = words[0].removeprefix(".venv/bin/")
        if first in ("python3", "python") and words[1:3] == ["-m", "venv"] or first == "pip":
            continue  # the install step: the test runs from the checkout
        if first == "python" and words[1:3] == ["-m", "pytest"]:
            continue  # the test suite itself
        if first == "test":  # test $? -eq N
            assert words[1:3] == ["$?", "-eq"] and last_code == int(words[3]), (str(command), last_code)
            continue
        if first == "jq":  # jq .KEY FILE
            key, path = words[1].lstrip("."), words[2]
            assert key in json.loads(Path(path).read_text(encoding="utf-8")), (str(command), key)
            continue
        argv = _tpkit_words(words)
        if argv is not None:
            stdin = None
            if argv[-1:] == ["-"] and argv[:1] == ["explain"]:
                stdin = SYNTHETIC_KIMI
            code, out, err = _run_tpkit(capsys, argv, tmp_path, stdin, monkeypatch)
            expected = _expected_codes(command, argv)
            if "test" in [s[0] for s in command.steps]:
                expected = tuple(range(0, 4))  # the doc's own `test $? -eq N` checks it
            assert code in expected, (str(command), code, err[-2000:])
            if argv[:1] == ["probe"] and "--out" in argv:
                out_file = Path(argv[argv.index("--out") + 1])
                assert not out_file.exists(), f"{command}: exit 2 but {out_file} written"
        else:  # a script: in a subprocess, from the checkout
            proc = subprocess.run([sys.executable, *words[1:]], cwd=ROOT, capture_output=True, text=True,
                                  timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
            code, out, err = proc.returncode, proc.stdout, proc.stderr
            assert code == 0, (str(command), code, err[-2000:])
        assert "Traceback" not in err and "Traceback" not in out, (str(command), err[-2000:])
        printed += out
        last_code, ran = code, ran + 1
    if not ran:
        pytest.skip("the install step and the test suite itself (this suite runs from the checkout)")
    for number in re.findall(r"(?<![\w.])\d+\.\d+(?![\w.])", command.comment):
        assert number in printed, (str(command), f"the doc's comment shows {number}; not in the output")


def test_the_docs_show_commands_and_the_readme_first_two_are_among_them():
    """The extraction finds the README's install-and-plan line and the Kimi walk-through; nothing silently lost."""
    texts = [c.text for c in COMMANDS]
    assert any(t.startswith("python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/tpkit plan")
               for t in texts)
    assert any(".venv/bin/python -m pytest" in t for t in texts)
    assert len(COMMANDS) >= 30, len(COMMANDS)
