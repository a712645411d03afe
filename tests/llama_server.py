"""llama.cpp's OpenAI-compatible server (llama-cpp-python) for tests, run as ``python tests/llama_server.py ARGS``.

The same server as ``python -m llama_cpp.server ARGS``, with llama.cpp's extra
CPU buffer types (the AMX and repacked-weight kernels) turned off: on machines
whose CPU reports AMX but whose kernel does not let processes use it, llama.cpp
compiled for that CPU dies with a general protection fault at ``ldtilecfg``
(in ``ggml_backend_amx_mul_mat``) on the first prompt longer than one token.
Those kernels only change speed; the server answers the same.
"""

from __future__ import annotations

import runpy

import llama_cpp.llama_cpp as lib

_default_params = lib.llama_model_default_params


def _model_params():  # type: ignore[no-untyped-def]
    params = _default_params()
    params.use_extra_bufts = False
    return params


lib.llama_model_default_params = _model_params

if __name__ == "__main__":
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
