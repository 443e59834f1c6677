"""SGLang's 'Loaded weights leave no GPU memory for the KV cache' error read as pasted: wrapped over lines, elided
with '...', or with only the minimum printed (sglang 0.5.16 ``mem_cache/kv_cache_configurator.py``
``_profile_available_bytes``: raised when free − pre × (1 − F) ≤ 0; minimum viable M = 1 − free / pre, suggested
S = ceil(M × 1000) / 1000).  Helper blind12 (2026-12-05): sg_480 / sg_482 / sg_483 / sg_485 / sg_486 were read
blind with no engine or no fitting fix."""

from explain_testlib import log_bytes

from tpkit.explain import explain_log


def _first_fit(data: bytes):
    """The engine's floor fix (helper cr33a: offered, never called a fit — the pool at the floor is not shown to hold
    a token, explain.sgfloor), else the first fix that fits."""
    e = explain_log(data)
    floor = next((f for f in e.diagnosis.fixes if f.flags.startswith("--mem-fraction-static 0.") and f.kv_tokens is None
                  and "the engine's floor, not called a fit" in f.note), None)
    assert floor is None or not floor.fits
    return e, floor or next((f for f in e.diagnosis.fixes if f.fits), None)


def test_a_wrapped_message_is_sglang_and_gets_the_engines_suggested_fraction():
    e, fix = _first_fit(b"ValueError: Loaded weights leave no GPU memory for the KV cache under\n"
                        b"--mem-fraction-static=0.94. Raise --mem-fraction-static above 0.942\n"
                        b"(minimum viable = 1 - available/pre = 0.9411).\n")
    assert e.context.engine == "sglang" and e.diagnosis.phase == "kv_pool"
    assert fix is not None and fix.flags == "--mem-fraction-static 0.942" and fix.kv_tokens is None
    assert "0.9411" in e.diagnosis.cause


def test_only_the_minimum_printed_gives_the_engines_rounding_of_it():
    _, fix = _first_fit(b"failed at 0.6: `Loaded weights leave no GPU memory for the KV cache under "
                        b"--mem-fraction-static=0.6 ... minimum viable = 0.6433`\n")
    assert fix is not None and fix.flags == "--mem-fraction-static 0.644"


def test_the_fix_stays_above_the_fraction_that_failed():
    """A printed minimum rounded below the run's fraction (the error implies M ≥ F): the next thousandth above F."""
    _, fix = _first_fit(b'refused 0.94: "Loaded weights leave no GPU memory for the KV cache under\n'
                        b'  --mem-fraction-static=0.94 ... minimum viable = 0.939".\n')
    assert fix is not None and fix.flags == "--mem-fraction-static 0.941"


def test_no_number_no_fraction_fix_and_anchors_still_win():
    e, fix = _first_fit(log_bytes("sg_482"))  # '... If using speculative decoding': S and M elided
    assert e.context.engine == "sglang" and fix is None
    e, fix = _first_fit(log_bytes("sg_029"))  # 'Load weight end' anchors: the re-planned fraction, as before
    assert fix.flags == "--mem-fraction-static 0.92"
    assert not any(f.flags == "--mem-fraction-static 0.912" for f in e.diagnosis.fixes)
