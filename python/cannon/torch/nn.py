"""``cannon.torch.SyncBatchNorm``: torch.nn.SyncBatchNorm on cannon's SyncBN operators and libhccl.

A drop-in for ``torch.nn.SyncBatchNorm`` (same constructor arguments, attributes, buffers and
state_dict keys, and ``convert_sync_batchnorm``), for CPU tensors:

* training with more than one rank: per-rank statistics (aclnnBatchNormStats), one all-gather of
  [mean, invstd, count] per rank, global statistics and the running-stat update
  (aclnnBatchNormGatherStatsWithCounts: momentum, unbiased variance), normalisation
  (aclnnBatchNormElemt). Backward: aclnnBatchNormReduceBackward, one all-reduce of
  [sum_dy, sum_dy_xmu], aclnnBatchNormElemtBackward. Weight and bias gradients stay local, as in
  torch (data parallelism averages them with the other parameters' gradients).
* one rank, eval mode, or no process group: ``torch.ops.cannon.batch_norm`` (aclnnBatchNorm and
  aclnnBatchNormBackward).

The collectives go straight to libhccl when the process group is a ``cannon`` group; with another
backend (gloo...) they go through ``torch.distributed`` on that group.
"""
import torch
import torch.distributed as dist
from torch.nn.modules.batchnorm import _BatchNorm

from . import ops as O
from .distributed import cannon_group


def _gather_stats(local, pg, world_size):
    """(world_size, K) tensor of every rank's @local (K,) float32 vector."""
    cg = cannon_group(pg)
    out = torch.empty((world_size, local.numel()), dtype=local.dtype)
    if cg is not None:
        cg.all_gather_into(out, local)
    else:
        dist.all_gather(list(out.unbind(0)), local, group=pg)
    return out


def _all_reduce(t, pg):
    cg = cannon_group(pg)
    if cg is not None:
        cg.all_reduce_(t)
    else:
        dist.all_reduce(t, group=pg)
    return t


class _SyncBN(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, running_mean, running_var, eps, momentum, pg, world_size):
        C = x.shape[1]
        if x.is_contiguous(memory_format=torch.channels_last) and x.dim() == 4:
            x = x.contiguous(memory_format=torch.channels_last)
        else:
            x = x.contiguous()
        n = x.numel() // C if C else 0
        if n == 1 and world_size < 2:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(x.shape)}")
        if x.numel() > 0:
            mean, invstd = O.batch_norm_stats_cpu(x, eps)
        else:
            # an empty local batch contributes count 0, which the gather step skips
            mean, invstd = torch.zeros(C, dtype=torch.float32), torch.zeros(C, dtype=torch.float32)
        local = torch.cat([mean, invstd, torch.tensor([float(n)], dtype=torch.float32)])
        allst = _gather_stats(local, pg, world_size)
        mean_all, invstd_all = allst[:, :C].contiguous(), allst[:, C:2 * C].contiguous()
        counts = allst[:, 2 * C].contiguous()
        gmean, ginvstd = O.batch_norm_gather_stats_with_counts_cpu(
            x, mean_all, invstd_all, running_mean, running_var, momentum, eps, counts)
        ctx.save_for_backward(x, weight, gmean, ginvstd, counts)
        ctx.pg, ctx.has_bias = pg, bias is not None
        if x.numel() == 0:
            return torch.empty_like(x)
        return O.batch_norm_elemt_cpu(x, weight, bias, gmean, ginvstd, eps)

    @staticmethod
    def backward(ctx, g):
        x, weight, mean, invstd, counts = ctx.saved_tensors
        need = ctx.needs_input_grad
        C = x.shape[1]
        g = g.contiguous(memory_format=torch.channels_last) if (
            x.dim() == 4 and not x.is_contiguous()) else g.contiguous()
        wg, bg = bool(need[1]) and weight is not None, bool(need[2]) and ctx.has_bias
        gi = gw = gb = None
        if x.numel() > 0:
            sum_dy, sum_dy_xmu, gw_, gb_ = O.batch_norm_backward_reduce_cpu(g, x, mean, invstd, weight, bool(need[0]),
                                                                            wg, bg)
            gw = gw_ if wg else None
            gb = gb_ if bg else None
        else:
            sum_dy, sum_dy_xmu = torch.zeros(C, dtype=torch.float32), torch.zeros(C, dtype=torch.float32)
            gw = torch.zeros_like(weight) if wg else None
            gb = torch.zeros(C, dtype=weight.dtype if weight is not None else torch.float32) if bg else None
        if need[0]:
            # every rank joins the all-reduce, even one with an empty batch
            both = _all_reduce(torch.cat([sum_dy, sum_dy_xmu]), ctx.pg)
            if x.numel() > 0:
                gi = O.batch_norm_backward_elemt_cpu(g, x, mean, invstd, weight, both[:C].contiguous(),
                                                     both[C:].contiguous(), counts)
            else:
                gi = torch.empty_like(x)
        return gi, gw, gb, None, None, None, None, None, None


class SyncBatchNorm(_BatchNorm):
    """torch.nn.SyncBatchNorm's interface, computed by cannon on CPU tensors; see the module doc.

    Not a subclass of torch.nn.SyncBatchNorm on purpose: torch's DistributedDataParallel refuses
    CPU modules that contain one ("SyncBatchNorm layers only work with GPU modules")."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input):
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            factor = 1.0 / float(self.num_batches_tracked) if self.momentum is None else self.momentum
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        # running stats are read in eval mode and updated in training only when tracked
        use_running = not self.training or self.track_running_stats
        rm = self.running_mean if use_running else None
        rv = self.running_var if use_running else None
        pg, world_size = None, 1
        if bn_training and self.training and dist.is_available() and dist.is_initialized():
            pg = self.process_group if self.process_group else dist.group.WORLD
            world_size = dist.get_world_size(pg)
        if world_size <= 1:
            return torch.ops.cannon.batch_norm(input, self.weight, self.bias, rm, rv, bn_training, factor, self.eps)
        return _SyncBN.apply(input, self.weight, self.bias, rm, rv, self.eps, factor, pg, world_size)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """Replace every BatchNorm*d (and torch SyncBatchNorm) in @module by a cannon SyncBatchNorm
        with the same parameters, buffers and settings; returns the converted module."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, cls):
            out = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                      process_group)
            if module.affine:
                with torch.no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


# ---- model building blocks on cannon's ops ------------------------------------------------------
# Drop-ins for the torch.nn modules of a transformer (same constructor arguments, parameters and
# state_dict keys), computed by cannon.torch.functional: fp32 parameters are the master weights,
# cast for the compute under cannon.torch.amp.autocast.

from . import functional as _F  # noqa: E402


class Linear(torch.nn.Linear):
    """torch.nn.Linear on aclnnMatmul (+ aclnnAdd for the bias); under autocast the matmul runs in
    the autocast dtype and the output has that dtype."""

    def forward(self, input):
        return _F.linear(input, self.weight, self.bias)


class LayerNorm(torch.nn.LayerNorm):
    """torch.nn.LayerNorm on aclnnLayerNorm / aclnnLayerNormBackward."""

    def forward(self, input):
        return _F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


class RMSNorm(torch.nn.Module):
    """y = x / sqrt(mean(x², last dims) + eps) · weight (aclnnRmsNorm / aclnnRmsNormGrad).
    normalized_shape: int or tuple (the trailing dims); parameter ``weight`` initialised to ones."""

    def __init__(self, normalized_shape, eps=1e-6, device=None, dtype=None):
        super().__init__()
        ns = (int(normalized_shape),) if isinstance(normalized_shape, int) else tuple(int(s) for s in normalized_shape)
        self.normalized_shape, self.eps = ns, float(eps)
        self.weight = torch.nn.Parameter(torch.ones(ns, device=device, dtype=dtype))

    def forward(self, input):
        return _F.rms_norm(input, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}"


class GELU(torch.nn.GELU):
    """torch.nn.GELU on aclnnGeluV2 (erf) or aclnnGelu (approximate='tanh')."""

    def forward(self, input):
        return _F.gelu(input, self.approximate)


class SiLU(torch.nn.SiLU):
    def forward(self, input):
        return _F.silu(input)


class SwiGLU(torch.nn.Module):
    """The SwiGLU feed-forward block: w2(silu(a) · b) with [a, b] = w1(x) (one fused projection to
    2 · hidden_features, gate first; aclnnSwiGlu). Parameters ``w1`` (Linear in -> 2·hidden) and
    ``w2`` (Linear hidden -> out, out defaulting to in)."""

    def __init__(self, in_features, hidden_features, out_features=None, bias=False, device=None, dtype=None):
        super().__init__()
        out_features = in_features if out_features is None else out_features
        self.w1 = Linear(in_features, 2 * hidden_features, bias=bias, device=device, dtype=dtype)
        self.w2 = Linear(hidden_features, out_features, bias=bias, device=device, dtype=dtype)

    def forward(self, x):
        return self.w2(_F.swiglu(self.w1(x), -1))


class Embedding(torch.nn.Embedding):
    """torch.nn.Embedding on aclnnEmbedding / aclnnEmbeddingDenseBackward (dense gradients; max_norm
    and sparse are not supported)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.max_norm is not None or self.sparse:
            raise ValueError("cannon: Embedding supports neither max_norm nor sparse gradients")

    def forward(self, input):
        return _F.embedding(input, self.weight, self.padding_idx)
