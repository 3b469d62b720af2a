"""Interleaved timing shared by the Python benchmarks (bench_torch_ops.py, bench_aclnn_ops.py).

measure({name: fn}, samples) warms each callable up, picks k calls per sample so a sample lasts at
least MIN_SAMPLE_S (k = 1 when MIN_SAMPLE_S is 0), then takes the samples of every callable in
turn, each after a SETTLE_S pause, and returns {name: [seconds per call]}. The scripts set the two
module attributes from their command lines.
"""
import time

MIN_SAMPLE_S = 0.05

# Pause before every sample (--settle-ms): torch's OpenMP threads keep spinning for a few
# milliseconds after each parallel region (libgomp's default GOMP_SPINCOUNT, 300000 pauses), so on
# 2 cores a sample that starts right after a torch sample shares a core with a spinning thread for
# its first calls. cannon's threads spin 30 us, so without the pause only cannon paid: BatchNorm
# backward [32,64,56,56] at 2 threads, cannon right after torch 1.93-2.25 ms, after a 30 ms pause
# 1.90-2.12 (same process, medians of 9).
SETTLE_S = 0.02


def _timeit(fn):
    """Warm up and choose k (calls per sample). A call slower than 0.1 s gets one warm-up only:
    torch's allocating rows for big outputs take seconds on a loaded VM."""
    t0 = time.perf_counter()
    fn()
    if time.perf_counter() - t0 > 0.1:
        return 1
    fn()
    t0 = time.perf_counter()
    fn()
    one = max(time.perf_counter() - t0, 1e-6)
    return max(1, int(MIN_SAMPLE_S / one + 0.5))


def _sample(fn, k):
    t0 = time.perf_counter()
    for _ in range(k):
        fn()
    return (time.perf_counter() - t0) / k


def measure(pairs, samples):
    """pairs: {name: fn}; interleaved samples; returns {name: [seconds per call]}. Cases whose
    warm-up took over 2 s get 3 samples at most."""
    t0 = time.perf_counter()
    ks = {n: (_timeit(f) if MIN_SAMPLE_S > 0 else 1) for n, f in pairs.items()}
    if time.perf_counter() - t0 > 2.0:
        samples = min(samples, 3)
    res = {n: [] for n in pairs}
    for _ in range(samples):
        for n, f in pairs.items():
            if SETTLE_S > 0:
                time.sleep(SETTLE_S)
            res[n].append(_sample(f, ks[n]))
    return res
