"""Compiling generated C into a shared object, with an on-disk cache.

The compiler is ``$CC`` or the first of ``cc``, ``gcc``, ``clang`` on PATH, run as
``CC -O3 -march=native -std=c11 -ffp-contract=off -fno-math-errno -shared -fPIC`` (``-march`` of the
``CANNON_ISA`` tier when that caps it: ``scalar``, ``avx2``; ``CANNON_CPU_ISA`` masks likewise): no
fast-math and
no contraction into fused multiply-adds, so fp32 arithmetic rounds exactly as the interpreter's.
``-fno-math-errno`` only lets ``sqrt`` vectorize (errno is never read).

The cache key is the SHA-256 of the generated source (which carries the kernel's name, its inlined
body, the specialization's types and constexprs and the C emitter's ABI version), the flags, the
compiler's ``--version`` text and the CPU's model and feature flags (what ``-march=native``
depends on). Objects live in ``$TRITON_CACHE_DIR`` or, by default, ``$XDG_CACHE_HOME/cannon/triton``
(``~/.cache/cannon/triton``), one directory per key holding ``kernel.c`` and ``kernel.so``; a build
writes a temporary file and renames it into place, so concurrent processes never load a half-written
object.
"""
import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile

FLAGS = ("-O3", "-march=native", "-std=c11", "-ffp-contract=off", "-fno-math-errno", "-shared", "-fPIC")

# CANNON_ISA caps the instruction set as for cannon's own kernels (scalar, avx2, avx512): on x86-64
# the object is then built for that tier instead of the CPU's full set (its key changes with it)
_TIER_MARCH = {"scalar": "-march=x86-64", "avx2": "-march=x86-64-v3"}


# CANNON_CPU_ISA, the mask of include/cannon/cpu.h's CANNON_CPU_ISA_* bits that cannon's kernels
# honour, caps it too: without AVX512F the avx2 tier (scalar without AVX2 as well), without
# AVX512BF16 no bf16 dot-product instructions
_ISA_AVX2, _ISA_AVX512F, _ISA_AVX512BF16 = 1 << 0, 1 << 3, 1 << 6


def flags():
    """The compiler flags for this process: FLAGS with -march for the CANNON_ISA tier and the
    CANNON_CPU_ISA mask (x86-64 only)."""
    import platform
    if platform.machine() not in ("x86_64", "AMD64"):
        return FLAGS
    tier = os.environ.get("CANNON_ISA", "")
    extra = ()
    try:
        mask = int(os.environ.get("CANNON_CPU_ISA", "") or "-1", 0)
    except ValueError:
        mask = -1
    if mask >= 0:
        if not mask & _ISA_AVX512F:
            tier = "avx2" if mask & _ISA_AVX2 and tier != "scalar" else "scalar"
        elif not mask & _ISA_AVX512BF16:
            extra = ("-mno-avx512bf16",)
    if tier in _TIER_MARCH:
        return tuple(_TIER_MARCH[tier] if f == "-march=native" else f for f in FLAGS)
    return FLAGS + extra

stats = {"compiles": 0, "disk_hits": 0}

_cc = None
_cc_version = None


class BuildError(RuntimeError):
    """The system C compiler failed on generated code (a bug of the emitter): the launch falls back
    to the interpreter, and the compiler's message is kept."""


def compiler():
    """The C compiler's path, or None when there is none."""
    global _cc
    if _cc is None:
        cand = [os.environ.get("CC")] if os.environ.get("CC") else []
        cand += ["cc", "gcc", "clang"]
        _cc = ""
        for c in cand:
            p = shutil.which(c)
            if p:
                _cc = p
                break
    return _cc or None


def compiler_version():
    global _cc_version
    if _cc_version is None:
        cc = compiler()
        try:
            _cc_version = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            _cc_version = ""
    return _cc_version


def cache_dir():
    d = os.environ.get("TRITON_CACHE_DIR")
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cannon", "triton")


_cpu = None


def cpu_id():
    """What -march=native depends on: the machine and its CPU's model and feature flags (so that a
    cache directory shared between different machines never hands one another's object)."""
    global _cpu
    if _cpu is None:
        import platform
        parts = [platform.machine()]
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    k = line.split(":", 1)[0].strip()
                    if k in ("model name", "flags", "Features", "CPU part"):
                        parts.append(line.strip())
                    if line.strip() == "":
                        break  # the first CPU describes them all
        except OSError:
            pass
        _cpu = "\n".join(parts)
    return _cpu


def vecreport_enabled():
    """``CANNON_TRITON_VECREPORT=1``: build with the compiler's report of the loops it did not
    vectorize (gcc's ``-fopt-info-vec-missed``, clang's ``-Rpass-missed=loop-vectorize``), saved as
    ``vec-report.txt`` next to ``kernel.c`` and printed to stderr when the object is loaded."""
    return os.environ.get("CANNON_TRITON_VECREPORT", "0") not in ("", "0", "false", "False", "no")


def _is_clang():
    return "clang" in compiler_version().lower()


def cache_key(source, extra=()):
    h = hashlib.sha256()
    for part in (source, " ".join(flags() + tuple(extra)), compiler() or "", compiler_version(), cpu_id()):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def build(source):
    """The path of the shared object for source, compiling it unless the cache holds it."""
    report = vecreport_enabled()
    extra = (("-Rpass-missed=loop-vectorize",) if _is_clang() else ("-fopt-info-vec-missed",)) if report else ()
    key = cache_key(source, extra)
    d = os.path.join(cache_dir(), key[:2], key)
    so = os.path.join(d, "kernel.so")
    rep = os.path.join(d, "vec-report.txt")
    if os.path.exists(so):
        stats["disk_hits"] += 1
        if report:
            _print_report(rep)
        return so
    os.makedirs(d, exist_ok=True)
    src = os.path.join(d, "kernel.c")
    with open(src + ".tmp%d" % os.getpid(), "w") as f:
        f.write(source)
    os.replace(src + ".tmp%d" % os.getpid(), src)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=d)
    os.close(fd)
    try:
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}  # no sanitizer runtime in the compiler
        fl = list(flags())
        if report and not _is_clang():
            fl.append(f"-fopt-info-vec-missed={rep}")
        elif report:
            fl.extend(extra)
        r = subprocess.run([compiler(), *fl, "-o", tmp, src], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            raise BuildError(f"{compiler()} failed on {src}:\n{r.stderr}")
        if report and _is_clang():
            with open(rep, "w") as f:
                f.write(r.stderr)
        os.replace(tmp, so)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    stats["compiles"] += 1
    if report:
        _print_report(rep)
    return so


def _print_report(path):
    import sys
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        text = ""
    print(f"// ---- cannon.triton: vectorization report ({path}) ----", file=sys.stderr)
    print(text.rstrip() or "(every loop the compiler considered was vectorized)", file=sys.stderr)


class Library:
    """A loaded kernel object: ``run(args, start, end, grid)`` calls its runner."""

    def __init__(self, path):
        self.path = path
        self.lib = ctypes.CDLL(path)
        f = self.lib.cn_triton_run
        f.restype = ctypes.c_int
        f.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_int64, ctypes.c_int64,
                      ctypes.POINTER(ctypes.c_int32)]
        self.run = f
        # the per-block entry of cannon's kernel-launch interface (cannonLaunchKernel)
        self.block_fn = ctypes.cast(self.lib.cn_triton_block, ctypes.c_void_p).value
