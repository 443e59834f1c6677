"""docs/accuracy.md: the regions between the ``<!-- validate.py: begin/end -->`` and ``<!-- build_startup_table.py:
begin/end -->`` markers are rewritten by those scripts, so a helper's own subsection (``#### … (helper X, date)``) placed
inside one is erased by the next regeneration.  Helper rev10 (2026-12-05): vcg10's section on the CUDA-graph
mechanism stood just after ``validate.py: begin`` and the §6 regeneration of c44a0875 erased it (restored at the end
of §5); this test fails on that placement."""

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "accuracy.md"


def test_no_helper_subsection_inside_a_generated_region():
    text = DOC.read_text(encoding="utf-8")
    for script in ("validate.py", "build_startup_table.py"):
        regions = re.findall(rf"<!-- {re.escape(script)}: begin -->(.*?)<!-- {re.escape(script)}: end -->", text,
                             flags=re.S)
        assert regions, script
        for region in regions:
            inside = re.findall(r"^#### .*\(helper [^)]*\)\s*$", region, flags=re.M)
            assert not inside, f"{script} rewrites these: {inside}"


def test_the_cuda_graph_mechanism_section_is_in_the_doc():
    assert "#### vLLM CUDA-graph estimate by mechanism (helper vcg10, 2026-12-05)" in DOC.read_text(encoding="utf-8")
