"""Helper fx35b (2026-12-07, issue 12): the host's GPU count written as free text in a labelled environment field
(``logs.hostcount``, docs/accuracy.md §7.3 round fx35b); both sides: labelled fields count, prose, model names,
unknown names and fields that disagree do not."""

import pytest

from tpkit.logs.hostcount import host_count_written


@pytest.mark.parametrize("text, count, gpu", [
    (b"**vllm:  0.6.6\nGPU:  8 * A800**\n", 8, "A800-SXM-80GB"),             # vl_995's issue text
    (b"- version: vllm0.7.2, python3.10\n- devices: 8\xc3\x97H800 80G\n", 8, "H800"),  # vl_997's
    (b"| GPU | 2\xc3\x97RTX5090, 32,607 MiB |\n", 2, "RTX-5090"),             # a markdown table cell
    (b"Machine type g2-standard-96\nGPUs 8 x NVIDIA L4\n", 8, "L4"),         # sg_511's setup
    (b"- **Hardware**: 8\xc3\x97 NVIDIA H200 GPUs\n", 8, "H200-SXM-141GB"),
    (b"GPU: 4x RTX 4090\n", 4, "RTX-4090"),
    (b"> GPU models: 2 X A100 80GB\n", 2, "A100-SXM-80GB"),
])
def test_a_labelled_field_gives_the_hosts_count(text, count, gpu):
    got = host_count_written(text)
    assert got is not None and (got.count, got.gpu) == (count, gpu)
    assert got.line_no == text[: text.index(str(count).encode())].count(b"\n") + 1


@pytest.mark.parametrize("text", [
    b"I started a server on 8xH100 with `meta-llama/Llama-4-Scout-17B-16E-Instruct`\n",  # prose: maybe the run's
    b"we used 2 machines, each equipped with 8\xc3\x97A100 80G GPUs (total 16 GPUs)\n",     # one node of several
    b"`--tensor-parallel-size 2 --max-model-len 32768` on 2\xc3\x97 A100 80GB.\n",          # the GPUs the run used
    b"Model: Mixtral-8x22B-Instruct\n",                                                 # model names
    b"GPU: 8x7B MoE on one card\n",                                                     # a count of a model's experts
    b"model: mistralai/Mixtral-8x7B-v0.1\nGPU: NVIDIA A100 80GB\n",                     # a bare name: no count
    b"GPU: 2 x FooChip 9000\n",                                                         # not a catalog GPU
    b"block bytes = 28 * 1024  # 28 KiB/token\n",                                       # arithmetic
    b"GPU: 8 x A800\nGPU: 4 x A800\n",                                                  # fields that disagree
])
def test_prose_model_names_and_disagreeing_fields_give_none(text):
    assert host_count_written(text) is None


def test_agreeing_fields_give_the_first():
    got = host_count_written(b"GPU: 8 x H800\nnoise\n- devices: 8\xc3\x97H800 80G\n")
    assert (got.count, got.line_no) == (8, 1)
