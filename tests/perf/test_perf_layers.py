"""tpkit.perf stays in the pure layer: units, errors, hardware, models, parallel and comm.profile only, plus the two
engine rules it shares with the planner, each kept once in the engine layer (pure modules):
``tpkit.engines.sglang.spec`` (SGLang's speculative running-request cap) and ``tpkit.engines.sglang.defaults``
(SGLang's default ``cuda_graph_max_bs``, which ends the decode CUDA-graph list of ``perf.graphs``).  Helper be11
(2026-12-05): a third, ``tpkit.engines.vllm.backend_choice`` (vLLM's automatic attention backend, which perf chose
apart from the planner before).  Lead (2026-12-06, session 19): a fourth, ``tpkit.engines.sglang.versions`` (its
``release_key`` reads SGLang's post releases once, for perf's spec v1 streaming boundary).  Helper lf20 (2026-12-06,
session 20): the engines' package root ``tpkit.engines`` itself, exactly (``release_tuple``, the one reader of an
engine's version text, which ``perf.runtime.parse_version`` now uses); its subpackages stay outside the list.  Helper
fix22 (2026-12-06, session 22): ``tpkit.engines.cliflags`` (the flags each release parses, a pure table read from the
wheels), so that the verdict prints only flags the --engine-version has.  Helper fx35c (2026-12-07, session 35):
``tpkit.engines.mamba2_state`` (vLLM's Mamba-2 state sizes and SSM dtype rule, moved out of
``engines/vllm/layer_bytes.py`` so that perf prices the state the planner pages).  Lead (2026-12-07, session 36):
``tpkit.engines.vllm.versions`` (vLLM's release rules as data, a pure table behind a lazy package root), so that
``perf.gdn_state`` reads the Qwen3.5 ``mamba_ssm_dtype`` boundaries from the planner's ``VllmRules`` instead of a copy."""

import ast
from pathlib import Path

import pytest

PERF = Path(__file__).resolve().parents[2] / "src" / "tpkit" / "perf"
ALLOWED = ("tpkit.units", "tpkit.errors", "tpkit.hardware", "tpkit.models", "tpkit.parallel", "tpkit.comm.profile",
           "tpkit.perf", "tpkit.engines.sglang.spec", "tpkit.engines.sglang.defaults", "tpkit.records",
           "tpkit.engines.vllm.backend_choice", "tpkit.engines.sglang.versions", "tpkit.engines.cliflags",
           "tpkit.engines.mamba2_state", "tpkit.engines.vllm.versions")
ALLOWED_EXACTLY = ("tpkit.engines",)
"""modules allowed by their own name only (a package root, not what lies under it)"""


@pytest.mark.parametrize("path", sorted(PERF.glob("*.py")), ids=lambda p: p.name)
def test_perf_imports_only_the_pure_layers(path):
    for node in ast.walk(ast.parse(path.read_text())):
        names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else \
            [a.name for a in node.names] if isinstance(node, ast.Import) else []
        for name in names:
            assert name.split(".")[0] not in ("torch", "triton", "pynvml"), f"{path.name} imports {name}"
            if name.startswith("tpkit"):
                assert name.startswith(ALLOWED) or name in ALLOWED_EXACTLY, f"{path.name} imports {name}"
