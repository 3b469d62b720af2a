"""triton.testing: do_bench, perf_report / Benchmark and assert_close.

do_bench keeps Triton's defaults and estimates: warmup 25 ms and rep 100 ms of kernel time, a first
estimate from 5 runs, a cache flush before each timed run (a 4 MiB write here, sized for a CPU's
last-level cache share rather than a GPU's L2), and ``return_mode`` "mean" unless ``quantiles`` are
asked for. Times are wall-clock milliseconds of each call (the call returns when the work is done).
At most 1000 timed runs are made.
"""
import builtins
import time

_FLUSH_BYTES = 4 << 20
_MAX_REPEAT = 1000


def _flush(buf):
    buf.fill(0)


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Milliseconds per call of ``fn``: the ``return_mode`` statistic ('min', 'max', 'mean',
    'median' or 'all') of the timed runs, or the given ``quantiles`` of them."""
    import numpy as np
    if return_mode not in ("min", "max", "mean", "median", "all"):
        raise ValueError(f"return_mode must be min, max, mean, median or all; got {return_mode!r}")
    cache = np.empty(_FLUSH_BYTES // 4, dtype=np.int32)
    fn()
    t0 = time.perf_counter()
    for _ in range(5):
        _flush(cache)
        fn()
    est = (time.perf_counter() - t0) * 1000 / 5
    n_warmup = builtins.max(1, int(warmup / est)) if est > 0 else 1000
    n_repeat = builtins.max(1, int(rep / est)) if est > 0 else _MAX_REPEAT
    n_repeat = builtins.min(n_repeat, _MAX_REPEAT)
    for _ in range(builtins.min(n_warmup, _MAX_REPEAT)):
        fn()
    times = []
    for _ in range(n_repeat):
        if grad_to_none is not None:
            for x in grad_to_none:
                x.grad = None
        _flush(cache)
        s = time.perf_counter()
        fn()
        times.append((time.perf_counter() - s) * 1000)
    t = np.asarray(times, dtype=np.float64)
    if quantiles is not None:
        r = [float(v) for v in np.quantile(t, list(quantiles))]
        return r[0] if len(r) == 1 else r
    if return_mode == "all":
        return t.tolist()
    return float(getattr(np, return_mode)(t))


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Elementwise |x - y| <= atol + rtol * |y| (defaults atol 1e-2, rtol 0), for torch tensors,
    numpy arrays or scalars."""
    import numpy as np

    def arr(v):
        if hasattr(v, "detach"):
            v = v.detach().cpu()
            if str(v.dtype) == "torch.bfloat16":
                v = v.float()
            return v.numpy()
        return np.asarray(v)

    atol = 1e-2 if atol is None else atol
    rtol = 0.0 if rtol is None else rtol
    a, b = arr(x), arr(y)
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        a, b = a.astype(np.float64), b.astype(np.float64)
    np.testing.assert_allclose(a, b, atol=atol, rtol=rtol, err_msg=err_msg, equal_nan=True)


class Benchmark:
    """The description of one benchmark table (the arguments of Triton's Benchmark)."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args, xlabel="", ylabel="",
                 x_log=False, y_log=False, styles=None, color=None):
        self.x_names, self.x_vals = list(x_names), list(x_vals)
        self.line_arg, self.line_vals, self.line_names = line_arg, list(line_vals), list(line_names)
        self.plot_name, self.args = plot_name, dict(args)
        self.xlabel, self.ylabel, self.x_log, self.y_log, self.styles = xlabel, ylabel, x_log, y_log, styles


class Mark:
    def __init__(self, fn, benchmarks):
        self.fn, self.benchmarks = fn, benchmarks

    def _run(self, bench, save_path, print_data, **kwargs):
        header = list(bench.x_names) + [f"{n} ({bench.ylabel})" if bench.ylabel else n for n in bench.line_names]
        rows = []
        for x in bench.x_vals:
            xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            xa = dict(zip(bench.x_names, xs))
            row = list(xs)
            for lv in bench.line_vals:
                r = self.fn(**xa, **{bench.line_arg: lv}, **bench.args, **kwargs)
                row.append(r[0] if isinstance(r, (tuple, list)) else r)
            rows.append(row)
        if print_data:
            print(bench.plot_name + ":")
            widths = [builtins.max(len(str(h)), 12) for h in header]
            print("  ".join(str(h).rjust(w) for h, w in zip(header, widths)))
            for i, row in enumerate(rows):
                cells = [f"{v:.6g}" if isinstance(v, float) else str(v) for v in row]
                print("  ".join(c.rjust(w) for c, w in zip(cells, widths)))
        if save_path:
            import csv
            import os
            with open(os.path.join(save_path, f"{bench.plot_name}.csv"), "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(header)
                w.writerows(rows)
        return header, rows

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        """Runs every benchmark; prints its table with print_data, writes <plot_name>.csv under
        save_path; returns the tables ((header, rows) per benchmark, or pandas DataFrames with
        return_df when pandas is installed). show_plots is accepted (no plotting here)."""
        benches = self.benchmarks if isinstance(self.benchmarks, (list, tuple)) else [self.benchmarks]
        out = [self._run(b, save_path, print_data, **kwargs) for b in benches]
        if return_df:
            try:
                import pandas as pd
                out = [pd.DataFrame(rows, columns=header) for header, rows in out]
            except ImportError:
                pass
            return out[0] if len(out) == 1 else out
        return None


def perf_report(benchmarks):
    """Decorator: ``@perf_report(Benchmark(...))`` turns a function returning a time (or a tuple
    whose first item is the value) into a Mark whose ``run`` prints the table."""
    return lambda fn: Mark(fn, benchmarks)
