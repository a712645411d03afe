"""Kernels start without the model keys of the server's environment.

The agent runs code a model wrote, and a model can be steered by what it reads
(a dataset, a web page), so ``print(os.environ)`` in a kernel must not reveal
the key the proxy uses: it would land in the notebook, and go to the model.
Kernels inherit the server's environment by default; jupyter_client takes the
environment from the ``env`` argument of ``start_kernel`` when one is given
(and keeps it for restarts), so the server extension wraps the kernel manager's
``start_kernel`` to pass a copy without those variables. Nothing else changes:
the server process keeps them (the proxy reads them per request), and so do
other server extensions and terminals (only the user types there).

``c.NotebookAgent.hide_keys_from_kernels = False`` turns this off.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any

#: Always hidden: the variables the documented setups use.
KEY_VARIABLES = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY")


def without_keys(env: dict[str, str], names: Iterable[str]) -> dict[str, str]:
    """A copy of ``env`` without the variables ``names``."""
    hidden = set(names)
    return {name: value for name, value in env.items() if name not in hidden}


def hide_keys_from_kernels(kernel_manager: Any, key_variables: Callable[[], Iterable[str]]) -> None:
    """Make ``kernel_manager.start_kernel`` start kernels without ``key_variables()``.

    ``key_variables`` is called per start, so a provider added to the config
    later is covered as well.
    """
    start_kernel = kernel_manager.start_kernel
    if getattr(start_kernel, "_hides_keys", False):
        return

    @wraps(start_kernel)
    async def start_without_keys(*args: Any, **kwargs: Any) -> Any:
        env = kwargs.get("env") or os.environ
        kwargs["env"] = without_keys(dict(env), [*KEY_VARIABLES, *key_variables()])
        return await start_kernel(*args, **kwargs)

    start_without_keys._hides_keys = True  # type: ignore[attr-defined]
    kernel_manager.start_kernel = start_without_keys
