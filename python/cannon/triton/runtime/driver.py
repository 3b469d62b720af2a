"""triton.runtime.driver: ``driver.active`` describes the device kernels run on (the host CPU, as
cannon's CPU driver does).

``utils.get_device_properties(device)`` returns the keys GPU kernels read to size persistent grids
(``multiprocessor_count`` = the worker count, ``max_num_regs``, ``max_shared_mem``, ``warpSize``,
...) and Ascend's ``num_aicore`` / ``num_vectorcore`` (also the worker count), so a kernel sized by
either convention launches one program per worker. The values are chosen so that the common
occupancy formula ``max_num_regs // (n_regs * warpSize * num_warps)`` with the ``n_regs`` of a
warmed-up kernel gives 1.
"""
import os
import platform

DEVICE_PROPERTIES_SHARED = 1 << 20  # bytes of "shared memory" per program: a core's share of cache


def worker_count():
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return max(os.cpu_count() or 1, 1)


def device_properties():
    n = worker_count()
    return {
        "multiprocessor_count": n,
        "num_aicore": n,
        "num_vectorcore": n,
        "max_num_regs": 65536,
        "max_shared_mem": DEVICE_PROPERTIES_SHARED,
        "warpSize": 32,
        "max_threads_per_block": 1024,
        "sm_clock_rate": 0,
        "mem_clock_rate": 0,
        "mem_bus_width": 0,
    }


class GPUTarget:
    """The target description Triton code compares (``backend``, ``arch``, ``warp_size``)."""

    def __init__(self, backend, arch, warp_size):
        self.backend, self.arch, self.warp_size = backend, arch, warp_size

    def __repr__(self):
        return f"GPUTarget(backend={self.backend!r}, arch={self.arch!r}, warp_size={self.warp_size})"


class _Utils:
    @staticmethod
    def get_device_properties(device=None):
        return device_properties()


class CPUDriver:
    """The active driver: the host CPU as one device, index 0."""

    def __init__(self):
        self.utils = _Utils()
        self.backend = "cpu"

    @staticmethod
    def is_active():
        return True

    def get_current_target(self):
        return GPUTarget("cpu", platform.machine() or "cpu", 32)

    def get_active_torch_device(self):
        import torch
        return torch.device("cpu")

    def get_current_device(self):
        return 0

    def set_current_device(self, device):
        if device not in (0, None):
            raise ValueError(f"cannon.triton has one device (0), got {device}")

    def get_current_stream(self, device=None):
        return 0

    def get_device_interface(self):
        import torch
        return getattr(torch, "cpu", None)

    def get_benchmarker(self):
        from .. import testing
        return testing.do_bench

    def get_empty_cache_for_benchmark(self):
        import numpy as np
        return np.zeros(1 << 20, dtype=np.int32)

    def clear_cache(self, cache):
        cache.fill(0)


class _DriverConfig:
    def __init__(self):
        self._active = CPUDriver()
        self.default = self._active

    @property
    def active(self):
        return self._active

    def set_active(self, driver):
        self._active = driver

    def reset_active(self):
        self._active = self.default


driver = _DriverConfig()
