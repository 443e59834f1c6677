"""Figures of the log reader on the real logs of tests/logs/data (not a test; run by hand):

    .venv/bin/python tests/logs/corpus_report.py

how many logs and crash logs, per engine; crash phases that agree with the label; printed numbers found as
anchors; logs whose engine was recognised.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from logs_testlib import cases, log_bytes  # noqa: E402
from test_corpus import KNOWN, PHASE_WORDS, REPORTED, _values  # noqa: E402

from tpkit.logs import parse_log  # noqa: E402


def main() -> None:
    rows = cases()
    parsed = {c["id"]: parse_log(log_bytes(c["id"])) for c in rows}
    for engine in ("sglang", "vllm"):
        mine = [c for c in rows if c["engine"] == engine]
        crashes = [c for c in mine if c["status"] == "crash"]
        print(f"{engine}: {len(mine)} logs, {len(crashes)} crash logs")
    labelled = [c for c in rows if (c.get("failure") or {}).get("phase")]
    detected = [c for c in labelled if parsed[c["id"]].primary_failure is not None]
    agree = [c for c in detected if parsed[c["id"]].primary_failure.phase
             == PHASE_WORDS.get(c["failure"]["phase"], c["failure"]["phase"])]
    print(f"crash logs with a labelled phase: {len(labelled)}; failure found in {len(detected)}; "
          f"phase agrees in {len(agree)}/{len(detected)} (known disagreements: {', '.join(sorted(KNOWN))})")
    found = total = 0
    for c in rows:
        values = _values(parsed[c["id"]])
        for key in REPORTED:
            target = (c.get("reported") or {}).get(key)
            if target is None:
                continue
            total += 1
            found += any(abs(v - target) <= (0.5 if key in ("kv_tokens", "kv_blocks") else 0.006) for v in values)
    print(f"printed numbers found as anchors: {found}/{total} ({100 * found / total:.1f}%)")
    known = sum(1 for c in rows if parsed[c["id"]].engine.engine == c["engine"])
    print(f"engine recognised: {known}/{len(rows)}")


if __name__ == "__main__":
    main()
