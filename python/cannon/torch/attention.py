"""``cannon.torch.flash_attention`` and ``cannon.torch.rotary_embedding``: fused attention and rotary
position embedding with autograd, on CPU tensors.

    out = cannon.torch.flash_attention(q, k, v, causal=True)        # aclnnFlashAttentionScore
    out.sum().backward()                                            # aclnnFlashAttentionScoreGrad
    q = cannon.torch.rotary_embedding(q, cos, sin, mode="half")     # aclnnRotaryPositionEmbedding

flash_attention keeps the forward's softmax statistics (max and sum, [B, N, S, 8] fp32) for the
backward, which recomputes the probabilities block by block: no S x Skv matrix exists in either
direction. Under ``cannon.torch.amp.autocast`` fp32 operands are cast to the autocast dtype first.
"""
import ctypes
import math

import torch

from . import _bridge as B
from ._bridge import IntArray, call, check_cpu, empty
from . import amp as _amp

_FLOATS = (torch.float32, torch.float16, torch.bfloat16)
_BIG = 1 << 30                # preTokens / nextTokens meaning "no band limit"
_CAUSAL_MASK = None           # the 2048 x 2048 optimised causal mask sparse modes 2-4 take (never read)
_LAYOUTS = ("BNSD", "BSND", "BSH", "SBH")


def _causal_mask():
    global _CAUSAL_MASK
    if _CAUSAL_MASK is None:
        # CANN requires the tensor in modes 2-4 but the rule implies its content, which is not read:
        # a stride-0 view of one element describes it without 4 MiB of memory
        _CAUSAL_MASK = torch.ones(1, dtype=torch.bool).expand(2048, 2048)
    return _CAUSAL_MASK


def _dims(t, layout, num_heads, what):
    """(B, N, S, D) of @t in @layout."""
    if layout in ("BNSD", "BSND"):
        if t.dim() != 4:
            raise ValueError(f"cannon: flash_attention: {what} must be 4-D in layout {layout}, got {t.dim()}-D")
        b, x1, x2, d = t.shape
        return (b, x1, x2, d) if layout == "BNSD" else (b, x2, x1, d)
    if t.dim() != 3:
        raise ValueError(f"cannon: flash_attention: {what} must be 3-D in layout {layout}, got {t.dim()}-D")
    if num_heads is None:
        raise ValueError(f"cannon: flash_attention: layout {layout} needs num_heads (the query's head count)")
    b, s, h = t.shape if layout == "BSH" else (t.shape[1], t.shape[0], t.shape[2])
    return b, None, s, h


def _prepare_mask(mask, dt, B_, N, S, Skv):
    """(attenMask or None, pse or None) for a user mask: bool/uint8 -> attenMask (True = masked),
    floating -> additive pse of q's dtype in a shape the operator takes."""
    if mask is None:
        return None, None
    check_cpu(mask, "mask")
    if mask.dtype in (torch.bool, torch.uint8):
        if mask.dim() == 2:
            ok = tuple(mask.shape) == (S, Skv)
        elif mask.dim() == 4:
            ok = tuple(mask.shape[2:]) == (S, Skv) and mask.shape[0] in (1, B_) and mask.shape[1] in (1, N)
            if ok and mask.shape[0] == 1 and mask.shape[1] == N and N > 1:
                mask = mask.expand(B_, N, S, Skv)  # [1, N, S, Skv] is not one of the operator's forms
        else:
            ok = False
        if not ok:
            raise ValueError(f"cannon: flash_attention: mask has shape {list(mask.shape)}; a bool mask must be "
                             f"[S, Skv] = [{S}, {Skv}] or [B or 1, N or 1, S, Skv]")
        return mask, None
    if not mask.is_floating_point():
        raise TypeError(f"cannon: flash_attention: mask has dtype {mask.dtype}; bool/uint8 (True = masked) or "
                        f"a floating additive mask")
    try:
        pse = mask.to(dt).expand(B_, N, S, Skv) if mask.dim() <= 4 else None
    except RuntimeError:
        pse = None
    if pse is None:
        raise ValueError(f"cannon: flash_attention: additive mask of shape {list(mask.shape)} does not broadcast "
                         f"to [B, N, S, Skv] = [{B_}, {N}, {S}, {Skv}]")
    # the operator takes [B, N, S, Skv], [B, N, 1, Skv] or [1, N, S, Skv]: the forms it takes as
    # they are (stride 0 where broadcast), anything else materialised
    shp = tuple(mask.shape) if mask.dim() == 4 else None
    if shp == (B_, N, S, Skv):
        return None, pse
    if shp in ((B_, N, 1, Skv), (1, N, S, Skv)):
        return None, mask.to(dt)
    return None, pse.contiguous()


_BIT_WEIGHTS = None
_DRAW_SCORES = 1 << 22        # scores drawn at a time for a dropout mask (about 16 MiB of floats)


def _pack_bits(keep):
    """Bool keep flags (a multiple of 8 of them, flat) as CANN's dropMask bytes: bit f % 8 of byte f // 8."""
    global _BIT_WEIGHTS
    if _BIT_WEIGHTS is None:
        _BIT_WEIGHTS = torch.tensor([1, 2, 4, 8, 16, 32, 64, 128], dtype=torch.uint8)
    return (keep.view(-1, 8).to(torch.uint8) * _BIT_WEIGHTS).sum(1, dtype=torch.uint8)


def _dropout_mask(shape, keep_prob, generator):
    """The packed keep mask of torch.rand(shape, generator=generator) < keep_prob, drawn a few heads at
    a time so that no float tensor of every score exists (the packed mask is 1 bit per score)."""
    b, n, s, skv = shape
    per = s * skv
    total = b * n * per
    out = torch.empty((total + 7) // 8, dtype=torch.uint8)
    if total == 0:
        return out
    k = 8 // math.gcd(per, 8)                      # heads per whole number of bytes
    step = k * max(1, _DRAW_SCORES // (per * k))
    heads = b * n
    for h0 in range(0, heads, step):
        h1 = min(heads, h0 + step)
        keep = torch.rand((h1 - h0, s, skv), generator=generator).reshape(-1) < keep_prob
        pad = (-keep.numel()) % 8
        if pad:                                    # only the last draw can end inside a byte
            keep = torch.cat([keep, torch.zeros(pad, dtype=torch.bool)])
        o0 = h0 * per // 8
        out[o0:o0 + keep.numel() // 8] = _pack_bits(keep)
    return out


class _FlashAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, amask, pse, drop, scale, keep_prob, pre, nxt, heads, layout, sparse, stat_shape):
        out = empty(q.shape, q.dtype)
        smax = torch.empty(stat_shape, dtype=torch.float32)
        ssum = torch.empty(stat_shape, dtype=torch.float32)
        lay = ctypes.c_char_p(layout.encode())
        if pse is None:
            call("aclnnFlashAttentionScore", q, k, v, None, drop, None, amask, None, float(scale), float(keep_prob),
                 int(pre), int(nxt), int(heads), lay, 0, int(sparse), smax, ssum, None, out)
        else:
            call("aclnnFlashAttentionScoreV2", q, k, v, pse, drop, None, amask, None, None, None, float(scale),
                 float(keep_prob), int(pre), int(nxt), int(heads), lay, 0, int(sparse), 0, smax, ssum, None, out)
        ctx.save_for_backward(q, k, v, out, smax, ssum)
        ctx.extra = (amask, pse, drop, scale, keep_prob, pre, nxt, heads, layout, sparse)
        return out

    @staticmethod
    def backward(ctx, g):
        q, k, v, out, smax, ssum = ctx.saved_tensors
        amask, pse, drop, scale, keep_prob, pre, nxt, heads, layout, sparse = ctx.extra
        need = ctx.needs_input_grad
        g = g.to(q.dtype)
        dq, dk, dv = empty(q.shape, q.dtype), empty(k.shape, q.dtype), empty(v.shape, q.dtype)
        lay = ctypes.c_char_p(layout.encode())
        dpse = None
        if pse is None:
            call("aclnnFlashAttentionScoreGrad", q, k, v, g, None, drop, None, amask, smax, ssum, None, out, None,
                 float(scale), float(keep_prob), int(pre), int(nxt), int(heads), lay, 0, int(sparse), dq, dk, dv,
                 None)
        else:
            want_pse = bool(need[4])
            pse_arg = pse
            if want_pse:
                pse_arg = pse.contiguous()  # a dpse is only given for an unshared [B, N, S, Skv] pse
                dpse = empty(pse_arg.shape, q.dtype)
            call("aclnnFlashAttentionScoreGradV2", q, k, v, g, pse_arg, drop, None, amask, smax, ssum, None, out,
                 None, None, None, float(scale), float(keep_prob), int(pre), int(nxt), int(heads), lay, 0,
                 int(sparse), 0, dq, dk, dv, dpse)
        return (dq if need[0] else None, dk if need[1] else None, dv if need[2] else None, None, dpse,
                None, None, None, None, None, None, None, None, None)


def flash_attention(q, k, v, causal=False, mask=None, scale=None, dropout_p=0.0, layout="BNSD", num_heads=None,
                    generator=None):
    """softmax(scale * q kᵀ + mask) v per batch and head, fused (aclnnFlashAttentionScore), with autograd
    (aclnnFlashAttentionScoreGrad).

    q: [B, N, S, D] (layout "BNSD"), [B, S, N, D] ("BSND"), [B, S, N*D] ("BSH", give num_heads) or
    [S, B, N*D] ("SBH"); k and v the same layout with Nkv heads, Nkv dividing N (grouped-query
    attention). causal: key j is seen by query i when j <= i (top-left aligned, as torch's
    ``is_causal``). mask: bool or uint8, True = masked (CANN's convention; torch's boolean
    attn_mask is the opposite), shaped [S, Skv] or [B|1, N|1, S, Skv]; or a floating additive mask
    broadcastable to [B, N, S, Skv] (added after the scale; gradient available when it requires
    grad). scale defaults to 1/sqrt(D). dropout_p > 0 drops probabilities with the keep mask
    torch.rand((B, N, S, Skv), generator=generator) < 1 - dropout_p (torch's default generator when
    None; drawn a few heads at a time and packed to one bit per score), shared with the backward.
    q, k, v: float32, float16 or bfloat16, one dtype (under autocast, fp32 operands are cast first).
    Returns a tensor of q's shape and dtype."""
    for t, w in ((q, "q"), (k, "k"), (v, "v")):
        check_cpu(t, w)
    if layout not in _LAYOUTS:
        raise ValueError(f"cannon: flash_attention: layout must be one of {', '.join(_LAYOUTS)}, got {layout!r}")
    q, k, v = _amp.cast_inputs(q, k, v)
    if q.dtype not in _FLOATS or k.dtype != q.dtype or v.dtype != q.dtype:
        raise TypeError(f"cannon: flash_attention: q, k, v must share one of float32/float16/bfloat16, got "
                        f"{q.dtype}, {k.dtype}, {v.dtype}")
    if not 0.0 <= float(dropout_p) < 1.0:
        raise ValueError(f"cannon: flash_attention: dropout_p must be in [0, 1), got {dropout_p}")
    B_, N, S, D = _dims(q, layout, num_heads, "q")
    Bk, Nk, Skv, Dk = _dims(k, layout, num_heads, "k")
    if N is None:  # BSH / SBH: hidden = heads * D
        N = int(num_heads)
        if N <= 0 or D % N:
            raise ValueError(f"cannon: flash_attention: q's hidden size {D} is not a multiple of num_heads {N}")
        D = D // N
        if Dk % D:
            raise ValueError(f"cannon: flash_attention: k's hidden size {Dk} is not a multiple of the head dim {D}")
        Nk, Dk = Dk // D, D
    if Bk != B_ or Dk != D:
        raise ValueError(f"cannon: flash_attention: k {list(k.shape)} does not match q {list(q.shape)} in layout "
                         f"{layout} (batch and head dim must agree)")
    if tuple(v.shape) != tuple(k.shape):
        raise ValueError(f"cannon: flash_attention: v {list(v.shape)} must have k's shape {list(k.shape)}")
    if Nk == 0 or N % Nk:
        raise ValueError(f"cannon: flash_attention: k/v have {Nk} heads, which must divide q's {N}")
    scale = 1.0 / math.sqrt(D) if scale is None else float(scale)
    amask, pse = _prepare_mask(mask, q.dtype, B_, N, S, Skv)
    if amask is not None:
        sparse, pre, nxt = 0, _BIG, (0 if causal else _BIG)
    elif causal:
        sparse, pre, nxt, amask = 2, _BIG, 0, _causal_mask()
    else:
        sparse, pre, nxt = 0, _BIG, _BIG
    keep_prob, drop = 1.0, None
    if dropout_p > 0.0:
        keep_prob = 1.0 - float(dropout_p)
        drop = _dropout_mask((B_, N, S, Skv), keep_prob, generator)
    if mask is not None and pse is not None and mask.requires_grad and torch.is_grad_enabled():
        pse_in = pse  # a differentiable view of the user's mask: dpse flows back to it through autograd
    else:
        pse_in = pse.detach() if pse is not None else None
    return _FlashAttention.apply(q, k, v, amask, pse_in, drop, scale, keep_prob, pre, nxt, N, layout, sparse,
                                 (B_, N, S, 8))


# ---- rotary position embedding -----------------------------------------------------------------

_ROPE_MODES = {"half": 0, "interleave": 1, "quarter": 2, "interleave_half": 3}


class _Rotary(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, cos, sin, mode):
        out = empty(x.shape, x.dtype)
        call("aclnnRotaryPositionEmbedding", x, cos, sin, int(mode), out)
        need = ctx.needs_input_grad
        ctx.save_for_backward(x if (need[1] or need[2]) else None, cos, sin)
        ctx.mode = mode
        return out

    @staticmethod
    def backward(ctx, g):
        x, cos, sin = ctx.saved_tensors
        need = ctx.needs_input_grad
        g = g.to(cos.dtype)
        dx = empty(g.shape, g.dtype)
        dcos = dsin = None
        if x is not None:
            dcos, dsin = torch.empty(cos.shape, dtype=cos.dtype), torch.empty(sin.shape, dtype=sin.dtype)
        call("aclnnRotaryPositionEmbeddingGrad", g, cos, sin, x, int(ctx.mode), dx, dcos, dsin)
        return (dx if need[0] else None, dcos if need[1] else None, dsin if need[2] else None, None)


def rotary_embedding(x, cos, sin, mode="half"):
    """x·cos + rotate(x)·sin along the last dim (aclnnRotaryPositionEmbedding), with autograd
    (aclnnRotaryPositionEmbeddingGrad; cos and sin get gradients too when they require them).

    x: 3-D or 4-D, last dim D even. cos, sin: x's rank with each dim x's or 1 (e.g. [1, 1, S, D] for
    a BNSD x, [1, S, 1, D] for BSND), or 2-D [S, D], taken as [1, .., S, D] (sequence on x's
    second-to-last dim). mode: "half" (rotate_half: cat(-x2, x1)), "interleave" (pairs (x[2i],
    x[2i+1]) -> (-x[2i+1], x[2i])), "quarter" or "interleave_half" (CANN's modes 2 and 3).
    cos and sin are cast to x's dtype (under autocast x is cast first)."""
    check_cpu(x, "x")
    check_cpu(cos, "cos")
    check_cpu(sin, "sin")
    m = _ROPE_MODES.get(mode) if isinstance(mode, str) else None
    if m is None:
        raise ValueError(f"cannon: rotary_embedding: mode must be one of {', '.join(_ROPE_MODES)}, got {mode!r}")
    (x,) = _amp.cast_inputs(x)
    if x.dtype not in _FLOATS:
        raise TypeError(f"cannon: rotary_embedding: x has dtype {x.dtype}; float32, float16 or bfloat16")
    if x.dim() not in (3, 4):
        raise ValueError(f"cannon: rotary_embedding: x must be 3-D or 4-D, got {x.dim()}-D")
    if cos.shape != sin.shape:
        raise ValueError(f"cannon: rotary_embedding: cos {list(cos.shape)} and sin {list(sin.shape)} differ")
    if cos.dim() == 2:
        cos = cos.reshape((1,) * (x.dim() - 2) + tuple(cos.shape))
        sin = sin.reshape(cos.shape)
    if cos.dim() != x.dim() or any(c not in (1, s) for c, s in zip(cos.shape, x.shape)):
        raise ValueError(f"cannon: rotary_embedding: cos/sin {list(cos.shape)} must have x's rank with each dim "
                         f"x's or 1 (x {list(x.shape)})")
    cos, sin = cos.to(x.dtype), sin.to(x.dtype)
    return _Rotary.apply(x, cos, sin, m)
