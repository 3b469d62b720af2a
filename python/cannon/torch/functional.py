"""Functional forms of cannon.torch's compute ops, with autograd and the autocast policy of
``cannon.torch.amp`` (fp32 operands cast to bf16/fp16 inside ``autocast``; see amp's module doc).

    import cannon.torch.functional as CF
    y = CF.linear(x, w, b)            # aclnnMatmul + aclnnAdd; backward: two Matmuls
    h = CF.swiglu(CF.linear(x, w12))  # aclnnSwiGlu; backward: SiluBackward, Mul, Silu
    p = CF.softmax(s, -1)

Each one calls ``torch.ops.cannon.*`` (or the operator directly) on CPU tensors; nothing here
falls back to torch's kernels for the forward.
"""
import torch

from . import ops as O
from ._bridge import call, check_cpu, empty
from .amp import cast_fp32, cast_inputs, get_autocast_dtype
from .attention import flash_attention, rotary_embedding  # noqa: F401 (re-exported)

C = torch.ops.cannon


def matmul(a, b):
    """a @ b (numpy semantics; aclnnMatmul), both operands cast under autocast."""
    a, b = cast_inputs(a, b)
    if a.dtype != b.dtype:
        dt = torch.promote_types(a.dtype, b.dtype)
        a, b = a.to(dt), b.to(dt)
    return C.matmul(a, b)


def linear(x, weight, bias=None):
    """x @ weightᵀ + bias, as torch.nn.functional.linear. Under autocast x, weight and bias are cast to
    the autocast dtype (the weight stays an fp32 master copy; its gradient comes back in fp32)."""
    check_cpu(x, "input")
    check_cpu(weight, "weight")
    x, weight, bias = cast_inputs(x, weight, bias)
    if weight.dtype != x.dtype:
        weight = weight.to(x.dtype)
    if weight.dim() != 2 or x.dim() == 0 or x.shape[-1] != weight.shape[1]:
        raise ValueError(f"cannon: linear: input {list(x.shape)} and weight {list(weight.shape)} do not match "
                         f"([..., in] and [out, in])")
    lead = x.shape[:-1]
    x2 = x.reshape(-1, x.shape[-1])
    y = C.matmul(x2, weight.t())
    if bias is not None:
        y = C.add(y, bias.to(y.dtype))
    return y.reshape(tuple(lead) + (weight.shape[0],))


def softmax(x, dim=-1):
    """aclnnSoftmax (fp32 accumulation inside); cast to the autocast dtype under autocast."""
    (x,) = cast_inputs(x)
    return C.softmax(x, dim)


def log_softmax(x, dim=-1):
    """aclnnLogSoftmax; computed in fp32 under autocast (as torch's autocast)."""
    (x,) = cast_fp32(x)
    return C.log_softmax(x, dim)


def gelu(x, approximate="none"):
    (x,) = cast_inputs(x)
    return C.gelu(x, approximate=approximate)


def silu(x):
    (x,) = cast_inputs(x)
    return C.silu(x)


class _SwiGlu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        shape = list(x.shape)
        shape[dim] //= 2
        out = empty(shape, x.dtype)
        call("aclnnSwiGlu", x, dim, out)
        ctx.save_for_backward(x)
        ctx.dim = dim
        return out

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        h = x.shape[ctx.dim] // 2
        a, b = x.narrow(ctx.dim, 0, h), x.narrow(ctx.dim, h, h)
        g = g.to(x.dtype)
        # both halves written in place into one gradient tensor through strided views (no cat)
        dx = empty(x.shape, x.dtype)
        call("aclnnSiluBackward", O.mul_cpu(g, b), a, dx.narrow(ctx.dim, 0, h))   # g · b · silu'(a)
        call("aclnnMul", g, O.silu_cpu(a), dx.narrow(ctx.dim, h, h))              # g · silu(a)
        return dx, None


def swiglu(x, dim=-1):
    """silu(a) · b with a, b the first and second halves of x along @dim (aclnnSwiGlu), with autograd."""
    check_cpu(x, "x")
    (x,) = cast_inputs(x)
    dim = O._norm_dim(dim, x.dim())
    if x.shape[dim] % 2:
        raise ValueError(f"cannon: swiglu: x has odd size {x.shape[dim]} along dim {dim}")
    if O._needs_grad(x):
        return _SwiGlu.apply(x, dim)
    return _SwiGlu.forward(_NoCtx(), x, dim)


def silu_mul(gate, up):
    """silu(gate) · up (the SwiGLU product of two separate projections), with autograd."""
    gate, up = cast_inputs(gate, up)
    return C.mul(C.silu(gate), up)


class _NoCtx:
    def save_for_backward(self, *a):
        pass


def _norm_weight(w, x):
    return None if w is None else (w.to(x.dtype) if w.dtype != x.dtype else w)


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    """aclnnLayerNorm (mean and rstd in fp32); x cast to the autocast dtype under autocast, weight and
    bias cast to x's dtype for the call."""
    (x,) = cast_inputs(x)
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    return C.layer_norm(x, list(normalized_shape), _norm_weight(weight, x), _norm_weight(bias, x), eps)


def rms_norm(x, weight, eps=1e-6):
    """aclnnRmsNorm (rstd in fp32); x cast to the autocast dtype under autocast, weight cast to x's dtype."""
    (x,) = cast_inputs(x)
    return C.rms_norm(x, _norm_weight(weight, x), eps)


def embedding(indices, weight, padding_idx=None):
    """weight[indices] (aclnnEmbedding; backward aclnnEmbeddingDenseBackward). Not autocast: the result
    has the weight's dtype, as under torch's autocast."""
    return C.embedding(weight, indices, -1 if padding_idx is None else int(padding_idx))


def cross_entropy(logits, target, ignore_index=-100, reduction="mean"):
    """log_softmax over the last dim + nll_loss, in fp32 under autocast (as torch's autocast). logits
    [..., C], target [...] (int64)."""
    red = {"none": 0, "mean": 1, "sum": 2}.get(reduction)
    if red is None:
        raise ValueError(f"cannon: cross_entropy: reduction must be none, mean or sum, got {reduction!r}")
    (logits,) = cast_fp32(logits)
    lead = logits.shape[:-1]
    lp = C.log_softmax(logits.reshape(-1, logits.shape[-1]), 1)
    loss = C.nll_loss(lp, target.reshape(-1), None, red, int(ignore_index))
    return loss.reshape(lead) if red == 0 else loss


__all__ = ["matmul", "linear", "softmax", "log_softmax", "gelu", "silu", "swiglu", "silu_mul", "layer_norm",
           "rms_norm", "embedding", "cross_entropy", "flash_attention", "rotary_embedding", "get_autocast_dtype"]
