"""cannon.torch's torch.distributed backend and SyncBatchNorm: 2 ranks under cannonrun, plus the
launcher-environment errors and a one-rank group in this process."""
import datetime
import os
import subprocess
import sys
import time

import pytest

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.abspath(os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, PKG)

import cannon.torch as ct  # noqa: E402
from cannon.torch.distributed import ProcessGroupCannon  # noqa: E402

import torch_cnn  # noqa: E402

LIBDIR = os.environ.get("CANNON_LIB_DIR", "")
CANNONRUN = os.path.join(LIBDIR, "..", "bin", "cannonrun")
needs_launcher = pytest.mark.skipif(
    not (os.path.exists(CANNONRUN) and os.path.exists(os.path.join(LIBDIR, "libhccl.so"))),
    reason="cannonrun or libhccl.so not built")


def launch(mode, out="", env_extra=None, timeout=120):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([PKG, HERE]), CANNON_LIB_DIR=LIBDIR, CANNON_CPU_THREADS="1",
               HCCL_CONNECT_TIMEOUT="60", OMP_NUM_THREADS="1")
    env.update(env_extra or {})
    t0 = time.monotonic()
    r = subprocess.run([CANNONRUN, "-n", "2", "--tag-output", "--timeout", str(timeout), sys.executable,
                        os.path.join(HERE, "torch_dist_rank.py"), mode, out],
                       env=env, capture_output=True, text=True, timeout=timeout + 30)
    return r, time.monotonic() - t0


def tagged(out, rank, key):
    pre = f"[{rank}] {key} "
    return [l[len(pre):] for l in out.splitlines() if l.startswith(pre)]


@needs_launcher
def test_two_ranks_api_and_syncbn_training(tmp_path):
    """The torch.distributed API on libhccl; a CNN trained data-parallel for 50 steps on 2 ranks
    (torch's convolutions, cannon's SyncBatchNorm and loss ops, gradients all-reduced on the cannon
    backend) equals torch's single-process BatchNorm training on the full batch within 1e-5 (also
    under torch's DistributedDataParallel on the cannon backend, 20 steps); and a
    rank that dies makes the other's next collective raise (one launch: ranks cost seconds to start)."""
    out = str(tmp_path / "rank0.pt")
    r, _ = launch("main", out, env_extra={"HCCL_EXEC_TIMEOUT": "5"})
    log = r.stdout + r.stderr
    assert r.returncode == 0, log
    for rank in (0, 1):
        assert tagged(r.stdout, rank, "BACKEND") == ["cannon ProcessGroupCannon"], log
        assert tagged(r.stdout, rank, "AR") == ["[10.0, 12.0, 14.0, 16.0]"]
        assert tagged(r.stdout, rank, "MAX") == ["[2.0, 2.0, 2.0]"]
        assert tagged(r.stdout, rank, "PROD") == ["[6.0, 6.0]"]
        assert tagged(r.stdout, rank, "AVG") == ["[0.5, 0.5]"]
        assert tagged(r.stdout, rank, "STRIDED") == ["[[0.0, 6.0], [2.0, 8.0], [4.0, 10.0]]"]
        assert tagged(r.stdout, rank, "BF16") == ["[3.0, 3.0, 3.0]"]
        assert tagged(r.stdout, rank, "AG") == ["[[0, 0], [1, 1]]"]
        assert tagged(r.stdout, rank, "AGT") == ["[0.0, 0.0, 1.0, 1.0]"]
        assert tagged(r.stdout, rank, "BC") == ["[1.0, 1.0, 1.0]"]
        assert tagged(r.stdout, rank, "ASYNC") == ["True"]
        assert tagged(r.stdout, rank, "SENDERR") == ["True"]
        assert tagged(r.stdout, rank, "BOOLERR") == ["True"]
        assert tagged(r.stdout, rank, "GLOO_SYNCBN") == ["True"]
        assert f"[{rank}] DONE" in r.stdout.splitlines()
    assert tagged(r.stdout, 0, "RS") == ["[3.0, 3.0]"] and tagged(r.stdout, 1, "RS") == ["[21.0, 21.0]"]
    # rank 1 left at the end: rank 0's all_reduce raised (HcclError) well within HCCL_EXEC_TIMEOUT = 5 s
    raised = tagged(r.stdout, 0, "RAISED")
    assert raised and "NO ERROR" not in r.stdout, log
    code, waited = raised[0].split()[:2]
    assert int(code) != 0 and float(waited) < 5, log

    got = torch.load(out)
    ref_losses, ref_state = torch_cnn.train_reference()
    assert ref_losses[-1] < 0.9 * ref_losses[0]  # it does learn
    ddp_steps = len(got["ddp_losses"])
    ref_ddp = (ref_losses[:ddp_steps], torch_cnn.train_reference(ddp_steps)[1])
    for losses, state, (rl, rs) in ((got["losses"], got["state"], (ref_losses, ref_state)),
                                    (got["ddp_losses"], got["ddp_state"], ref_ddp)):
        assert len(losses) == len(rl)
        dl = max(abs(a - b) for a, b in zip(losses, rl))
        assert dl <= 1e-5, (dl, losses[:5], rl[:5])
        assert set(state) == set(rs)
        for k, v in rs.items():
            if v.is_floating_point():
                dw = (state[k].double() - v.double()).abs().max().item()
                assert dw <= 1e-5, (k, dw)
            else:
                assert torch.equal(state[k], v), k  # num_batches_tracked


def test_launch_env_errors(monkeypatch):
    store = dist.HashStore()
    cases = [({"RANK_ID": "1", "RANK_SIZE": "2"}, 0, 2, "RANK_ID=1 disagrees with rank 0"),
             ({"RANK": "0", "WORLD_SIZE": "3"}, 0, 2, "WORLD_SIZE=3 disagrees with world_size 2"),
             ({"RANK_ID": "0"}, 0, 2, "RANK_SIZE is missing"),
             ({"RANK_ID": "0", "RANK_SIZE": "2", "RANK": "1", "WORLD_SIZE": "2"}, 0, 2, "disagrees with RANK=1"),
             ({"DEVICE_ID": "x"}, 0, 1, "DEVICE_ID='x' is not an integer"),
             ({"DEVICE_ID": "0", "ASCEND_DEVICE_ID": "1"}, 0, 1, "DEVICE_ID=0 disagrees with ASCEND_DEVICE_ID"),
             ({"DEVICE_ID": "4096"}, 0, 1, "DEVICE_ID=4096 does not name a usable device")]
    for env, rank, size, msg in cases:
        with pytest.raises(ct.LaunchEnvError, match=msg):
            ProcessGroupCannon(store, rank, size, datetime.timedelta(seconds=5), env=env)
    # torch's env:// rendezvous names what the launcher did not set
    for v in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "RANK_ID", "RANK_SIZE"):
        monkeypatch.delenv(v, raising=False)
    with pytest.raises(ValueError, match="RANK|MASTER_ADDR|WORLD_SIZE"):
        dist.init_process_group("cannon", init_method="env://")
    assert not dist.is_initialized()


def test_single_rank_group_in_process():
    dist.init_process_group("cannon", store=dist.HashStore(), rank=0, world_size=1,
                            timeout=datetime.timedelta(seconds=30))
    try:
        pg = ct.cannon_group()
        assert isinstance(pg, ProcessGroupCannon) and dist.get_backend() == "cannon"
        t = torch.arange(5, dtype=torch.float32)
        dist.all_reduce(t)
        assert t.tolist() == [0, 1, 2, 3, 4]
        outs = [torch.empty(5)]
        dist.all_gather(outs, t)
        assert torch.equal(outs[0], t)
        dist.broadcast(t, 0)
        dist.barrier()
        with pytest.raises(ValueError, match="reduce op"):
            dist.all_reduce(t, op=dist.ReduceOp.BAND)
        with pytest.raises(ValueError, match="all_gather output"):
            pg.all_gather_into(torch.empty(3), t)
        with pytest.raises(ValueError, match="broadcast root"):
            pg.broadcast_(t, 3)
        with pytest.raises(TypeError, match="HCCL does not support"):
            dist.all_reduce(torch.ones(2, dtype=torch.bool))
        with pytest.raises(RuntimeError, match="not supported"):
            dist.recv(torch.ones(1), src=0)
        # world size 1: SyncBatchNorm runs the plain batch-norm path and equals BatchNorm
        torch.manual_seed(3)
        m, ref = ct.SyncBatchNorm(4), torch.nn.BatchNorm2d(4)
        x = torch.randn(3, 4, 2, 2)
        torch.testing.assert_close(m(x), ref(x), rtol=1e-5, atol=1e-5)
        pg.destroy()
        with pytest.raises(ct.HcclError):
            pg.all_reduce_(t)  # the communicator is gone
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()
