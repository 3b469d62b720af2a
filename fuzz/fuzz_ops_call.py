#!/usr/bin/python3
"""Fuzz campaign: Python ``cannon.ops.call`` argument conversion (libFuzzer cannot drive Python).

Calls ``cannon.ops.call`` on every operator of ``cannon.ops.manifest()`` (and on a few names that
are not operators) with random argument lists: the right count of plausible values most of the
time (device arrays of matching or mismatching shapes and dtypes, views with zero or transposed
strides, numbers, lists), and wrong counts, wrong types, huge integers, NaN, arrays of the wrong
dtype or shape, numpy values, ctypes values and None.

What must hold: every call returns or raises TypeError, OverflowError, cannon.AclError or
cannon.OpUnavailableError; the interpreter never crashes or hangs. The calls run in a child
process, so a crash (a signal, a sanitizer report) is reported by this driver as a finding with
the call that caused it; a hang is a call that does not return within --hang seconds.

    fuzz/fuzz_ops_call.py --seconds 30 --seed 1         # prints the executions and outcomes
    CANNON_LIB_DIR=build/lib fuzz/fuzz_ops_call.py ...   # which libraries (default: cannon's search)

A finding writes a reproducer script (crash-*.py, failure-*.py or hang-*.py) into --out
(default fuzz/work/fuzz_ops_call.py/) and exits 1.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

REPRO_HEADER = """#!/usr/bin/python3
# Reproducer written by fuzz/fuzz_ops_call.py (seed {seed}, call {index}). Run from the repository root.
import ctypes, math, sys
sys.path.insert(0, "python")
import numpy as np
import cannon
from cannon import ops
from cannon.ops import IntArray, BoolArray, Scalar

def A(shape, dtype, values, view=None):
    a = cannon.DeviceArray.from_numpy(np.array(values, dtype=np.float64).reshape(shape), dtype)
    if view == "T":
        return a.transpose()
    if view is not None:
        return cannon.DeviceArray(view[0], a.dtype, view[1], view[2], a.buffer)
    return a

"""


# ---- the child: the calls ---------------------------------------------------------------------

def child(seed, seconds, case_path, out_dir):
    sys.path.insert(0, os.path.join(REPO, "python"))
    import ctypes
    import math
    import numpy as np
    import cannon
    from cannon import ops
    from cannon.ops import BoolArray, IntArray, Scalar

    allowed = (TypeError, OverflowError, cannon.AclError, cannon.OpUnavailableError)
    rng = random.Random(seed)
    manifest = ops.manifest()
    names = sorted(manifest)
    dtypes = ["float32", "float16", "bfloat16", "float64", "int32", "int64", "int8", "uint8", "bool"]
    nan, inf = float("nan"), float("inf")

    def value_list(n, dtype):
        out = []
        for _ in range(n):
            r = rng.random()
            if dtype in ("float32", "float16", "bfloat16", "float64") and r < 0.05:
                out.append(rng.choice(["nan", "inf", "-inf"]))
            else:
                out.append(round(rng.uniform(-4, 4), 3) if dtype.startswith(("float", "bf")) else rng.randint(-3, 5))
        return out

    def make_array(shape, dtype, view=None):
        n = 1
        for s in shape:
            n *= s
        vals = value_list(n, dtype)
        src_vals = "[" + ", ".join(f"float('{v}')" if isinstance(v, str) else repr(v) for v in vals) + "]"
        a = cannon.DeviceArray.from_numpy(np.array([float(v) for v in vals], dtype=np.float64).reshape(shape),
                                          dtype)
        src = f"A({tuple(shape)!r}, {dtype!r}, {src_vals}"
        if view == "T" and len(shape) >= 2:
            return a.transpose(), src + ", 'T')"
        if view == "bcast" and n > 0:
            # a stride-0 view over the first row: every row aliases the same storage
            vshape = (rng.randint(1, 4),) + tuple(shape[1:])
            st = (0,) + tuple(a.strides[1:])
            return cannon.DeviceArray(vshape, a.dtype, st, 0, a.buffer), src + f", ({vshape!r}, {st!r}, 0))"
        return a, src + ")"

    def rand_shape():
        nd = rng.choice([0, 1, 1, 2, 2, 2, 3, 4])
        return tuple(rng.choice([0, 1, 1, 2, 3, 4, 5]) if rng.random() < 0.1 else rng.randint(1, 4)
                     for _ in range(nd))

    # Junk for any parameter: (value factory, source)
    junk = [
        (lambda: None, "None"), (lambda: 0, "0"), (lambda: -1, "-1"), (lambda: 2**63, "2**63"),
        (lambda: 2**64, "2**64"), (lambda: -2**63 - 1, "-2**63 - 1"), (lambda: 2**70, "2**70"),
        (lambda: -2**200, "-2**200"), (lambda: 10**400, "10**400"), (lambda: 1.5, "1.5"), (lambda: nan, "math.nan"),
        (lambda: inf, "math.inf"), (lambda: -inf, "-math.inf"), (lambda: 1e300, "1e300"), (lambda: True, "True"),
        (lambda: "x", "'x'"), (lambda: b"x", "b'x'"), (lambda: "", "''"), (lambda: [], "[]"),
        (lambda: [1.5], "[1.5]"), (lambda: [2**70], "[2**70]"), (lambda: [-2**63 - 1], "[-2**63 - 1]"),
        (lambda: [nan], "[math.nan]"), (lambda: ["a"], "['a']"), (lambda: [None], "[None]"),
        (lambda: [[1]], "[[1]]"), (lambda: [1j], "[1j]"), (lambda: (1, 2), "(1, 2)"), (lambda: {}, "{}"),
        (lambda: object(), "object()"), (lambda: 1j, "1j"), (lambda: np.float32(nan), "np.float32(math.nan)"),
        (lambda: np.int64(5), "np.int64(5)"), (lambda: np.uint64(2**64 - 1), "np.uint64(2**64 - 1)"),
        (lambda: np.bool_(True), "np.bool_(True)"), (lambda: np.array([1, 2]), "np.array([1, 2])"),
        (lambda: np.array(3), "np.array(3)"), (lambda: np.datetime64("2020"), "np.datetime64('2020')"),
        (lambda: np.str_("3"), "np.str_('3')"), (lambda: np.float16(65504), "np.float16(65504)"),
        (lambda: np.complex64(1j), "np.complex64(1j)"),
        (lambda: ctypes.c_int8(5), "ctypes.c_int8(5)"), (lambda: ctypes.c_double(nan), "ctypes.c_double(math.nan)"),
        (lambda: ctypes.c_uint64(2**64 - 1), "ctypes.c_uint64(2**64 - 1)"), (lambda: ctypes.c_char_p(b"x"),
                                                                              "ctypes.c_char_p(b'x')"),
        (lambda: cannon.float16, "cannon.float16"), (lambda: bytearray(b"x"), "bytearray(b'x')"),
        (lambda: IntArray([1, -1]), "IntArray([1, -1])"), (lambda: BoolArray([True]), "BoolArray([True])"),
        (lambda: Scalar(2.0), "Scalar(2.0)"), (lambda: Scalar(nan, "float16"), "Scalar(math.nan, 'float16')"),
        (lambda: [True, 2], "[True, 2]"), (lambda: [np.int64(2), np.int32(-1)], "[np.int64(2), np.int32(-1)]"),
        (lambda: [1, 0, "x"], "[1, 0, 'x']"), (lambda: [np.array([1, 2])], "[np.array([1, 2])]"),
        (lambda: [2.0], "[2.0]"), (lambda: [np.float64(1.0)], "[np.float64(1.0)]"),
    ]

    def good(kind, base_shape, base_dtype, pool):
        """(value, source) plausible for a parameter of @kind."""
        r = rng.random()
        if kind == "tensor":
            if r < 0.08:
                return None, "None"
            if r < 0.2 and pool:
                i = rng.randrange(len(pool))
                return pool[i][0], f"t{i}"
            if r < 0.6:
                shape, dtype = base_shape, base_dtype
            elif r < 0.8:
                shape = base_shape[:rng.randint(0, len(base_shape))] or (base_shape[-1:] if base_shape else ())
                dtype = base_dtype if rng.random() < 0.7 else "float32"
            else:
                shape, dtype = rand_shape(), rng.choice(dtypes)
            view = rng.choice([None] * 6 + ["T", "bcast"])
            a, src = make_array(shape, dtype, view)
            pool.append((a, src))
            return a, f"t{len(pool) - 1}"
        if kind == "tensorlist":
            if r < 0.08:
                return None, "None"
            items, names = [], []
            for _ in range(rng.randint(0, 4)):
                v, n = (None, "None") if rng.random() < 0.05 else good("tensor", base_shape, base_dtype, pool)
                items.append(v)
                names.append(n)
            return items, "[" + ", ".join(names) + "]"
        if kind == "scalar":
            return rng.choice([(1.0, "1.0"), (0.5, "0.5"), (-2, "-2"), (0, "0"), (True, "True"), (nan, "math.nan"),
                               (inf, "math.inf"), (np.float32(0.25), "np.float32(0.25)"),
                               (Scalar(1.5, "float16"), "Scalar(1.5, 'float16')"),
                               (Scalar(3, "int32"), "Scalar(3, 'int32')"), (None, "None")])
        if kind == "intarray":
            n = rng.randint(0, 4)
            vals = [rng.choice([-2, -1, 0, 1, 2, 3, base_shape[-1] if base_shape else 1]) for _ in range(n)]
            return (vals, repr(vals)) if rng.random() < 0.7 else (IntArray(vals), f"IntArray({vals!r})")
        if kind == "boolarray":
            vals = [rng.random() < 0.7 for _ in range(rng.randint(0, 4))]
            return (vals, repr(vals)) if rng.random() < 0.5 else (tuple(vals), repr(tuple(vals)))
        if kind == "int":
            v = rng.choice([-100, -2, -1, 0, 1, 2, 3, 4, 2**31 - 1, 2**31, 2**63 - 1, 2**64 - 1, -2**63])
            return v, repr(v)
        if kind == "dtype":
            return rng.choice([(cannon.float32, "cannon.float32"), (cannon.float16, "cannon.float16"),
                               (cannon.bfloat16, "cannon.bfloat16"), (cannon.int64, "cannon.int64"),
                               (0, "0"), (1, "1"), (27, "27"), (-1, "-1"), (99, "99")])
        if kind == "bool":
            return rng.choice([(True, "True"), (False, "False"), (1, "1"), (np.bool_(False), "np.bool_(False)")])
        if kind == "float":
            return rng.choice([(1e-5, "1e-5"), (0.1, "0.1"), (0.0, "0.0"), (-1.0, "-1.0"), (nan, "math.nan"),
                               (inf, "math.inf"), (3, "3"), (np.float32(0.5), "np.float32(0.5)")])
        return None, "None"  # a kind this campaign has no values for yet: NULL is always a fair try

    def make_call():
        r = rng.random()
        if r < 0.02:
            name = rng.choice(["aclnnNoSuchOp", "aclnnSoftmaxX", "aclnn", "Softmax"])
            specs = []
        else:
            name = rng.choice(names)
            specs = manifest[name][3]
        base_shape = rand_shape()
        base_dtype = "float32" if rng.random() < 0.7 else rng.choice(dtypes)
        pool = []
        args, srcs = [], []
        for spec in specs:
            if rng.random() < 0.1:
                f, s = rng.choice(junk)
                args.append(f())
                srcs.append(s)
            else:
                v, s = good(spec[1], base_shape, base_dtype, pool)
                args.append(v)
                srcs.append(s)
        r = rng.random()
        if r < 0.05 and args:
            k = rng.randrange(len(args))
            del args[k], srcs[k]
        elif r < 0.1:
            f, s = rng.choice(junk)
            k = rng.randint(0, len(args))
            args.insert(k, f())
            srcs.insert(k, s)
        sync = rng.random() < 0.3
        return name, args, srcs, pool, sync

    # The conversion rules ops.call documents, as a reference: must this value be refused
    # (TypeError / OverflowError) for a parameter of this kind, before anything runs?
    def is_int(v):
        return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))

    def is_number(v):
        return is_int(v) or isinstance(v, (bool, np.bool_, float, np.floating))

    def refused(spec, v):
        kind, lo, hi = spec[1], spec[3], spec[4]
        if kind in ("tensor", "scalar", "intarray", "boolarray", "floatarray", "tensorlist", "scalarlist"):
            if v is None:
                return False
            if kind == "tensor":
                return not isinstance(v, cannon.DeviceArray)
            if kind == "scalar":
                if isinstance(v, Scalar):
                    return False
                if not is_number(v):
                    return True
                return is_int(v) and not -2**63 <= int(v) < 2**63
            if kind == "intarray":
                if isinstance(v, IntArray):
                    return False
                return not isinstance(v, (list, tuple)) or not all(is_int(x) and -2**63 <= int(x) < 2**63
                                                                   for x in v)
            if kind == "tensorlist":
                return not isinstance(v, (list, tuple)) or not all(x is None or isinstance(x, cannon.DeviceArray)
                                                                   for x in v)
            if kind == "boolarray":
                if isinstance(v, BoolArray):
                    return False
                return not isinstance(v, (list, tuple)) or not all(isinstance(x, (bool, np.bool_)) or is_int(x)
                                                                   for x in v)
            return True
        if isinstance(v, ctypes._SimpleCData):
            v = v.value
        if kind == "dtype" and isinstance(v, cannon.DType):
            return False
        if kind in ("int", "dtype"):
            return not is_int(v) or not lo <= int(v) <= hi
        if kind == "bool":
            return not (isinstance(v, (bool, np.bool_)) or is_int(v))
        if kind == "float":
            return not (is_number(v) and not isinstance(v, (bool, np.bool_)))
        if kind == "str":  # a char * (a layout or mode name): str or bytes, any content
            return not isinstance(v, (str, bytes))
        return True

    def must_refuse(name, args):
        if name not in manifest:
            return "not an operator"
        specs = manifest[name][3]
        if len(args) != len(specs):
            return "wrong argument count"
        for i, (spec, v) in enumerate(zip(specs, args)):
            if refused(spec, v):
                return f"argument {i} ({spec[0]}, {spec[1]}) is {type(v).__name__} {v!r:.60}"
        return None

    def reproducer(index, name, srcs, pool, sync):
        lines = [REPRO_HEADER.format(seed=seed, index=index)]
        for i, (_, src) in enumerate(pool):
            lines.append(f"t{i} = {src}\n")
        lines.append(f"ops.call({name!r}, {', '.join(srcs)}{', ' if srcs else ''}sync={sync})\n")
        lines.append("cannon.synchronize()\n")
        return "".join(lines)

    start = time.monotonic()
    calls, outcomes = 0, {}
    live = []
    while time.monotonic() - start < seconds:
        name, args, srcs, pool, sync = make_call()
        text = reproducer(calls, name, srcs, pool, sync)
        with open(case_path, "w") as f:
            f.write(text)
        why = must_refuse(name, args)
        err = None
        try:
            ops.call(name, *args, sync=sync)
            outcome = "ok"
        except allowed as e:
            err = e
            outcome = type(e).__name__ + (f" {e.code}" if isinstance(e, cannon.AclError) else "")
        except BaseException as e:  # noqa: B902 - every other exception is the finding
            err = e
            outcome = None
        # A value ops.call must refuse reached C (or was converted silently) when the call
        # succeeded or failed in the operator; an argument converted before it may fail first
        # (aclCreate*), and OpUnavailableError names a function the library does not export.
        reached = outcome == "ok" or (isinstance(err, cannon.AclError) and not str(err.func).startswith("aclCreate"))
        if outcome is None or (why is not None and reached):
            path = os.path.join(out_dir, f"failure-{seed}-{calls}.py")
            with open(path, "w") as f:
                f.write(text)
            if outcome is None:
                import traceback
                traceback.print_exception(err)
                msg = f"{name} raised {type(err).__name__}: {err}"
            else:
                msg = f"{name}: {why}, yet the call {'succeeded' if err is None else f'reached C ({err})'}"
            print(f"FINDING: {msg}\nreproducer: {path}", file=sys.stderr)
            sys.exit(3)
        key = f"{name}: {outcome}"
        outcomes[key] = outcomes.get(key, 0) + 1
        calls += 1
        live.extend(pool)
        if calls % 32 == 0 or len(live) > 256:
            try:
                cannon.synchronize()  # kernels' own errors surface here: AclError is allowed
            except cannon.AclError:
                pass
            live.clear()
    try:
        cannon.synchronize()
    except cannon.AclError:
        pass
    print(json.dumps({"calls": calls, "seconds": time.monotonic() - start, "outcomes": outcomes}))


# ---- the driver -------------------------------------------------------------------------------

def driver(args):
    out = args.out or os.path.join(HERE, "work", "fuzz_ops_call.py")
    os.makedirs(out, exist_ok=True)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    case = os.path.join(out, "current_case.py")
    log = os.path.join(out, "child.log")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--seed", str(seed), "--seconds",
           str(args.seconds), "--case", case, "--out", out]
    if os.path.exists(case):
        os.remove(case)  # a previous run's: its age says nothing about this one
    t0 = time.monotonic()
    started = time.time()
    with open(log, "w") as lf:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=lf, text=True)
        finding = None
        while True:
            try:
                stdout, _ = p.communicate(timeout=1.0)
                break
            except subprocess.TimeoutExpired:
                pass
            last = os.path.getmtime(case) if os.path.exists(case) else started
            if time.time() - max(last, started) > args.hang:
                p.kill()
                stdout, _ = p.communicate()
                finding = "hang"
                break
    wall = time.monotonic() - t0
    print(f"seed {seed}")
    if finding is None and p.returncode == 0:
        res = json.loads(stdout.strip().splitlines()[-1])
        calls = res["calls"]
        print(f"stat::number_of_executed_units: {calls}")
        print(f"stat::average_exec_per_sec: {int(calls / max(res['seconds'], 1e-9))}")
        print(f"cov: {len(res['outcomes'])} (distinct operator/outcome pairs)")
        if args.verbose:
            for k, v in sorted(res["outcomes"].items()):
                print(f"  {v:8d}  {k}")
        return 0
    if finding is None:
        # 3: a disallowed exception (the child wrote its reproducer); a signal: a crash; anything
        # else: the child itself failed (a sanitizer report exits with 1)
        finding = "failure" if p.returncode == 3 else "crash"
    if finding != "failure":
        dst = os.path.join(out, f"{finding}-{seed}.py")
        if os.path.exists(case):
            os.replace(case, dst)
        print(f"FINDING: {finding} (exit status {p.returncode}, {wall:.0f} s); the call: {dst}")
    with open(log) as lf:
        tail = lf.read()[-6000:]
    print(tail, file=sys.stderr)
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=None, help="random when omitted (printed)")
    ap.add_argument("--out", default=None, help="where findings go (default fuzz/work/fuzz_ops_call.py)")
    ap.add_argument("--hang", type=float, default=60.0, help="seconds one call may take before it is a hang")
    ap.add_argument("--verbose", action="store_true", help="print the count of every outcome")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--case", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.seed, args.seconds, args.case, args.out)
        return 0
    return driver(args)


if __name__ == "__main__":
    sys.exit(main())
