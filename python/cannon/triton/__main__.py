"""python3 -m cannon.triton SCRIPT.py [ARGS...]: runs SCRIPT as __main__ with ``import triton`` and
its submodules (triton.language, triton.testing, triton.runtime...) resolving to cannon.triton when
no real ``triton`` package is installed (when one is, the script gets the real one).

Scripts written for GPUs reach the device's stream API through ``getattr(torch, device.type)``;
for the CPU device that is ``torch.cpu``, which older torch releases leave without streams, so
``torch.cpu.Stream``, ``current_stream``, ``set_stream`` and ``synchronize`` are added there when
missing (work on the CPU is synchronous: they do nothing); without a CUDA device,
``torch.cuda.get_device_capability()`` returns (0, 0) instead of raising, so scripts that test it
for Hopper-only paths at import take their portable path. GPU tutorials check their fp16 kernels
against torch's fp16 ``layer_norm`` and ``matmul``, which torch 1.13 lacks on the CPU; where they
are missing, ``torch.nn.functional.layer_norm`` and ``torch.matmul`` on fp16 CPU inputs compute in
fp32 and round the result (differentiable, as the originals); the matmul sums the exact products in
k order as a GPU's fp16 matrix instructions do, so a Triton kernel accumulating in fp32 gets the same
bits."""
import importlib
import importlib.util
import os
import runpy
import sys

SUBMODULES = ("language", "language.core", "language.math", "language.standard", "semantics", "errors",
              "interpreter", "runtime", "runtime.jit", "runtime.autotuner", "runtime.driver", "runtime.errors",
              "testing", "tools", "tools.tensor_descriptor", "tools.experimental_descriptor")


def install_alias(name="triton"):
    """Makes ``import triton`` (and triton.<submodule>) resolve to cannon.triton."""
    pkg = importlib.import_module("cannon.triton")
    sys.modules[name] = pkg
    for sub in SUBMODULES:
        sys.modules[f"{name}.{sub}"] = importlib.import_module(f"cannon.triton.{sub}")


class _CPUStream:
    """A stream of the CPU device: work is synchronous, so there is nothing to wait for."""

    def __init__(self, device=None, priority=0):
        self.device = device

    def synchronize(self):
        return None

    def wait_stream(self, other):
        return None

    def wait_event(self, event):
        return None

    def query(self):
        return True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def install_torch_shims():
    """torch.cpu's stream functions where the installed torch lacks them."""
    if importlib.util.find_spec("torch") is None:
        return
    import torch
    cpu = getattr(torch, "cpu", None)
    if cpu is None:
        return
    for name, value in (("Stream", _CPUStream), ("current_stream", lambda device=None: _CPUStream(device)),
                        ("set_stream", lambda stream: None), ("synchronize", lambda device=None: None)):
        if not hasattr(cpu, name):
            setattr(cpu, name, value)
    _install_cuda_capability(torch)
    _install_half_layer_norm(torch)
    _install_half_matmul(torch)


def _install_cuda_capability(torch):
    """``torch.cuda.get_device_capability()`` is (0, 0) where torch has no CUDA device (instead of an
    error): GPU scripts test it, often while building their config lists at import, to pick
    Hopper-only paths; (0, 0) reads as "no such feature", so they take their portable path."""
    cuda = getattr(torch, "cuda", None)
    if cuda is None or cuda.is_available():
        return
    orig = cuda.get_device_capability

    def get_device_capability(device=None):
        if cuda.is_available():
            return orig(device)
        return (0, 0)
    cuda.get_device_capability = get_device_capability


def _install_half_matmul(torch):
    try:
        torch.matmul(torch.ones(1, 1, dtype=torch.float16), torch.ones(1, 1, dtype=torch.float16))
        return
    except RuntimeError:
        pass
    orig = torch.matmul

    def matmul(a, b, *, out=None):
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and torch.float16 in (a.dtype, b.dtype) \
                and a.device.type == "cpu" and out is None:
            return _half_matmul_fp32(torch, orig, a, b).to(torch.promote_types(a.dtype, b.dtype))
        return orig(a, b) if out is None else orig(a, b, out=out)
    torch.matmul = matmul


def _half_matmul_fp32(torch, orig, a, b):
    """a @ b of 16-bit matrices in fp32: each product is exact in fp32 and the products are summed
    in k order, as a GPU's fp16 matrix instructions with an fp32 accumulator (and tl.dot into an
    fp32 accumulator) do, so that the one rounding to fp16 afterwards is the same; sgemm (whose
    summation order is its own) for batches, gradients and products over 2^30 multiply-adds."""
    af, bf = a.float(), b.float()
    if af.dim() != 2 or bf.dim() != 2 or af.requires_grad or bf.requires_grad or \
            af.shape[0] * af.shape[1] * bf.shape[1] > (1 << 30) or af.shape[1] != bf.shape[0]:
        return orig(af, bf)
    acc = torch.zeros(af.shape[0], bf.shape[1], dtype=torch.float32)
    for k in range(af.shape[1]):
        acc.addr_(af[:, k], bf[k, :])
    return acc


def _install_half_layer_norm(torch):
    F = torch.nn.functional
    try:
        F.layer_norm(torch.ones(1, 2, dtype=torch.float16), (2,))
        return
    except RuntimeError:
        pass
    orig = F.layer_norm

    def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
        if input.dtype in (torch.float16, torch.bfloat16) and input.device.type == "cpu":
            f = (lambda t: None if t is None else t.float())
            return orig(input.float(), normalized_shape, f(weight), f(bias), eps).to(input.dtype)
        return orig(input, normalized_shape, weight, bias, eps)
    F.layer_norm = layer_norm


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2 if not argv else 0
    script = argv[0]
    if not os.path.isfile(script):
        print(f"cannon.triton: no such script: {script}", file=sys.stderr)
        return 2
    if "triton" not in sys.modules and importlib.util.find_spec("triton") is None:
        install_alias()
    install_torch_shims()
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
