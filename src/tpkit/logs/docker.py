"""A ``docker run`` line whose image's entrypoint is the engine's server: the arguments after the image are the
server's (helper fx36, issue 12, 2026-12-07).

vLLM's official image ``vllm/vllm-openai`` (Docker Hub; ``-rocm``/``-cu130``-style variants share the name's head)
ends in an ``ENTRYPOINT`` that is the OpenAI API server (``vllm serve`` in recent images, ``python3 -m
vllm.entrypoints.openai.api_server`` in older ones), so ``docker run … vllm/vllm-openai:TAG MODEL --tp 2`` serves
MODEL: ``vllm serve`` takes the model positionally (``model_tag``, ``entrypoints/cli/serve.py`` of the 0.8.0 wheel)
and from 0.11.0 the API server's own parser does too (``make_arg_parser`` adds ``model_tag``,
``entrypoints/openai/cli_args.py`` of the 0.11.0 wheel).  Before this module such a line was no launch command at
all (no ``vllm serve`` in it), so its model and flags were lost (a log of that form got them only from the
user's --model and other flags).

SGLang's ``lmsysorg/sglang`` image and NVIDIA's ``nvcr.io/nvidia/vllm`` start a shell, not the server: a line that
runs them names the launcher after the image (``python3 -m sglang.launch_server …``, ``vllm serve …``), which
``tpkit.logs.command`` already reads; they are not read here.  The image tag's release (``vllm-openai:v0.10.1``) is
read as a printed version by ``tpkit.logs.engine.VERSION_PATTERNS``.
"""

from __future__ import annotations

from tpkit.logs.lazyre import lazy

__all__ = ["SERVER_IMAGE", "mentions_server_image", "server_image_args"]

SERVER_IMAGE = lazy(r"^(?:[\w.-]+(?::\d+)?/)?vllm/vllm-openai(?:-[\w.]+)?(?::[\w.+-]+)?(?:@sha256:[0-9a-f]+)?$")
"""an image whose entrypoint is vLLM's API server: Docker Hub's ``vllm/vllm-openai`` (a registry mirror prefix
allowed), any tag or digest"""
_IN_TEXT = lazy(r"(?:^|[\s`'\"])(?:[\w.-]+(?::\d+)?/)?vllm/vllm-openai(?:-[\w.]+)?(?::[\w.+-]+)?(?=[\s`'\"\\]|$)")
_DOCKER_BOOL = lazy(r"^-[itdP]+$|^--(?:rm|detach|interactive|tty|privileged|init|read-only|publish-all|"
                    r"no-healthcheck|oom-kill-disable|quiet|sig-proxy)$")
"""docker run options that take no value (any other option without ``=`` takes the next token)"""


def mentions_server_image(message: str) -> bool:
    """True when a record names the server image as a word of its own (a ``docker run`` line or its
    continuation); :func:`server_image_args` decides whether it is a launch."""
    return "vllm-openai" in message and _IN_TEXT.search(message) is not None


def _run_index(tokens: list[str]) -> int | None:
    for i, tok in enumerate(tokens[1:], start=1):
        if tok == "run" and tokens[i - 1].lower().endswith(("docker", "podman")):
            return i
    return None


def server_image_args(tokens: list[str]) -> tuple[str, list[str]] | None:
    """(engine, the server's arguments) of ``docker run [options] IMAGE [args]`` with a server image; None when the
    tokens hold no ``docker run`` (or ``podman run``), or its image is none of :data:`SERVER_IMAGE`.  A token that
    is neither an option nor the image (an elided ``...``) is passed over."""
    run = _run_index(tokens)
    if run is None:
        return None
    i = run + 1
    while i < len(tokens):
        tok = tokens[i]
        if tok.startswith("-"):
            i += 1 if ("=" in tok or _DOCKER_BOOL.match(tok)) else 2
            continue
        if SERVER_IMAGE.match(tok):
            return "vllm", tokens[i + 1:]
        i += 1
    return None
