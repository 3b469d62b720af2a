"""cannon's aclnn operators as ``torch.ops.cannon.*`` (CPU kernels + autograd).

Each operator is declared with ``torch.library.Library("cannon", "DEF")``, implemented for the CPU
dispatch key by a Python function that hands the tensors to the aclnn operator zero-copy (see
``_bridge``), and, when differentiable, given an Autograd kernel: a ``torch.autograd.Function``
whose backward calls cannon's backward operator. The raw kernels are also importable from this
module (``softmax_cpu`` ...) for code that wants to skip the dispatcher.

Registered (``torch.ops.cannon.<name>``):

    softmax, log_softmax (+ .out), softmax_backward, log_softmax_backward
    batch_norm, native_batch_norm, native_batch_norm_backward
    batch_norm_stats, batch_norm_gather_stats_with_counts, batch_norm_elemt,
    batch_norm_backward_reduce, batch_norm_backward_elemt            (the SyncBatchNorm set)
    layer_norm, native_layer_norm, native_layer_norm_backward
    rms_norm, native_rms_norm, rms_norm_backward
    embedding, embedding_dense_backward
    add, mul, relu, gelu, gelu_backward, silu, silu_backward, matmul
    nll_loss, nll_loss_forward, nll_loss_backward
"""
import ctypes

import torch
from torch.library import Library

from . import _bridge as B
from ._bridge import BoolArray, Fmt, IntArray, Scalar, call, check_cpu, empty

_U64_NONE = (1 << 64) - 1
_RED = {"none": 0, "mean": 1, "sum": 2}


# ---- helpers ---------------------------------------------------------------------------------

def _norm_dim(dim, n, what="dim"):
    lo, hi = -max(n, 1), max(n, 1) - 1
    if not lo <= dim <= hi:
        raise IndexError(f"cannon: {what} {dim} is out of range [{lo}, {hi}]")
    return dim + n if dim < 0 and n else dim


def _needs_grad(*ts):
    if not torch.is_grad_enabled():
        return False
    return any(isinstance(t, torch.Tensor) and t.requires_grad for t in ts)


def _stats_tensor(C):
    return torch.empty((C,), dtype=torch.float32)


def _nhwc(t):
    """A channels-last 4-D tensor described as its contiguous NHWC storage (format NHWC)."""
    n, c, h, w = t.shape
    return Fmt(t, B.ACL_FORMAT_NHWC, (n, h, w, c), (h * w * c, w * c, c, 1))


def _is_channels_last(x):
    return x.dim() == 4 and not x.is_contiguous() and x.is_contiguous(memory_format=torch.channels_last)


def _bn_data_pair(x, *others):
    """Arguments for x and same-shaped tensors (grad_out) of the batch-norm family, and the memory
    format of the outputs. A channels-last x is described as NHWC storage, so the kernels stream
    it instead of gathering a strided NCHW view; the others then get the same layout (a copy when
    they do not have it)."""
    if not _is_channels_last(x):
        return (x,) + tuple(others), None
    res = [_nhwc(x)]
    for t in others:
        res.append(None if t is None else _nhwc(t.contiguous(memory_format=torch.channels_last)))
    return tuple(res), torch.channels_last


def _as_fmt(t, mf):
    return _nhwc(t) if mf is torch.channels_last else t


def _check_bn_input(x, what="input"):
    check_cpu(x, what)
    if x.dim() < 2:
        raise ValueError(f"cannon: batch norm expects a {what} with at least 2 dims (N, C, ...), got {x.dim()}-D")


# ---- softmax family --------------------------------------------------------------------------

def _softmax_like(name, x, dim, out=None):
    check_cpu(x, "self")
    dim = _norm_dim(dim, x.dim())
    if out is None:
        out = empty(x.shape, x.dtype)
    else:
        _check_out(out, x.shape, x.dtype)
    call(name, x, dim, out)
    return out


def _check_out(out, shape, dtype):
    check_cpu(out, "out")
    if out.dtype != dtype:
        raise TypeError(f"cannon: out has dtype {out.dtype}, expected {dtype}")
    if tuple(out.shape) != tuple(shape):
        if out.numel() == 0:
            out.resize_(shape)
        else:
            raise ValueError(f"cannon: out has shape {tuple(out.shape)}, expected {tuple(shape)}")


def softmax_cpu(x, dim):
    return _softmax_like("aclnnSoftmax", x, dim)


def softmax_out_cpu(x, dim, out):
    return _softmax_like("aclnnSoftmax", x, dim, out)


def log_softmax_cpu(x, dim):
    return _softmax_like("aclnnLogSoftmax", x, dim)


def log_softmax_out_cpu(x, dim, out):
    return _softmax_like("aclnnLogSoftmax", x, dim, out)


def _softmax_bwd(name, g, y, dim):
    check_cpu(g, "grad_output")
    check_cpu(y, "output")
    dim = _norm_dim(dim, y.dim())
    gi = empty(g.shape, g.dtype)
    call(name, g, y, dim, gi)
    return gi


def softmax_backward_cpu(grad_output, output, dim):
    return _softmax_bwd("aclnnSoftmaxBackward", grad_output, output, dim)


def log_softmax_backward_cpu(grad_output, output, dim):
    return _softmax_bwd("aclnnLogSoftmaxBackward", grad_output, output, dim)


class _Softmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, log):
        y = (log_softmax_cpu if log else softmax_cpu)(x, dim)
        ctx.save_for_backward(y)
        ctx.dim, ctx.log = dim, log
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        f = log_softmax_backward_cpu if ctx.log else softmax_backward_cpu
        return f(g, y, ctx.dim), None, None


def _softmax_ag(x, dim):
    return _Softmax.apply(x, dim, False) if _needs_grad(x) else softmax_cpu(x, dim)


def _log_softmax_ag(x, dim):
    return _Softmax.apply(x, dim, True) if _needs_grad(x) else log_softmax_cpu(x, dim)


# ---- batch norm ------------------------------------------------------------------------------

def native_batch_norm_cpu(x, weight, bias, running_mean, running_var, training, momentum, eps):
    """(out, save_mean, save_invstd); the running stats are updated in place when training."""
    _check_bn_input(x)
    if not training and (running_mean is None or running_var is None):
        raise ValueError("cannon: batch norm in eval mode needs running_mean and running_var")
    C = x.shape[1]
    (xa,), mf = _bn_data_pair(x)
    out = empty(x.shape, x.dtype, mf)
    sm, si = _stats_tensor(C), _stats_tensor(C)
    call("aclnnBatchNorm", xa, weight, bias, running_mean, running_var, bool(training), float(momentum), float(eps),
         _as_fmt(out, mf), sm, si)
    return out, sm, si


def native_batch_norm_backward_cpu(grad_out, x, weight, running_mean, running_var, save_mean, save_invstd, train,
                                   eps, output_mask):
    _check_bn_input(x)
    check_cpu(grad_out, "grad_out")
    C = x.shape[1]
    (xa, ga), mf = _bn_data_pair(x, grad_out)
    gi = empty(x.shape, x.dtype, mf) if output_mask[0] else None
    wdt = weight.dtype if weight is not None else torch.float32
    gw = empty((C,), wdt) if output_mask[1] else None
    gb = empty((C,), wdt) if output_mask[2] else None
    call("aclnnBatchNormBackward", ga, xa, weight, running_mean, running_var, save_mean, save_invstd, bool(train),
         float(eps), BoolArray(output_mask), _as_fmt(gi, mf) if gi is not None else None, gw, gb)
    return gi, gw, gb


class _BatchNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, running_mean, running_var, training, momentum, eps):
        out, sm, si = native_batch_norm_cpu(x, weight, bias, running_mean, running_var, training, momentum, eps)
        ctx.save_for_backward(x, weight, running_mean, running_var, sm, si)
        ctx.training, ctx.eps = training, eps
        ctx.has_bias = bias is not None
        return out

    @staticmethod
    def backward(ctx, g):
        x, weight, rm, rv, sm, si = ctx.saved_tensors
        need = ctx.needs_input_grad
        mask = [bool(need[0]), bool(need[1]) and weight is not None, bool(need[2]) and ctx.has_bias]
        if not any(mask):
            return (None,) * 8
        gi, gw, gb = native_batch_norm_backward_cpu(g, x, weight, rm, rv, sm, si, ctx.training, ctx.eps, mask)
        return gi, gw, gb, None, None, None, None, None


def batch_norm_cpu(x, weight, bias, running_mean, running_var, training, momentum, eps):
    return native_batch_norm_cpu(x, weight, bias, running_mean, running_var, training, momentum, eps)[0]


def _batch_norm_ag(x, weight, bias, running_mean, running_var, training, momentum, eps):
    if _needs_grad(x, weight, bias):
        return _BatchNorm.apply(x, weight, bias, running_mean, running_var, training, momentum, eps)
    return batch_norm_cpu(x, weight, bias, running_mean, running_var, training, momentum, eps)


# ---- the SyncBatchNorm set -------------------------------------------------------------------

def batch_norm_stats_cpu(x, eps):
    _check_bn_input(x)
    C = x.shape[1]
    (xa,), _ = _bn_data_pair(x)
    mean, invstd = _stats_tensor(C), _stats_tensor(C)
    call("aclnnBatchNormStats", xa, float(eps), mean, invstd)
    return mean, invstd


def batch_norm_gather_stats_with_counts_cpu(x, mean, invstd, running_mean, running_var, momentum, eps, counts):
    _check_bn_input(x)
    C = x.shape[1]
    (xa,), _ = _bn_data_pair(x)
    ma, ia = _stats_tensor(C), _stats_tensor(C)
    call("aclnnBatchNormGatherStatsWithCounts", xa, mean, invstd, running_mean, running_var, float(momentum),
         float(eps), counts, ma, ia)
    return ma, ia


def batch_norm_elemt_cpu(x, weight, bias, mean, invstd, eps):
    _check_bn_input(x)
    (xa,), mf = _bn_data_pair(x)
    out = empty(x.shape, x.dtype, mf)
    call("aclnnBatchNormElemt", xa, weight, bias, mean, invstd, float(eps), _as_fmt(out, mf))
    return out


def batch_norm_backward_reduce_cpu(grad_out, x, mean, invstd, weight, input_g, weight_g, bias_g):
    """(sum_dy, sum_dy_xmu, grad_weight, grad_bias); entries gated off are empty tensors (as torch)."""
    _check_bn_input(x)
    check_cpu(grad_out, "grad_out")
    C = x.shape[1]
    (xa, ga), _ = _bn_data_pair(x, grad_out)
    wdt = weight.dtype if weight is not None else torch.float32
    sdy, sdx = _stats_tensor(C), _stats_tensor(C)
    gw = torch.empty((C,), dtype=wdt)
    gb = torch.empty((C,), dtype=wdt)
    call("aclnnBatchNormReduceBackward", ga, xa, mean, invstd, weight, bool(input_g), bool(weight_g), bool(bias_g),
         sdy, sdx, gw, gb)
    e = torch.empty(0)
    return (sdy if input_g else e, sdx if input_g else e, gw if weight_g else e, gb if bias_g else e)


def batch_norm_backward_elemt_cpu(grad_out, x, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    _check_bn_input(x)
    check_cpu(grad_out, "grad_out")
    (xa, ga), mf = _bn_data_pair(x, grad_out)
    gi = empty(x.shape, x.dtype, mf)
    call("aclnnBatchNormElemtBackward", ga, xa, mean, invstd, weight, sum_dy, sum_dy_xmu, count, _as_fmt(gi, mf))
    return gi


# ---- layer norm / rms norm -------------------------------------------------------------------

def _ln_shapes(x, normalized_shape):
    ns = [int(normalized_shape)] if isinstance(normalized_shape, int) else [int(s) for s in normalized_shape]
    k = len(ns)
    if k == 0 or k > x.dim() or list(x.shape[x.dim() - k:]) != ns:
        raise ValueError(f"cannon: normalized_shape {ns} does not match the trailing dims of input {list(x.shape)}")
    return ns, tuple(x.shape[:x.dim() - k]) + (1,) * k


def native_layer_norm_cpu(x, normalized_shape, weight, bias, eps):
    check_cpu(x, "input")
    ns, st = _ln_shapes(x, normalized_shape)
    out = empty(x.shape, x.dtype)
    mean, rstd = torch.empty(st, dtype=torch.float32), torch.empty(st, dtype=torch.float32)
    call("aclnnLayerNorm", x, IntArray(ns), weight, bias, float(eps), out, mean, rstd)
    return out, mean, rstd


def native_layer_norm_backward_cpu(grad_out, x, normalized_shape, mean, rstd, weight, bias, output_mask):
    check_cpu(x, "input")
    check_cpu(grad_out, "grad_out")
    ns, _ = _ln_shapes(x, normalized_shape)
    gi = empty(x.shape, x.dtype) if output_mask[0] else None
    gw = empty(ns, weight.dtype if weight is not None else torch.float32) if output_mask[1] else None
    gb = empty(ns, bias.dtype if bias is not None else torch.float32) if output_mask[2] else None
    call("aclnnLayerNormBackward", grad_out, x, IntArray(ns), mean, rstd, weight, bias, BoolArray(output_mask),
         gi, gw, gb)
    return gi, gw, gb


class _LayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, normalized_shape, weight, bias, eps):
        out, mean, rstd = native_layer_norm_cpu(x, normalized_shape, weight, bias, eps)
        ctx.save_for_backward(x, mean, rstd, weight, bias)
        ctx.ns = list(normalized_shape)
        return out

    @staticmethod
    def backward(ctx, g):
        x, mean, rstd, weight, bias = ctx.saved_tensors
        need = ctx.needs_input_grad
        mask = [bool(need[0]), bool(need[2]) and weight is not None, bool(need[3]) and bias is not None]
        if not any(mask):
            return (None,) * 5
        gi, gw, gb = native_layer_norm_backward_cpu(g, x, ctx.ns, mean, rstd, weight, bias, mask)
        return gi, None, gw, gb, None


def layer_norm_cpu(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    return native_layer_norm_cpu(x, normalized_shape, weight, bias, eps)[0]


def _layer_norm_ag(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    if _needs_grad(x, weight, bias):
        return _LayerNorm.apply(x, normalized_shape, weight, bias, eps)
    return layer_norm_cpu(x, normalized_shape, weight, bias, eps)


def native_rms_norm_cpu(x, gamma, eps):
    check_cpu(x, "input")
    check_cpu(gamma, "gamma")
    g = gamma.dim()
    if g == 0 or g > x.dim() or tuple(x.shape[x.dim() - g:]) != tuple(gamma.shape):
        raise ValueError(f"cannon: gamma {list(gamma.shape)} does not match the trailing dims of input "
                         f"{list(x.shape)}")
    y = empty(x.shape, x.dtype)
    rstd = torch.empty(tuple(x.shape[:x.dim() - g]) + (1,) * g, dtype=torch.float32)
    call("aclnnRmsNorm", x, gamma, float(eps), y, rstd)
    return y, rstd


def rms_norm_backward_cpu(dy, x, rstd, gamma):
    check_cpu(dy, "dy")
    check_cpu(x, "input")
    dx, dg = empty(x.shape, x.dtype), torch.empty(gamma.shape, dtype=gamma.dtype)
    call("aclnnRmsNormGrad", dy, x, rstd, gamma, dx, dg)
    return dx, dg


class _RmsNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, gamma, eps):
        y, rstd = native_rms_norm_cpu(x, gamma, eps)
        ctx.save_for_backward(x, rstd, gamma)
        return y

    @staticmethod
    def backward(ctx, g):
        x, rstd, gamma = ctx.saved_tensors
        dx, dg = rms_norm_backward_cpu(g, x, rstd, gamma)
        need = ctx.needs_input_grad
        return dx if need[0] else None, dg if need[1] else None, None


def rms_norm_cpu(x, gamma, eps=1e-6):
    return native_rms_norm_cpu(x, gamma, eps)[0]


def _rms_norm_ag(x, gamma, eps=1e-6):
    return _RmsNorm.apply(x, gamma, eps) if _needs_grad(x, gamma) else rms_norm_cpu(x, gamma, eps)


# ---- embedding -------------------------------------------------------------------------------

def embedding_cpu(weight, indices, padding_idx=-1, scale_grad_by_freq=False):
    check_cpu(weight, "weight")
    check_cpu(indices, "indices")
    if weight.dim() != 2:
        raise ValueError(f"cannon: embedding weight must be 2-D, got {weight.dim()}-D")
    if indices.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"cannon: embedding indices must be int64 or int32, got {indices.dtype}")
    out = empty(tuple(indices.shape) + (weight.shape[1],), weight.dtype)
    call("aclnnEmbedding", weight, indices, out)
    return out


def embedding_dense_backward_cpu(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
    check_cpu(grad_output, "grad_output")
    check_cpu(indices, "indices")
    if indices.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"cannon: embedding indices must be int64 or int32, got {indices.dtype}")
    num_weights = int(num_weights)
    if num_weights < 0:
        raise ValueError(f"cannon: num_weights {num_weights} is negative")
    # torch's convention: a negative padding_idx counts from the end, except -1 ("none") in the
    # aten op's signature
    pad = _U64_NONE if padding_idx is None or padding_idx == -1 else (
        padding_idx + num_weights if padding_idx < 0 else padding_idx)
    out = empty((num_weights, grad_output.shape[-1]), grad_output.dtype)
    call("aclnnEmbeddingDenseBackward", grad_output, indices, ctypes.c_uint64(num_weights),
         ctypes.c_uint64(pad % (1 << 64)), bool(scale_grad_by_freq), out)
    return out


class _Embedding(torch.autograd.Function):
    @staticmethod
    def forward(ctx, weight, indices, padding_idx, scale_grad_by_freq):
        ctx.save_for_backward(indices)
        ctx.n, ctx.pad, ctx.scale = weight.shape[0], padding_idx, scale_grad_by_freq
        return embedding_cpu(weight, indices, padding_idx, scale_grad_by_freq)

    @staticmethod
    def backward(ctx, g):
        (indices,) = ctx.saved_tensors
        return embedding_dense_backward_cpu(g, indices, ctx.n, ctx.pad, ctx.scale), None, None, None


def _embedding_ag(weight, indices, padding_idx=-1, scale_grad_by_freq=False):
    if _needs_grad(weight):
        return _Embedding.apply(weight, indices, padding_idx, scale_grad_by_freq)
    return embedding_cpu(weight, indices, padding_idx, scale_grad_by_freq)


# ---- elementwise, activations, matmul ------------------------------------------------------

def _binary_out_dtype(a, b):
    return torch.result_type(a, b)


def _scalar_dtype(v):
    return torch.bool if isinstance(v, bool) else (torch.int64 if isinstance(v, int) else torch.float32)


def add_cpu(a, b, alpha=1):
    check_cpu(a, "self")
    check_cpu(b, "other")
    out = empty(torch.broadcast_shapes(a.shape, b.shape), _binary_out_dtype(a, b))
    call("aclnnAdd", a, b, Scalar(alpha, _scalar_dtype(alpha)), out)
    return out


def mul_cpu(a, b):
    check_cpu(a, "self")
    check_cpu(b, "other")
    out = empty(torch.broadcast_shapes(a.shape, b.shape), _binary_out_dtype(a, b))
    call("aclnnMul", a, b, out)
    return out


def _reduce_to(g, shape):
    """Sum a broadcast gradient back to @shape (torch does the reduction)."""
    return g if tuple(g.shape) == tuple(shape) else g.sum_to_size(shape)


class _Add(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, alpha):
        ctx.sa, ctx.sb, ctx.alpha = a.shape, b.shape, alpha
        ctx.da, ctx.db = a.dtype, b.dtype
        return add_cpu(a, b, alpha)

    @staticmethod
    def backward(ctx, g):
        need = ctx.needs_input_grad
        ga = _reduce_to(g, ctx.sa).to(ctx.da) if need[0] else None
        gb = None
        if need[1]:
            gb = g if ctx.alpha == 1 else mul_cpu(g, torch.tensor(ctx.alpha, dtype=g.dtype))
            gb = _reduce_to(gb, ctx.sb).to(ctx.db)
        return ga, gb, None


class _Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return mul_cpu(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need = ctx.needs_input_grad
        ga = _reduce_to(mul_cpu(g, b), a.shape).to(a.dtype) if need[0] else None
        gb = _reduce_to(mul_cpu(g, a), b.shape).to(b.dtype) if need[1] else None
        return ga, gb


def _add_ag(a, b, alpha=1):
    return _Add.apply(a, b, alpha) if _needs_grad(a, b) else add_cpu(a, b, alpha)


def _mul_ag(a, b):
    return _Mul.apply(a, b) if _needs_grad(a, b) else mul_cpu(a, b)


def _unary(name, x):
    check_cpu(x, "self")
    out = empty(x.shape, x.dtype)
    call(name, x, out)
    return out


def relu_cpu(x):
    return _unary("aclnnRelu", x)


def silu_cpu(x):
    return _unary("aclnnSilu", x)


def _check_approx(approximate):
    if approximate not in ("none", "tanh"):
        raise ValueError(f"cannon: gelu approximate must be 'none' or 'tanh', got {approximate!r}")


def gelu_cpu(x, approximate="none"):
    _check_approx(approximate)
    if approximate == "tanh":
        return _unary("aclnnGelu", x)
    check_cpu(x, "self")
    out = empty(x.shape, x.dtype)
    call("aclnnGeluV2", x, 0, out)
    return out


def gelu_backward_cpu(grad_output, x, approximate="none"):
    _check_approx(approximate)
    if approximate == "none":
        # aclnnGeluBackward is the tanh form's derivative (as CANN's); the erf form's comes from torch
        return torch.ops.aten.gelu_backward(grad_output, x, approximate="none")
    check_cpu(grad_output, "grad_output")
    check_cpu(x, "self")
    out = empty(torch.broadcast_shapes(grad_output.shape, x.shape), torch.result_type(grad_output, x))
    call("aclnnGeluBackward", grad_output, x, out)
    return out


def silu_backward_cpu(grad_output, x):
    check_cpu(grad_output, "grad_output")
    check_cpu(x, "self")
    out = empty(grad_output.shape, grad_output.dtype)
    call("aclnnSiluBackward", grad_output, x, out)
    return out


def relu_backward_cpu(grad_output, x):
    out = empty(grad_output.shape, grad_output.dtype)
    call("aclnnThresholdBackward", grad_output, x, Scalar(0.0, torch.float32), out)
    return out


class _Act(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, kind, approximate):
        ctx.kind, ctx.approximate = kind, approximate
        if kind == "relu":
            y = relu_cpu(x)
            ctx.save_for_backward(y)  # relu's gradient mask is y > 0 as well as x > 0
        else:
            ctx.save_for_backward(x)
            y = gelu_cpu(x, approximate) if kind == "gelu" else silu_cpu(x)
        return y

    @staticmethod
    def backward(ctx, g):
        (s,) = ctx.saved_tensors
        if ctx.kind == "relu":
            gi = relu_backward_cpu(g, s)
        elif ctx.kind == "gelu":
            gi = gelu_backward_cpu(g, s, ctx.approximate)
        else:
            gi = silu_backward_cpu(g, s)
        return gi, None, None


def _relu_ag(x):
    return _Act.apply(x, "relu", None) if _needs_grad(x) else relu_cpu(x)


def _gelu_ag(x, approximate="none"):
    return _Act.apply(x, "gelu", approximate) if _needs_grad(x) else gelu_cpu(x, approximate)


def _silu_ag(x):
    return _Act.apply(x, "silu", None) if _needs_grad(x) else silu_cpu(x)


def _matmul_shape(a, b):
    if a.dim() == 0 or b.dim() == 0:
        raise ValueError("cannon: matmul of a 0-d tensor")
    a2 = (1,) + tuple(a.shape) if a.dim() == 1 else tuple(a.shape)
    b2 = tuple(b.shape) + (1,) if b.dim() == 1 else tuple(b.shape)
    if a2[-1] != b2[-2]:
        raise ValueError(f"cannon: matmul: inner dimensions differ: {list(a.shape)} @ {list(b.shape)}")
    shape = tuple(torch.broadcast_shapes(a2[:-2], b2[:-2])) + (a2[-2], b2[-1])
    if a.dim() == 1:
        shape = shape[:-2] + shape[-1:]
    if b.dim() == 1:
        shape = shape[:-1]
    return shape


def matmul_cpu(a, b):
    check_cpu(a, "self")
    check_cpu(b, "other")
    out = empty(_matmul_shape(a, b), torch.promote_types(a.dtype, b.dtype))
    call("aclnnMatmul", a, b, out, ctypes.c_int8(0))
    return out


class _Matmul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return matmul_cpu(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need = ctx.needs_input_grad
        # 1-D operands behave as a row (a) or a column (b) vector; lift them so the products
        # below are plain (batched) matrix products, transposes passed as strided views.
        a2 = a.unsqueeze(0) if a.dim() == 1 else a
        b2 = b.unsqueeze(-1) if b.dim() == 1 else b
        g2 = g
        if a.dim() == 1:
            g2 = g2.unsqueeze(-2)
        if b.dim() == 1:
            g2 = g2.unsqueeze(-1)
        ga = gb = None
        if need[0]:
            ga = _reduce_to(matmul_cpu(g2, b2.transpose(-1, -2)), a2.shape)
            ga = ga.reshape(a.shape)
        if need[1]:
            gb = _reduce_to(matmul_cpu(a2.transpose(-1, -2), g2), b2.shape)
            gb = gb.reshape(b.shape)
        return ga, gb


def _matmul_ag(a, b):
    return _Matmul.apply(a, b) if _needs_grad(a, b) else matmul_cpu(a, b)


# ---- nll loss --------------------------------------------------------------------------------

def _nll_args(x, target, weight, reduction):
    check_cpu(x, "self")
    check_cpu(target, "target")
    if x.dim() not in (1, 2):
        raise ValueError(f"cannon: nll_loss expects a 1-D or 2-D input, got {x.dim()}-D")
    if reduction not in (0, 1, 2):
        raise ValueError(f"cannon: nll_loss reduction must be 0 (none), 1 (mean) or 2 (sum), got {reduction}")
    if weight is None:
        weight = torch.ones(x.shape[-1], dtype=x.dtype)
    return weight


def nll_loss_forward_cpu(x, target, weight, reduction, ignore_index):
    """(loss, total_weight), as aten.nll_loss_forward."""
    weight = _nll_args(x, target, weight, reduction)
    oshape = (x.shape[0],) if reduction == 0 and x.dim() == 2 else ()
    out, tw = torch.empty(oshape, dtype=x.dtype), torch.empty((), dtype=x.dtype)
    call("aclnnNLLLoss", x, target, weight, int(reduction), int(ignore_index), out, tw)
    return out, tw


def nll_loss_backward_cpu(grad_output, x, target, weight, reduction, ignore_index, total_weight):
    weight = _nll_args(x, target, weight, reduction)
    out = empty(x.shape, x.dtype)
    call("aclnnNLLLossBackward", grad_output, x, target, weight, int(reduction), int(ignore_index), total_weight, out)
    return out


class _NLLLoss(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, target, weight, reduction, ignore_index):
        loss, tw = nll_loss_forward_cpu(x, target, weight, reduction, ignore_index)
        ctx.save_for_backward(x, target, weight, tw)
        ctx.reduction, ctx.ignore_index = reduction, ignore_index
        return loss

    @staticmethod
    def backward(ctx, g):
        x, target, weight, tw = ctx.saved_tensors
        gi = nll_loss_backward_cpu(g.contiguous(), x, target, weight, ctx.reduction, ctx.ignore_index, tw)
        return gi, None, None, None, None


def nll_loss_cpu(x, target, weight=None, reduction=1, ignore_index=-100):
    return nll_loss_forward_cpu(x, target, weight, reduction, ignore_index)[0]


def _nll_loss_ag(x, target, weight=None, reduction=1, ignore_index=-100):
    if _needs_grad(x):
        return _NLLLoss.apply(x, target, weight, reduction, ignore_index)
    return nll_loss_cpu(x, target, weight, reduction, ignore_index)


# ---- registration ----------------------------------------------------------------------------

# The dispatcher leaves out arguments equal to their schema default when it calls a Python
# kernel, so every kernel repeats the schema's defaults.
_SCHEMAS = [
    # (schema, CPU kernel, Autograd kernel or None)
    ("softmax(Tensor self, int dim) -> Tensor", softmax_cpu, _softmax_ag),
    ("softmax.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)", softmax_out_cpu, None),
    ("log_softmax(Tensor self, int dim) -> Tensor", log_softmax_cpu, _log_softmax_ag),
    ("log_softmax.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)", log_softmax_out_cpu, None),
    ("softmax_backward(Tensor grad_output, Tensor output, int dim) -> Tensor", softmax_backward_cpu, None),
    ("log_softmax_backward(Tensor grad_output, Tensor output, int dim) -> Tensor", log_softmax_backward_cpu, None),
    ("batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!)? running_mean, Tensor(b!)? running_var, "
     "bool training, float momentum, float eps) -> Tensor", batch_norm_cpu, _batch_norm_ag),
    ("native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!)? running_mean, "
     "Tensor(b!)? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
     native_batch_norm_cpu, None),
    ("native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, "
     "Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, bool[3] output_mask) "
     "-> (Tensor?, Tensor?, Tensor?)", native_batch_norm_backward_cpu, None),
    ("batch_norm_stats(Tensor input, float eps) -> (Tensor, Tensor)", batch_norm_stats_cpu, None),
    ("batch_norm_gather_stats_with_counts(Tensor input, Tensor mean, Tensor invstd, Tensor(a!)? running_mean, "
     "Tensor(b!)? running_var, float momentum, float eps, Tensor counts) -> (Tensor, Tensor)",
     batch_norm_gather_stats_with_counts_cpu, None),
    ("batch_norm_elemt(Tensor input, Tensor? weight, Tensor? bias, Tensor mean, Tensor invstd, float eps) -> Tensor",
     batch_norm_elemt_cpu, None),
    ("batch_norm_backward_reduce(Tensor grad_out, Tensor input, Tensor mean, Tensor invstd, Tensor? weight, "
     "bool input_g, bool weight_g, bool bias_g) -> (Tensor, Tensor, Tensor, Tensor)",
     batch_norm_backward_reduce_cpu, None),
    ("batch_norm_backward_elemt(Tensor grad_out, Tensor input, Tensor mean, Tensor invstd, Tensor? weight, "
     "Tensor sum_dy, Tensor sum_dy_xmu, Tensor count) -> Tensor", batch_norm_backward_elemt_cpu, None),
    ("layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05) "
     "-> Tensor", layer_norm_cpu, _layer_norm_ag),
    ("native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, float eps) "
     "-> (Tensor, Tensor, Tensor)", native_layer_norm_cpu, None),
    ("native_layer_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, Tensor mean, Tensor rstd, "
     "Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor?, Tensor?, Tensor?)",
     native_layer_norm_backward_cpu, None),
    ("rms_norm(Tensor input, Tensor gamma, float eps=1e-06) -> Tensor", rms_norm_cpu, _rms_norm_ag),
    ("native_rms_norm(Tensor input, Tensor gamma, float eps) -> (Tensor, Tensor)", native_rms_norm_cpu, None),
    ("rms_norm_backward(Tensor dy, Tensor input, Tensor rstd, Tensor gamma) -> (Tensor, Tensor)",
     rms_norm_backward_cpu, None),
    ("embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False) -> Tensor",
     embedding_cpu, _embedding_ag),
    ("embedding_dense_backward(Tensor grad_output, Tensor indices, int num_weights, int padding_idx, "
     "bool scale_grad_by_freq) -> Tensor", embedding_dense_backward_cpu, None),
    ("add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", add_cpu, _add_ag),
    ("mul(Tensor self, Tensor other) -> Tensor", mul_cpu, _mul_ag),
    ("relu(Tensor self) -> Tensor", relu_cpu, _relu_ag),
    ("gelu(Tensor self, *, str approximate='none') -> Tensor", gelu_cpu, _gelu_ag),
    ("gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor", gelu_backward_cpu, None),
    ("silu(Tensor self) -> Tensor", silu_cpu, _silu_ag),
    ("silu_backward(Tensor grad_output, Tensor self) -> Tensor", silu_backward_cpu, None),
    ("matmul(Tensor self, Tensor other) -> Tensor", matmul_cpu, _matmul_ag),
    ("nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, int ignore_index=-100) -> Tensor",
     nll_loss_cpu, _nll_loss_ag),
    ("nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, int ignore_index) "
     "-> (Tensor, Tensor)", nll_loss_forward_cpu, None),
    ("nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
     "int ignore_index, Tensor total_weight) -> Tensor", nll_loss_backward_cpu, None),
]

OPS = sorted({s.split("(")[0] for s, _, _ in _SCHEMAS})

_lib = None


def register():
    """Declare the ``cannon`` namespace and its kernels (idempotent; done on import)."""
    global _lib
    if _lib is not None:
        return _lib
    if torch._C._dispatch_has_kernel("cannon::softmax") and \
            torch._C._dispatch_has_kernel_for_dispatch_key("cannon::softmax", "CPU"):
        # registered by another copy of this module (importlib.reload, or two import paths): a
        # second "DEF" library of the namespace would corrupt the registrations
        return None
    lib = Library("cannon", "DEF")
    for schema, cpu, ag in _SCHEMAS:
        lib.define(schema)
        name = schema.split("(")[0]
        lib.impl(name, cpu, "CPU")
        if ag is not None:
            lib.impl(name, ag, "Autograd")
    _lib = lib  # the Library object must stay alive: its destruction unregisters the kernels
    return lib
