"""One rank of tests/python/test_torch_dist.py, started by cannonrun: ``torch_dist_rank.py MODE OUT``.

MODE "main": the torch.distributed API on the cannon backend, SyncBatchNorm over a gloo group (the
fallback path), the 50-step data-parallel CNN training and 20 steps of it under torch's
DistributedDataParallel (rank 0 saves the results to OUT), then
rank 1 leaves and rank 0's next all_reduce must raise within HCCL_EXEC_TIMEOUT.
"""
import os
import sys
import time

import torch
import torch.distributed as dist

import cannon.torch as ct

DDP_STEPS = 20


def api_checks(rank, world):
    t = torch.arange(4, dtype=torch.float32) + 10 * rank
    dist.all_reduce(t)
    print("AR", t.tolist())
    t = torch.full((3,), float(rank + 1))
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    print("MAX", t.tolist())
    t = torch.full((2,), float(rank + 2))
    dist.all_reduce(t, op=dist.ReduceOp.PRODUCT)
    print("PROD", t.tolist())
    t = torch.full((2,), float(rank))
    dist.all_reduce(t, op=dist.ReduceOp.AVG)
    print("AVG", t.tolist())
    s = torch.arange(6, dtype=torch.float64).view(2, 3).t()  # non-contiguous: reduced and copied back
    dist.all_reduce(s)
    print("STRIDED", s.tolist())
    h = torch.full((3,), 1.5, dtype=torch.bfloat16)
    dist.all_reduce(h)
    print("BF16", h.float().tolist())
    outs = [torch.empty(2, dtype=torch.int64) for _ in range(world)]
    dist.all_gather(outs, torch.full((2,), rank, dtype=torch.int64))
    print("AG", [o.tolist() for o in outs])
    o = torch.empty(2 * world)
    dist.all_gather_into_tensor(o, torch.full((2,), float(rank)))
    print("AGT", o.tolist())
    b = torch.full((3,), float(rank))
    dist.broadcast(b, src=1)
    print("BC", b.tolist())
    rs = torch.empty(2)
    dist.reduce_scatter(rs, [torch.full((2,), 1.0 + rank), torch.full((2,), 10.0 + rank)])
    print("RS", rs.tolist())
    w = dist.all_reduce(torch.ones(3), async_op=True)
    w.wait()
    print("ASYNC", w.is_completed())
    try:
        dist.send(torch.ones(1), dst=1 - rank)
    except RuntimeError as e:
        print("SENDERR", "not supported" in str(e))
    try:
        dist.all_reduce(torch.ones(2, dtype=torch.bool))
    except TypeError as e:
        print("BOOLERR", "HCCL does not support" in str(e))
    dist.barrier()


def syncbn_gloo(rank):
    """SyncBatchNorm on a gloo group (collectives through torch.distributed) equals the same module
    on the cannon group (collectives straight on libhccl)."""
    gloo = dist.new_group(backend="gloo")
    g = torch.Generator().manual_seed(5)
    x = torch.randn(4, 3, 5, 5, generator=g)[2 * rank:2 * rank + 2]
    dy = torch.randn(4, 3, 5, 5, generator=g)[2 * rank:2 * rank + 2]
    res = []
    for pg in (None, gloo):
        m = ct.SyncBatchNorm(3, process_group=pg)
        xi = x.clone().requires_grad_()
        y = m(xi)
        y.backward(dy)
        res.append((y.detach(), xi.grad, m.weight.grad, m.running_var.clone()))
    same = all(torch.allclose(a, b, rtol=0, atol=1e-6) for a, b in zip(*res))
    print("GLOO_SYNCBN", same)


def main(mode, out):
    dist.init_process_group("cannon")
    rank, world = dist.get_rank(), dist.get_world_size()
    print("BACKEND", dist.get_backend(), type(dist.group.WORLD).__name__)
    api_checks(rank, world)
    syncbn_gloo(rank)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch_cnn
    t0 = time.monotonic()
    losses, state = torch_cnn.train_rank(rank, world, dist.all_reduce)
    print("TRAINED", round(time.monotonic() - t0, 2))
    # the same with torch's DistributedDataParallel averaging the gradients on the cannon backend
    t0 = time.monotonic()
    ddp_losses, ddp_state = torch_cnn.train_rank(rank, world, dist.all_reduce, ddp=True, steps=DDP_STEPS)
    print("DDP_TRAINED", round(time.monotonic() - t0, 2))
    if rank == 0:
        torch.save({"losses": losses, "state": state, "ddp_losses": ddp_losses, "ddp_state": ddp_state}, out)
    dist.barrier()
    print("DONE")
    # a rank that dies: the survivor's next collective raises instead of hanging
    if rank == 1:
        os._exit(0)  # leaves without joining the collective (exit 0: the launcher keeps rank 0)
    t0 = time.monotonic()
    try:
        dist.all_reduce(torch.ones(1024))
        print("NO ERROR")
    except ct.HcclError as e:
        print("RAISED", e.code, round(time.monotonic() - t0, 2), e.message[:300].replace("\n", " "))
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "")
