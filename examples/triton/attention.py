"""An attention forward written in Triton (flash attention: one program per BLOCK_M queries of one
(batch, head), the keys and values streamed in BLOCK_N blocks with an online softmax, so the
[seq, seq] score matrix is never stored): out = softmax(q @ k^T * scale [+ causal mask]) @ v for
q, k, v of shape [batch, heads, seq, head_dim] (head_dim a power of two).

    PYTHONPATH=python /usr/bin/python3 examples/triton/attention.py
"""
import math

import torch

import cannon.triton as triton
import cannon.triton.language as tl


@triton.jit
def attention_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, seq, scale, CAUSAL: tl.constexpr, D: tl.constexpr,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    bh = tl.program_id(1)
    start_m = tl.program_id(0) * BLOCK_M
    base = bh * seq * D
    rows = start_m + tl.arange(0, BLOCK_M)
    dcols = tl.arange(0, D)
    q = tl.load(q_ptr + base + rows[:, None] * D + dcols[None, :], mask=rows[:, None] < seq, other=0.0)
    q = (q * scale).to(tl.float32)
    m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    end = seq
    if CAUSAL:
        end = tl.minimum(start_m + BLOCK_M, seq)
    for start_n in range(0, end, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        kv_mask = cols[:, None] < seq
        k = tl.load(k_ptr + base + cols[:, None] * D + dcols[None, :], mask=kv_mask, other=0.0).to(tl.float32)
        s = tl.dot(q, tl.trans(k))
        valid = cols[None, :] < seq
        if CAUSAL:
            valid = valid & (cols[None, :] <= rows[:, None])
        s = tl.where(valid, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + cols[:, None] * D + dcols[None, :], mask=kv_mask, other=0.0).to(tl.float32)
        acc = acc * alpha[:, None] + tl.dot(p, v)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + base + rows[:, None] * D + dcols[None, :], out.to(o_ptr.dtype.element_ty),
             mask=rows[:, None] < seq)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False) -> torch.Tensor:
    if q.dim() != 4 or q.shape != k.shape or q.shape != v.shape:
        raise ValueError("attention: q, k, v of one shape [batch, heads, seq, head_dim]")
    B, H, S, D = q.shape
    if D & (D - 1):
        raise ValueError("attention: head_dim must be a power of two")
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    o = torch.empty_like(q)
    bm, bn = 64, 64
    attention_fwd_kernel[(triton.cdiv(S, bm), B * H)](q, k, v, o, S, 1.0 / math.sqrt(D), CAUSAL=bool(causal), D=D,
                                                     BLOCK_M=bm, BLOCK_N=bn)
    return o


attention_op = triton.torch_op("cannon_examples::attention", attention)

if __name__ == "__main__":
    q, k, v = (torch.randn(2, 4, 200, 64) for _ in range(3))
    ref = torch.softmax(q @ k.transpose(-1, -2) / 8.0, -1) @ v
    print("max error:", (attention_op(q, k, v, False) - ref).abs().max().item())
