"""bench/stream_pool_anatomy.py's torch facts against the torch installed here (helper cap31b, 2026-12-07).

The script splits SGLang's stream-pool term into the streams torch creates and the driver's bytes per stream; the
stream count comes from torch's source: ``kStreamsPerPool`` (``c10/cuda/CUDAStream.cpp``, 32) times
``min(max_compile_time_stream_priorities, the device's priority span)``.  The header ships with every torch build
(the CPU one too), so the constant is checked against it; the .cpp is not shipped (its 32 is cited, not checked)."""

import re
from pathlib import Path

import pytest

from tests.scripts_testlib import import_bench


def _header() -> Path:
    torch = pytest.importorskip("torch")
    path = Path(torch.__file__).parent / "include" / "c10" / "cuda" / "CUDAStream.h"
    if not path.is_file():
        pytest.skip("this torch build ships no c10/cuda headers")
    return path


def test_priority_cap_matches_the_installed_torch_header():
    text = _header().read_text(encoding="utf-8")
    found = re.search(r"max_compile_time_stream_priorities\s*=\s*(\d+)", text)
    assert found is not None
    assert int(found.group(1)) == import_bench("stream_pool_anatomy").MAX_COMPILE_TIME_PRIORITIES


def test_header_still_describes_32_streams_per_pool():
    # the stream-pool note in the header states the per-priority pool size the .cpp's kStreamsPerPool sets
    assert "There are 32 of these streams per device" in _header().read_text(encoding="utf-8")
    assert import_bench("stream_pool_anatomy").STREAMS_PER_POOL == 32
