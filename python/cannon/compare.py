"""Dumps of a torch run in the format of cannon's operator dump, for ``cannon-compare``.

cannon's runtime dumps every aclnn operator run (the aclInit config's ``dump`` section, or
``CANNON_DUMP=<dir>``; docs/tools.md, "Dump and compare"). This module writes the same files from a
torch program, so that a run on torch's own CPU kernels can serve as the reference:

    from cannon.compare import record_torch
    with record_torch("ref_dump"):                 # every aten op torch runs, as cannon op types
        loss = model(x).sum()
    with record_torch("mod_dump", module=model):   # or the outputs of model's leaf modules
        model(x)

then ``cannon-compare ref_dump cannon_dump --align sequence``. Op-level records name each aten op by
the cannon operator that computes it (``aten::_softmax`` -> ``Softmax``, ``aten::mm`` -> ``Mm``;
``OP_NAMES``, else the aten name in CamelCase); view and factory ops are left out (``SKIP_OPS``).
Module-level records name each call by the module's class (``Linear``) and keep its qualified name.

``DumpWriter`` writes a dump from any code: ``w.record("Add", inputs=[a, b], outputs=[c])``.
Only numpy is needed to write; torch is imported by ``record_torch`` alone.
"""
import contextlib
import json
import os

import numpy as np

# aten op (overload packet name) -> cannon operator type (aclnn<Type>), where the two differ by more
# than CamelCase.
OP_NAMES = {
    "add_": "InplaceAdd", "mul_": "InplaceMul", "sub_": "InplaceSub", "div_": "InplaceDiv", "copy_": "InplaceCopy",
    "bmm": "BatchMatMul", "matmul": "Matmul", "_softmax": "Softmax", "_log_softmax": "LogSoftmax",
    "_softmax_backward_data": "SoftmaxBackward", "_log_softmax_backward_data": "LogSoftmaxBackward",
    "native_layer_norm": "LayerNorm", "native_layer_norm_backward": "LayerNormBackward",
    "native_batch_norm": "BatchNorm", "native_group_norm": "GroupNorm", "_to_copy": "Cast", "sum": "ReduceSum",
    "nll_loss_forward": "NLLLoss", "nll_loss_backward": "NLLLossBackward", "embedding_dense_backward":
    "EmbeddingDenseBackward", "eq": "EqTensor", "gt": "GtScalar", "max_pool2d_with_indices": "MaxPool",
    "threshold_backward": "ThresholdBackward",
}
# Ops that move no values (views, factories, metadata): not recorded.
SKIP_OPS = {
    "view", "_unsafe_view", "reshape", "t", "transpose", "permute", "expand", "squeeze", "unsqueeze", "detach",
    "alias", "slice", "select", "as_strided", "unbind", "split", "split_with_sizes", "chunk", "view_as_real",
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like", "ones",
    "ones_like", "full", "full_like", "new_zeros", "new_ones", "new_full", "lift_fresh", "lift_fresh_copy",
    "_reshape_alias", "clone", "contiguous", "is_same_size", "_local_scalar_dense", "scalar_tensor", "arange",
    "randn", "rand", "normal_", "uniform_", "zero_", "fill_", "set_", "resize_", "detach_",
}


def cannon_op_name(aten_name):
    """The cannon operator type of an aten op name ("_softmax" -> "Softmax", "gelu" -> "Gelu")."""
    if aten_name in OP_NAMES:
        return OP_NAMES[aten_name]
    base = aten_name.strip("_")
    inplace = aten_name.endswith("_") and not aten_name.endswith("__")
    if base.startswith("native_"):
        base = base[len("native_"):]
    name = "".join(p[:1].upper() + p[1:] for p in base.split("_") if p)
    return ("Inplace" + name) if inplace else name


_NPY = {  # numpy dtype name -> (manifest dtype, npy descr)
    "float32": ("float32", "<f4"), "float16": ("float16", "<f2"), "float64": ("float64", "<f8"),
    "int8": ("int8", "|i1"), "int16": ("int16", "<i2"), "int32": ("int32", "<i4"), "int64": ("int64", "<i8"),
    "uint8": ("uint8", "|u1"), "uint16": ("uint16", "<u2"), "uint32": ("uint32", "<u4"), "uint64": ("uint64", "<u8"),
    "bool": ("bool", "|b1"), "complex64": ("complex64", "<c8"), "complex128": ("complex128", "<c16"),
}


class _Values:
    """A snapshot taken before an op ran (its inputs may be written in place)."""
    __slots__ = ("array", "dtype")

    def __init__(self, x):
        self.array, self.dtype = _to_numpy(x)


def _to_numpy(x):
    """(array, manifest dtype) of a numpy array, a torch tensor (bf16 kept as its bits) or a number."""
    if isinstance(x, _Values):
        return x.array, x.dtype
    mod = type(x).__module__
    if mod.startswith("torch"):
        import torch
        t = x.detach()
        if t.dtype == torch.bfloat16:
            return t.cpu().contiguous().view(torch.int16).numpy().view(np.uint16).copy(), "bfloat16"
        return t.cpu().numpy().copy(), None
    return np.asarray(x), None


class DumpWriter:
    """Writes <path>/device<device>/manifest.jsonl and the .npy files, as cannon's dump does."""

    def __init__(self, path, device=0, mode="all", stats=False):
        if mode not in ("input", "output", "all"):
            raise ValueError("mode must be input, output or all")
        self.dir = os.path.join(os.fspath(path), f"device{device}")
        os.makedirs(self.dir, exist_ok=True)
        self.device = device
        self.mode = mode
        self.stats = stats
        self.index = 0
        self._manifest = open(os.path.join(self.dir, "manifest.jsonl"), "w", encoding="utf-8")

    def close(self):
        if self._manifest:
            self._manifest.close()
            self._manifest = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @staticmethod
    def _stats(a, dtype):
        if dtype == "bfloat16":
            a = (a.astype(np.uint32) << 16).view(np.float32)
        if a.dtype.kind not in "fiub":
            return None
        v = a.astype(np.float64).ravel()
        fin = v[np.isfinite(v)]
        out = {"count": int(v.size)}
        if fin.size:
            out.update(min=float(fin.min()), max=float(fin.max()), mean=float(fin.mean()),
                       l2=float(np.sqrt(np.dot(fin, fin))))
        else:
            out.update(min=None, max=None, mean=None, l2=0.0)
        out.update(nan=int(np.isnan(v).sum()), inf=int(np.isinf(v).sum()))
        return out

    def _tensor(self, op, role, pos, x, entries):
        a, dtype = _to_numpy(x)
        if dtype is None:
            if a.dtype.name not in _NPY:
                return
            dtype, descr = _NPY[a.dtype.name]
        else:
            descr = "<u2"
        a = np.ascontiguousarray(a)
        entry = {"role": role, "pos": pos, "dtype": dtype, "shape": list(a.shape),
                 "strides": [s // a.itemsize for s in a.strides] if a.itemsize else [], "offset": 0}
        if self.stats:
            entry["stats"] = self._stats(a, dtype)
        else:
            name = f"{self.index:06d}_{op}.{role}.{pos}.npy"
            np.save(os.path.join(self.dir, name), a, allow_pickle=False)
            entry.update(npy=descr, file=name)
        entries.append(entry)

    def record(self, op, inputs=(), outputs=(), **extra):
        """One call of op type @op: its input and output tensors (None entries keep their position)."""
        entries = []
        for role, items in (("input", inputs), ("output", outputs)):
            if self.mode not in (role, "all"):
                continue
            for pos, x in enumerate(items):
                if x is not None:
                    self._tensor(op, role, pos, x, entries)
        line = {"index": self.index, "op": op, "api": extra.pop("api", "aclnn" + op), "device": self.device,
                "tensors": entries}
        line.update(extra)
        self._manifest.write(json.dumps(line) + "\n")
        self._manifest.flush()
        self.index += 1


def _tensors(obj, out):
    """The tensors in a nest of tuples / lists / dicts, in order."""
    import torch
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _tensors(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _tensors(o, out)
    return out


@contextlib.contextmanager
def record_torch(path, module=None, ops=None, mode="all", stats=False, skip=(), names=None):
    """Record a torch run into a dump folder @path (device0/).

    module=None (or ops=True): every aten op the block runs (a TorchDispatchMode), named by cannon's
    operator types; module given (and ops not True): the outputs and inputs of each call of the module's
    leaf submodules, named by class. @skip adds aten names to leave out, @names maps aten names to op
    types. Yields the DumpWriter.
    """
    import torch
    writer = DumpWriter(path, mode=mode, stats=stats)
    use_ops = ops if ops is not None else module is None
    handles = []
    try:
        if module is not None and not use_ops:
            qual = {m: n for n, m in module.named_modules()}

            pending = {}

            def pre_hook(mod, args):
                pending.setdefault(id(mod), []).append([_Values(t) for t in _tensors(args, [])])

            def hook(mod, args, result):
                ins = pending[id(mod)].pop()
                writer.record(type(mod).__name__, inputs=ins, outputs=_tensors(result, []),
                              api=f"torch.nn.{type(mod).__name__}", module=qual.get(mod, ""))
            for m in module.modules():
                if not any(True for _ in m.children()):
                    handles.append(m.register_forward_pre_hook(pre_hook))
                    handles.append(m.register_forward_hook(hook))
            yield writer
            return
        from torch.utils._python_dispatch import TorchDispatchMode
        skipped = SKIP_OPS | set(skip)
        rename = dict(names or {})

        class _Recorder(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                name = func.overloadpacket.__name__
                keep = name not in skipped
                ins = [_Values(t) for t in _tensors([args, kwargs or {}], [])] if keep else None
                out = func(*args, **(kwargs or {}))
                if keep:
                    writer.record(rename.get(name) or cannon_op_name(name), inputs=ins, outputs=_tensors(out, []),
                                  api=f"aten::{name}")
                return out

        with _Recorder():
            yield writer
    finally:
        for h in handles:
            h.remove()
        writer.close()
