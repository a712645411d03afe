"""A kernel manager whose server never learns a kernel's execution state.

jupyter_server reads kernel statuses on an iopub socket of its own; after a
restart that socket can reconnect late and miss the next request's `busy`,
so the server reports `idle` while the kernel runs. This manager makes that
permanent, so the watch's "the server says idle: the request is lost"
heuristic can be tested deterministically (src/kernel/__tests__/blind-server.test.ts):
`--ServerApp.kernel_manager_class=blind_kernel_manager.BlindKernelManager`
with this folder on PYTHONPATH.
"""

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager


class BlindKernelManager(AsyncMappingKernelManager):
    """Every kernel is reported idle, whatever it does."""

    def start_watching_activity(self, kernel_id):
        kernel = self._kernels[kernel_id]
        kernel.reason = ""
        kernel.execution_state = "idle"

    def stop_watching_activity(self, kernel_id):
        pass
