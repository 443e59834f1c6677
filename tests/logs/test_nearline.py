"""logs.nearline.marker_near, the reach check shared by logs.enginedead and logs.stepdump (lead, session 38)."""

from tpkit.logs.nearline import marker_near


def _text(marks: dict[int, str], lines: int = 400) -> str:
    return "\n".join(marks.get(i, f"line {i}") for i in range(1, lines + 1))


def test_the_first_marker_within_reach_is_found_with_its_line():
    text = _text({10: "EngineDeadError far above", 200: "x EngineDeadError y", 260: "EngineDeadError again"})
    assert marker_near(text, ("EngineDeadError",), 250, 120) == (200, "EngineDeadError")
    assert marker_near(text, ("EngineDeadError",), 135, 120) == (200, "EngineDeadError")  # 10 is 125 lines away


def test_nothing_out_of_reach_and_needles_are_tried_in_order():
    text = _text({5: "Dumping scheduler stats: a", 300: "Dumping input data for V1 LLM engine"})
    assert marker_near(text, ("Dumping scheduler stats: ",), 200, 120) is None
    assert marker_near(text, ("Dumping input data", "Dumping scheduler stats: "), 100, 120) == (
        5, "Dumping scheduler stats: ")
    assert marker_near(text, ("Dumping input data", "Dumping scheduler stats: "), 250, 120) == (
        300, "Dumping input data")
    assert marker_near("", ("x",), 1, 120) is None
