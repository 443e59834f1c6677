"""The start-up cost table: each term's bytes and ± band by GPU family (or NCCL transport and world size), with
the evidence it was derived from (pure; read once from ``data/table.json``).

``data/table.json`` is written by ``scripts/build_startup_table.py`` from ``data/evidence.json`` (every public log
line and measurement used, with its source); nothing in it is typed by hand.  ``tests/startup/test_table.py`` checks
that the shipped table is what the evidence gives.

    term              key                         what
    cuda_context      GPU family                  the context a serving process creates (kernel images, driver state)
    cublas            GPU family                  cuBLAS/cuBLASLt handles + workspace (first GEMM)
    nccl              "nvlink:W" / "pcie:W" /     one communicator's init + first collective, world W (split into
                      "xgmi:W" (AMD Instinct)
                                                  init and warm-up in the ratio measured on 2× H200)
    sglang_tp1_init   "all"                       what SGLang's init_torch_distributed allocates besides NCCL
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from tpkit.records import dataclass
from tpkit.units import Bytes

__all__ = ["ContextModel", "Entry", "context_model", "entry", "nccl_entry", "nccl_init_fraction", "own_samples", "table_path",
           "read_table", "swapped_table"]

_NCCL_WORLDS = (2, 3, 4, 5, 6, 7, 8, 16, 32, 64)


@dataclass(frozen=True, kw_only=True, slots=True)
class Entry:
    """One cell of the table."""

    bytes: Bytes
    """the nominal (bytes)"""
    uncertainty: Bytes
    """± bytes"""
    samples: int
    """evidence rows behind the cell (0: interpolated or taken from a neighbour)"""
    source: str
    """evidence, the fallback it took, or the interpolation, and the statistic"""


def table_path() -> Path:
    """The start-up table this package ships (``data/table.json``, written by ``scripts/build_startup_table.py``)."""
    return Path(__file__).parent / "data" / "table.json"


@lru_cache(maxsize=1)
def _shipped_table() -> dict:
    from tpkit.pkgdata import data_text  # UTF-8 whatever the locale (the table quotes "±", "×", "–")

    return json.loads(data_text(__file__, __package__, "table.json"))


_SWAPPED: list[dict] = []
"""tables swapped in by ``swapped_table`` (innermost last); private: only that context manager pushes and pops"""


def read_table() -> dict:
    """The shipped start-up table (``table_path``) as read from its JSON, or the table a ``swapped_table`` block
    has swapped in."""
    return _SWAPPED[-1] if _SWAPPED else _shipped_table()


read_table.cache_clear = _shipped_table.cache_clear  # type: ignore[attr-defined]


@contextmanager
def swapped_table(table: dict) -> Iterator[dict]:
    """Plan with ``table`` (a dict as ``scripts/build_startup_table.py`` ``build`` returns) instead of the shipped
    start-up table inside the ``with`` block; for tests/validation's leave-own-log-out scores only (each public
    validation case planned with a table built without the evidence rows that are its own log, helper loo15).

    The caches that hold planned start-up terms (``tpkit.startup.cache.startup_cache``) are cleared on entry and
    on exit, so no term planned from one table is served under the other; the shipped table is restored on exit,
    also when the block raises.  Nothing else reaches the swap: plan code only reads ``read_table``.  The module
    constant ``tpkit.startup.terms.SGLANG_PROCESS_OVERHEAD`` (read at import, used by no plan) keeps the shipped
    cell; the plans charge ``sglang_process_overhead``, which reads the swapped table."""
    from tpkit.startup.cache import clear_startup_caches

    if not (isinstance(table, dict) and isinstance(table.get("terms"), dict) and "cuda_context_model" in table):
        raise ValueError("swapped_table needs a start-up table as scripts/build_startup_table.py build() returns "
                         f"it (with 'terms' and 'cuda_context_model'), got {type(table).__name__}")
    clear_startup_caches()
    _SWAPPED.append(table)
    try:
        yield table
    finally:
        _SWAPPED.pop()
        clear_startup_caches()


def entry(term: str, key: str) -> Entry:
    """The cell ``key`` of ``term`` (a family for the per-family terms; ``unknown`` exists for each)."""
    cells = read_table()["terms"][term]
    raw = cells.get(key) or cells["unknown"]
    rows = ", ".join(raw["rows"][:6]) + (" …" if len(raw["rows"]) > 6 else "")
    where = key if key in cells else f"unknown (no cell for {key!r})"
    counted = (f"{raw['n']} sample(s) ({rows})" if raw["n"] or not raw["rows"] else
               f"no sample of its own; derived from {rows}")  # an interpolated or borrowed cell
    source = f"start-up table {term}[{where}]: {raw['source']}; {counted}; {raw['how']} (tpkit/startup/data/table.json)"
    return Entry(bytes=Bytes(raw["bytes"]), uncertainty=Bytes(raw["uncertainty_bytes"]), samples=raw["n"],
                 source=source)


_WINDOW_OF_ENGINE = {"sglang": "init"}
"""the window an engine reads whatever its release (vLLM's depends on the release: its baseline passes ``window``)"""


def nccl_entry(transport: str, world: int, *, engine: str | None = None, window: str | None = None) -> Entry:
    """NCCL init + first collective for ``world`` ranks over ``transport`` (the next tabulated world ≥ it).

    ``window`` picks the cells built from the samples of one quantity (``scripts/build_startup_table.py``
    ``nccl_window``), the one the caller's memory accounting sees:

    * ``"init"`` (key ``init:<transport>:<world>``; ``engine="sglang"`` means this): a communicator's init and its
      1-element warm-up only — SGLang's 'Init torch distributed ends' lines, tpkit's own step measurement, a vLLM
      free-memory reading before its profile run (helper ev32, ev33).  SGLang's pool sizing never sees the channels
      later collectives connect (they come after its 'Load weight begin' sample); vLLM from 0.11 creates the
      communicator before its init snapshot (0.11.0 ``v1/worker/gpu_worker.py`` ``init_device``) and charges what the
      profile connects as ``vllm_nontorch_growth``.
    * ``"profile"`` (key ``profile:<transport>:<world>``): vLLM's non-torch lines before 0.11 only (helper ev33): from
      0.6.6.post1 to 0.10.2 the snapshot precedes the distributed init and the non-torch increase is read after the
      profile run (V0 ``worker/worker.py`` ``Worker.init_device`` / ``determine_num_available_blocks``, V1
      ``v1/worker/gpu_worker.py`` ``init_device`` / ``determine_available_memory``), so the line holds the
      communicator, its warm-up and every channel the profile's large collectives connected — what vLLM charges for
      NCCL before 0.11, what a communicator made inside the profile holds, and what bounds the later growth over
      PCIe (``terms.vllm_nontorch_growth``).
    * ``None``: every sample pooled (``tpkit.explain.gpuinfer``'s bound over transports).

    A world without a sample of the window's own takes the interpolation or the nearest sampled world of the same
    cells, with a wider band (``cell`` / ``_nccl_cells``); a transport without any sample of the window (the profile
    window over xGMI), or a table built before the window's cells, gives the pooled cell."""
    if transport not in ("nvlink", "pcie", "xgmi"):
        raise ValueError(f"transport must be 'nvlink', 'pcie' or 'xgmi', got {transport!r}")
    if engine not in (None, *_WINDOW_OF_ENGINE):
        raise ValueError(f"engine must be None or 'sglang' (vLLM passes window=), got {engine!r}")
    if engine is not None and window not in (None, _WINDOW_OF_ENGINE[engine]):
        raise ValueError(f"engine {engine!r} reads the {_WINDOW_OF_ENGINE[engine]!r} window, got window={window!r}")
    window = window or _WINDOW_OF_ENGINE.get(engine or "")
    if window not in (None, "init", "profile"):
        raise ValueError(f"window must be None, 'init' or 'profile', got {window!r}")
    tabulated = next((w for w in _NCCL_WORLDS if w >= world), _NCCL_WORLDS[-1])
    key = f"{transport}:{tabulated}"
    if window is not None and f"{window}:{key}" in read_table()["terms"]["nccl"]:
        key = f"{window}:{key}"
    return entry("nccl", key)


def nccl_init_fraction() -> float:
    """Share of the NCCL total taken by communicator init (the rest: the first collective), measured on 2× H200."""
    return read_table()["nccl_init_fraction"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ContextModel:
    """CUDA context = intercept + bytes_per_resident_thread × SMs × max resident threads per SM, fitted across GPU
    families by ``scripts/build_startup_table.py`` (``cuda_context_model`` in the table)."""

    intercept: Bytes
    bytes_per_resident_thread: float
    uncertainty: Bytes
    """± bytes: the 90th percentile of the leave-one-family-out residuals plus the samples' resolution"""
    below_n: int
    """a family with fewer samples of its own than this takes the model"""
    use: bool
    """the model's leave-one-family-out error is no larger than the pooled cell's"""
    source: str

    def predict(self, threads: int) -> Bytes:
        """The context for a GPU with ``threads`` resident threads (SMs × max threads per SM)."""
        return Bytes(round(self.intercept.bytes + self.bytes_per_resident_thread * threads))


def own_samples(term: str, key: str) -> int:
    """Samples of ``key``'s own behind the cell of ``term`` (0 for a cell taken from a neighbour, the pool, or a
    key without a cell)."""
    raw = read_table()["terms"][term].get(key)
    return raw["n"] if raw is not None and raw["source"] == "evidence" else 0


def context_model() -> ContextModel:
    """The start-up table's CUDA-context model by resident threads."""
    m = read_table()["cuda_context_model"]
    source = (f"start-up table cuda_context_model: {m['source']}; {m['how']}; leave-one-family-out mean |error| "
              f"{m['loo_family_mae_gib']:.3f} GiB vs {m['loo_family_pooled_mae_gib']:.3f} GiB for the pooled cell "
              f"(tpkit/startup/data/table.json)")
    return ContextModel(intercept=Bytes(m["intercept_bytes"]), bytes_per_resident_thread=m["bytes_per_resident_thread"],
                        uncertainty=Bytes(m["uncertainty_bytes"]), below_n=m["below_n"], use=m["use"], source=source)
