#!/usr/bin/python3
"""Build and run CANN's documentation examples against an installed cannon.

Every aclnn operator page in CANN's operator repositories (hicann/ops-math, ops-nn, ops-cv,
ops-transformer) ends with a complete calling program. For every operator the installed libopapi
implements, this script finds the operator's page in the checkouts given with --repo, takes each
fenced C++ block of that page that has a main() and calls the operator, compiles it unchanged
with the flags a CANN user builds with (-I include -I include/aclnn -L lib64 -lascendcl -lopapi
-lnnopbase), runs it with a timeout, and checks what it printed:

  built   the program compiled and linked;
  status  its exit status (0 expected) and no "failed"/"ERROR" line in its output;
  values  for operators with a reference in references.py: the printed results equal the values
          the example's inputs imply (computed here in float64 from the inputs parsed out of the
          program); "ran" for the others (status 0, no error line, at least one result printed).

Nothing of CANN's is kept: the programs are written to and built in a work directory outside
the source tree (a temporary one unless --work names one). Exit status 1 when any implemented
operator's example fails to build, run or match.

Usage:
  run_examples.py --repo DIR [--repo DIR ...] [--prefix PREFIX | --build BUILD_DIR]
                  [--work DIR] [--ops Abs,Add,...] [--timeout S] [--cxx g++] [--keep] [-v]

Without --prefix the current build (--build, default build/ of this tree) is installed with
`cmake --install` into a temporary prefix first.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)

import references  # noqa: E402  (per-operator value checks)

# Operators whose pages the table should list as "not implemented" while the library lacks them.
PENDING = []

# Examples written for features cannon does not implement: (the operators whose rows they are, a
# pattern of the program, why). Reported as "unsupported" rows, not counted as failures.
UNSUPPORTED = [
    (("WeightQuantBatchMatmulV2",), r"CreateAclTensor\([^;]*ACL_FLOAT8_E8M0",
     "Ascend 950's A16MxFp4 (FLOAT4_E2M1 weight packed by aclnnConvertWeightToINT4Pack, FLOAT8_E8M0 "
     "scales) is not implemented"),
    (("NpuFormatCast", "NpuFormatCastCalculateSizeAndFormat"), r"\bint\s+dstFormat\s*=\s*(?:3|4|32|33)\s*;",
     "the convolution layouts (NC1HWC0, FRACTAL_Z, NDC1HWC0, FRACTAL_Z_3D) are not implemented: cannon "
     "converts between the plain layouts and FRACTAL_NZ only"),
]

ERROR_LINE = re.compile(r"failed|error", re.I)
FENCE = re.compile(r"^[ \t]*```[ \t]*([A-Za-z+]*)[^\n]*\n(.*?)```", re.S | re.M)
CONFLICT = re.compile(r"^(<<<<<<<|>>>>>>>) ", re.M)
CALL = re.compile(r"\baclnn(\w+?)GetWorkspaceSize\s*\(")


def implemented_ops(prefix):
    """The operators the installed libopapi implements (names without "aclnn")."""
    info = os.path.join(prefix, "bin", "cannon-info")
    if os.access(info, os.X_OK):
        env = run_env(prefix)
        out = subprocess.run([info, "--json", "--ops"], capture_output=True, text=True, env=env,
                             timeout=60)
        if out.returncode == 0:
            ops = json.loads(out.stdout).get("operators", [])
            return sorted(o["name"][5:] if o["name"].startswith("aclnn") else o["name"] for o in ops)
    lib = os.path.join(lib_dir(prefix), "libopapi.so")
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                         check=True)
    return sorted(set(re.findall(r"\baclnn(\w+)GetWorkspaceSize\b", out.stdout)))


def helper_ops(prefix):
    """The one-phase helpers the installed headers declare (aclnnXxx(...) returning aclnnStatus with
    no aclnnXxxGetWorkspaceSize beside it: aclnnCalculateMatmulWeightSizeV2, say), names without
    "aclnn"."""
    decl = re.compile(r"\baclnnStatus\s+aclnn(\w+)\s*\(")
    names = set()
    inc = os.path.join(prefix, "include", "aclnnop")
    for f in sorted(os.listdir(inc)) if os.path.isdir(inc) else []:
        if f.endswith(".h"):
            with open(os.path.join(inc, f), encoding="utf-8", errors="replace") as fh:
                names.update(decl.findall(fh.read()))
    two_phase = {n[:-len("GetWorkspaceSize")] for n in names if n.endswith("GetWorkspaceSize")}
    return sorted(n for n in names if not n.endswith("GetWorkspaceSize") and n not in two_phase)


def calls(op, code, helpers):
    """Whether example @code calls operator @op (phase 1 of an operator, or a one-phase helper)."""
    if op in helpers:
        return re.search(r"\baclnn%s\s*\(" % re.escape(op), code) is not None
    return op in CALL.findall(code)


def lib_dir(prefix):
    for d in ("lib64", "lib"):
        if os.path.exists(os.path.join(prefix, d, "libopapi.so")):
            return os.path.join(prefix, d)
    raise SystemExit("run_examples: no libopapi.so under %s/lib64 or %s/lib" % (prefix, prefix))


def run_env(prefix):
    env = dict(os.environ)
    libs = lib_dir(prefix)
    env["LD_LIBRARY_PATH"] = libs + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    env["ASCEND_TOOLKIT_HOME"] = prefix
    return env


def find_pages(repos):
    """{operator name: [page paths]} over every aclnn*.md page of the checkouts; a page named
    aclnnA&aclnnB.md documents both. Pages outside experimental/ come first."""
    pages = {}
    for repo in repos:
        for root, dirs, files in os.walk(repo):
            dirs[:] = [d for d in dirs if d not in (".git",)]
            for f in files:
                if f.startswith("aclnn") and f.endswith(".md"):
                    for name in f[:-3].split("&"):
                        if name.startswith("aclnn"):
                            pages.setdefault(name[5:], []).append(os.path.join(root, f))
    for name in pages:
        pages[name].sort(key=lambda p: ("/experimental/" in p, len(p), p))
    return pages


def examples_of(page):
    """The fenced C++ blocks of a page that define main(): [(index, code)]."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    out = []
    for i, m in enumerate(FENCE.finditer(text)):
        lang, code = m.group(1).lower(), m.group(2)
        if lang in ("cpp", "c++", "cxx", "c", "") and re.search(r"\bint\s+main\s*\(", code):
            out.append((i, code))
    return out


class Result:
    def __init__(self, page, index):
        self.page, self.index = page, index
        self.built = False
        self.status = None
        self.values = "-"
        self.detail = ""
        self.output = ""

    broken_upstream = False

    @property
    def ok(self):
        return self.built and self.status == 0 and self.values in ("match", "ran")


def build_and_run(code, page, index, prefix, work, cxx, timeout, op):
    res = Result(page, index)
    if CONFLICT.search(code):
        # The page itself is broken (unresolved merge-conflict markers): it builds nowhere.
        res.broken_upstream = True
        res.detail = "the page's program has merge-conflict markers"
        return res
    tag = re.sub(r"[^A-Za-z0-9_]+", "_", os.path.basename(page)[:-3]) + "_%d" % index
    src = os.path.join(work, tag + ".cpp")
    exe = os.path.join(work, tag)
    with open(src, "w", encoding="utf-8") as f:
        f.write(code)
    inc = os.path.join(prefix, "include")
    libs = lib_dir(prefix)
    cmd = [cxx, "-std=c++11", "-O0", "-w", src, "-I", inc, "-I", os.path.join(inc, "aclnn"),
           "-L", libs, "-Wl,-rpath," + libs, "-lascendcl", "-lopapi", "-lnnopbase", "-o", exe]
    cc = subprocess.run(cmd, capture_output=True, text=True)
    if cc.returncode != 0:
        lines = [ln for ln in cc.stderr.splitlines() if "error" in ln]
        res.detail = (lines[0] if lines else cc.stderr.strip()[:300]).replace(work + "/", "")
        res.output = cc.stderr
        return res
    res.built = True
    try:
        run = subprocess.run([exe], capture_output=True, text=True, env=run_env(prefix),
                             timeout=timeout, cwd=work)
        res.status = run.returncode
        res.output = run.stdout + run.stderr
    except subprocess.TimeoutExpired as e:
        res.status = "timeout"
        res.output = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        res.detail = "timed out after %ss" % timeout
        return res
    errs = [ln for ln in res.output.splitlines() if ERROR_LINE.search(ln)]
    if res.status != 0 or errs:
        res.detail = (errs[0] if errs else "exit status %s" % res.status).strip()[:200]
        if res.status == 0:
            res.status = "0 (error printed)"
        return res
    verdict, detail = references.check(op, code, res.output)
    res.values, res.detail = verdict, detail
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", action="append", required=True, help="checkout of a hicann/ops-* repository")
    ap.add_argument("--prefix", help="an installed cannon (default: install --build into a temporary prefix)")
    ap.add_argument("--build", default=os.path.join(TREE, "build"), help="build directory to install")
    ap.add_argument("--work", help="where the programs are written and built (outside the tree)")
    ap.add_argument("--ops", help="comma-separated subset of operators")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the output of failing examples")
    args = ap.parse_args(argv)

    tmp_dirs = []
    work = args.work or tempfile.mkdtemp(prefix="cann-examples-")
    if not args.work:
        tmp_dirs.append(work)
    work = os.path.abspath(work)
    if os.path.commonpath([work, TREE]) == TREE:
        raise SystemExit("run_examples: the work directory must be outside the source tree")
    os.makedirs(work, exist_ok=True)
    try:
        if args.prefix:
            prefix = os.path.abspath(args.prefix)
        else:
            prefix = tempfile.mkdtemp(prefix="cannon-prefix-")
            tmp_dirs.append(prefix)
            subprocess.run(["cmake", "--install", args.build, "--prefix", prefix], check=True,
                           stdout=subprocess.DEVNULL)
        return run_all(args, prefix, work)
    finally:
        if not args.keep:
            for d in tmp_dirs:
                shutil.rmtree(d, ignore_errors=True)


def run_all(args, prefix, work):
    helpers = helper_ops(prefix)
    ops = sorted(set(implemented_ops(prefix)) | set(helpers))
    wanted = args.ops.split(",") if args.ops else None
    pages = find_pages([os.path.abspath(r) for r in args.repo])
    cache = {}
    rows = []
    failures = 0
    for op in ops + [p for p in PENDING if p not in ops]:
        if wanted and op not in wanted:
            continue
        if op not in ops:
            rows.append((op, "-", "not implemented", "", "", "", ""))
            continue
        cands = pages.get(op, [])
        if not cands and op in helpers:
            # a helper documented on its operator's page (NpuFormatCastCalculateSizeAndFormat)
            owner = max((p for p in pages if op.startswith(p) and p != op), key=len, default=None)
            cands = pages.get(owner, [])
        if not cands:
            rows.append((op, "-", "no page", "", "", "", ""))
            failures += 1
            continue
        found = None
        for page in cands:
            exs = [(i, c) for i, c in examples_of(page) if calls(op, c, helpers)]
            if exs:
                found = (page, exs)
                break
        if not found:
            # The page documents the operator but its examples call only a sibling (aclnnXxx and
            # aclnnInplaceXxx share a page): reported, not a failure.
            rows.append((op, short(cands[0], args.repo), "no example calls it", "", "", "", ""))
            continue
        page, exs = found
        for i, code in exs:
            why = next((w for o, pat, w in UNSUPPORTED if op in o and re.search(pat, code)), None)
            if why:
                rows.append((op, short(page, args.repo) + ("#%d" % i if len(exs) > 1 else ""), "unsupported",
                             "", "", "", why))
                continue
            key = (page, i)
            if key not in cache:
                cache[key] = build_and_run(code, page, i, prefix, work, args.cxx, args.timeout, op)
            r = cache[key]
            verdict = "ok" if r.ok else "broken page" if r.broken_upstream else "FAIL"
            if verdict == "FAIL":
                failures += 1
                if args.verbose:
                    print("---- %s (%s #%d)\n%s" % (op, short(page, args.repo), i, r.output.strip()[-3000:]))
            rows.append((op, short(page, args.repo) + ("#%d" % i if len(exs) > 1 else ""),
                         verdict, "yes" if r.built else "no",
                         "" if r.status is None else str(r.status), r.values, r.detail))
    print_table(rows)
    n_ok = sum(1 for r in rows if r[2] == "ok")
    n_fail = sum(1 for r in rows if r[2] == "FAIL" or r[2] == "no page")
    n_broken = sum(1 for r in rows if r[2] == "broken page")
    n_unsup = sum(1 for r in rows if r[2] == "unsupported")
    print("\n%d examples ok, %d failed, %d broken in CANN's page, %d for unsupported hardware features; "
          "%d operators and helpers implemented, %d pending" %
          (n_ok, n_fail, n_broken, n_unsup, len(ops), sum(1 for r in rows if r[2] == "not implemented")))
    return 1 if failures else 0


def short(page, repos):
    for r in repos:
        r = os.path.abspath(r)
        if page.startswith(r + os.sep):
            return os.path.basename(r) + ":" + os.path.relpath(page, r)
    return page


def print_table(rows):
    head = ("operator", "page", "result", "built", "status", "values", "detail")
    w = [max(len(head[k]), *(len(r[k]) for r in rows)) if rows else len(head[k]) for k in range(6)]
    w[1] = min(w[1], 70)
    fmt = "  ".join("%%-%ds" % x for x in w) + "  %s"
    print(fmt % head)
    for r in rows:
        page = r[1] if len(r[1]) <= 70 else "..." + r[1][-67:]
        print(fmt % ((r[0], page) + tuple(r[2:])))


if __name__ == "__main__":
    sys.exit(main())
