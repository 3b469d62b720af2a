"""The operator dump (the aclInit config's `dump` section and CANNON_DUMP) and tools/cannon-compare.

Each program runs in a fresh process (aclInit reads its configuration once per process): a few
aclnn ops on fp32, fp16 and bf16 tensors, one of them on a transposed view. The dumped .npy files
and manifest lines are checked against the values the program computed; two dumps of the same
program compare equal, a perturbed one is flagged at the perturbed op; an unwritable dump folder
fails aclInit; dump_list filters ops; stats mode writes statistics only; a torch run recorded by
cannon.compare.record_torch lines up with a cannon dump."""
import csv
import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PKG = os.path.join(ROOT, "python")
TOOL = os.path.join(ROOT, "tools", "cannon-compare")
ACL_ERROR_INVALID_DUMP_CONFIG = 100009

# argv: config path ("" for none), npz path for the values, seed
PROGRAM = """
    import sys
    import numpy as np
    import cannon
    from cannon import ops
    config, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    try:
        cannon.init(config or None)
    except cannon.AclError as e:
        print("INITFAIL", e.code, str(e))
        sys.exit(3)
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    h = rng.standard_normal((4, 5)).astype(np.float16)
    A, B = cannon.from_numpy(a), cannon.from_numpy(b)
    s = ops.add(A, B, alpha=2.0)                          # call 0
    t = ops.softmax(s.T, dim=-1)                          # call 1: a transposed view
    m = ops.matmul(cannon.from_numpy(a.astype(np.float16)), cannon.from_numpy(h))   # call 2
    bf = ops.cast(A, cannon.bfloat16)                     # call 3
    r = ops.relu(bf)                                      # call 4
    np.savez(out, a=a, b=b, h=h, s=s.numpy(), t=t.numpy(), m=m.numpy(),
             bf=bf.numpy().view(np.uint16) if bf.numpy().dtype != np.uint16 else bf.numpy(),
             r=r.numpy().view(np.uint16) if r.numpy().dtype != np.uint16 else r.numpy())
    cannon.finalize()
    print("OK")
"""
OPS = ["Add", "Softmax", "Matmul", "Cast", "Relu"]


def run_program(tmp_path, config=None, env_extra=None, seed=0, tag="run"):
    prog = tmp_path / "prog.py"
    prog.write_text(textwrap.dedent(PROGRAM))
    cfg = ""
    if config is not None:
        cfg = str(tmp_path / f"{tag}.json")
        with open(cfg, "w") as f:
            json.dump(config, f)
    out = tmp_path / f"{tag}.npz"
    env = dict(os.environ, PYTHONPATH=PKG)
    for k in ("CANNON_DUMP", "CANNON_DUMP_OPS", "CANNON_DUMP_MODE", "CANNON_DUMP_DATA"):
        env.pop(k, None)
    env.update(env_extra or {})
    r = subprocess.run([sys.executable, str(prog), cfg, str(out), str(seed)], env=env, capture_output=True, text=True,
                       timeout=120)
    return r, out


def dump_cfg(path, **kw):
    d = {"dump_path": str(path), "dump_mode": "all", "dump_op_switch": "on"}
    d.update(kw)
    return {"dump": {k: v for k, v in d.items() if v is not None}}


def manifest(path, device=0):
    with open(os.path.join(path, f"device{device}", "manifest.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def tensor(rec, key):
    return next(t for t in rec["tensors"] if f"{t['role']}.{t['pos']}" == key)


def load(path, rec, key, device=0):
    t = tensor(rec, key)
    return np.load(os.path.join(path, f"device{device}", t["file"]))


def bf16_to_f32(u):
    return (u.astype(np.uint32) << 16).view(np.float32)


def compare(*args):
    return subprocess.run([sys.executable, TOOL, *map(str, args)], capture_output=True, text=True, timeout=120)


def test_config_dump_values(tmp_path):
    d = tmp_path / "dump"
    r, out = run_program(tmp_path, dump_cfg(d))
    assert r.returncode == 0, r.stdout + r.stderr
    v = np.load(out)
    recs = manifest(d)
    assert [x["op"] for x in recs] == OPS
    assert [x["index"] for x in recs] == list(range(5))
    assert all(x["api"] == "aclnn" + x["op"] and x["device"] == 0 for x in recs)
    add, sm, mm, cast, relu = recs
    # Add: both inputs and the output, as the program saw them
    assert tensor(add, "input.0")["file"] == "000000_Add.input.0.npy"
    assert np.array_equal(load(d, add, "input.0"), v["a"]) and np.array_equal(load(d, add, "input.1"), v["b"])
    got = load(d, add, "output.0")
    assert got.dtype == np.float32 and np.array_equal(got, v["s"])
    np.testing.assert_allclose(got.astype(np.float64), v["a"].astype(np.float64) + 2.0 * v["b"], rtol=1e-6)
    # Softmax of a transposed view: the logical values; the manifest keeps the view's strides
    x = tensor(sm, "input.0")
    assert x["shape"] == [4, 3] and x["strides"] == [1, 4] and x["offset"] == 0
    assert np.array_equal(load(d, sm, "input.0"), v["s"].T)
    assert np.array_equal(load(d, sm, "output.0"), v["t"])
    # fp16 stored as float16
    assert tensor(mm, "input.1")["dtype"] == "float16" and tensor(mm, "input.1")["npy"] == "<f2"
    assert load(d, mm, "input.1").dtype == np.float16 and np.array_equal(load(d, mm, "input.1"), v["h"])
    assert np.array_equal(load(d, mm, "output.0"), v["m"])
    # bf16 stored as its bits (<u2), named in the manifest
    c = tensor(cast, "output.0")
    assert c["dtype"] == "bfloat16" and c["npy"] == "<u2"
    bits = load(d, cast, "output.0")
    assert bits.dtype == np.uint16 and np.array_equal(bits, v["bf"])
    np.testing.assert_allclose(bf16_to_f32(bits), v["a"], rtol=2 ** -8)
    assert np.array_equal(load(d, relu, "input.0"), v["bf"]) and np.array_equal(load(d, relu, "output.0"), v["r"])
    assert np.array_equal(bf16_to_f32(v["r"]), np.maximum(bf16_to_f32(v["bf"]), 0))


def test_round_trip_and_perturbation(tmp_path):
    d1, d2 = tmp_path / "d1", tmp_path / "d2"
    for d, tag in ((d1, "one"), (d2, "two")):
        r, _ = run_program(tmp_path, dump_cfg(d), tag=tag)
        assert r.returncode == 0, r.stdout + r.stderr
    c = compare(d1, d2, "--csv", tmp_path / "same.csv")
    assert c.returncode == 0, c.stdout + c.stderr
    assert "no divergence" in c.stdout
    with open(tmp_path / "same.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 12 and {r["status"] for r in rows} == {"ok"}  # 12 tensors in 5 calls
    assert all(float(r["cosine"]) == pytest.approx(1.0) and float(r["max_abs"]) == 0.0 for r in rows)

    # Perturb the softmax output of the second dump: flagged at call 1, nowhere before
    f = d2 / "device0" / "000001_Softmax.output.0.npy"
    y = np.load(f)
    y[::2] = y[::2][:, ::-1]
    np.save(f, y)
    c = compare(d1, d2, "--csv", tmp_path / "diff.csv")
    assert c.returncode == 1, c.stdout + c.stderr
    assert "first divergence: call 1 Softmax output.0" in c.stdout, c.stdout
    with open(tmp_path / "diff.csv") as fh:
        rows = list(csv.DictReader(fh))
    bad = [(r["index_ref"], r["op_ref"], r["tensor"]) for r in rows if r["status"] == "DIVERGED"]
    assert bad == [("1", "Softmax", "output.0")]
    row = next(r for r in rows if r["status"] == "DIVERGED")
    want = y.astype(np.float64) - np.load(d1 / "device0" / "000001_Softmax.output.0.npy").astype(np.float64)
    assert float(row["max_abs"]) == pytest.approx(np.abs(want).max(), rel=1e-9)
    assert float(row["rmse"]) == pytest.approx(np.sqrt(np.mean(want ** 2)), rel=1e-9)
    # a different program (another seed) parts at the first op; a removed call is a sequence mismatch
    d3 = tmp_path / "d3"
    r, _ = run_program(tmp_path, dump_cfg(d3), seed=1, tag="three")
    assert r.returncode == 0
    c = compare(d1, d3, "--quiet")
    assert c.returncode == 1 and "first divergence: call 0 Add" in c.stdout, c.stdout
    d4 = tmp_path / "d4"
    shutil.copytree(d1, d4)
    lines = (d4 / "device0" / "manifest.jsonl").read_text().splitlines()
    (d4 / "device0" / "manifest.jsonl").write_text("\n".join(lines[:1] + lines[2:]) + "\n")
    c = compare(d1, d4, "--quiet")
    assert c.returncode == 1, c.stdout
    assert "the op sequences part at call 1 (REF) / 2 (TEST): Softmax vs Matmul" in c.stdout, c.stdout
    c = compare(d1, d4, "--align", "sequence")
    assert c.returncode == 0 and "1 op call(s) only in REF, 0 only in TEST" in c.stdout, c.stdout
    assert compare(d1, tmp_path / "nothing").returncode == 2


def test_unwritable_path_fails_init(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r, _ = run_program(tmp_path, dump_cfg(blocker / "sub"))
    assert r.returncode == 3, r.stdout + r.stderr
    assert f"INITFAIL {ACL_ERROR_INVALID_DUMP_CONFIG}" in r.stdout and "dump.dump_path" in r.stdout, r.stdout
    r, _ = run_program(tmp_path, None, env_extra={"CANNON_DUMP": str(blocker / "sub")}, tag="env")
    assert r.returncode == 3 and f"INITFAIL {ACL_ERROR_INVALID_DUMP_CONFIG}" in r.stdout and "CANNON_DUMP" in r.stdout
    # an operator dump needs dump_path
    r, _ = run_program(tmp_path, {"dump": {"dump_op_switch": "on"}}, tag="nopath")
    assert r.returncode == 3 and "dump.dump_path" in r.stdout, r.stdout
    # switched off: nothing is written, the folder is not even created
    r, _ = run_program(tmp_path, dump_cfg(tmp_path / "off", dump_op_switch="off"), tag="off")
    assert r.returncode == 0 and not (tmp_path / "off").exists()


def test_dump_list_filter_and_default_mode(tmp_path):
    d = tmp_path / "d"
    cfg = dump_cfg(d, dump_op_switch=None, dump_mode=None,
                   dump_list=[{"model_name": "m", "layer": ["Softmax", "aclnnRelu"]}])
    r, out = run_program(tmp_path, cfg)
    assert r.returncode == 0, r.stdout + r.stderr
    v = np.load(out)
    recs = manifest(d)
    assert [x["op"] for x in recs] == ["Softmax", "Relu"] and [x["index"] for x in recs] == [0, 1]
    # CANN's default dump_mode is output
    assert all([t["role"] for t in x["tensors"]] == ["output"] for x in recs)
    assert np.array_equal(load(d, recs[0], "output.0"), v["t"])
    files = sorted(os.listdir(d / "device0"))
    assert files == ["000000_Softmax.output.0.npy", "000001_Relu.output.0.npy", "manifest.jsonl"]


def test_stats_mode(tmp_path):
    d = tmp_path / "d"
    r, out = run_program(tmp_path, dump_cfg(d, dump_data="stats"))
    assert r.returncode == 0, r.stdout + r.stderr
    v = np.load(out)
    assert os.listdir(d / "device0") == ["manifest.jsonl"]
    recs = manifest(d)
    assert [x["op"] for x in recs] == OPS
    for key, ref in (("input.0", v["a"]), ("output.0", v["s"])):
        st = tensor(recs[0], key)["stats"]
        x = ref.astype(np.float64)
        assert st["count"] == x.size and st["nan"] == 0 and st["inf"] == 0
        assert st["min"] == x.min() and st["max"] == x.max()
        assert st["mean"] == pytest.approx(x.mean(), rel=1e-12, abs=1e-12)
        assert st["l2"] == pytest.approx(np.linalg.norm(x), rel=1e-12)
    st = tensor(recs[4], "output.0")["stats"]  # bf16 widened exactly
    x = bf16_to_f32(v["r"]).astype(np.float64)
    assert st["max"] == x.max() and st["l2"] == pytest.approx(np.linalg.norm(x), rel=1e-12)
    # two stats dumps of one program compare equal
    d2 = tmp_path / "d2"
    r, _ = run_program(tmp_path, dump_cfg(d2, dump_data="stats"), tag="two")
    c = compare(d, d2)
    assert c.returncode == 0, c.stdout


def test_env_override(tmp_path):
    d = tmp_path / "envdump"
    r, out = run_program(tmp_path, None, env_extra={"CANNON_DUMP": str(d), "CANNON_DUMP_OPS": "Add, aclnnCast",
                                                    "CANNON_DUMP_MODE": "output"})
    assert r.returncode == 0, r.stdout + r.stderr
    v = np.load(out)
    recs = manifest(d)
    assert [x["op"] for x in recs] == ["Add", "Cast"]
    assert [[f"{t['role']}.{t['pos']}" for t in x["tensors"]] for x in recs] == [["output.0"], ["output.0"]]
    assert np.array_equal(load(d, recs[1], "output.0"), v["bf"])
    # the environment wins over the config file
    r, _ = run_program(tmp_path, dump_cfg(tmp_path / "cfgdump"), env_extra={"CANNON_DUMP": str(d)}, tag="both")
    assert r.returncode == 0 and not (tmp_path / "cfgdump").exists()
    assert len(manifest(d)) == 5


TORCH_REF = """
    import sys
    import numpy as np
    import torch
    from cannon.compare import record_torch
    rng = np.random.default_rng(7)
    x, w, b = (torch.from_numpy(rng.standard_normal(s).astype(np.float32)) for s in ((6, 8), (8, 5), (5,)))
    with record_torch(sys.argv[1]):
        y = torch.softmax(x @ w + b, -1)
"""
CANNON_RUN = """
    import sys
    import numpy as np
    import cannon
    from cannon import ops
    cannon.init()
    dt = cannon.bfloat16 if sys.argv[2] == "bf16" else cannon.float32
    rng = np.random.default_rng(7)
    x, w, b = (cannon.from_numpy(rng.standard_normal(s).astype(np.float32)) for s in ((6, 8), (8, 5), (5,)))
    if sys.argv[2] == "bf16":
        x, w, b = (ops.cast(t, dt) for t in (x, w, b))
    y = ops.softmax(ops.add(ops.matmul(x, w), b), dim=-1)
    y.numpy()
    cannon.finalize()
"""


def test_torch_reference_against_cannon(tmp_path):
    pytest.importorskip("torch")
    ref, f32, bf16 = tmp_path / "torch", tmp_path / "f32", tmp_path / "bf16"
    (tmp_path / "ref.py").write_text(textwrap.dedent(TORCH_REF))
    (tmp_path / "run.py").write_text(textwrap.dedent(CANNON_RUN))
    env = dict(os.environ, PYTHONPATH=PKG)
    r = subprocess.run([sys.executable, str(tmp_path / "ref.py"), str(ref)], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert [x["op"] for x in manifest(ref)] == ["Mm", "Add", "Softmax"]
    for d, kind in ((f32, "f32"), (bf16, "bf16")):
        r = subprocess.run([sys.executable, str(tmp_path / "run.py"), "", kind],
                           env=dict(env, CANNON_DUMP=str(d), CANNON_DUMP_OPS="Matmul,Add,Softmax"),
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
    # Mm (torch) and Matmul (cannon) are not paired; Add and Softmax are, and agree in fp32
    c = compare(ref, f32, "--align", "sequence", "--csv", tmp_path / "f32.csv")
    assert c.returncode == 0, c.stdout
    with open(tmp_path / "f32.csv") as f:
        rows = list(csv.DictReader(f))
    assert {(r["op_ref"], r["status"]) for r in rows if r["status"] == "unmatched" and r["op_ref"]} == {("Mm", "unmatched")}
    paired = [r for r in rows if r["status"] == "ok"]
    assert {r["op_ref"] for r in paired} == {"Add", "Softmax"}
    assert all(float(r["cosine"]) > 0.999999 and float(r["max_rel"]) < 1e-4 for r in paired)
    # bf16 against the fp32 reference: within the default cosine threshold, beyond a tight error bound
    assert compare(ref, bf16, "--align", "sequence").returncode == 0
    c = compare(ref, bf16, "--align", "sequence", "--rel-max", "1e-5", "--roles", "output")
    assert c.returncode == 1 and "first divergence: call 1 Add output.0" in c.stdout, c.stdout
