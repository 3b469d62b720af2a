"""triton.autotune, triton.Config and triton.heuristics.

Autotuner: the key of a launch is the values of the ``key`` arguments plus ``str(dtype)`` of every
argument that has one; the first launch with a new key benchmarks every (pruned) config with
``testing.do_bench`` and keeps the fastest in ``cache``; later launches with that key reuse it. A
config whose launch raises OutOfResources or CompilationError scores inf. ``reset_to_zero`` arguments
are zeroed before each benchmarked run, ``restore_value`` arguments are saved before benchmarking and
restored after each run, ``pre_hook``/``post_hook`` run around each benchmarked launch.
``TRITON_PRINT_AUTOTUNING=1`` prints the chosen config and the time it took to find it.

The choice also persists on disk, so another process launching the same kernel with the same key
skips the benchmarking: ``$TRITON_CACHE_DIR/autotune/<sha256>.json`` (the same directory as the
compiled objects, see compiler/build.py), keyed by the kernel's source, the key values, the list of
configs, the worker thread count and the CPU (what the timings depend on). It holds the index of
the chosen config and the timings. ``CANNON_TRITON_AUTOTUNE_CACHE=0`` turns it off (read at each
launch); interpreted launches never use it (their timings say nothing of compiled code), as in
Triton's interpreter; ``cache_results``/``TRITON_CACHE_AUTOTUNING`` are accepted (it is on anyway).
"""
import builtins
import hashlib
import json
import os
import time

from ..errors import CompilationError, OutOfResources
from .jit import KernelInterface


class Config:
    """A set of constexpr values (``kwargs``) and launch options. ``num_warps``, ``num_stages`` and
    ``num_ctas`` are accepted (GPU notions with no effect on a CPU); ``num_cpu_threads`` picks the
    worker threads (0: all)."""

    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None, pre_hook=None,
                 num_cpu_threads=None):
        self.kwargs = dict(kwargs)
        self.num_warps, self.num_stages, self.num_ctas = num_warps, num_stages, num_ctas
        self.maxnreg, self.pre_hook, self.num_cpu_threads = maxnreg, pre_hook, num_cpu_threads

    def all_kwargs(self):
        opts = {"num_warps": self.num_warps, "num_stages": self.num_stages, "num_ctas": self.num_ctas,
                "maxnreg": self.maxnreg, "num_cpu_threads": self.num_cpu_threads}
        return dict(self.kwargs, **{k: v for k, v in opts.items() if v is not None})

    def __str__(self):
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"num_warps: {self.num_warps}", f"num_ctas: {self.num_ctas}", f"num_stages: {self.num_stages}",
                  f"maxnreg: {self.maxnreg}"]
        if self.num_cpu_threads is not None:
            parts.append(f"num_cpu_threads: {self.num_cpu_threads}")
        return ", ".join(parts)

    __repr__ = __str__


def _print_autotuning():
    return os.environ.get("TRITON_PRINT_AUTOTUNING", "0") not in ("", "0", "false", "no")


def _disk_cache_on():
    return os.environ.get("CANNON_TRITON_AUTOTUNE_CACHE", "1") not in ("", "0", "false", "False", "no")


class Autotuner(KernelInterface):
    def __init__(self, fn, arg_names, configs, key, reset_to_zero=None, restore_value=None, pre_hook=None,
                 post_hook=None, prune_configs_by=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None,
                 cache_results=False):
        self.fn = fn
        self.base_fn = fn
        while not hasattr(self.base_fn, "params"):
            self.base_fn = self.base_fn.fn
        self.arg_names = arg_names
        self.configs = list(configs) if configs else [Config({})]
        self.keys = list(key)
        for k in self.keys:
            if k not in arg_names:
                raise ValueError(f"autotune key {k!r} is not a parameter of {self.base_fn.__name__}")
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        for n in self.reset_to_zero + self.restore_value:
            if n not in arg_names:
                raise ValueError(f"autotune: {n!r} is not a parameter of {self.base_fn.__name__}")
        self.user_pre_hook, self.user_post_hook = pre_hook, post_hook
        prune = prune_configs_by or {}
        self.perf_model = prune.get("perf_model")
        self.configs_top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        self.num_warmups = 25 if warmup is None else warmup
        self.num_reps = 100 if rep is None else rep
        self.user_do_bench = do_bench
        self.cache = {}
        self.configs_timings = None
        self.best_config = None
        self.bench_time = 0.0
        self.from_disk = False  # whether the last launch's config came from the disk cache
        self.nargs = None
        self.__name__ = getattr(self.base_fn, "__name__", "kernel")
        self.__doc__ = getattr(self.base_fn, "__doc__", None)

    # ---- helpers ----
    def _named(self, args, kwargs):
        named = dict(zip(self.arg_names, args))
        named.update({k: v for k, v in kwargs.items() if k in self.arg_names})
        return named

    def _key(self, named):
        key = [named.get(k) for k in self.keys]
        key += [str(v.dtype) for v in named.values() if hasattr(v, "dtype")]
        return tuple(key)

    def prune_configs(self, named, kwargs):
        configs = self.configs
        if self.early_config_prune:
            configs = list(self.early_config_prune(configs, named, **kwargs))
            if not configs:
                raise ValueError("autotune: early_config_prune removed every config")
        if self.perf_model:
            top_k = self.configs_top_k
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = int(len(configs) * top_k)
            top_k = builtins.max(int(top_k), 1)
            if len(configs) > top_k:
                est = {c: self.perf_model(**named, **kwargs, **c.all_kwargs()) for c in configs}
                configs = sorted(est, key=est.get)[:top_k]
        return configs

    def _bench(self, args, kwargs, named, config, grid):
        from .. import testing
        conflicts = set(kwargs) & set(config.kwargs)
        if conflicts:
            raise ValueError(f"Conflicting meta-parameters: {', '.join(sorted(conflicts))}. Make sure that you "
                             "don't re-define auto-tuned symbols.")
        saved = {}
        for n in self.restore_value:
            v = named.get(n)
            if v is not None and hasattr(v, "clone"):
                saved[n] = v.clone()
        full = dict(named, **config.all_kwargs())

        def call():
            for n in self.reset_to_zero:
                v = named.get(n)
                if v is not None and hasattr(v, "zero_"):
                    v.zero_()
            if config.pre_hook:
                config.pre_hook(full)
            if self.user_pre_hook:
                self.user_pre_hook(full)
            try:
                self.fn.run(*args, grid=grid, **kwargs, **config.all_kwargs())
            except Exception as e:
                if self.user_post_hook:
                    self.user_post_hook(full, exception=e)
                raise
            if self.user_post_hook:
                self.user_post_hook(full, exception=None)
            for n, v in saved.items():
                named[n].copy_(v)

        try:
            bench = self.user_do_bench or (lambda f: testing.do_bench(f, warmup=self.num_warmups, rep=self.num_reps,
                                                                      quantiles=(0.5, 0.2, 0.8)))
            r = bench(call)
            return r if isinstance(r, (list, tuple)) else [r]
        except (OutOfResources, CompilationError):
            return [float("inf")] * 3
        finally:
            for n, v in saved.items():
                named[n].copy_(v)

    # ---- the disk cache ----
    def _disk_path(self, key, kwargs):
        """The file of this kernel, key and config list in the autotune disk cache."""
        from ..compiler import build
        h = hashlib.sha256()
        threads = os.environ.get("CANNON_CPU_THREADS", "") or str(len(os.sched_getaffinity(0))
                                                                if hasattr(os, "sched_getaffinity") else
                                                                os.cpu_count())
        extra = sorted((k, repr(v)) for k, v in kwargs.items() if not hasattr(v, "data_ptr"))
        for part in (getattr(self.base_fn, "src", None) or self.__name__, repr(key), repr(extra),
                     repr([str(c) for c in self.configs]), threads, build.cpu_id()):
            h.update(str(part).encode())
            h.update(b"\0")
        return os.path.join(build.cache_dir(), "autotune", h.hexdigest() + ".json")

    def _disk_load(self, path):
        try:
            with open(path) as f:
                rec = json.load(f)
            i = int(rec["config"])
            if 0 <= i < len(self.configs) and rec.get("config_str") == str(self.configs[i]):
                return self.configs[i]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return None

    def _disk_store(self, path, config, timings):
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            rec = {"kernel": self.__name__, "config": self.configs.index(config), "config_str": str(config),
                   "timings_ms": {str(c): list(t) for c, t in timings.items()}}
            tmp = f"{path}.tmp{os.getpid()}"
            with open(tmp, "w") as f:
                json.dump(rec, f)
            os.replace(tmp, path)
        except (OSError, ValueError):
            pass  # a cache that cannot be written only costs the next process a benchmark

    # ---- launch ----
    def run(self, *args, grid, warmup=False, **kwargs):
        named = self._named(args, kwargs)
        self.nargs = named
        used_cached = True
        self.from_disk = False
        if len(self.configs) > 1:
            key = self._key(named)
            if key not in self.cache:
                interp = getattr(self.base_fn, "_interpret_mode", lambda: False)()
                path = self._disk_path(key, kwargs) if _disk_cache_on() and not interp else None
                hit = self._disk_load(path) if path else None
                if hit is not None:
                    self.cache[key] = hit
                    self.from_disk = True
                else:
                    used_cached = False
                    configs = self.prune_configs(named, kwargs)
                    t0 = time.perf_counter()
                    timings = {c: self._bench(args, kwargs, named, c, grid) for c in configs}
                    self.bench_time = time.perf_counter() - t0
                    self.cache[key] = builtins.min(timings, key=lambda c: timings[c][0])
                    self.configs_timings = timings
                    if path and self.cache[key].__class__ is Config:
                        self._disk_store(path, self.cache[key], timings)
            config = self.cache[key]
        else:
            config = self.configs[0]
        self.best_config = config
        if _print_autotuning() and not used_cached:
            print(f"Triton autotuning for function {self.base_fn.__name__} finished after "
                  f"{self.bench_time:.2f}s; best config selected: {config};")
        full = dict(named, **config.all_kwargs())
        if config.pre_hook and not warmup:
            config.pre_hook(full)
        out = self.fn.run(*args, grid=grid, warmup=warmup, **kwargs, **config.all_kwargs())
        self.nargs = None
        return out

    def warmup(self, *args, grid=(1,), **kwargs):
        return [self.fn.run(*args, grid=grid, warmup=True, **kwargs, **c.all_kwargs())
                for c in self.prune_configs(self._named(args, kwargs), kwargs)]


def autotune(configs, key, prune_configs_by=None, reset_to_zero=None, restore_value=None, pre_hook=None,
             post_hook=None, warmup=None, rep=None, use_cuda_graph=False, do_bench=None, cache_results=False):
    """Decorator: autotune a @triton.jit kernel over ``configs`` for each value of ``key``."""

    def deco(fn):
        base = fn
        while not hasattr(base, "arg_names"):
            base = base.fn
        return Autotuner(fn, base.arg_names, configs, key, reset_to_zero, restore_value, pre_hook=pre_hook,
                         post_hook=post_hook, prune_configs_by=prune_configs_by, warmup=warmup, rep=rep,
                         use_cuda_graph=use_cuda_graph, do_bench=do_bench, cache_results=cache_results)

    return deco


class Heuristics(KernelInterface):
    def __init__(self, fn, arg_names, values):
        self.fn, self.arg_names, self.values = fn, arg_names, values
        self.__name__ = getattr(fn, "__name__", "kernel")

    def run(self, *args, **kwargs):
        named = dict(zip(self.arg_names, args))
        named.update({k: v for k, v in kwargs.items() if k in self.arg_names})
        for k, f in self.values.items():
            kwargs[k] = f(named)
            named[k] = kwargs[k]
        return self.fn.run(*args, **kwargs)

    def warmup(self, *args, **kwargs):
        return self.run(*args, warmup=True, **kwargs)


def heuristics(values):
    """Decorator: constexprs computed from the other arguments, ``{name: lambda args: ...}``."""

    def deco(fn):
        base = fn
        while not hasattr(base, "arg_names"):
            base = base.fn
        return Heuristics(fn, base.arg_names, values)

    return deco
