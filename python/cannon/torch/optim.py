"""``cannon.torch.optim.AdamW``: torch.optim.AdamW's interface, each parameter's step one
aclnnApplyAdamWV2 call (var, exp_avg, exp_avg_sq updated in place).

The parameters are the master weights (keep them fp32 and let autocast cast them for the compute;
their gradients then arrive in fp32). Parameters and their state may also be fp16/bf16: the
operator computes in fp32 and rounds each stored value once. State keys are torch's (``step``,
``exp_avg``, ``exp_avg_sq``, ``max_exp_avg_sq``), so state_dicts load into either optimizer.
"""
import ctypes

import torch

from ._bridge import call

_FLOATS = (torch.float32, torch.float16, torch.bfloat16)


class AdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            b1, b2 = group["betas"]
            lr, wd, eps = (ctypes.c_float(float(group[k])) for k in ("lr", "weight_decay", "eps"))
            amsgrad, maximize = bool(group["amsgrad"]), bool(group["maximize"])
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if g.is_sparse:
                    raise RuntimeError("AdamW does not support sparse gradients")
                if p.dtype not in _FLOATS:
                    raise TypeError(f"cannon: AdamW: parameter dtype {p.dtype}; float32, float16 or bfloat16")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.zeros((), dtype=torch.float32)
                    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    if amsgrad:
                        state["max_exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                step = state["step"]
                if not isinstance(step, torch.Tensor):
                    step = state["step"] = torch.tensor(float(step), dtype=torch.float32)
                step += 1
                if g.dtype != p.dtype:
                    g = g.to(p.dtype)
                call("aclnnApplyAdamWV2", p, state["exp_avg"], state["exp_avg_sq"],
                     state["max_exp_avg_sq"] if amsgrad else None, g, step.reshape(1), lr, ctypes.c_float(b1),
                     ctypes.c_float(b2), wd, eps, amsgrad, maximize)
        return loss
