"""vLLM's torch.compile cache as the log shows it (``tpkit.logs.settings._COMPILE_CACHE_LINES``): ``cold`` when the
run compiled its graphs (``compilation/backends.py`` CompilerManager.compile "Compiling a graph for … takes" /
"Cache the graph of … for later use", the cache turned off, an AOT load failure), ``warm`` when every graph came
from vLLM's cache ("Directly load the compiled graph(s) for … from the cache", decorators.py "Directly load AOT
compilation from path"), unknown otherwise ("torch.compile took … in total" and "Dynamo bytecode transform time"
print either way).  Every line below is a real line of a corpus log (tests/logs/data), by wording era: 0.8.4–0.9
"shape", 0.10–0.11 "dynamic shape", 0.18–0.33 "compile range" (0.32/0.33 add a prefix)."""

from pathlib import Path

import pytest

from tpkit.explain import explain_log
from tpkit.logs import parse_log

DATA = Path(__file__).resolve().parent / "data"

WARM = {
    # vl_002 (0.8.4–0.8.5), vl_005 (0.10), vl_155 (0.17.1), vl_176 (0.26.0, vp_101)
    "vl_002": "INFO 04-24 16:33:11 [backends.py:118] Directly load the compiled graph(s) for shape None from the "
              "cache, took 4.673 s",
    "vl_005": "(EngineCore_0 pid=5839) INFO 08-20 18:04:20 [backends.py:161] Directly load the compiled graph(s) for "
              "dynamic shape from the cache, took 4.513 s",
    "vl_155": "(EngineCore_DP0 pid=230015) INFO 05-16 21:40:26 [backends.py:266] Directly load the compiled graph(s) "
              "for compile range (1, 2048) from the cache, took 1.547 s",
    "vl_176": "(EngineCore pid=6113) INFO 08-02 07:03:46 [backends.py:292] Directly load the compiled graph(s) for "
              "compile range (1, 32768) from the cache, took 0.648 s",
    "vl_154": "(Worker_TP0 pid=3438584) INFO 04-20 00:18:28 [decorators.py:303] Directly load AOT compilation from path "
              "/mnt/home/pxu10/.cache/vllm/torch_compile_cache/torch_aot_compile/b589bd60f900959bf25419fa836919ffa4b2"
              "f465",
}
COLD = {
    # vl_044 (≤ 0.10 "general shape"), vl_050 (0.11.0 "dynamic shape"), vl_160 (0.19.x "compile range")
    "vl_044": "   INFO 02-13 15:01:16 backends.py:311] Cache the graph of shape None for later use",
    "vl_050": "(EngineCore_DP0 pid=175) INFO 11-14 14:24:41 [backends.py:197] Cache the graph for dynamic shape for "
              "later use",
    "vl_160": "(EngineCore pid=2301) INFO 04-25 08:54:31 [backends.py:391] Compiling a graph for compile range (1, 2048) "
              "takes 43.34 s",
}
NEITHER = {
    "vl_104": "(EngineCore pid=1152769) INFO 05-15 02:16:06 [monitor.py:53] torch.compile took 7.16 s in total",
    "vl_107": "(EngineCore_DP0 pid=558551) INFO 01-19 23:55:12 [backends.py:703] Dynamo bytecode transform time: 3.66 s",
}


def _text(case_id: str) -> str:
    return (DATA / "vllm" / f"{case_id}.log").read_text(encoding="utf-8", errors="replace")


@pytest.mark.parametrize("case_id,line", list(WARM.items()) + list(COLD.items()) + list(NEITHER.items()))
def test_the_lines_are_real(case_id, line):
    assert line in _text(case_id)


@pytest.mark.parametrize("case_id,line", list(WARM.items()))
def test_warm_lines(case_id, line):
    run = parse_log(line + "\n").run
    assert run.value("compile_cache") == "warm" and run.compile_cache.line_no == 1
    assert parse_log(_text(case_id)).run.value("compile_cache") == "warm"


@pytest.mark.parametrize("case_id,line", list(COLD.items()))
def test_cold_lines(case_id, line):
    assert parse_log(line + "\n").run.value("compile_cache") == "cold"
    assert parse_log(_text(case_id)).run.value("compile_cache") == "cold"


@pytest.mark.parametrize("case_id,line", list(NEITHER.items()))
def test_lines_printed_either_way_say_nothing(case_id, line):
    assert parse_log(line + "\n").run.value("compile_cache") is None
    assert parse_log(_text(case_id)).run.value("compile_cache") is None


def test_a_run_that_compiles_any_graph_is_cold():
    # graphs of one range loaded, another compiled (the lines of vl_176 and vl_160 in one run): cold, no conflict
    text = WARM["vl_176"] + "\n" + COLD["vl_160"] + "\n"
    run = parse_log(text).run
    assert run.value("compile_cache") == "cold" and run.compile_cache.line_no == 2
    assert not [c for c in run.conflicts if c.name == "compile_cache"]


def test_the_corpus_count():
    """Helper v2c (2026-12-04), every vLLM log in tests/logs/data (vllm/ and validation/): 5 cold, 11 warm, the rest
    neither: 119 of the 135 (most are excerpts without the compile lines).  With helper mv2's committed server logs
    (lead, 2026-12-04): 11 cold (vl_125-vl_129 and vl_134 added), 13 warm (vl_133, vl_138), 125 neither, of 149.
    Helper mv4 (2026-12-04): vl_206 warm (its excerpt keeps 'Directly load the compiled graph(s) ... from the cache'):
    14 warm.  Helper mv5 (2026-12-04): vl_220-vl_222 warm (committed server logs that load the compiled graphs from
    the cache): 17 warm.  Helper g3v (2026-12-04): vl_240 and vl_241 cold (their excerpts keep
    'Cache the graph ... for later use').  Helper mv6 (2026-12-04): vl_254 and vl_256 cold ('Compiling a graph for
    compile range'), vl_252, vl_253 and vl_255 warm ('Directly load the compiled graph(s)'): 20 warm.  Helper mv7
    (2026-12-04): vl_270 - vl_272 cold (0.29.0 first starts: 'Compiling a graph for compile range'); vl_273 runs
    eager (neither).  Helper mv8 (2026-12-04): vl_290, vl_291 (0.29.0 first starts: 'Compiling a graph for compile
    range') and vl_293 (0.16.0: 'Cache the graph ... for later use') cold; vl_294 runs eager, vl_292 and vl_295
    fail before compiling (neither); vl_297 and vl_298 warm ('Directly load the compiled graph(s)'): 22 warm; vl_296
    runs eager (neither).  Helper mv9 (2026-12-04): vl_313 warm (dennislee22's util-0.25 run: 'Directly load the
    compiled graph(s) for dynamic shape from the cache') and vl_314 (ragflow#9856, the same line): 24 warm; vl_310 -
    vl_312 run eager (neither).  Helper mv10 (2026-12-04): vl_330 cold ('Compiling a graph for compile range') and
    vl_331 warm ('Directly load the compiled graph(s)'), the same vLLM 0.23.0 server twice: 25 warm; vl_332 cold
    (belonghim/vllm-optimizer's KV-too-small fixture: 'Compiling a graph for compile range').  Helper mv12
    (2026-12-04): vl_370 warm (0.11.0: 'Directly load the compiled graph(s) for dynamic shape from the cache'): 26
    warm; vl_371 cold (0.19.0: 'Compiling a graph for compile range (1, 2048)'); vl_372 warm (0.17.0: 'Directly
    load the compiled graph(s) for compile range (1, 4096) from the cache'): 27 warm.
    Helper mv11
    (2026-12-04): guardkit/guardkit's GB10 docker logs: vl_340 warm ('Directly load the compiled graph(s)', after
    vl_342's start compiled the same model); vl_341 - vl_345 cold ('Cache the graph ... for later use'); vl_346 fails
    its start-up check before compiling (neither): 28 warm with mv12's; vl_347 cold (a notebook's vLLM 0.20.2 first start: 'Cache
    the graph of compile range (1, 16384) for later use').  Helper mv13 (2026-12-04): vl_380 (0.11.2) and vl_381 (0.11.1)
    cold ('Cache the graph for dynamic shape for later use'), vl_383 cold (0.31.0: 'Compiling a graph for compile
    range (1, 2048)'); vl_382 warm (0.9.2rc2: 'Directly load the compiled
    graph(s) for dynamic shape from the cache'): 29 warm.  Helper mv14 (2026-12-04): vl_402 (0.22.0, 'Cache the graph
    of compile range (1, 2048) for later use') and vl_404 (0.23.1rc1 nightly, '... (1, 65536) for later use') cold;
    vl_403 (0.22.0, 'Directly load the compiled graph(s) for compile range (1, 8192) from the cache') warm: 30 warm;
    vl_400 / vl_401 (V0 0.7.2, no torch.compile lines) neither.  Helper mv18 (2026-12-04): vl_523 (0.20.0 on a DGX
    Spark: 'Cache the graph of compile range (1, 8192) for later use') and vl_524 (the 0.23.1rc1 nightly with MTP:
    'Cache the graph of compile range (1, 65536) for later use') cold; vl_520 - vl_522 quote no compile line
    (neither).
    Helper mv17 (2026-12-04): vl_443 cold (0.15.1, 'Compiling
    a graph for compile range (1, 2048)'), vl_444 warm (0.15.1, 'Directly load the compiled graph(s) for compile range
    (1, 2048) from the cache'): 31 warm; vl_440 - vl_442 (club-3090 excerpts without compile lines) neither; vl_457
    cold (0.16.1rc1.dev265: 'Compiling a graph for compile range (1, 4096)'); vl_445 - vl_456 and vl_458 (no compile
    lines) neither; vl_460 warm (0.18.1.dev0: 'Directly load the compiled graph(s) for compile range (1, 8192) from the
    cache'): 32 warm; vl_459 runs eager (neither); vl_461 cold (0.19.2rc1.dev8: 'Compiling a graph for compile range
    (1, 2048)').  Helper mv22 (2026-12-04): vl_580 cold (0.9.2 under Unsloth: 'Cache the graph of shape None for later
    use'); vl_581 (Unsloth's V0 path, no torch.compile lines) neither.  vl_584 cold (the Red Hat 'v0.9.0.1' build: 'Cache the graph of shape
    None for later use'); vl_585 warm (a 0.9.2 blog run: 'Directly load the compiled graph(s) for shape None from
    the cache'): 33 warm.  Helper akam (2026-12-05): vl_700 - vl_707 cold (0.29.0 study 28 probes: 'Compiling a graph
    for compile range (1, 2048)'); vl_708 cold (study 30 L-marlin, the same line); vl_709 - vl_711 (summary lines only) neither.
    Helper bl27 (2026-12-06): vl_1060 - vl_1067 cold (llm-d-planner 0.19.0 first starts: 'Compiling a graph for compile range (1, 8192)').
    Helper bl28 (2026-12-06, session 28): vl_1100 - vl_1112 cold (0.29.0 on an L40S, 0.21.0 / 0.22.0 on MI355X and B200: 'Compiling a graph for compile range').
    Helper bl29 (2026-12-06, session 29): vl_1158 - vl_1162 cold (0.22.0 / 0.22.1 gpt-oss-120b on H200: 'Compiling a graph for
    compile range'); vl_1163 / vl_1164 warm (0.21.0 on a GB300 node: 'Directly load the compiled graph(s) ... from the cache').
    Helper bl29b (2026-12-07, session 29): vl_1230 - vl_1240 and vl_1242 - vl_1249 cold (0.19.0 / 0.19.1rc1 on H100: 'Compiling a graph for
    compile range'); vl_1241 warm (0.19.0, the same host's compile cache: 'Directly load the compiled graph(s)').
    Helper bl30b (2026-12-07, session 30): vl_1320, vl_1322, vl_1323, vl_1325, vl_1326 cold (0.25.1 / the 0.26.1rc1
    build on two RTX 4090s: 'Compiling a graph for compile range (1, 2048)'); vl_1321 and vl_1327 warm ('Directly load
    the compiled graph(s)'), vl_1324 warm (the 0.26.1rc1 build: 'Directly load AOT compilation'): 56 warm; vl_1328 -
    vl_1330 run eager (neither). Helper bl33 (2026-12-07, session 33): vl_1411-vl_1413, vl_1415, vl_1417-vl_1419 cold
    ('torch.compile took'), vl_1414, vl_1416, vl_1420 (AOT loads) and vl_1428 / vl_1429 ('Directly load the 0-th graph')
    warm: 73 warm; vl_1410 (V0) and vl_1421-vl_1427 (TORCH_COMPILE_DISABLE=1) neither.
    Helper mv26 (2026-12-05): vl_730 cold (0.19.0, 'Cache the graph of compile range (1, 8192) for later use').
    vl_731 cold (0.19.2rc1 nightly, 'Cache the graph of compile range (1, 16384) for later use').
    vl_734 cold (0.19.1 under lm_eval: 'Cache the graph of compile range (1, 16384) for later use').
    vl_738 cold (the same nightly: 'Cache the graph of compile range (1, 8192) for later use').
    vl_741 cold (the same nightly with an EAGLE-3 drafter: 'Cache the graph of compile range (1, 8192) for later use').
    vl_742 warm (0.22.0: 'Directly load the compiled graph(s) for compile range (1, 2048) from the cache'): 34 warm.
    Helper mv29 (2026-12-05): vl_843 cold (0.23.0 on Kaggle: 'Compiling a graph for compile range (1, 8192)');
    vl_840 - vl_842 (no compile line quoted; vl_841 / vl_842 run eager) neither.
    Helper mv28 (2026-12-05): vl_743 cold (0.22.0 with an MTP drafter: 'Cache the graph of compile range (1, 32768) for later use').
    vl_812 cold (0.30.0 on an L4: 'Compiling a graph for compile range (1, 2048) takes 62.69 s'); vl_810 (only 'compilation: 2.59 s') neither.
    vl_813 cold (0.31.1rc1 on an MI300X: '[backbone] Compiling a graph for compile range (1, 16384) takes 30.61 s').
    Helper crash9 (2026-12-05): vl_780 warm ('Directly load the compiled graph(s) for compile range (1, 2048) from the
    cache'): 35 warm; vl_781 ('Compiling a graph for general shape') and vl_783 ('Compiling a graph for dynamic shape',
    cache disabled) cold; vl_782 and vl_784 - vl_786 quote no compile line (neither).
    Helper blind12 (2026-12-05): vl_852 cold (0.26.0: 'Cache the graph of compile range (1, 1024) for later use'); vl_844's
    excerpt keeps no compile line and the other new vLLM excerpts quote none (neither).
    Helper bl18b (2026-12-05): vl_950 warm (0.10.1.1 source build: 'Directly load the compiled graph(s) for dynamic
    shape from the cache'): 36 warm; vl_946-vl_949 quote no compile line (neither).
    Helper bl20 (2026-12-06): vl_955 and vl_956 warm (0.31.0: 'Directly load AOT compilation from path …'): 38 warm.
    Helper ex22 (2026-12-06): vl_990 and vl_996 warm (0.8.3 / 0.9.1.dev: 'Directly load the compiled graph(s) for
    shape None from the cache'); vl_987's last start prints no compile line (neither): 40 warm.
    Helper bl23 (2026-12-06): vl_1000, vl_1001, vl_1005-vl_1007 warm (0.20.1: 'Directly load the compiled graph(s) for
    compile range (1, 8192) from the cache'): 45 warm; vl_1002-vl_1004 cold ('Compiling a graph for compile range
    (1, 8192) takes …').
    Helper bl23b (2026-12-06): llm-d-planner's vLLM 0.19.0 sweep logs vl_1015-vl_1029: thirteen cold ('Cache the graph of
    compile range (1, 8192) for later use'), vl_1022 and vl_1029 warm (the sweep's cache already held the compiled
    graph: 'Directly load'): 42 warm.
    Helper ex23 (2026-12-06): vl_945 cold ('Compiling a graph for compile range (1, 2048)'), vl_957 warm ('Directly
    load the compiled graph(s) for compile range (1, 32768) from the cache'): 41 warm; merged (lead): 48 warm.
    Helper bl24 (2026-12-06, session 24): SpecDecoding-Study's vLLM 0.24.0 starts vl_1033-vl_1044 cold ('Cache the graph
    of compile range (1, 2048)' / '(1, 8192) for later use'); vl_1030-vl_1032 (--enforce-eager) compile nothing: 48 warm. Helper bl24b (2026-12-06): the same sweep's vl_1045-vl_1059: fourteen cold, vl_1051 (the explicit
    --dtype bfloat16 run) warm: 49 warm. Helper ex28 (2026-12-06): vl_1151 (WeClone#83, 'Directly load the compiled
    graph for shape None from the cache') warm: 50 warm.
    Helper bl30 (2026-12-07, session 30): vl_1250 / vl_1251 (0.14.1) and vl_1270 (0.24.0) cold ('Compiling a graph for
    compile range'), vl_1252 (0.10.2: 'Compiling a graph for dynamic shape') cold; dishantghai's 0.20.0 starts
    vl_1254, vl_1258, vl_1259, vl_1264, vl_1265 cold, vl_1253, vl_1255-vl_1257, vl_1260-vl_1263, vl_1266-vl_1269 warm
    ('Directly load the compiled graph(s) for compile range (1, 8192) from the cache'): 65 warm.
    Helper bl34 (2026-12-07, session 34): Huzifa1/vllm-profiling's starts vl_1446-vl_1448, vl_1452, vl_1453, vl_1459-vl_1463
    cold ('store the 0-th graph' / 'Store the 0-th graph for dynamic shape'), vl_1449-vl_1451, vl_1454-vl_1458, vl_1465
    warm ('Directly load the 0-th graph … from inductor'), vl_1464 (TORCH_COMPILE_DISABLE=1) neither: 82 warm."""
    found = {"cold": [], "warm": [], None: []}
    for path in sorted((DATA / "vllm").glob("*.log")) + sorted((DATA / "validation").glob("*.log")):
        parsed = parse_log(path.read_bytes())
        if parsed.engine.engine == "vllm" or path.parent.name == "vllm":
            found[parsed.run.value("compile_cache")].append(path.stem)
    assert sorted(found["cold"]) == ["vl_025", "vl_044", "vl_050", "vl_056", "vl_1002", "vl_1003", "vl_1004", "vl_1015", "vl_1016", "vl_1017", "vl_1018", "vl_1019", "vl_1020", "vl_1021", "vl_1023", "vl_1024", "vl_1025", "vl_1026", "vl_1027", "vl_1028", "vl_1033", "vl_1034", "vl_1035", "vl_1036", "vl_1037", "vl_1038", "vl_1039", "vl_1040", "vl_1041", "vl_1042", "vl_1043", "vl_1044", "vl_1045", "vl_1046", "vl_1047", "vl_1048", "vl_1049", "vl_1050", "vl_1052", "vl_1053", "vl_1054", "vl_1055", "vl_1056", "vl_1057", "vl_1058", "vl_1059", "vl_1060", "vl_1061", "vl_1062", "vl_1063", "vl_1064", "vl_1065", "vl_1066", "vl_1067", "vl_1100", "vl_1101", "vl_1102", "vl_1103", "vl_1104", "vl_1105", "vl_1106", "vl_1107", "vl_1108", "vl_1109", "vl_1110", "vl_1111", "vl_1112", "vl_1158", "vl_1159", "vl_1160", "vl_1161", "vl_1162", "vl_1205", "vl_1230", "vl_1231", "vl_1232", "vl_1233", "vl_1234", "vl_1235", "vl_1236", "vl_1237", "vl_1238", "vl_1239", "vl_1240", "vl_1242", "vl_1243", "vl_1244", "vl_1245", "vl_1246", "vl_1247", "vl_1248", "vl_1249", "vl_125", "vl_1250", "vl_1251", "vl_1252", "vl_1254", "vl_1258", "vl_1259", "vl_126", "vl_1264", "vl_1265", "vl_127", "vl_1270", "vl_128", "vl_129", "vl_1320", "vl_1322", "vl_1323", "vl_1325", "vl_1326", "vl_134", "vl_1411", "vl_1412", "vl_1413", "vl_1415", "vl_1417", "vl_1418", "vl_1419", "vl_1446", "vl_1447", "vl_1448", "vl_1452", "vl_1453", "vl_1459", "vl_1460", "vl_1461", "vl_1462", "vl_1463", "vl_160", "vl_240", "vl_241", "vl_254", "vl_256", "vl_270", "vl_271", "vl_272", "vl_290", "vl_291", "vl_293", "vl_330", "vl_332", "vl_341", "vl_342", "vl_343", "vl_344", "vl_345", "vl_347", "vl_371", "vl_380", "vl_381", "vl_383", "vl_402", "vl_404", "vl_443", "vl_457", "vl_461", "vl_523", "vl_524", "vl_580", "vl_584", "vl_700", "vl_701", "vl_702", "vl_703", "vl_704", "vl_705", "vl_706", "vl_707", "vl_708", "vl_730", "vl_731", "vl_734", "vl_738", "vl_741", "vl_743", "vl_781", "vl_783", "vl_812", "vl_813", "vl_843", "vl_852", "vl_945"]
    assert len(found["warm"]) == 83 and {"vl_1480", "vl_1449", "vl_1450", "vl_1451", "vl_1454", "vl_1455", "vl_1456", "vl_1457", "vl_1458", "vl_1465"} <= set(found["warm"]) and {"vl_1321", "vl_1324", "vl_1327"} <= set(found["warm"]) and {"vl_1253", "vl_1255", "vl_1256", "vl_1257", "vl_1260", "vl_1261", "vl_1262", "vl_1263", "vl_1266", "vl_1267", "vl_1268", "vl_1269"} <= set(found["warm"]) and {"vl_1151", "vl_1163", "vl_1164", "vl_1241"} <= set(found["warm"]) and {"vl_1022", "vl_1029", "vl_1051"} <= set(found["warm"]) and {"vl_780", "vl_957", "vl_990", "vl_996"} <= set(found["warm"]) and {"vl_340", "vl_382", "vl_403", "vl_444", "vl_460"} <= set(found["warm"]) and {"vl_133", "vl_138", "vl_176", "vl_206", "vl_220", "vl_221",
                                          "vl_222", "vl_252", "vl_253", "vl_255"} <= set(found["warm"])


@pytest.mark.parametrize("case_id,state", [("vl_155", "warm"), ("vl_176", "warm"), ("vl_160", "cold")])
def test_explain_notes_say_which_the_log_shows(case_id, state):
    notes = explain_log((DATA / "vllm" / f"{case_id}.log").read_bytes()).context.notes
    assert any(n.startswith(f"torch.compile cache: {state}") for n in notes), notes


def test_explain_note_unknown_only_where_a_plan_depends_on_it():
    # vl_073: vLLM 0.29.0, no compile line: unknown is said; vl_104 (0.20.x, V1 runner) too since the 0.17–0.32 V1
    # rule (VllmRules.v1_vocab_hidden_peak, helper gem4); vl_077 (0.15.1): nothing to say
    for log in ("vl_073", "vl_104"):
        notes = explain_log((DATA / "vllm" / f"{log}.log").read_bytes()).context.notes
        assert any(n.startswith("torch.compile cache: unknown") for n in notes), log
    notes = explain_log((DATA / "vllm" / "vl_077.log").read_bytes()).context.notes
    assert not any(n.startswith("torch.compile cache") for n in notes)


def test_explain_flag_fills_or_contradicts():
    e = explain_log((DATA / "vllm" / "vl_073.log").read_bytes(), flags={"compile_cache": "warm"})
    assert e.context.get("compile_cache") == "warm" and not e.context.contradictions
    e = explain_log((DATA / "vllm" / "vl_176.log").read_bytes(), flags={"compile_cache": "cold"})
    assert e.context.get("compile_cache") == "warm"
    assert [c.flag for c in e.context.contradictions] == ["compile_cache"]
