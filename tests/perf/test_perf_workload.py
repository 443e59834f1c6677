"""``tpkit.perf.workload``: a closed-loop benchmark's output tokens / wall time (helper sp16, 2026-12-05).

SpecForge's ``Benchmarker.run`` times one sgl ``run_batch`` with ``num_threads`` = batch over a benchmark's
multi-turn questions: each thread takes the next question, sends turn 2 only when turn 1 has ended, and the server
decodes every request in flight.  The schedule is checked on cases small enough to count by hand.
"""

import pytest

from tpkit.errors import PlanInputError
from tpkit.perf.workload import Turn, Workload, run_schedule, spread_lengths, workload_speedup


def _req(*outputs, prompt=0):
    return tuple(Turn(prompt_tokens=prompt, output_tokens=o) for o in outputs)


def test_one_thread_is_the_plain_sum_of_prefills_and_steps():
    # request 1: two turns (prompts 10, 3; outputs 5, 4); request 2: one turn (prompt 7, output 6)
    work = Workload(requests=((Turn(prompt_tokens=10, output_tokens=5), Turn(prompt_tokens=3, output_tokens=4)),
                              (Turn(prompt_tokens=7, output_tokens=6),)), threads=1)

    def step(n):
        assert n == 1
        return 100.0

    def prefill(prompts):
        return 1000.0 + sum(prompts)

    run = run_schedule(work, step_us=step, prefill_us=prefill)
    assert run.wall_us == (1010 + 500) + (1003 + 400) + (1007 + 600)
    assert run.prefill_us == 3020 and run.busy_us == ((1, 1500.0),) and run.output_tokens == 15
    # speculative: ceil(5 / 2.5) + ceil(4 / 2.5) + ceil(6 / 2.5) = 2 + 2 + 3 cycles
    spec = run_schedule(work, step_us=step, tokens_per_step=2.5, prefill_us=prefill)
    assert spec.wall_us == 3020 + 7 * 100


STEP = {1: 10.0, 2: 15.0}.__getitem__


def test_the_tail_runs_at_falling_concurrency():
    # two threads, outputs 6 and 2: 2 steps with both running (2 × 15), then 4 with one (4 × 10)
    run = run_schedule(Workload(requests=(_req(6), _req(2)), threads=2), step_us=STEP)
    assert run.wall_us == 70 and run.busy_us == ((1, 40.0), (2, 30.0))
    assert run.tok_s == pytest.approx(8 / 70e-6)


def test_a_free_thread_takes_the_next_request():
    # outputs 6, 2, 2 on two threads: the second thread takes request 3 when request 2 ends
    run = run_schedule(Workload(requests=(_req(6), _req(2), _req(2)), threads=2), step_us=STEP)
    assert run.wall_us == 2 * 15 + 2 * 15 + 2 * 10
    assert run.busy_us == ((1, 20.0), (2, 60.0))


def test_turn_two_starts_when_turn_one_ends_and_is_prefilled_then():
    # request 1 has two turns of 2 tokens; request 2 one turn of 6; one prefill pass costs 5
    work = Workload(requests=(_req(2, 2), _req(6)), threads=2)
    run = run_schedule(work, step_us=STEP, prefill_us=lambda prompts: 5.0)
    # never 3 running: turn 2 is sent by the thread that ran turn 1
    assert run.busy_us == ((1, 20.0), (2, 60.0))
    assert run.prefill_us == 10 and run.wall_us == 90


def test_bad_inputs_are_refused_with_the_value():
    with pytest.raises(PlanInputError, match="threads=0"):
        run_schedule(Workload(requests=(_req(1),), threads=0), step_us=STEP)
    with pytest.raises(PlanInputError, match="got 0"):
        run_schedule(Workload(requests=(_req(1),), threads=1), step_us=STEP, tokens_per_step=0)
    with pytest.raises(PlanInputError, match="cap 2048"):
        spread_lengths(2100, 2048, 10)


def test_spread_lengths_keep_the_mean_inside_the_cap():
    lengths = spread_lengths(1095, 2048, 160)
    assert len(lengths) == 160 and 0 <= min(lengths) and max(lengths) <= 2048
    assert sum(lengths) / 160 == pytest.approx(1095, abs=0.5)
    assert lengths == tuple(sorted(lengths)) and lengths[-1] - lengths[0] > 1900
    # at half the cap the maximum-entropy distribution is the uniform
    assert spread_lengths(1024, 2048, 4) == (256, 768, 1280, 1792)


def test_mean_context_counts_earlier_turns_and_half_the_answer():
    work = Workload(requests=(_req(100, 200, prompt=10),), threads=1)
    # turn 1: 100 tokens at 10 + 50; turn 2: 200 at 10 + 100 + 10 + 100
    assert work.mean_context() == round((100 * 60 + 200 * 220) / 300)
    assert work.mean_context(cached_prefix=40) == round((100 * 100 + 200 * 260) / 300)


def test_a_full_batch_without_a_tail_gives_the_decode_steps_speed_up():
    """Equal turns, as many requests as two rounds of threads, one-token prompts: nearly all the time runs at the
    full batch, so the workload's speed-up is plan_perf's at that batch (the prefills add < 1 %)."""
    from tpkit.hardware.catalog import lookup_gpu
    from tpkit.models import load_model
    from tpkit.perf import PerfRequest, SpecSettings, plan_perf

    req = PerfRequest(model=load_model("Qwen/Qwen3-30B-A3B"), gpu=lookup_gpu("H100"), tp=4, batch=8, context=512,
                      engine="sglang", engine_version="0.5.6", accept_length=2.56, max_running_requests=8,
                      spec=SpecSettings(algorithm="EAGLE3", num_steps=4, topk=4, num_draft_tokens=16))
    work = Workload(requests=tuple(_req(400, prompt=1) for _ in range(16)), threads=8, context=512)
    speedup, plain, spec = workload_speedup(req, work)
    assert dict(plain.busy_us).keys() == {8}
    assert speedup == pytest.approx(plan_perf(req).speculative.speedup, rel=0.01)
    # a tail: one long request per round of eight short ones runs alone at batch 1, where speculation loses
    tail = Workload(requests=tuple(_req(4000 if i % 8 == 0 else 100, prompt=1) for i in range(16)), threads=8,
                    context=512)
    slower, plain, _ = workload_speedup(req, tail)
    assert 1 in dict(plain.busy_us) and slower < speedup - 0.05
