#!/usr/bin/python3
"""The aclnn operators against torch's CPU kernels, one table row per (operator, dtype, shape).

    CANNON_LIB_DIR=build/lib /usr/bin/python3 bench/python/bench_aclnn_ops.py [--ops Add,Softmax]
        [--dtypes fp32,fp16,bf16] [--sizes big,small] [--samples 7] [--threads 2] [--json FILE]
        [--settle-ms 20] [--list] [--quick]

cannon runs each operator through `cannon.ops.call("aclnnXxx", ..., sync=True)` on DeviceArrays
with preallocated outputs: phase 1, phase 2 and a synchronize per call, as a client's call costs.
torch runs the same computation on CPU tensors holding the same values (its `out=` form where it
has one; a composition of its operators where it has no single one: RmsNorm, RmsNormGrad,
AddRmsNorm, SwiGlu, GeGluV3, RotaryPositionEmbedding(Grad), SoftmaxCrossEntropyWithLogits, and the
synchronised batch norm's pieces, which torch 1.13 has for CUDA only). Where torch has no CPU
kernel for the dtype (fp16 mostly), and for fp16 matmuls and convolutions (torch's fp16 CPU kernels
are reference loops: fp32 is its best case), torch computes in fp32 and the row's `torch` column
says so.

Before timing, every row runs cannon once on its input and compares the result with torch's on the
same values, computed in fp32 for fp16/bf16 rows (torch's own fp16/bf16 kernels keep some
intermediates in the narrow type): floating outputs within a tolerance of the row's dtype, relative
to the output's scale; integer and bool outputs exactly. A row that disagrees is reported and not
timed, and the script exits 1.

Timing follows bench_torch_ops.py: both sides alternate sample by sample; each sample times k calls
(k chosen so a sample lasts >= 50 ms) after a settle pause (--settle-ms, so that neither side
starts beside the other's spinning threads); the row reports medians. Columns: cannon and torch ms
per call, torch / cannon (> 1: cannon faster), cannon's effective GB/s (the bytes the operation
must move: every input read once, every output written once), % of the copy floor (a torch copy_
of 256 MiB timed in the same run: floor ms = bytes / copy bandwidth, 100% = as fast as a copy of
those bytes) and, for matmuls and convolutions, cannon's GFLOP/s. The big shapes put 16-64 MiB
in each memory-bound operand and a few GFLOP in each matmul; --sizes small adds one small shape
per family, which shows the fixed cost of a call through the Python binding (its argument conversion
included; bench/ops/bench_op_overhead times the C call alone).

Each thread count (--threads 1,2) runs in its own worker process, with CANNON_CPU_THREADS and
torch.set_num_threads set to it (default: $CANNON_CPU_THREADS, else 2) and glibc's malloc kept from
mapping and unmapping large blocks on every torch allocation (MALLOC_MMAP_THRESHOLD_=32 MiB,
MALLOC_MMAP_MAX_=0, a large MALLOC_TRIM_THRESHOLD_; --default-malloc keeps glibc's defaults).

--quick: tiny shapes, one sample, no pauses: every row runs and is checked (the CTest smoke run).
--list prints the operators covered and those left to other benchmarks.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))

# Operators of ops.def this script does not time, and why.
SKIPPED = {
    "aclnnBatchNorm": "bench/norm/run_norm_bench.py and bench_torch_ops.py (--cases bn)",
    "aclnnBatchNormBackward": "bench/norm/run_norm_bench.py and bench_torch_ops.py (--cases bn)",
    "aclnnEmbeddingDenseBackward": "bench/train/bench_embedding.py and bench_torch_ops.py (--cases emb)",
    "aclnnFusedInferAttentionScoreV2": "bench/python/bench_attention.py",
    "aclnnTransMatmulWeight": "no torch equivalent (a weight layout hint; no computation here)",
    "aclnnWeightQuantBatchMatmulV2": "no torch equivalent (weight-only int8 dequantising matmul)",
    "aclnnInplaceAdd": "the kernel of aclnnAdd", "aclnnInplaceAdds": "the kernel of aclnnAdds",
    "aclnnInplaceSub": "the kernel of aclnnSub", "aclnnInplaceSubs": "the kernel of aclnnSubs",
    "aclnnInplaceMul": "the kernel of aclnnMul", "aclnnInplaceMuls": "the kernel of aclnnMuls",
    "aclnnInplaceDiv": "the kernel of aclnnDiv", "aclnnInplaceDivs": "the kernel of aclnnDivs",
    "aclnnInplaceExp": "the kernel of aclnnExp", "aclnnInplaceSqrt": "the kernel of aclnnSqrt",
    "aclnnInplaceSin": "the kernel of aclnnSin", "aclnnInplaceCos": "the kernel of aclnnCos",
    "aclnnInplaceTanh": "the kernel of aclnnTanh", "aclnnInplaceRelu": "the kernel of aclnnRelu",
    "aclnnInplaceHardswish": "the kernel of aclnnHardswish", "aclnnInplaceTril": "the kernel of aclnnTril",
    "aclnnInplaceTriu": "the kernel of aclnnTriu", "aclnnInplaceIndexCopy": "the kernel of aclnnIndexCopy",
}

FLOATS = ("fp32", "fp16", "bf16")


# ---- timing: bench_timing.py (SETTLE_S, MIN_SAMPLE_S set from the command line) -------------

import bench_timing  # noqa: E402
from bench_timing import measure  # noqa: E402


# ---- the cases ---------------------------------------------------------------------------------

class Case:
    """One row. cannon(): runs the operator (synchronised); outs: its output DeviceArrays. torch():
    returns torch's outputs (a tensor or a tuple), in the order of outs. check(c, t) may replace
    the default comparison (c: cannon's outputs as torch tensors, t: torch's)."""

    def __init__(self, shape, cannon, outs, torch_fn, nbytes, flops=0, tol=1.0, check=None, tdtype=None,
                 note=""):
        self.shape, self.cannon, self.outs, self.torch = shape, cannon, outs, torch_fn
        self.nbytes, self.flops, self.tol, self.check, self.note = nbytes, flops, tol, check, note
        self.tdtype = tdtype


class Env:
    """What a case builder gets: the size ("big", "small", "quick"), the row's dtype, the dtype torch
    computes in, and helpers that make matching inputs on both sides."""

    def __init__(self, torch, cannon, size, dt, tdt, seed):
        import numpy as np
        self.torch, self.cannon, self.np = torch, cannon, np
        self.size, self.dt, self.tdt = size, dt, tdt
        self.T = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
        self.C = {"fp32": cannon.float32, "fp16": cannon.float16, "bf16": cannon.bfloat16}
        self.gen = torch.Generator().manual_seed(seed)

    def pick(self, big, small=None, quick=None):
        if self.size == "quick":
            return quick
        return small if self.size == "small" else big

    # inputs: the same values (rounded to the row's dtype) on both sides
    def rand(self, shape, lo=-1.0, hi=1.0, dt=None):
        """(torch tensor in the torch dtype, DeviceArray in the row's dtype), uniform in [lo, hi)."""
        t = self.torch.rand(shape, generator=self.gen) * (hi - lo) + lo
        return self.pair(t, dt)

    def randn(self, shape, dt=None):
        return self.pair(self.torch.randn(shape, generator=self.gen), dt)

    def pair(self, t, dt=None):
        dt = dt or self.dt
        if isinstance(dt, str):
            t = t.to(self.T[dt])
            tt = t.to(self.tdt) if dt == self.dt else t
        else:
            t = t.to(dt)
            tt = t
        return tt.contiguous(), self.dev(t)

    def dev(self, t):
        """A DeviceArray holding torch tensor @t (copied)."""
        cn, torch = self.cannon, self.torch
        t = t.contiguous()
        if t.dtype == torch.bfloat16:
            return cn.from_numpy(t.view(torch.int16).numpy().view(self.np.uint16), dtype=cn.bfloat16)
        return cn.from_numpy(t.numpy())

    def empty(self, shape, dt=None):
        """(torch output tensor, DeviceArray output) of @shape in the row's dtype (or @dt: a torch
        dtype, both sides)."""
        torch, cn = self.torch, self.cannon
        if dt is None:
            return torch.empty(shape, dtype=self.tdt), cn.empty(shape, self.C[self.dt])
        cd = {torch.float32: cn.float32, torch.int64: cn.int64, torch.int32: cn.int32, torch.bool: cn.bool_,
              torch.float16: cn.float16, torch.bfloat16: cn.bfloat16}[dt]
        return torch.empty(shape, dtype=dt), cn.empty(shape, cd)

    def nb(self, *shapes_or_tensors):
        """Bytes of DeviceArrays / tensors (their own element sizes)."""
        n = 0
        for a in shapes_or_tensors:
            if isinstance(a, self.torch.Tensor):
                n += a.numel() * a.element_size()
            else:
                size = 1
                for d in a.shape:
                    size *= d
                n += size * a.dtype.itemsize
        return n

    def call(self, name, *args):
        return lambda: self.cannon.ops.call(name, *args, sync=True)

    @property
    def cdt(self):
        return self.C[self.dt]


def _shape_str(*shapes):
    return " ".join("x".join(str(d) for d in s) if isinstance(s, (tuple, list)) else str(s) for s in shapes)


# Builders: name -> (family, dtypes, builder(e) -> Case or None). A builder returns None for a size
# it has no row at (sizes "small" only where the family shows its fixed cost).
BUILDERS = {}
SMALL = set()


def op(name, family, dtypes=FLOATS, small=False):
    def deco(fn):
        BUILDERS["aclnn" + name] = (family, dtypes, fn)
        if small:
            SMALL.add("aclnn" + name)
        return fn
    return deco


EW = (4096, 2048)          # 8 Mi elements: 32 MiB fp32, 16 MiB fp16/bf16
EW_SMALL = (64, 64)
EW_QUICK = (7, 33)


def _ew_shape(e):
    return e.pick(EW, EW_SMALL, EW_QUICK)


def unary(name, tfn, lo=-1.0, hi=1.0, small=False, dtypes=FLOATS, aten_out=None, tol=1.0):
    """out = f(self). tfn(x, out) -> out (torch's out= form)."""
    @op(name, "elementwise", dtypes, small)
    def build(e):
        shape = _ew_shape(e)
        xt, xc = e.rand(shape, lo, hi)
        ot, oc = e.empty(shape)
        return Case(_shape_str(shape), e.call("aclnn" + name, xc, oc), [oc], lambda: tfn(xt, ot),
                    e.nb(xc, oc), tol=tol)
    return build


def _t():
    import torch
    return torch


def _A():
    return _t().ops.aten


unary("Abs", lambda x, o: _t().abs(x, out=o), small=True)
unary("Neg", lambda x, o: _t().neg(x, out=o))
unary("Exp", lambda x, o: _t().exp(x, out=o), -3, 3, small=True)
unary("Log", lambda x, o: _t().log(x, out=o), 0.1, 10)
unary("Sqrt", lambda x, o: _t().sqrt(x, out=o), 0, 10)
unary("Sin", lambda x, o: _t().sin(x, out=o), -6, 6)
unary("Cos", lambda x, o: _t().cos(x, out=o), -6, 6)
unary("Tanh", lambda x, o: _t().tanh(x, out=o), -4, 4)
unary("Sign", lambda x, o: _t().sign(x, out=o))
unary("Sigmoid", lambda x, o: _t().sigmoid(x, out=o), -6, 6)
unary("Gelu", lambda x, o: _A().gelu.out(x, approximate="tanh", out=o), -4, 4)
unary("Silu", lambda x, o: _A().silu.out(x, out=o), -6, 6)
unary("Hardsigmoid", lambda x, o: _A().hardsigmoid.out(x, out=o), -4, 4)
unary("Hardswish", lambda x, o: _A().hardswish.out(x, out=o), -4, 4)


@op("Relu", "activation", small=True)
def _relu(e):
    # torch 1.13 has no relu.out: clamp_min.out is its kernel for relu into an existing tensor
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    ot, oc = e.empty(shape)
    return Case(_shape_str(shape), e.call("aclnnRelu", xc, oc), [oc],
                lambda: _A().clamp_min.out(xt, 0, out=ot), e.nb(xc, oc))


def _ew_case(e, name, args_c, outs, tfn, nbytes, tol=1.0, check=None):
    shape = _ew_shape(e)
    return Case(_shape_str(shape), e.call(name, *args_c), outs, tfn, nbytes, tol=tol, check=check)


@op("GeluV2", "activation")
def _gelu_v2(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape, -4, 4)
    ot, oc = e.empty(shape)
    return _ew_case(e, "aclnnGeluV2", (xc, 0, oc), [oc], lambda: _A().gelu.out(xt, approximate="none", out=ot),
                    e.nb(xc, oc))


@op("LeakyRelu", "activation")
def _leaky(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    ot, oc = e.empty(shape)
    return _ew_case(e, "aclnnLeakyRelu", (xc, 0.01, oc), [oc], lambda: _A().leaky_relu.out(xt, 0.01, out=ot),
                    e.nb(xc, oc))


@op("Elu", "activation")
def _elu(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape, -4, 4)
    ot, oc = e.empty(shape)
    return _ew_case(e, "aclnnElu", (xc, 1.0, 1.0, 1.0, oc), [oc], lambda: _A().elu.out(xt, 1.0, 1.0, 1.0, out=ot),
                    e.nb(xc, oc))


@op("Softplus", "activation")
def _softplus(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape, -8, 8)
    ot, oc = e.empty(shape)
    return _ew_case(e, "aclnnSoftplus", (xc, 1.0, 20.0, oc), [oc],
                    lambda: _A().softplus.out(xt, 1.0, 20.0, out=ot), e.nb(xc, oc))


@op("InplaceThreshold", "activation")
def _threshold(e):
    # idempotent: every call sees the same values
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    return _ew_case(e, "aclnnInplaceThreshold", (xc, 0.25, -1.0), [xc], lambda: _t().threshold_(xt, 0.25, -1.0),
                    2 * e.nb(xc))


def _bwd(name, tfn, lo, hi):
    @op(name, "activation")
    def build(e):
        shape = _ew_shape(e)
        gt, gc = e.rand(shape)
        xt, xc = e.rand(shape, lo, hi)
        ot, oc = e.empty(shape)
        return _ew_case(e, "aclnn" + name, (gc, xc, oc), [oc], lambda: tfn(gt, xt, ot), e.nb(gc, xc, oc))
    return build


_bwd("GeluBackward", lambda g, x, o: _A().gelu_backward.grad_input(g, x, approximate="tanh", grad_input=o), -4, 4)
_bwd("SiluBackward", lambda g, x, o: _A().silu_backward.grad_input(g, x, grad_input=o), -6, 6)


@op("ThresholdBackward", "activation")
def _threshold_bwd(e):
    shape = _ew_shape(e)
    gt, gc = e.rand(shape)
    xt, xc = e.rand(shape)
    ot, oc = e.empty(shape)
    return _ew_case(e, "aclnnThresholdBackward", (gc, xc, 0.0, oc), [oc],
                    lambda: _A().threshold_backward.grad_input(gt, xt, 0.0, grad_input=ot), e.nb(gc, xc, oc))


def binary(name, tfn, lo=-1.0, hi=1.0, blo=None, bhi=None, alpha=False, small=False):
    @op(name, "elementwise", small=small)
    def build(e):
        shape = _ew_shape(e)
        at, ac = e.rand(shape, lo, hi)
        bt, bc = e.rand(shape, blo if blo is not None else lo, bhi if bhi is not None else hi)
        ot, oc = e.empty(shape)
        args = (ac, bc, 1.0, oc) if alpha else (ac, bc, oc)
        return _ew_case(e, "aclnn" + name, args, [oc], lambda: tfn(at, bt, ot), e.nb(ac, bc, oc))
    return build


binary("Add", lambda a, b, o: _t().add(a, b, out=o), alpha=True, small=True)
binary("Sub", lambda a, b, o: _t().sub(a, b, out=o), alpha=True)
binary("Mul", lambda a, b, o: _t().mul(a, b, out=o))
binary("Div", lambda a, b, o: _t().div(a, b, out=o), blo=0.5, bhi=2.0)


def scalar_op(name, tfn, value, alpha=False):
    @op(name, "elementwise")
    def build(e):
        shape = _ew_shape(e)
        at, ac = e.rand(shape)
        ot, oc = e.empty(shape)
        args = (ac, value, 1.0, oc) if alpha else (ac, value, oc)
        return _ew_case(e, "aclnn" + name, args, [oc], lambda: tfn(at, value, ot), e.nb(ac, oc))
    return build


scalar_op("Adds", lambda a, v, o: _t().add(a, v, out=o), 0.75, alpha=True)
scalar_op("Subs", lambda a, v, o: _t().sub(a, v, out=o), 0.75, alpha=True)
scalar_op("Muls", lambda a, v, o: _t().mul(a, v, out=o), 0.75)
scalar_op("Divs", lambda a, v, o: _t().div(a, v, out=o), 0.75)


@op("Clamp", "elementwise")
def _clamp(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    ot, oc = e.empty(shape)
    return _ew_case(e, "aclnnClamp", (xc, -0.5, 0.5, oc), [oc], lambda: _t().clamp(xt, -0.5, 0.5, out=ot),
                    e.nb(xc, oc))


@op("ClampMin", "elementwise")
def _clamp_min(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    ot, oc = e.empty(shape)
    return _ew_case(e, "aclnnClampMin", (xc, -0.5, oc), [oc], lambda: _t().clamp(xt, min=-0.5, out=ot),
                    e.nb(xc, oc))


@op("InplaceClampMax", "elementwise")
def _clamp_max(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    return _ew_case(e, "aclnnInplaceClampMax", (xc, 0.5), [xc], lambda: xt.clamp_max_(0.5), 2 * e.nb(xc))


@op("GtScalar", "elementwise")
def _gt(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    ot, oc = e.empty(shape, _t().bool)
    return _ew_case(e, "aclnnGtScalar", (xc, 0.25, oc), [oc], lambda: _t().gt(xt, 0.25, out=ot), e.nb(xc, oc))


@op("EqTensor", "elementwise")
def _eq(e):
    shape = _ew_shape(e)
    torch = _t()
    at, ac = e.pair(torch.randint(0, 4, shape, generator=e.gen).float())
    bt, bc = e.pair(torch.randint(0, 4, shape, generator=e.gen).float())
    ot, oc = e.empty(shape, torch.bool)
    return _ew_case(e, "aclnnEqTensor", (ac, bc, oc), [oc], lambda: torch.eq(at, bt, out=ot), e.nb(ac, bc, oc))


@op("PowScalarTensor", "elementwise")
def _pow_st(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape, -4, 4)
    ot, oc = e.empty(shape)
    return _ew_case(e, "aclnnPowScalarTensor", (2.0, xc, oc), [oc], lambda: _t().pow(2.0, xt, out=ot),
                    e.nb(xc, oc))


@op("InplacePowTensorTensor", "elementwise")
def _pow_tt(e):
    # exponent -1: each call inverts self, so the values alternate between two sets
    shape = _ew_shape(e)
    torch = _t()
    xt, xc = e.rand(shape, 0.5, 2.0)
    pt, pc = e.pair(torch.full(shape, -1.0))
    return _ew_case(e, "aclnnInplacePowTensorTensor", (xc, pc), [xc], lambda: xt.pow_(pt), e.nb(xc, pc, xc))


@op("InplaceFillScalar", "elementwise")
def _fill(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    return _ew_case(e, "aclnnInplaceFillScalar", (xc, 1.5), [xc], lambda: xt.fill_(1.5), e.nb(xc))


@op("InplaceZero", "elementwise")
def _zero(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    return _ew_case(e, "aclnnInplaceZero", (xc,), [xc], lambda: xt.zero_(), e.nb(xc))


@op("InplaceCopy", "elementwise")
def _copy(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    ot, oc = e.empty(shape)
    return _ew_case(e, "aclnnInplaceCopy", (oc, xc), [oc], lambda: ot.copy_(xt), e.nb(xc, oc))


@op("Cast", "elementwise", dtypes=("fp32", "fp16", "bf16"))
def _cast(e):
    # fp32 -> fp16, fp16 -> fp32, bf16 -> fp32 (the row's dtype is the source)
    torch = _t()
    shape = _ew_shape(e)
    target = {"fp32": torch.float16, "fp16": torch.float32, "bf16": torch.float32}[e.dt]
    xt, xc = e.rand(shape, -4, 4)
    xt = xt.to(e.T[e.dt])  # the cast itself in torch is a dtype-converting copy of the row's dtype
    ot, oc = e.empty(shape, target)
    c = Case(_shape_str(shape) + f" -> {str(target)[6:]}", e.call("aclnnCast", xc, oc.dtype, oc), [oc],
             lambda: ot.copy_(xt), e.nb(xc, oc))
    c.tdtype = e.dt
    return c


# ---- shape and data movement ----------------------------------------------------------------------

@op("Permute", "shape", small=True)
def _permute(e):
    shape = e.pick((16, 256, 64, 32), (4, 16, 8, 8), (2, 3, 4, 5))
    xt, xc = e.rand(shape)
    oshape = (shape[0], shape[2], shape[3], shape[1])
    ot, oc = e.empty(oshape)
    return Case(_shape_str(shape) + " (0,2,3,1)", e.call("aclnnPermute", xc, [0, 2, 3, 1], oc), [oc],
                lambda: ot.copy_(xt.permute(0, 2, 3, 1)), e.nb(xc, oc))


@op("Slice", "shape")
def _slice(e):
    shape = e.pick((4096, 4096), None, (6, 10))
    if shape is None:
        return None
    xt, xc = e.rand(shape)
    ot, oc = e.empty((shape[0], shape[1] // 2))
    return Case(_shape_str(shape) + " [:, ::2]", e.call("aclnnSlice", xc, 1, 0, shape[1], 2, oc), [oc],
                lambda: ot.copy_(xt[:, ::2]), 2 * e.nb(oc))


@op("Cat", "shape", small=True)
def _cat(e):
    shape = e.pick((4096, 1024), (32, 64), (3, 5))
    at, ac = e.rand(shape)
    bt, bc = e.rand(shape)
    ot, oc = e.empty((shape[0], 2 * shape[1]))
    return Case("2x " + _shape_str(shape) + " dim 1", e.call("aclnnCat", [ac, bc], 1, oc), [oc],
                lambda: _t().cat([at, bt], 1, out=ot), e.nb(ac, bc, oc))


@op("Repeat", "shape")
def _repeat(e):
    shape = e.pick((1024, 2048), None, (3, 5))
    if shape is None:
        return None
    xt, xc = e.rand(shape)
    ot, oc = e.empty((4 * shape[0], shape[1]))
    return Case(_shape_str(shape) + " x(4,1)", e.call("aclnnRepeat", xc, [4, 1], oc), [oc],
                lambda: xt.repeat(4, 1), e.nb(xc, oc))


@op("RepeatInterleaveIntWithDim", "shape")
def _repeat_interleave(e):
    shape = e.pick((2048, 2048), None, (3, 5))
    if shape is None:
        return None
    xt, xc = e.rand(shape)
    ot, oc = e.empty((2 * shape[0], shape[1]))
    n = 2 * shape[0]
    return Case(_shape_str(shape) + " 2x dim 0", e.call("aclnnRepeatInterleaveIntWithDim", xc, 2, 0, n, oc), [oc],
                lambda: _t().repeat_interleave(xt, 2, dim=0, output_size=n), e.nb(xc, oc))


@op("Roll", "shape")
def _roll(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    ot, oc = e.empty(shape)
    return Case(_shape_str(shape) + " shift 5 dim 1", e.call("aclnnRoll", xc, [5], [1], oc), [oc],
                lambda: _t().roll(xt, 5, 1), e.nb(xc, oc))


def _tri(name, tfn):
    @op(name, "shape")
    def build(e):
        shape = e.pick((8, 1024, 1024), None, (2, 5, 6))
        if shape is None:
            return None
        xt, xc = e.rand(shape)
        ot, oc = e.empty(shape)
        return Case(_shape_str(shape), e.call("aclnn" + name, xc, 0, oc), [oc], lambda: tfn(xt, 0, out=ot),
                    e.nb(xc, oc))
    return build


_tri("Tril", lambda x, d, out: _t().tril(x, d, out=out))
_tri("Triu", lambda x, d, out: _t().triu(x, d, out=out))


@op("ConstantPadNd", "shape")
def _pad(e):
    shape = e.pick((4096, 2040), None, (5, 7))
    if shape is None:
        return None
    xt, xc = e.rand(shape)
    ot, oc = e.empty((shape[0], shape[1] + 8))
    return Case(_shape_str(shape) + " pad (4,4)", e.call("aclnnConstantPadNd", xc, [4, 4], 0.0, oc), [oc],
                lambda: _t().constant_pad_nd(xt, [4, 4], 0.0), e.nb(xc, oc))


@op("ReflectionPad1d", "shape")
def _reflect(e):
    shape = e.pick((64, 64, 2042), None, (2, 3, 9))
    if shape is None:
        return None
    xt, xc = e.rand(shape)
    ot, oc = e.empty((shape[0], shape[1], shape[2] + 6))
    return Case(_shape_str(shape) + " pad (3,3)", e.call("aclnnReflectionPad1d", xc, [3, 3], oc), [oc],
                lambda: _A().reflection_pad1d.out(xt, [3, 3], out=ot), e.nb(xc, oc))


def _gather(name, tfn, small=False):
    @op(name, "shape", small=small)
    def build(e):
        torch = _t()
        V, D, n = e.pick((16384, 1024, 8192), (256, 64, 64), (9, 4, 5))
        xt, xc = e.rand((V, D))
        it = torch.randint(0, V, (n,), generator=e.gen)
        ic = e.dev(it)
        ot, oc = e.empty((n, D))
        return Case(f"{V}x{D} [{n} rows]", e.call("aclnn" + name, xc, 0, ic, oc), [oc], lambda: tfn(xt, it, ot),
                    2 * e.nb(oc) + e.nb(ic))
    return build


_gather("GatherV2", lambda x, i, o: _t().index_select(x, 0, i, out=o))
_gather("IndexSelect", lambda x, i, o: _t().index_select(x, 0, i, out=o), small=True)


@op("Embedding", "embedding")
def _embedding(e):
    torch = _t()
    V, D, n = e.pick((16384, 1024, 8192), None, (9, 4, 5))
    xt, xc = e.rand((V, D))
    it = torch.randint(0, V, (n,), generator=e.gen)
    ic = e.dev(it)
    ot, oc = e.empty((n, D))
    return Case(f"{V}x{D} [{n} rows]", e.call("aclnnEmbedding", xc, ic, oc), [oc],
                lambda: torch.nn.functional.embedding(it, xt), 2 * e.nb(oc) + e.nb(ic))


@op("IndexCopy", "shape")
def _index_copy(e):
    torch = _t()
    V, D, n = e.pick((16384, 1024, 8192), None, (9, 4, 5))
    xt, xc = e.rand((V, D))
    st, sc = e.rand((n, D))
    it = torch.randperm(V, generator=e.gen)[:n].contiguous()
    ic = e.dev(it)
    ot, oc = e.empty((V, D))

    def tfn():
        ot.copy_(xt)
        return ot.index_copy_(0, it, st)
    return Case(f"{V}x{D} <- [{n} rows]", e.call("aclnnIndexCopy", xc, 0, ic, sc, oc), [oc], tfn,
                e.nb(xc, oc, sc, ic))


@op("InplaceIndexFillTensor", "shape")
def _index_fill(e):
    torch = _t()
    V, D, n = e.pick((4096, 8192, 512), None, (9, 4, 3))  # few indices: the IntArray is built per call
    xt, xc = e.rand((V, D))
    it = torch.randperm(V, generator=e.gen)[:n].contiguous()
    idx = [int(i) for i in it]
    return Case(f"{V}x{D} [{n} rows]", e.call("aclnnInplaceIndexFillTensor", xc, 0, idx, 1.5), [xc],
                lambda: xt.index_fill_(0, it, 1.5), n * D * e.nb(xc) // (V * D))


@op("Arange", "shape")
def _arange(e):
    n = e.pick(EW[0] * EW[1], None, 231)
    if n is None:
        return None
    step = 2.0 ** -10
    ot, oc = e.empty((n,))
    return Case(f"{n}", e.call("aclnnArange", 0.0, n * step, step, oc), [oc],
                lambda: _t().arange(0.0, n * step, step, out=ot), e.nb(oc))


@op("Cumsum", "shape")
def _cumsum(e):
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    ot, oc = e.empty(shape)
    return Case(_shape_str(shape) + " dim 1", e.call("aclnnCumsum", xc, 1, e.cdt, oc), [oc],
                lambda: _t().cumsum(xt, 1, out=ot), e.nb(xc, oc), tol=4.0)


@op("ArgMax", "shape")
def _argmax(e):
    torch = _t()
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    ot, oc = e.empty((shape[0],), torch.int64)

    def check(c, t):  # the first maximal index (values equal in the row's dtype)
        return torch.equal(c[0], t[0])
    return Case(_shape_str(shape) + " dim 1", e.call("aclnnArgMax", xc, 1, False, oc), [oc],
                lambda: torch.argmax(xt, 1, out=ot), e.nb(xc, oc), check=check)


@op("Argsort", "shape")
def _argsort(e):
    torch = _t()
    shape = e.pick((2048, 1024), None, (5, 17))
    if shape is None:
        return None
    xt, xc = e.rand(shape)
    ot, oc = e.empty(shape, torch.int64)
    return Case(_shape_str(shape) + " dim 1", e.call("aclnnArgsort", xc, 1, False, oc), [oc],
                lambda: torch.sort(xt, dim=1, stable=True)[1], e.nb(xc, oc))


# ---- normalisation and reductions -------------------------------------------------------------------

NORM = (4096, 4096)


def _rms_ref(torch, x, g, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * g


@op("RmsNorm", "norm", small=True)
def _rms(e):
    torch = _t()
    shape = e.pick(NORM, (16, 256), (5, 24))
    xt, xc = e.randn(shape)
    gt, gc = e.rand((shape[1],), 0.5, 1.5)
    ot, oc = e.empty(shape)
    rc = e.cannon.empty((shape[0], 1), e.cannon.float32)
    return Case(_shape_str(shape), e.call("aclnnRmsNorm", xc, gc, 1e-6, oc, rc), [oc],
                lambda: _rms_ref(torch, xt, gt, 1e-6), e.nb(xc, gc, oc, rc), tol=4.0,
                note="torch composed")


@op("AddRmsNorm", "norm")
def _add_rms(e):
    torch = _t()
    shape = e.pick(NORM, None, (5, 24))
    if shape is None:
        return None
    at, ac = e.randn(shape)
    bt, bc = e.randn(shape)
    gt, gc = e.rand((shape[1],), 0.5, 1.5)
    yt, yc = e.empty(shape)
    st, sc = e.empty(shape)
    rc = e.cannon.empty((shape[0], 1), e.cannon.float32)

    def tfn():
        s = torch.add(at, bt, out=st)
        return _rms_ref(torch, s, gt, 1e-6), s
    return Case(_shape_str(shape), e.call("aclnnAddRmsNorm", ac, bc, gc, 1e-6, yc, rc, sc), [yc, sc], tfn,
                e.nb(ac, bc, gc, yc, sc, rc), tol=4.0, note="torch composed")


@op("LayerNorm", "norm", small=True)
def _layer_norm(e):
    torch = _t()
    shape = e.pick(NORM, (16, 256), (5, 24))
    xt, xc = e.randn(shape)
    wt, wc = e.rand((shape[1],), 0.5, 1.5)
    bt, bc = e.rand((shape[1],))
    ot, oc = e.empty(shape)
    return Case(_shape_str(shape), e.call("aclnnLayerNorm", xc, [shape[1]], wc, bc, 1e-5, oc, None, None), [oc],
                lambda: torch.nn.functional.layer_norm(xt, [shape[1]], wt, bt, 1e-5), e.nb(xc, wc, bc, oc),
                tol=4.0)


@op("GroupNorm", "norm")
def _group_norm(e):
    torch = _t()
    shape = e.pick((32, 256, 32, 32), None, (2, 8, 3, 5))
    if shape is None:
        return None
    N, C = shape[0], shape[1]
    HxW = shape[2] * shape[3]
    G = min(32, C // 2)
    xt, xc = e.randn(shape)
    wt, wc = e.rand((C,), 0.5, 1.5)
    bt, bc = e.rand((C,))
    ot, oc = e.empty(shape)
    return Case(_shape_str(shape) + f" G={G}",
                e.call("aclnnGroupNorm", xc, wc, bc, N, C, HxW, G, 1e-5, oc, None, None), [oc],
                lambda: torch.nn.functional.group_norm(xt, G, wt, bt, 1e-5), e.nb(xc, oc), tol=4.0)


@op("Norm", "reduce")
def _pnorm(e):
    torch = _t()
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    ot, oc = e.empty((shape[0],))
    return Case(_shape_str(shape) + " p=2 dim -1", e.call("aclnnNorm", xc, 2.0, [-1], False, oc), [oc],
                lambda: torch.linalg.vector_norm(xt, 2, -1, out=ot), e.nb(xc, oc), tol=4.0)


@op("Mean", "reduce")
def _mean(e):
    torch = _t()
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    ot, oc = e.empty((shape[0],))
    return Case(_shape_str(shape) + " dim -1", e.call("aclnnMean", xc, [-1], False, e.cdt, oc), [oc],
                lambda: torch.mean(xt, -1, out=ot), e.nb(xc, oc), tol=4.0)


@op("ReduceSum", "reduce", small=True)
def _reduce_sum(e):
    torch = _t()
    shape = _ew_shape(e)
    xt, xc = e.rand(shape)
    rows = []
    for dim in (-1, 0):
        n = shape[0] if dim == -1 else shape[1]
        ot, oc = e.empty((n,))
        rows.append(Case(_shape_str(shape) + f" dim {dim}", e.call("aclnnReduceSum", xc, [dim], False, e.cdt, oc),
                         [oc], (lambda d=dim, o=ot: torch.sum(xt, d, out=o)), e.nb(xc, oc), tol=4.0))
    return rows


def _softmax(name, tfn, small=False):
    @op(name, "softmax", small=small)
    def build(e):
        shape = _ew_shape(e)
        xt, xc = e.randn(shape)
        ot, oc = e.empty(shape)
        return Case(_shape_str(shape) + " dim -1", e.call("aclnn" + name, xc, -1, oc), [oc],
                    lambda: tfn(xt, ot), e.nb(xc, oc), tol=2.0)
    return build


_softmax("Softmax", lambda x, o: _A()._softmax.out(x, -1, False, out=o), small=True)
_softmax("LogSoftmax", lambda x, o: _A()._log_softmax.out(x, -1, False, out=o))


def _softmax_bwd(name, fwd, tfn):
    @op(name, "softmax")
    def build(e):
        torch = _t()
        shape = _ew_shape(e)
        x = torch.randn(shape, generator=e.gen)
        gt, gc = e.randn(shape)
        yt, yc = e.pair(fwd(x, -1))
        ot, oc = e.empty(shape)
        return Case(_shape_str(shape) + " dim -1", e.call("aclnn" + name, gc, yc, -1, oc), [oc],
                    lambda: tfn(gt, yt, -1, gt.dtype), e.nb(gc, yc, oc), tol=4.0)
    return build


_softmax_bwd("SoftmaxBackward", lambda x, d: x.softmax(d), lambda g, y, d, t: _A()._softmax_backward_data(g, y, d, t))
_softmax_bwd("LogSoftmaxBackward", lambda x, d: x.log_softmax(d),
             lambda g, y, d, t: _A()._log_softmax_backward_data(g, y, d, t))


@op("SwiGlu", "activation")
def _swiglu(e):
    torch = _t()
    shape = e.pick(NORM, None, (5, 24))
    if shape is None:
        return None
    xt, xc = e.rand(shape, -4, 4)
    ot, oc = e.empty((shape[0], shape[1] // 2))

    def tfn():
        a, b = xt.chunk(2, -1)
        return torch.nn.functional.silu(a) * b
    return Case(_shape_str(shape) + " dim -1", e.call("aclnnSwiGlu", xc, -1, oc), [oc], tfn, e.nb(xc, oc),
                tol=2.0, note="torch composed")


@op("GeGluV3", "activation")
def _geglu(e):
    torch = _t()
    shape = e.pick(NORM, None, (5, 24))
    if shape is None:
        return None
    xt, xc = e.rand(shape, -4, 4)
    half = (shape[0], shape[1] // 2)
    ot, oc = e.empty(half)
    gt, gc = e.empty(half)

    def tfn():  # activateLeft false: out = A * gelu(B), outGelu = gelu(B)
        a, b = xt.chunk(2, -1)
        g = torch.nn.functional.gelu(b, approximate="tanh")
        return a * g, g
    return Case(_shape_str(shape) + " dim -1 tanh", e.call("aclnnGeGluV3", xc, -1, 1, False, oc, gc), [oc, gc],
                tfn, e.nb(xc, oc, gc), tol=2.0, note="torch composed")


@op("RotaryPositionEmbedding", "vision")
def _rope(e):
    torch = _t()
    B, S, N, D = e.pick((1, 2048, 32, 128), None, (1, 3, 2, 8))
    xt, xc = e.randn((B, S, N, D))
    ang = torch.rand((1, S, 1, D // 2), generator=e.gen) * 6.28
    ct, cc = e.pair(torch.cat([ang.cos(), ang.cos()], -1))
    st, sc = e.pair(torch.cat([ang.sin(), ang.sin()], -1))
    ot, oc = e.empty((B, S, N, D))

    def tfn():  # mode 0 (half): x * cos + cat(-x2, x1) * sin
        x1, x2 = xt.chunk(2, -1)
        return xt * ct + torch.cat([-x2, x1], -1) * st
    return Case(f"BSND {B}x{S}x{N}x{D} half", e.call("aclnnRotaryPositionEmbedding", xc, cc, sc, 0, oc), [oc], tfn,
                e.nb(xc, cc, sc, oc), tol=2.0, note="torch composed")


@op("RotaryPositionEmbeddingGrad", "vision")
def _rope_grad(e):
    torch = _t()
    B, S, N, D = e.pick((1, 2048, 32, 128), None, (1, 3, 2, 8))
    dyt, dyc = e.randn((B, S, N, D))
    ang = torch.rand((1, S, 1, D // 2), generator=e.gen) * 6.28
    ct, cc = e.pair(torch.cat([ang.cos(), ang.cos()], -1))
    st, sc = e.pair(torch.cat([ang.sin(), ang.sin()], -1))
    ot, oc = e.empty((B, S, N, D))

    def tfn():  # dx of mode 0: the rotation's transpose
        d1, d2 = dyt.chunk(2, -1)
        c1, c2 = ct.chunk(2, -1)
        s1, s2 = st.chunk(2, -1)
        return torch.cat([d1 * c1 + d2 * s2, d2 * c2 - d1 * s1], -1)
    return Case(f"BSND {B}x{S}x{N}x{D} half dx",
                e.call("aclnnRotaryPositionEmbeddingGrad", dyc, cc, sc, None, 0, oc, None, None), [oc], tfn,
                e.nb(dyc, cc, sc, oc), tol=2.0, note="torch composed")


@op("LayerNormBackward", "norm")
def _layer_norm_bwd(e):
    shape = e.pick(NORM, None, (5, 24))
    if shape is None:
        return None
    D = shape[1]
    xt, xc = e.randn(shape)
    dyt, dyc = e.randn(shape)
    wt, wc = e.rand((D,), 0.5, 1.5)
    bt, bc = e.rand((D,))
    _, mean, rstd = _A().native_layer_norm(xt.float(), [D], wt.float(), bt.float(), 1e-5)
    mc, rc = e.dev(mean), e.dev(rstd)
    mean, rstd = mean.to(xt.dtype), rstd.to(xt.dtype)
    gi_t, gi_c = e.empty(shape)
    gw_c, gb_c = e.cannon.empty((D,), e.cannon.float32), e.cannon.empty((D,), e.cannon.float32)
    mask = [True, True, True]
    return Case(_shape_str(shape), e.call("aclnnLayerNormBackward", dyc, xc, [D], mc, rc, wc, bc, mask, gi_c,
                                          gw_c, gb_c), [gi_c, gw_c, gb_c],
                lambda: _A().native_layer_norm_backward(dyt, xt, [D], mean, rstd, wt, bt, mask),
                e.nb(dyc, xc, gi_c), tol=4.0)


@op("RmsNormGrad", "norm")
def _rms_grad(e):
    torch = _t()
    shape = e.pick(NORM, None, (5, 24))
    if shape is None:
        return None
    D = shape[1]
    xt, xc = e.randn(shape)
    dyt, dyc = e.randn(shape)
    gt, gc = e.rand((D,), 0.5, 1.5)
    rstd = torch.rsqrt(xt.float().pow(2).mean(-1, keepdim=True) + 1e-6)
    rc = e.dev(rstd)
    rt = rstd.to(xt.dtype)
    dxt, dxc = e.empty(shape)
    dgc = e.cannon.empty((D,), e.cannon.float32)

    def tfn():  # dx = r g dy - x r^3 mean(g dy x), dgamma = sum over rows of dy x r
        gdy = dyt * gt
        dx = rt * gdy - xt * rt.pow(3) * (gdy * xt).mean(-1, keepdim=True)
        return dx, (dyt * xt * rt).sum(0)
    return Case(_shape_str(shape), e.call("aclnnRmsNormGrad", dyc, xc, rc, gc, dxc, dgc), [dxc, dgc], tfn,
                e.nb(dyc, xc, dxc), tol=8.0, note="torch composed")


# Synchronised batch norm's pieces, NCHW: torch's batch_norm_stats / gather_stats_with_counts /
# batch_norm_elemt / batch_norm_backward_reduce / batch_norm_backward_elemt.
SBN = (32, 256, 32, 32)
SBN_QUICK = (2, 6, 3, 5)


def _sbn_inputs(e):
    torch = _t()
    shape = e.pick(SBN, None, SBN_QUICK)
    if shape is None:
        return None
    C = shape[1]
    x = torch.randn(shape, generator=e.gen) * 2 + 0.5
    xt, xc = e.pair(x)
    xc = xc.view(shape, format=e.cannon.FORMAT_NCHW)
    mean = x.to(e.T[e.dt]).float().mean((0, 2, 3))
    invstd = torch.rsqrt(x.to(e.T[e.dt]).float().var((0, 2, 3), unbiased=False) + 1e-5)
    w, b = torch.rand(C, generator=e.gen) + 0.5, torch.rand(C, generator=e.gen)
    return shape, C, xt, xc, mean, invstd, w, b


def _sbn_f32(e, *ts):
    return [e.dev(t.float()) for t in ts]


@op("BatchNormStats", "norm")
def _bn_stats(e):
    torch = _t()
    got = _sbn_inputs(e)
    if got is None:
        return None
    shape, C, xt, xc, *_ = got
    mc, ic = e.cannon.empty((C,), e.cannon.float32), e.cannon.empty((C,), e.cannon.float32)
    return Case("NCHW " + _shape_str(shape), e.call("aclnnBatchNormStats", xc, 1e-5, mc, ic), [mc, ic],
                lambda: _bn_stats_ref(torch, xt), e.nb(xc), tol=4.0, note="torch composed")


def _bn_stats_ref(torch, x):
    var, mean = torch.var_mean(x, (0, 2, 3), unbiased=False)
    return mean, torch.rsqrt(var + 1e-5)


@op("BatchNormElemt", "norm")
def _bn_elemt(e):
    torch = _t()
    got = _sbn_inputs(e)
    if got is None:
        return None
    shape, C, xt, xc, mean, invstd, w, b = got
    wc, bc, mc, ic = _sbn_f32(e, w, b, mean, invstd)
    var = invstd.double().pow(-2).sub(1e-5).float()  # torch's inference batch_norm takes the variance
    ot, oc = e.empty(shape)
    oc = oc.view(shape, format=e.cannon.FORMAT_NCHW)
    return Case("NCHW " + _shape_str(shape), e.call("aclnnBatchNormElemt", xc, wc, bc, mc, ic, 1e-5, oc), [oc],
                lambda: torch.batch_norm(xt, w, b, mean, var, False, 0.0, 1e-5, False), e.nb(xc, oc), tol=4.0,
                note="torch composed")


@op("BatchNormReduceBackward", "norm")
def _bn_reduce_bwd(e):
    torch = _t()
    got = _sbn_inputs(e)
    if got is None:
        return None
    shape, C, xt, xc, mean, invstd, w, b = got
    dyt, dyc = e.randn(shape)
    dyc = dyc.view(shape, format=e.cannon.FORMAT_NCHW)
    wc, mc, ic = _sbn_f32(e, w, mean, invstd)
    outs = [e.cannon.empty((C,), e.cannon.float32) for _ in range(4)]
    return Case("NCHW " + _shape_str(shape),
                e.call("aclnnBatchNormReduceBackward", dyc, xc, mc, ic, wc, True, True, True, *outs), outs,
                lambda: _bn_reduce_ref(torch, dyt, xt, mean, invstd), e.nb(dyc, xc), tol=8.0, note="torch composed")


def _bn_reduce_ref(torch, dy, x, mean, invstd):
    sum_dy = dy.sum((0, 2, 3))
    sum_dy_xmu = (dy * (x - mean[:, None, None])).sum((0, 2, 3))
    return sum_dy, sum_dy_xmu, sum_dy_xmu * invstd, sum_dy


@op("BatchNormElemtBackward", "norm")
def _bn_elemt_bwd(e):
    torch = _t()
    got = _sbn_inputs(e)
    if got is None:
        return None
    shape, C, xt, xc, mean, invstd, w, b = got
    dyt, dyc = e.randn(shape)
    dyc = dyc.view(shape, format=e.cannon.FORMAT_NCHW)
    sdy, sdx = torch.randn(C, generator=e.gen) * 100, torch.randn(C, generator=e.gen) * 100
    count = torch.tensor([shape[0] * shape[2] * shape[3] // 2] * 2, dtype=torch.int32)
    wc, mc, ic, sdyc, sdxc = _sbn_f32(e, w, mean, invstd, sdy, sdx)
    cc = e.dev(count)
    ot, oc = e.empty(shape)
    oc = oc.view(shape, format=e.cannon.FORMAT_NCHW)
    return Case("NCHW " + _shape_str(shape),
                e.call("aclnnBatchNormElemtBackward", dyc, xc, mc, ic, wc, sdyc, sdxc, cc, oc), [oc],
                lambda: _bn_elemt_bwd_ref(dyt, xt, mean, invstd, w, sdy, sdx, count), e.nb(dyc, xc, oc), tol=4.0,
                note="torch composed")


def _bn_elemt_bwd_ref(dy, x, mean, invstd, w, sum_dy, sum_dy_xmu, count):
    n = float(count.sum())
    c = lambda v: v[:, None, None]  # noqa: E731
    return (dy - c(sum_dy / n) - (x - c(mean)) * c(invstd * invstd * sum_dy_xmu / n)) * c(invstd * w)


@op("BatchNormGatherStatsWithCounts", "norm")
def _bn_gather(e):
    # per-channel statistics of R ranks: a few KiB, the fixed cost of the call
    torch = _t()
    R, C = e.pick((8, 1024), None, (3, 6))
    xt, xc = e.rand((2, C, 2, 2))
    xc = xc.view((2, C, 2, 2), format=e.cannon.FORMAT_NCHW)
    means = torch.randn((R, C), generator=e.gen)
    invs = torch.rand((R, C), generator=e.gen) + 0.5
    counts = torch.randint(100, 200, (R,), generator=e.gen).float()
    mc, ic, cc = _sbn_f32(e, means, invs, counts)
    rm_t, rv_t = torch.zeros(C), torch.ones(C)
    rm_c, rv_c = _sbn_f32(e, rm_t, rv_t)
    mo, io = e.cannon.empty((C,), e.cannon.float32), e.cannon.empty((C,), e.cannon.float32)
    return Case(f"{R} ranks x {C}", e.call("aclnnBatchNormGatherStatsWithCounts", xc, mc, ic, rm_c, rv_c, 0.1,
                                           1e-5, cc, mo, io), [mo, io],
                lambda: _bn_gather_ref(torch, means, invs, rm_t, rv_t, counts), e.nb(mc, ic, cc, mo, io), tol=8.0,
                note="torch composed")


def _bn_gather_ref(torch, means, invs, rm, rv, counts, momentum=0.1, eps=1e-5):
    n = counts.sum()
    mean = (means * counts[:, None]).sum(0) / n
    var = ((invs.pow(-2) - eps + (means - mean).pow(2)) * counts[:, None]).sum(0) / n
    rm.mul_(1 - momentum).add_(mean, alpha=momentum)
    rv.mul_(1 - momentum).add_(var * n / (n - 1), alpha=momentum)
    return mean, torch.rsqrt(var + eps)


# ---- matmul ---------------------------------------------------------------------------------------

def _mm_case(e, name, ashape, bshape, oshape, tfn, flops, label):
    at, ac = e.rand(ashape)
    bt, bc = e.rand(bshape)
    ot, oc = e.empty(oshape)
    return Case(label, e.call(name, ac, bc, oc, 0), [oc], lambda: tfn(at, bt, ot), e.nb(ac, bc, oc), flops=flops,
                tol=4.0)


@op("Mm", "matmul", small=True)
def _mm(e):
    M = e.pick(1024, 64, 9)
    return _mm_case(e, "aclnnMm", (M, M), (M, M), (M, M), lambda a, b, o: _t().mm(a, b, out=o), 2 * M ** 3,
                    f"{M}x{M} @ {M}x{M}")


@op("BatchMatMul", "matmul")
def _bmm(e):
    B, M = e.pick((8, 512), None, (2, 7))
    return _mm_case(e, "aclnnBatchMatMul", (B, M, M), (B, M, M), (B, M, M), lambda a, b, o: _t().bmm(a, b, out=o),
                    2 * B * M ** 3, f"{B}x{M}x{M} @ {B}x{M}x{M}")


@op("Matmul", "matmul")
def _matmul(e):
    B, M, K = e.pick((2, 512, 1024), None, (2, 3, 7))
    return _mm_case(e, "aclnnMatmul", (B, M, K), (K, K), (B, M, K), lambda a, b, o: _t().matmul(a, b, out=o),
                    2 * B * M * K * K, f"{B}x{M}x{K} @ {K}x{K}")


@op("Mv", "matmul")
def _mv(e):
    M, K = e.pick((8192, 2048), None, (9, 13))
    at, ac = e.rand((M, K))
    vt, vc = e.rand((K,))
    ot, oc = e.empty((M,))
    return Case(f"{M}x{K} @ {K}", e.call("aclnnMv", ac, vc, oc, 0), [oc], lambda: _t().mv(at, vt, out=ot),
                e.nb(ac, vc, oc), flops=2 * M * K, tol=4.0)


@op("TriangularSolve", "matmul", dtypes=("fp32",))
def _trsm(e):
    torch = _t()
    n, k = e.pick((1024, 1024), None, (6, 3))
    a = torch.rand((n, n), generator=e.gen) * 0.1 + torch.eye(n) * 2
    At, Ac = e.pair(torch.triu(a))
    bt, bc = e.rand((n, k))
    xt, xc = e.empty((n, k))
    mt, mc = e.empty((n, n))
    return Case(f"{n}x{n} \\ {n}x{k} upper", e.call("aclnnTriangularSolve", bc, Ac, True, False, False, xc, mc),
                [xc, mc], lambda: torch.triangular_solve(bt, At, True, False, False), e.nb(Ac, bc, xc, mc),
                flops=n * n * k, tol=4.0)


# ---- vision -----------------------------------------------------------------------------------------

@op("Im2col", "vision")
def _im2col(e):
    torch = _t()
    N, C, H, W = e.pick((4, 64, 64, 64), None, (1, 2, 5, 6))
    xt, xc = e.rand((N, C, H, W))
    ot, oc = e.empty((N, C * 9, H * W))
    return Case(f"{N}x{C}x{H}x{W} k3 p1", e.call("aclnnIm2col", xc, [3, 3], [1, 1], [1, 1], [1, 1], oc), [oc],
                lambda: torch.nn.functional.unfold(xt, 3, 1, 1, 1), e.nb(xc, oc))


@op("Convolution", "vision", small=True)
def _conv(e):
    torch = _t()
    N, C, H, W = e.pick((8, 64, 56, 56), (1, 8, 8, 8), (1, 3, 5, 6))
    xt, xc = e.rand((N, C, H, W))
    wt, wc = e.rand((C, C, 3, 3), -0.2, 0.2)
    bt, bc = e.rand((C,))
    ot, oc = e.empty((N, C, H, W))
    return Case(f"{N}x{C}x{H}x{W} * {C}x{C}x3x3 p1",
                e.call("aclnnConvolution", xc, wc, bc, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, oc, 0), [oc],
                lambda: torch.nn.functional.conv2d(xt, wt, bt, 1, 1), e.nb(xc, wc, bc, oc),
                flops=2 * N * C * H * W * C * 9, tol=4.0)


POOL = (8, 64, 112, 112)


@op("AvgPool2d", "vision")
def _avgpool(e):
    shape = e.pick(POOL, None, (1, 2, 7, 9))
    if shape is None:
        return None
    xt, xc = e.rand(shape)
    oshape = (shape[0], shape[1], (shape[2] - 1) // 2 + 1, (shape[3] - 1) // 2 + 1)
    ot, oc = e.empty(oshape)
    return Case(_shape_str(shape) + " k3 s2 p1",
                e.call("aclnnAvgPool2d", xc, [3, 3], [2, 2], [1, 1], False, True, 0, 0, oc), [oc],
                lambda: _A().avg_pool2d.out(xt, [3, 3], [2, 2], [1, 1], False, True, None, out=ot), e.nb(xc, oc),
                tol=2.0)


@op("MaxPool", "vision")
def _maxpool(e):
    shape = e.pick(POOL, None, (1, 2, 7, 9))
    if shape is None:
        return None
    xt, xc = e.rand(shape)
    oshape = (shape[0], shape[1], (shape[2] - 1) // 2 + 1, (shape[3] - 1) // 2 + 1)
    ot, oc = e.empty(oshape)
    return Case(_shape_str(shape) + " k3 s2 p1",
                e.call("aclnnMaxPool", xc, [3, 3], [2, 2], 0, [1, 1], [1, 1], 0, oc), [oc],
                lambda: _t().nn.functional.max_pool2d(xt, 3, 2, 1), e.nb(xc, oc))


@op("UpsampleNearest2d", "vision")
def _upsample(e):
    shape = e.pick((8, 64, 64, 64), None, (1, 2, 3, 5))
    if shape is None:
        return None
    xt, xc = e.rand(shape)
    osz = [2 * shape[2], 2 * shape[3]]
    ot, oc = e.empty((shape[0], shape[1], osz[0], osz[1]))
    return Case(_shape_str(shape) + " x2", e.call("aclnnUpsampleNearest2d", xc, osz, oc), [oc],
                lambda: _A().upsample_nearest2d.out(xt, osz, None, None, out=ot), e.nb(xc, oc))


# ---- losses -----------------------------------------------------------------------------------------

@op("NLLLoss", "loss")
def _nll(e):
    torch = _t()
    B, C = e.pick((8192, 1024), None, (5, 7))
    xt, xc = e.randn((B, C))
    tt = torch.randint(0, C, (B,), generator=e.gen)
    tc = e.dev(tt)
    wt, wc = e.pair(torch.ones(C))
    ot, oc = e.empty(())
    twt, twc = e.empty(())
    return Case(f"{B}x{C} mean", e.call("aclnnNLLLoss", xc, tc, wc, 1, -100, oc, twc), [oc, twc],
                lambda: _A().nll_loss_forward(xt, tt, wt, 1, -100), B * (e.nb(xc) // (B * C)) + e.nb(tc),
                tol=4.0)


@op("NLLLossBackward", "loss")
def _nll_bwd(e):
    torch = _t()
    B, C = e.pick((8192, 1024), None, (5, 7))
    xt, xc = e.randn((B, C))
    tt = torch.randint(0, C, (B,), generator=e.gen)
    tc = e.dev(tt)
    wt, wc = e.pair(torch.ones(C))
    gt, gc = e.pair(torch.tensor(0.5))
    twt, twc = e.pair(torch.tensor(float(B)))
    ot, oc = e.empty((B, C))
    return Case(f"{B}x{C} mean", e.call("aclnnNLLLossBackward", gc, xc, tc, wc, 1, -100, twc, oc), [oc],
                lambda: _A().nll_loss_backward(gt, xt, tt, wt, 1, -100, twt), e.nb(oc, tc))


@op("SoftmaxCrossEntropyWithLogits", "loss")
def _sce(e):
    torch = _t()
    B, C = e.pick((4096, 2048), None, (5, 7))
    xt, xc = e.randn((B, C))
    yt, yc = e.pair(torch.softmax(torch.randn((B, C), generator=e.gen), -1))
    lt, lc = e.empty((B,))
    gt, gc = e.empty((B, C))

    def tfn():
        ls = torch.log_softmax(xt, -1)
        return -(yt * ls).sum(-1), torch.exp(ls) - yt
    return Case(f"{B}x{C}", e.call("aclnnSoftmaxCrossEntropyWithLogits", xc, yc, lc, gc), [lc, gc], tfn,
                e.nb(xc, yc, lc, gc), tol=4.0, note="torch composed")


# ---- worker -----------------------------------------------------------------------------------------

TOL = {"fp32": (2e-5, 2e-6), "fp16": (2e-3, 1e-3), "bf16": (1.6e-2, 8e-3)}


def compare(torch, case, dt, c, t):
    """(ok, detail). Floating outputs: |c - t| <= tol * (rtol |t| + atol max|t|); others exact."""
    if case.check is not None:
        return bool(case.check(c, t)), ""
    worst = ""
    for i, (a, b) in enumerate(zip(c, t)):
        if tuple(a.shape) != tuple(b.shape):
            b = b.reshape(a.shape)
        if not a.is_floating_point():
            if not torch.equal(a, b.to(a.dtype)):
                bad = (a != b.to(a.dtype)).nonzero()
                return False, f"output {i}: {bad.shape[0]} elements differ, first at {bad[0].tolist()}"
            continue
        a, b = a.double(), b.double()
        rtol, atol = TOL[dt]
        rtol, atol = rtol * case.tol, atol * case.tol
        scale = float(b.abs().max()) if b.numel() else 0.0
        err = (a - b).abs()
        lim = rtol * b.abs() + atol * max(scale, 1e-30)
        both_nan = a.isnan() & b.isnan()
        bad = ((err > lim) | (a.isnan() != b.isnan())) & ~both_nan
        if bool(bad.any()):
            j = int(bad.flatten().nonzero()[0])
            return False, (f"output {i}: {int(bad.sum())} of {a.numel()} elements outside tolerance; "
                           f"first at flat {j}: cannon {float(a.flatten()[j])!r} torch {float(b.flatten()[j])!r}")
        rel = float((err / (b.abs() + atol * max(scale, 1e-30))).max()) if err.numel() else 0.0
        worst = f"{rel:.2g}"
    return True, worst


def to_torch(torch, cannon, a):
    """A DeviceArray's values as a torch tensor (copied; bf16 decoded)."""
    n = a.numpy(copy=True)
    if a.dtype is cannon.bfloat16:
        return torch.from_numpy(n.view("int16")).view(torch.bfloat16)
    return torch.from_numpy(n)


def as_tuple(r):
    return tuple(r) if isinstance(r, (tuple, list)) else (r,)


TORCH_FP32 = {"aclnnMm", "aclnnBatchMatMul", "aclnnMatmul", "aclnnMv", "aclnnConvolution"}


def worker(args):
    bench_timing.SETTLE_S = 0.0 if args.quick else args.settle_ms / 1e3
    if args.quick:
        bench_timing.MIN_SAMPLE_S = 0.0
    import warnings
    import torch
    torch.set_num_threads(args.threads)
    sys.path.insert(0, os.path.join(REPO, "python"))
    import cannon
    # torch.triangular_solve (deprecated for linalg.solve_triangular) is the form that returns the
    # copy of A that TriangularSolve's mOut holds too
    warnings.filterwarnings("ignore", message="torch.triangular_solve is deprecated")
    samples = 1 if args.quick else args.samples

    def copy_floor():
        n = (1 << 20) if args.quick else (64 << 20)
        src, dst = torch.ones(n), torch.empty(n)
        cp = measure({"copy": lambda: dst.copy_(src)}, samples)
        return 2 * n * 4 / statistics.median(cp["copy"])
    copy_bw = copy_floor()

    wanted = set(args.ops.split(",")) if args.ops else None
    dtypes = args.dtypes.split(",")
    sizes = ["quick"] if args.quick else args.sizes.split(",")
    rows, failures = [], []
    for name, (family, op_dtypes, build) in BUILDERS.items():
        if wanted and name not in wanted and name[5:] not in wanted:
            continue
        if not cannon.ops.available(name[5:]):
            print(f"  {name}: not in the loaded libopapi, skipped", file=sys.stderr, flush=True)
            continue
        for size in sizes:
            if size == "small" and name not in SMALL:
                continue
            for dt in dtypes:
                if dt not in op_dtypes:
                    continue
                tdt_name = "fp32" if (dt == "fp16" and name in TORCH_FP32) else dt
                env_tdt = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
                seed = zlib.crc32(f"{name} {size} {dt}".encode())
                cases = None
                for attempt in (tdt_name, "fp32"):
                    e = Env(torch, cannon, size, dt, env_tdt[attempt], seed)
                    try:
                        built = build(e)
                        if built is None:
                            break
                        cases = built if isinstance(built, list) else [built]
                        # torch's first call gives the reference (an in-place case must not run twice)
                        touts = []
                        for c in cases:
                            c.tdtype = c.tdtype or attempt
                            touts.append(as_tuple(c.torch()))
                        break
                    except RuntimeError as ex:
                        if "not implemented for" in str(ex) and attempt != "fp32":
                            cases = None
                            continue
                        raise
                if not cases:
                    continue
                if cases[0].tdtype != "fp32" and name != "aclnnCast":
                    # the reference: torch in fp32 on the same values (torch's own fp16/bf16 kernels
                    # keep intermediates in the narrow type, GeluBackward's for one)
                    ref = build(Env(torch, cannon, size, dt, torch.float32, seed))
                    touts = [as_tuple(r.torch()) for r in (ref if isinstance(ref, list) else [ref])]
                    del ref
                for c, tout in zip(cases, touts):
                    label = f"{name[5:]:28s} {dt:4s} {c.shape}"
                    c.cannon()
                    cout = tuple(to_torch(torch, cannon, o) for o in c.outs)
                    ok, detail = compare(torch, c, dt, cout, tout)
                    if not ok:
                        failures.append({"op": name, "dtype": dt, "shape": c.shape, "detail": detail})
                        print(f"  MISMATCH {label}: {detail}", file=sys.stderr, flush=True)
                        continue
                    res = measure({"torch": c.torch, "cannon": c.cannon}, samples)
                    t, cm = statistics.median(res["torch"]), statistics.median(res["cannon"])
                    row = {"op": name, "family": family, "dtype": dt, "torch_dtype": c.tdtype, "shape": c.shape,
                           "size": size, "cannon_ms": cm * 1e3, "torch_ms": t * 1e3, "ratio": t / cm,
                           "cannon_min_ms": min(res["cannon"]) * 1e3, "torch_min_ms": min(res["torch"]) * 1e3,
                           "bytes": c.nbytes, "cannon_GBs": c.nbytes / cm / 1e9,
                           "floor_pct": 100.0 * (c.nbytes / copy_bw) / cm,
                           "cannon_GFLOPs": c.flops / cm / 1e9 if c.flops else None, "note": c.note}
                    rows.append(row)
                    print(f"  {label:60s} cannon {cm * 1e3:9.3f} ms  torch {t * 1e3:9.3f} ms  x{t / cm:5.2f}",
                          file=sys.stderr, flush=True)
                del cases
    json.dump({"threads": args.threads, "copy_GBs": copy_bw / 1e9, "rows": rows, "failures": failures},
              sys.stdout)


# ---- driver -----------------------------------------------------------------------------------------

def list_ops():
    for name, (family, dtypes, _) in sorted(BUILDERS.items()):
        print(f"{name:40s} {family:12s} {','.join(dtypes)}{'  (+ small)' if name in SMALL else ''}")
    print()
    for name, why in sorted(SKIPPED.items()):
        print(f"{name:40s} skipped: {why}")
    try:  # operators of the loaded libopapi this script does not know yet
        sys.path.insert(0, os.path.join(REPO, "python"))
        import cannon
        manifest = cannon.ops.manifest()
    except Exception as ex:  # noqa: BLE001 (no library: the lists above are complete for this script)
        print(f"\n(cannon not loaded: {ex})")
        return
    for name in sorted(set(manifest) - set(BUILDERS) - set(SKIPPED)):
        print(f"{name:40s} not covered")


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", help="comma-separated aclnn names (aclnnAdd or Add); default: all")
    ap.add_argument("--dtypes", default="fp32,fp16,bf16")
    ap.add_argument("--sizes", default="big,small", help="big (16-64 MiB operands, GFLOP matmuls), small")
    ap.add_argument("--samples", type=int, default=7)
    ap.add_argument("--threads", default=os.environ.get("CANNON_CPU_THREADS", "2"),
                    help="comma-separated thread counts, one worker each")
    ap.add_argument("--settle-ms", type=float, default=20.0)
    ap.add_argument("--default-malloc", action="store_true")
    ap.add_argument("--quick", action="store_true", help="tiny shapes, one sample: the smoke run")
    ap.add_argument("--json", help="write all rows to this file")
    ap.add_argument("--list", action="store_true", help="the operators covered and skipped")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.list:
        return list_ops()
    if args.worker:
        args.threads = int(args.threads)
        return worker(args)
    if not os.environ.get("CANNON_LIB_DIR") and not os.path.exists(os.path.join(REPO, "build", "lib")):
        sys.exit("set CANNON_LIB_DIR to the folder holding cannon's libraries")
    load0 = os.getloadavg()
    results = []
    for th in [int(t) for t in args.threads.split(",")]:
        env = dict(os.environ, CANNON_CPU_THREADS=str(th), OMP_NUM_THREADS=str(th))
        if not args.default_malloc:
            env.setdefault("MALLOC_MMAP_THRESHOLD_", str(32 << 20))
            env.setdefault("MALLOC_MMAP_MAX_", "0")
            env.setdefault("MALLOC_TRIM_THRESHOLD_", str(1 << 40))
        print(f"threads={th} load={os.getloadavg()[0]:.2f}", file=sys.stderr, flush=True)
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--threads", str(th),
               "--dtypes", args.dtypes, "--sizes", args.sizes, "--samples", str(args.samples),
               "--settle-ms", str(args.settle_ms)] + (["--ops", args.ops] if args.ops else []) + (
            ["--quick"] if args.quick else [])
        out = subprocess.run(cmd, env=env, check=True, stdout=subprocess.PIPE, text=True).stdout
        results.append(json.loads(out))
    load1 = os.getloadavg()
    print(f"\nload average (1 min) at start {load0[0]:.2f}, at end {load1[0]:.2f}\n")
    print("| operator | dtype | torch | shape | threads | cannon ms | torch ms | torch/cannon | cannon GB/s | "
          "% copy floor | cannon GFLOP/s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        for x in r["rows"]:
            tnote = x["torch_dtype"] + (" composed" if x["note"] else "")
            print(f"| {x['op'][5:]} | {x['dtype']} | {tnote} | {x['shape']} | {r['threads']} | "
                  f"{x['cannon_ms']:.3g} | {x['torch_ms']:.3g} | **{x['ratio']:.2f}** | {x['cannon_GBs']:.3g} | "
                  f"{x['floor_pct']:.0f} | {fmt(x['cannon_GFLOPs'], '.3g')} |")
    for r in results:
        print(f"copy floor: threads={r['threads']}: {r['copy_GBs']:.1f} GB/s")
    failures = [f for r in results for f in r["failures"]]
    for f in failures:
        print(f"MISMATCH {f['op']} {f['dtype']} {f['shape']}: {f['detail']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load_start": load0, "load_end": load1, "results": results}, f, indent=1)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
