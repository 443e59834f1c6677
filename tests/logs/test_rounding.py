"""Print rounding, checked on real logs: the engines' own arithmetic between printed numbers holds within the
intervals the reader attaches (SGLang weights = begin − end and graph = before − after; vLLM V0 requested =
total × utilisation)."""

from logs_testlib import cases, log_bytes

from tpkit.logs import parse_log


def _overlaps(low, high, printed) -> bool:
    return printed.low <= high and low <= printed.high


def _relations(parsed):
    for rank in parsed.ranks:
        own = [a for a in parsed.anchors if a.rank.label == rank.label]
        for group in (None, "draft"):
            pick = lambda name: [a for a in own if a.name == name and a.group == group]  # noqa: E731
            begin, end, usage = pick("load_begin_avail"), pick("load_end_avail"), pick("weights_mem_usage")
            if begin and len(begin) == len(end) == len(usage):
                for b, e, w in zip(begin, end, usage):
                    yield b.size.low - e.size.high, b.size.high - e.size.low, w.size
        before, after, cost = ([a for a in own if a.name == n] for n in
                               ("graph_begin_avail", "graph_end_avail", "graph_mem_usage"))
        if before and len(before) == len(after) == len(cost):
            for b, e, c in zip(before, after, cost):
                yield b.size.low - e.size.high, b.size.high - e.size.low, c.size
        total, util, requested = ([a for a in own if a.name == n] for n in
                                  ("total_gpu_memory", "gpu_memory_utilization", "requested_memory"))
        if total and util and requested:
            t, u = total[-1], util[-1].count
            yield t.size.low * (u.value - u.rounding), t.size.high * (u.value + u.rounding), requested[-1].size


def test_engine_arithmetic_holds_within_print_rounding():
    checked, broken = 0, []
    for case in cases():
        for low, high, printed in _relations(parse_log(log_bytes(case["id"]))):
            checked += 1
            if not _overlaps(low, high, printed):
                broken.append((case["id"], printed.text))
    assert checked >= 30 and broken == []


def test_a_number_cut_at_the_end_of_a_line_is_not_read():
    parsed = parse_log("[2025-03-06 06:15:53 TP0] Load weight end. type=X, avail mem=21.63 GB, mem usage=1.2")
    assert [a.name for a in parsed.anchors] == ["load_end_avail"]
