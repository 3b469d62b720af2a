"""A scaled-down InternVL-style vision-language model.

    image [B,3,H,W]
      -> ViT encoder: patch embedding (a Linear over flattened PxP patches) + learned positions,
         `vit_depth` pre-norm blocks (LayerNorm, multi-head attention, LayerNorm, GELU MLP), LayerNorm
      -> projector: pixel shuffle (each 2x2 group of patch tokens concatenated into one token,
         4x fewer tokens with 4x the width), LayerNorm, Linear, GELU, Linear
      -> image tokens [B, T_img, lm_dim]
    [image tokens ; embedded caption tokens] -> decoder LM: `lm_depth` pre-norm blocks (RMSNorm,
         causal attention with rotary positions and grouped-query heads, RMSNorm, SwiGLU MLP),
         RMSNorm, LM head; the caption tokens are predicted after the image tokens.

Every operator that a backend provides goes through ``self.be`` (see backends.py): linear,
layer_norm, rms_norm, gelu, swiglu, attention, rotary, embedding and cross_entropy. The module
holds the fp32 master parameters; a backend decides in which dtype it computes.
"""
import math
from dataclasses import dataclass

import torch
import torch.nn as nn

from data import BOS, CAPTION_LEN, VOCAB


@dataclass
class Config:
    image: int = 32
    patch: int = 4
    vit_dim: int = 96
    vit_depth: int = 3
    vit_heads: int = 4
    lm_dim: int = 128
    lm_depth: int = 2
    lm_heads: int = 4
    lm_kv_heads: int = 2
    swiglu_hidden: int = 352
    vocab: int = len(VOCAB)
    rope_base: float = 10000.0

    @property
    def n_patches(self):
        return (self.image // self.patch) ** 2

    @property
    def n_img_tokens(self):
        return self.n_patches // 4


TINY = Config(image=16, patch=4, vit_dim=32, vit_depth=1, vit_heads=2, lm_dim=32, lm_depth=1, lm_heads=4,
              lm_kv_heads=2, swiglu_hidden=64)


def _param(*shape, std=0.02):
    return nn.Parameter(torch.randn(*shape) * std)


class Linear(nn.Module):
    def __init__(self, be, n_in, n_out, bias=True):
        super().__init__()
        self.be = be
        self.weight = _param(n_out, n_in, std=1.0 / math.sqrt(n_in))
        self.bias = nn.Parameter(torch.zeros(n_out)) if bias else None

    def forward(self, x):
        return self.be.linear(x, self.weight, self.bias)


class LayerNorm(nn.Module):
    def __init__(self, be, dim, eps=1e-5):
        super().__init__()
        self.be, self.eps = be, eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        return self.be.layer_norm(x, self.weight, self.bias, self.eps)


class RMSNorm(nn.Module):
    def __init__(self, be, dim, eps=1e-6):
        super().__init__()
        self.be, self.eps = be, eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return self.be.rms_norm(x, self.weight, self.eps)


class ViTBlock(nn.Module):
    def __init__(self, be, dim, heads):
        super().__init__()
        self.be, self.heads = be, heads
        self.ln1, self.ln2 = LayerNorm(be, dim), LayerNorm(be, dim)
        self.qkv, self.proj = Linear(be, dim, 3 * dim), Linear(be, dim, dim)
        self.fc1, self.fc2 = Linear(be, dim, 4 * dim), Linear(be, 4 * dim, dim)

    def forward(self, x):
        B, S, C = x.shape
        H = self.heads
        qkv = self.qkv(self.ln1(x)).view(B, S, 3, H, C // H).permute(2, 0, 3, 1, 4)  # 3,B,H,S,D
        a = self.be.attention(qkv[0], qkv[1], qkv[2], causal=False)                    # B,H,S,D
        x = x + self.proj(a.transpose(1, 2).reshape(B, S, C))
        return x + self.fc2(self.be.gelu(self.fc1(self.ln2(x))))


class LMBlock(nn.Module):
    def __init__(self, be, cfg):
        super().__init__()
        self.be = be
        d, self.H, self.KV = cfg.lm_dim, cfg.lm_heads, cfg.lm_kv_heads
        self.D = d // self.H
        self.n1, self.n2 = RMSNorm(be, d), RMSNorm(be, d)
        self.wq = Linear(be, d, self.H * self.D, bias=False)
        self.wkv = Linear(be, d, 2 * self.KV * self.D, bias=False)
        self.wo = Linear(be, self.H * self.D, d, bias=False)
        self.w13 = Linear(be, d, 2 * cfg.swiglu_hidden, bias=False)  # [gate ; up]
        self.w2 = Linear(be, cfg.swiglu_hidden, d, bias=False)

    def forward(self, x, cos, sin):
        B, S, _ = x.shape
        h = self.n1(x)
        q = self.wq(h).view(B, S, self.H, self.D).transpose(1, 2)                     # B,H,S,D
        kv = self.wkv(h).view(B, S, 2, self.KV, self.D).permute(2, 0, 3, 1, 4)        # 2,B,KV,S,D
        q = self.be.rotary(q, cos, sin)
        k = self.be.rotary(kv[0], cos, sin)
        a = self.be.attention(q, k, kv[1], causal=True)                               # B,H,S,D
        x = x + self.wo(a.transpose(1, 2).reshape(B, S, self.H * self.D))
        return x + self.w2(self.be.swiglu(self.w13(self.n2(x))))


def rope_tables(S, D, base):
    """cos, sin [1, 1, S, D] for half-mode rotary embedding (angles repeated over the two halves)."""
    inv = 1.0 / (base ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    ang = torch.arange(S, dtype=torch.float64)[:, None] * inv[None, :]
    ang = torch.cat([ang, ang], dim=-1)
    return ang.cos().float()[None, None], ang.sin().float()[None, None]


class VLModel(nn.Module):
    def __init__(self, be, cfg=Config()):
        super().__init__()
        self.be, self.cfg = be, cfg
        c = cfg
        self.patch_embed = Linear(be, 3 * c.patch * c.patch, c.vit_dim)
        self.pos = _param(1, c.n_patches, c.vit_dim)
        self.vit = nn.ModuleList([ViTBlock(be, c.vit_dim, c.vit_heads) for _ in range(c.vit_depth)])
        self.vit_norm = LayerNorm(be, c.vit_dim)
        self.proj_norm = LayerNorm(be, 4 * c.vit_dim)
        self.proj1 = Linear(be, 4 * c.vit_dim, c.lm_dim)
        self.proj2 = Linear(be, c.lm_dim, c.lm_dim)
        self.tok = _param(c.vocab, c.lm_dim, std=1.0)
        self.lm = nn.ModuleList([LMBlock(be, c) for _ in range(c.lm_depth)])
        self.lm_norm = RMSNorm(be, c.lm_dim)
        self.head = Linear(be, c.lm_dim, c.vocab, bias=False)
        S = c.n_img_tokens + CAPTION_LEN - 1
        cos, sin = rope_tables(S, c.lm_dim // c.lm_heads, c.rope_base)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def encode_image(self, img):
        c = self.cfg
        B, P, g = img.shape[0], c.patch, c.image // c.patch
        patches = img.view(B, 3, g, P, g, P).permute(0, 2, 4, 1, 3, 5).reshape(B, g * g, 3 * P * P)
        x = self.patch_embed(patches) + self.pos
        for blk in self.vit:
            x = blk(x)
        x = self.vit_norm(x)
        # pixel shuffle: each 2x2 group of neighbouring patch tokens becomes one token of 4x the width
        x = x.view(B, g // 2, 2, g // 2, 2, c.vit_dim).permute(0, 1, 3, 2, 4, 5).reshape(B, (g // 2) ** 2, 4 * c.vit_dim)
        return self.proj2(self.be.gelu(self.proj1(self.proj_norm(x))))

    def logits(self, img, tokens):
        """Logits [B, T, vocab] of the T positions after the image tokens' last one (tokens [B, T])."""
        v = self.encode_image(img)
        t = self.be.embedding(self.tok, tokens)
        x = torch.cat([v.to(t.dtype), t], dim=1)
        S = x.shape[1]
        cos, sin = self.cos[:, :, :S], self.sin[:, :, :S]
        for blk in self.lm:
            x = blk(x, cos, sin)
        T = tokens.shape[1]
        return self.head(self.lm_norm(x[:, -T:]))

    def loss(self, img, caps):
        """Mean cross entropy of caption tokens 1.. given the image and the tokens before them."""
        lg = self.logits(img, caps[:, :-1])
        return self.be.cross_entropy(lg.reshape(-1, lg.shape[-1]), caps[:, 1:].reshape(-1))

    @torch.no_grad()
    def generate(self, img, n=CAPTION_LEN - 1):
        """Greedy decoding of @n tokens after BOS: [B, 1 + n]."""
        toks = torch.full((img.shape[0], 1), BOS, dtype=torch.long)
        for _ in range(n):
            nxt = self.logits(img, toks)[:, -1].float().argmax(-1, keepdim=True)
            toks = torch.cat([toks, nxt], dim=1)
        return toks
