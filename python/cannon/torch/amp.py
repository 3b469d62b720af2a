"""Mixed precision for cannon.torch: ``autocast`` (bf16/fp16 compute in cannon's ops) and
``GradScaler`` (dynamic loss scaling on aclnnForeachNonFiniteCheckAndUnscale and aclnnAmpUpdateScale).

    opt = cannon.torch.optim.AdamW(model.parameters(), lr=1e-3)     # fp32 master weights
    scaler = cannon.torch.amp.GradScaler()
    with cannon.torch.amp.autocast(dtype=torch.bfloat16):
        loss = model(x)                                              # cannon ops in bf16
    scaler.scale(loss).backward()
    scaler.step(opt)            # unscale the grads; skip the step when one is inf / NaN
    scaler.update()             # halve the scale after an overflow, grow it after growth_interval clean steps

Autocast policy (cannon.torch's functional wrappers and modules consult it):
- lower precision (fp32 operands cast to the autocast dtype, result in that dtype): linear, matmul,
  flash_attention, rotary_embedding, softmax, gelu, silu, swiglu, layer_norm, rms_norm (the
  kernels keep their statistics and accumulations in fp32; norm weights stay fp32 master copies
  and are cast for the call);
- fp32 (16-bit operands cast up, result fp32): log_softmax, cross_entropy, nll_loss;
- unchanged: embedding (returns its weight's dtype, as torch's autocast leaves it).
Autocast is also on inside ``torch.autocast("cpu", dtype=...)`` (torch's own CPU autocast state).
"""
import threading
from collections import defaultdict

import torch

from ._bridge import TensorList, call

_LOW = (torch.bfloat16, torch.float16)
_tls = threading.local()


def _stack():
    s = getattr(_tls, "stack", None)
    if s is None:
        s = _tls.stack = []
    return s


class autocast:
    """Context manager (and decorator): inside it cannon.torch's compute ops run in @dtype
    (torch.bfloat16 or torch.float16) on fp32 inputs; see the module doc for the op lists.
    ``enabled=False`` turns autocast off inside an enclosing region. Thread-local, nestable."""

    def __init__(self, enabled=True, dtype=torch.bfloat16, cache_enabled=True):
        if dtype not in _LOW:
            raise ValueError(f"cannon: autocast dtype must be torch.bfloat16 or torch.float16, got {dtype}")
        self.enabled, self.dtype, self.cache_enabled = bool(enabled), dtype, bool(cache_enabled)

    def __enter__(self):
        _stack().append((self.enabled, self.dtype))
        return self

    def __exit__(self, *exc):
        _stack().pop()
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*a, **kw):
            with autocast(self.enabled, self.dtype, self.cache_enabled):
                return fn(*a, **kw)
        return wrapped


def get_autocast_dtype():
    """The dtype cannon.torch's ops compute in under autocast, or None outside autocast."""
    s = getattr(_tls, "stack", None)
    if s:
        en, dt = s[-1]
        return dt if en else None
    if torch.is_autocast_cpu_enabled():
        dt = torch.get_autocast_cpu_dtype()
        return dt if dt in _LOW else None
    return None


def is_autocast_enabled():
    return get_autocast_dtype() is not None


def cast_inputs(*ts):
    """@ts with fp32 tensors cast to the autocast dtype (unchanged outside autocast)."""
    dt = get_autocast_dtype()
    if dt is None:
        return ts
    return tuple(t.to(dt) if isinstance(t, torch.Tensor) and t.dtype == torch.float32 else t for t in ts)


def cast_fp32(*ts):
    """@ts with 16-bit float tensors cast to fp32 under autocast (for the ops autocast runs in fp32)."""
    if get_autocast_dtype() is None:
        return ts
    return tuple(t.float() if isinstance(t, torch.Tensor) and t.dtype in _LOW else t for t in ts)


# ---- GradScaler -------------------------------------------------------------------------------

_READY, _UNSCALED, _STEPPED = 0, 1, 2


def _new_state():
    return {"stage": _READY, "found_inf": None}


class GradScaler:
    """torch.cuda.amp.GradScaler's interface for CPU tensors, on cannon's AMP operators.

    scale(outputs) multiplies by the current scale; unscale_(optimizer) multiplies every gradient of
    the optimizer's params by 1/scale in place and records whether one held an inf or NaN (one
    aclnnForeachNonFiniteCheckAndUnscale per gradient dtype); step(optimizer) unscales if needed
    and runs optimizer.step() only when no gradient overflowed; update() sets the next scale
    (aclnnAmpUpdateScale: backoff_factor after an overflow, growth_factor after growth_interval
    clean steps in a row). With enabled=False every method is a pass-through."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        if growth_factor <= 1.0:
            raise ValueError("The growth factor must be > 1.0.")
        if not 0.0 < backoff_factor < 1.0:
            raise ValueError("The backoff factor must be < 1.0.")
        if int(growth_interval) <= 0:
            raise ValueError("growth_interval must be a positive integer.")
        self._enabled = bool(enabled)
        self._init_scale = float(init_scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._init_growth_tracker = 0
        self._scale = None           # fp32 [1]
        self._growth_tracker = None  # int32 [1]
        self._per_optimizer_states = defaultdict(_new_state)

    def _lazy_init(self):
        if self._scale is None:
            self._scale = torch.full((1,), self._init_scale, dtype=torch.float32)
            self._growth_tracker = torch.full((1,), self._init_growth_tracker, dtype=torch.int32)

    def scale(self, outputs):
        """@outputs (a tensor, or nested lists/tuples of them) multiplied by the scale."""
        if not self._enabled:
            return outputs
        self._lazy_init()
        if isinstance(outputs, torch.Tensor):
            return outputs * self._scale.to(outputs.dtype).reshape(())
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer):
        if not self._enabled:
            return
        if self._scale is None:
            raise RuntimeError("unscale_() called before scale() (the scale is not initialised).")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = (1.0 / self._scale.double()).float()
        found_inf = torch.zeros((1,), dtype=torch.float32)
        by_dtype = defaultdict(list)
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise TypeError("cannon: GradScaler does not unscale sparse gradients")
                by_dtype[p.grad.dtype].append(p.grad)
        for grads in by_dtype.values():
            call("aclnnForeachNonFiniteCheckAndUnscale", TensorList(grads), found_inf, inv_scale)
        state["found_inf"] = found_inf
        state["stage"] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(*args, **kwargs) unless a gradient overflowed (then None: the step is skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        if self._scale is None:
            raise RuntimeError("step() called before scale() (the scale is not initialised).")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        retval = None
        if not float(state["found_inf"].item()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return retval

    def update(self, new_scale=None):
        """Set the scale for the next iteration: @new_scale (float or 1-element tensor) if given, else
        from the overflows recorded since the last update (aclnnAmpUpdateScale)."""
        if not self._enabled:
            return
        if self._scale is None:
            raise RuntimeError("update() called before scale() (the scale is not initialised).")
        if new_scale is not None:
            if isinstance(new_scale, torch.Tensor):
                if new_scale.numel() != 1:
                    raise ValueError("new_scale should be a float or a 1-element tensor.")
                self._scale.copy_(new_scale.reshape(1))
            else:
                self._scale.fill_(float(new_scale))
        else:
            infs = [s["found_inf"] for s in self._per_optimizer_states.values() if s["found_inf"] is not None]
            if not infs:
                raise AssertionError("No inf checks were recorded prior to update.")
            found = infs[0]
            for f in infs[1:]:
                found = found + f
            call("aclnnAmpUpdateScale", self._scale, self._growth_tracker, found, self._growth_factor,
                 self._backoff_factor, self._growth_interval, self._scale, self._growth_tracker)
        self._per_optimizer_states = defaultdict(_new_state)

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = int(new_interval)

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def is_enabled(self):
        return self._enabled

    def state_dict(self):
        """torch's keys: scale, growth_factor, backoff_factor, growth_interval, _growth_tracker
        (empty when disabled)."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(self._init_growth_tracker)
