"""The operator table the model calls through, and the training pieces around it.

Two backends share one interface (see model.py for the calls):

- ``TorchBackend``: torch's own CPU operators. Run in fp32, or inside
  ``torch.autocast("cpu", dtype=torch.bfloat16)`` for torch's bf16 autocast path. Attention is
  torch 1.13's matmul-softmax-matmul (it has no fused attention).
- ``CannonBackend``: cannon's aclnn operators in bf16 with fp32 master weights: matmuls through
  aclnnMatmul (bf16 GEMM), attention through aclnnFlashAttentionScore / ...Grad (BNSD, grouped
  heads, no S x S matrix), rotary through aclnnRotaryPositionEmbedding / ...Grad, LayerNorm,
  RMSNorm, GELU, SwiGLU, embedding and the loss through their aclnn operators. Every layer casts
  its fp32 weights to bf16 on the way in; their gradients come back to fp32 through the casts.

``CannonBackend(slots=...)`` replaces any of its operators by the torch one (``slots="torch"``
replaces all): the same model and training loop then run with torch functions in the cannon
slots, which is how the step-equality test pins what each cannon operator contributes.

Optimizers and loss scaling: ``make_optimizer("torch", ...)`` is torch.optim.AdamW;
``make_optimizer("cannon", ...)`` is ``FlatAdamW``: the parameters and their gradients are
views into two flat fp32 buffers, so a step is one aclnnApplyAdamWV2 call over the whole model,
and ``LossScaler`` unscales the flat gradient buffer with one aclnnForeachNonFiniteCheckAndUnscale
and updates the scale with aclnnAmpUpdateScale (an overflowing step is skipped and the scale
halved, as torch's GradScaler does).

When ``cannon.torch`` provides ``flash_attention``, ``rotary_embedding``, ``amp.GradScaler`` and
``optim.AdamW``, the cannon backend uses them instead of the calls written out here.
"""
import ctypes
import math

import torch
import torch.nn.functional as F

BF16 = torch.bfloat16


# ---- torch ------------------------------------------------------------------------------------

def _rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], dim=-1)


class TorchBackend:
    name = "torch"

    @staticmethod
    def linear(x, w, b=None):
        return F.linear(x, w, b)

    @staticmethod
    def layer_norm(x, w, b, eps):
        return F.layer_norm(x, (x.shape[-1],), w, b, eps)

    @staticmethod
    def rms_norm(x, w, eps):
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
        return y.to(x.dtype) * w.to(x.dtype)

    @staticmethod
    def gelu(x):
        return F.gelu(x)

    @staticmethod
    def swiglu(x):
        a, b = x.chunk(2, dim=-1)
        return F.silu(a) * b

    @staticmethod
    def attention(q, k, v, causal=False, scale=None):
        """softmax(q k^T * scale) v over BNSD tensors, key/value heads shared by groups of query heads."""
        N, Nkv, S, D = q.shape[1], k.shape[1], q.shape[2], q.shape[3]
        if Nkv != N:
            k = k.repeat_interleave(N // Nkv, dim=1)
            v = v.repeat_interleave(N // Nkv, dim=1)
        scale = 1.0 / math.sqrt(D) if scale is None else scale
        s = torch.matmul(q, k.transpose(-1, -2)) * scale
        if causal:
            Skv = k.shape[2]
            mask = torch.ones(S, Skv, dtype=torch.bool).triu(Skv - S + 1)
            s = s.masked_fill(mask, float("-inf"))
        p = torch.softmax(s.float(), dim=-1).to(v.dtype)
        return torch.matmul(p, v)

    @staticmethod
    def rotary(x, cos, sin):
        return x * cos.to(x.dtype) + _rotate_half(x) * sin.to(x.dtype)

    @staticmethod
    def embedding(w, ids):
        return F.embedding(ids, w)

    @staticmethod
    def cross_entropy(logits, target):
        return F.cross_entropy(logits.float(), target)


# ---- cannon -----------------------------------------------------------------------------------

def _cannon():
    import cannon.torch  # noqa: F401  (registers torch.ops.cannon)
    from cannon.torch import _bridge, ops
    return _bridge, ops


class _Linear(torch.autograd.Function):
    """y = x W^T + b with x, W cast to bf16 and one aclnnMatmul; dx, dW by two more."""

    @staticmethod
    def forward(ctx, x, w, b):
        B, o = _cannon()
        xb = x.to(BF16)
        wb = w.to(BF16)
        x2 = xb.reshape(-1, xb.shape[-1])
        y = o.matmul_cpu(x2, wb.t())
        if b is not None:
            y += b.to(BF16)
        ctx.save_for_backward(x2, wb)
        ctx.x_shape, ctx.x_dtype, ctx.has_b = x.shape, x.dtype, b is not None
        return y.view(*x.shape[:-1], w.shape[0])

    @staticmethod
    def backward(ctx, g):
        B, o = _cannon()
        x2, wb = ctx.saved_tensors
        g2 = g.reshape(-1, g.shape[-1])
        if g2.dtype != BF16:
            g2 = g2.to(BF16)
        need = ctx.needs_input_grad
        dx = dw = db = None
        if need[0]:
            dx = o.matmul_cpu(g2, wb).view(ctx.x_shape).to(ctx.x_dtype)
        if need[1]:
            dw = o.matmul_cpu(g2.t(), x2).float()
        if ctx.has_b and need[2]:
            db = g2.sum(0, dtype=torch.float32)
        return dx, dw, db


_CAUSAL_MASK = None


def _causal_mask():
    """The 2048 x 2048 mask that sparseMode 2 requires (its content is implied by the mode)."""
    global _CAUSAL_MASK
    if _CAUSAL_MASK is None:
        _CAUSAL_MASK = torch.ones(2048, 2048, dtype=torch.bool).triu(1)
    return _CAUSAL_MASK


def _fa_args(q, k, causal):
    if causal:
        return _causal_mask(), 2  # attenMask, sparseMode 2: key j <= query i
    return None, 0


class _FlashAttention(torch.autograd.Function):
    """aclnnFlashAttentionScore / ...Grad on BNSD tensors (grouped heads when k, v have fewer)."""

    @staticmethod
    def forward(ctx, q, k, v, causal, scale):
        Bm, _ = _cannon()
        Bn, N, S, D = q.shape
        out = Bm.empty(q.shape, q.dtype)
        smax = torch.empty((Bn, N, S, 8), dtype=torch.float32)
        ssum = torch.empty((Bn, N, S, 8), dtype=torch.float32)
        mask, mode = _fa_args(q, k, causal)
        Bm.call("aclnnFlashAttentionScore", q, k, v, None, None, None, mask, None, float(scale), 1.0,
                2147483647, 2147483647, N, ctypes.c_char_p(b"BNSD"), 0, mode, smax, ssum, None, out)
        ctx.save_for_backward(q, k, v, out, smax, ssum)
        ctx.causal, ctx.scale = causal, scale
        return out

    @staticmethod
    def backward(ctx, dy):
        Bm, _ = _cannon()
        q, k, v, out, smax, ssum = ctx.saved_tensors
        if dy.dtype != q.dtype:
            dy = dy.to(q.dtype)
        dq, dk, dv = Bm.empty(q.shape, q.dtype), Bm.empty(k.shape, k.dtype), Bm.empty(v.shape, v.dtype)
        mask, mode = _fa_args(q, k, ctx.causal)
        Bm.call("aclnnFlashAttentionScoreGrad", q, k, v, dy, None, None, None, mask, smax, ssum, None, out, None,
                float(ctx.scale), 1.0, 2147483647, 2147483647, q.shape[1], ctypes.c_char_p(b"BNSD"), 0, mode,
                dq, dk, dv, None)
        return dq, dk, dv, None, None


class _Rotary(torch.autograd.Function):
    """aclnnRotaryPositionEmbedding (half mode) and its grad; cos, sin are constants."""

    @staticmethod
    def forward(ctx, x, cos, sin):
        Bm, _ = _cannon()
        out = Bm.empty(x.shape, x.dtype)
        Bm.call("aclnnRotaryPositionEmbedding", x, cos, sin, 0, out)
        ctx.save_for_backward(cos, sin)
        return out

    @staticmethod
    def backward(ctx, dy):
        Bm, _ = _cannon()
        cos, sin = ctx.saved_tensors
        dx = Bm.empty(dy.shape, dy.dtype)
        Bm.call("aclnnRotaryPositionEmbeddingGrad", dy, cos, sin, None, 0, dx, None, None)
        return dx, None, None


class _SwiGlu(torch.autograd.Function):
    """aclnnSwiGlu forward (silu(a) * b of the two halves); the backward (no aclnn grad operator
    in cannon) through aclnnSilu / aclnnSiluBackward and aclnnMul."""

    @staticmethod
    def forward(ctx, x):
        Bm, o = _cannon()
        shape = x.shape[:-1] + (x.shape[-1] // 2,)
        out = Bm.empty(shape, x.dtype)
        Bm.call("aclnnSwiGlu", x, -1, out)
        ctx.save_for_backward(x)
        return out

    @staticmethod
    def backward(ctx, g):
        Bm, o = _cannon()
        (x,) = ctx.saved_tensors
        h = x.shape[-1] // 2
        a, b = x[..., :h], x[..., h:]
        da = o.silu_backward_cpu(o.mul_cpu(g, b), a)
        db = o.mul_cpu(g, o.silu_cpu(a))
        return torch.cat([da, db], dim=-1)


def _cannon_cross_entropy(logits, target):
    lp = torch.ops.cannon.log_softmax(logits.float(), -1)
    return torch.ops.cannon.nll_loss(lp, target, None, 1, -100)


class CannonBackend:
    """cannon's operators in bf16; ``slots``: names of operators to take from TorchBackend instead
    ("torch": all of them)."""
    name = "cannon"
    OPS = ("linear", "layer_norm", "rms_norm", "gelu", "swiglu", "attention", "rotary", "embedding",
           "cross_entropy")

    def __init__(self, slots=()):
        if slots == "torch":
            slots = self.OPS
        self.torch_slots = tuple(slots)
        for name in self.torch_slots:
            setattr(self, name, getattr(TorchBackend, name))
        if len(self.torch_slots) < len(self.OPS):
            _cannon()
            self._api = _cannon_api()

    @staticmethod
    def linear(x, w, b=None):
        return _Linear.apply(x, w, b)

    @staticmethod
    def layer_norm(x, w, b, eps):
        x = x.to(BF16)
        return torch.ops.cannon.layer_norm(x, [x.shape[-1]], w.to(BF16), b.to(BF16), eps)

    @staticmethod
    def rms_norm(x, w, eps):
        return torch.ops.cannon.rms_norm(x.to(BF16), w.to(BF16), eps)

    @staticmethod
    def gelu(x):
        return torch.ops.cannon.gelu(x.to(BF16), "none")

    @staticmethod
    def swiglu(x):
        return _SwiGlu.apply(x.to(BF16))

    def attention(self, q, k, v, causal=False, scale=None):
        scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
        q, k, v = q.to(BF16), k.to(BF16), v.to(BF16)
        fa = self._api.get("flash_attention")
        if fa is not None:
            return fa(q, k, v, causal=causal, scale=scale, layout="BNSD")
        return _FlashAttention.apply(q, k, v, causal, scale)

    def rotary(self, x, cos, sin):
        x = x.to(BF16)
        re = self._api.get("rotary_embedding")
        if re is not None:
            return re(x, cos.to(BF16), sin.to(BF16), mode="half")
        return _Rotary.apply(x, cos.to(BF16), sin.to(BF16))

    @staticmethod
    def embedding(w, ids):
        return torch.ops.cannon.embedding(w.to(BF16), ids)

    @staticmethod
    def cross_entropy(logits, target):
        return _cannon_cross_entropy(logits, target)


def _cannon_api():
    """The functions of cannon.torch's training API that this version provides."""
    import cannon.torch as ct
    api = {}
    for name in ("flash_attention", "rotary_embedding"):
        f = getattr(ct, name, None)
        if f is not None:
            api[name] = f
    return api


# ---- optimizers and loss scaling --------------------------------------------------------------

class FlatAdamW:
    """torch.optim.AdamW's update (decoupled weight decay, bias correction) for all parameters at
    once: they and their gradients become views into flat fp32 buffers, and a step is one
    aclnnApplyAdamWV2 call over the buffer. ``step(skip=True)`` does nothing (an overflowed step)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        Bm, _ = _cannon()
        self.params = [p for p in params if p.requires_grad]
        n = sum(p.numel() for p in self.params)
        self.flat = torch.empty(n, dtype=torch.float32)
        self.grad = torch.zeros(n, dtype=torch.float32)
        off = 0
        for p in self.params:
            k = p.numel()
            self.flat[off:off + k].copy_(p.detach().reshape(-1))
            p.data = self.flat[off:off + k].view_as(p)
            p.grad = self.grad[off:off + k].view_as(p)
            off += k
        self.m = torch.zeros(n, dtype=torch.float32)
        self.v = torch.zeros(n, dtype=torch.float32)
        self.t = torch.zeros(1, dtype=torch.float32)
        self.lr, self.betas, self.eps, self.wd = lr, betas, eps, weight_decay

    def zero_grad(self):
        self.grad.zero_()

    def step(self):
        Bm, _ = _cannon()
        self.t += 1
        b1, b2 = self.betas
        Bm.call("aclnnApplyAdamWV2", self.flat, self.m, self.v, None, self.grad, self.t,
                ctypes.c_float(self.lr), ctypes.c_float(b1), ctypes.c_float(b2), ctypes.c_float(self.wd),
                ctypes.c_float(self.eps), False, False)


class LossScaler:
    """Dynamic loss scaling over a FlatAdamW's gradient buffer: scale(loss) multiplies by the
    scale; step(opt) unscales the gradients in place and checks them for inf/NaN (one
    aclnnForeachNonFiniteCheckAndUnscale), runs the optimizer step unless they overflowed, and
    updates the scale (aclnnAmpUpdateScale: x backoff after an overflow, x growth after
    growth_interval finite steps)."""

    def __init__(self, opt, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000):
        Bm, _ = _cannon()
        from cannon import _lib
        self.opt = opt
        self.scale_t = torch.full((1,), float(init_scale), dtype=torch.float32)
        self.tracker = torch.zeros(1, dtype=torch.int32)
        self.found_inf = torch.zeros(1, dtype=torch.float32)
        self.inv_scale = torch.zeros(1, dtype=torch.float32)
        self.growth, self.backoff, self.interval = growth_factor, backoff_factor, growth_interval
        # one aclTensorList around the flat gradient buffer, kept for the run (its address is fixed)
        th = Bm._tensor_handle(opt.grad)
        arr = (ctypes.c_void_p * 1)(th)
        self._list = _lib.nnop().aclCreateTensorList(arr, 1)
        self.skipped = 0

    def scale(self, loss):
        return loss * self.scale_t

    def get_scale(self):
        return float(self.scale_t)

    def step(self):
        Bm, _ = _cannon()
        self.found_inf.zero_()
        torch.reciprocal(self.scale_t, out=self.inv_scale)
        Bm.call("aclnnForeachNonFiniteCheckAndUnscale", ctypes.c_void_p(self._list), self.found_inf, self.inv_scale)
        overflow = bool(self.found_inf.item() != 0)
        if overflow:
            self.skipped += 1
        else:
            self.opt.step()
        Bm.call("aclnnAmpUpdateScale", self.scale_t, self.tracker, self.found_inf, float(self.growth),
                float(self.backoff), int(self.interval), self.scale_t, self.tracker)
        return not overflow


class NoScaler:
    """The torch paths: no loss scaling (bf16 keeps fp32's exponent range)."""

    def __init__(self, opt):
        self.opt = opt
        self.skipped = 0

    def scale(self, loss):
        return loss

    def get_scale(self):
        return 1.0

    def step(self):
        self.opt.step()
        return True


def make_optimizer(kind, params, lr, weight_decay):
    if kind == "cannon":
        return FlatAdamW(params, lr=lr, weight_decay=weight_decay)
    return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
