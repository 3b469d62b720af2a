"""The operator table the model calls through, and the training pieces around it.

Two backends share one interface (see model.py for the calls):

- ``TorchBackend``: torch's own CPU operators. Run in fp32, or inside
  ``torch.autocast("cpu", dtype=torch.bfloat16)`` for torch's bf16 autocast path. Attention is
  torch 1.13's matmul-softmax-matmul (it has no fused attention).
- ``CannonBackend``: cannon.torch's operators (``cannon.torch.functional``) inside
  ``cannon.torch.amp.autocast(dtype=torch.bfloat16)``: bf16 compute with fp32 master weights
  (each op casts its fp32 operands to bf16; weight gradients come back to fp32 through the casts).
  Matmuls through aclnnMatmul (bf16 GEMM), attention through aclnnFlashAttentionScore / ...Grad
  (BNSD, grouped heads, no S x S matrix), rotary through aclnnRotaryPositionEmbedding / ...Grad,
  LayerNorm, RMSNorm, GELU, SwiGLU, embedding and the loss through their aclnn operators.

``CannonBackend(slots=...)`` replaces any of its operators by the torch one (``slots="torch"``
replaces all): the same model and training loop then run with torch functions in the cannon
slots, which is how the step-equality test pins what each cannon operator contributes.

Optimizers and loss scaling: the torch modes use torch.optim.AdamW; the cannon mode
cannon.torch.optim.AdamW (aclnnApplyAdamWV2 per parameter) behind cannon.torch.amp.GradScaler
(``CannonScaler``: loss scaling, unscale and inf/NaN check, skipped step and backoff on overflow).
"""
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

def _cf():
    import cannon.torch  # noqa: F401  (registers torch.ops.cannon)
    import cannon.torch.functional as CF
    return CF


class CannonBackend:
    """cannon.torch's functional ops (run the model inside ``cannon.torch.amp.autocast``: they cast
    fp32 operands to bf16, fp32 master weights included); ``slots``: names of operators to take from
    TorchBackend instead ("torch": all of them)."""
    name = "cannon"
    OPS = ("linear", "layer_norm", "rms_norm", "gelu", "swiglu", "attention", "rotary", "embedding",
           "cross_entropy")

    def __init__(self, slots=()):
        if slots == "torch":
            slots = self.OPS
        self.torch_slots = tuple(slots)
        self.CF = _cf() if len(self.torch_slots) < len(self.OPS) else None
        for name in self.torch_slots:
            setattr(self, name, getattr(TorchBackend, name))

    def linear(self, x, w, b=None):
        return self.CF.linear(x, w, b)

    def layer_norm(self, x, w, b, eps):
        return self.CF.layer_norm(x, x.shape[-1], w, b, eps)

    def rms_norm(self, x, w, eps):
        return self.CF.rms_norm(x, w, eps)

    def gelu(self, x):
        return self.CF.gelu(x)

    def swiglu(self, x):
        return self.CF.swiglu(x)

    def attention(self, q, k, v, causal=False, scale=None):
        return self.CF.flash_attention(q, k, v, causal=causal, scale=scale, layout="BNSD")

    def rotary(self, x, cos, sin):
        return self.CF.rotary_embedding(x, cos, sin, mode="half")

    def embedding(self, w, ids):
        # the table is cast like a weight, so the decoder's activations are bf16 from the start
        (w,) = _amp().cast_inputs(w)
        return self.CF.embedding(ids, w)

    def cross_entropy(self, logits, target):
        return self.CF.cross_entropy(logits, target)


def _amp():
    import cannon.torch.amp as amp
    return amp


# ---- optimizers and loss scaling --------------------------------------------------------------

class CannonScaler:
    """cannon.torch.amp.GradScaler (aclnnForeachNonFiniteCheckAndUnscale, aclnnAmpUpdateScale) around
    an optimizer: an overflowing step is skipped and the scale multiplied by backoff_factor."""

    def __init__(self, opt, **kw):
        self.opt = opt
        self.gs = _amp().GradScaler(**kw)
        self.skipped = 0

    def scale(self, loss):
        return self.gs.scale(loss)

    def get_scale(self):
        return self.gs.get_scale()

    def step(self):
        before = self.gs.get_scale()
        self.gs.step(self.opt)
        self.gs.update()
        ok = not self.gs.get_scale() < before
        self.skipped += not ok
        return ok


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
    """torch.optim.AdamW, or cannon.torch.optim.AdamW (one aclnnApplyAdamWV2 per parameter)."""
    if kind == "cannon":
        import cannon.torch.optim as copt
        return copt.AdamW(params, lr=lr, weight_decay=weight_decay)
    return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
