"""Shared by the tower tests of both engines (test_vllm_towers.py, test_sglang_towers.py): a model from the public
configs of tests/validation/configs, and the vision-tower bytes of a weights plan."""

import json
from pathlib import Path

from tpkit.models import from_config_dict

CONFIGS = Path(__file__).resolve().parents[1] / "validation" / "configs"


def config_model(stem: str):
    """The model of ``tests/validation/configs/<stem>.json``."""
    path = CONFIGS / f"{stem}.json"
    return from_config_dict(json.loads(path.read_text()), name=path.stem, source="test")


def tower_bytes(plan) -> int:
    """Bytes of the plan's "vision tower" lines (0 when the tower is not built)."""
    return sum(line.bytes.bytes for line in plan.lines if line.item == "vision tower")
