"""The small CNN of the data-parallel SyncBatchNorm test (tests/python/test_torch_dist.py): shared
by the ranks (cannon.torch.SyncBatchNorm, cannon's log_softmax/nll_loss, all-reduce on the cannon
backend) and the single-process reference (torch's BatchNorm2d, log_softmax and nll_loss)."""
import torch

STEPS = 50
BATCH = 16          # the full batch; each of the 2 ranks trains on half of it
CLASSES = 4
LR = 0.1


def make_model():
    torch.manual_seed(1234)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1, bias=False),
        torch.nn.BatchNorm2d(8, momentum=0.2),
        torch.nn.ReLU(inplace=True),
        torch.nn.Conv2d(8, 12, 3, stride=2, padding=1, bias=False),
        torch.nn.BatchNorm2d(12),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(12, CLASSES),
    )


def batch(step):
    """The full batch of @step: (images (BATCH, 3, 8, 8), labels (BATCH,))."""
    g = torch.Generator().manual_seed(1000 + step)
    x = torch.randn(BATCH, 3, 8, 8, generator=g) * 1.5 + 0.3
    # a learnable rule: the class is given by the signs of the first two channels' means
    m = x[:, :2].mean((2, 3)) - 0.3
    y = (m[:, 0] > 0).long() + 2 * (m[:, 1] > 0).long()
    return x, y


def sgd_step(model):
    with torch.no_grad():
        for p in model.parameters():
            p.sub_(LR * p.grad)
            p.grad = None


def train_reference(steps=STEPS):
    """Single process, full batch, torch's own layers: (losses, state_dict)."""
    model = make_model()
    losses = []
    for step in range(steps):
        x, y = batch(step)
        loss = torch.nn.functional.nll_loss(torch.log_softmax(model(x), 1), y)
        loss.backward()
        sgd_step(model)
        losses.append(float(loss))
    return losses, model.state_dict()


def train_rank(rank, world, all_reduce, ddp=False, steps=STEPS):
    """Data parallel on rank @rank of @world: this rank's shard of every batch, cannon's
    SyncBatchNorm and loss ops. Gradients are averaged by torch's DistributedDataParallel on the
    default process group (@ddp) or by one @all_reduce (in place, sum) of all of them.
    Returns (global losses, state_dict)."""
    import cannon.torch as ct
    model = ct.SyncBatchNorm.convert_sync_batchnorm(make_model())
    net = model
    if ddp:
        net = torch.nn.parallel.DistributedDataParallel(model)
    params = list(model.parameters())
    losses = []
    per = BATCH // world
    for step in range(steps):
        x, y = batch(step)
        x, y = x[rank * per:(rank + 1) * per], y[rank * per:(rank + 1) * per]
        logp = torch.ops.cannon.log_softmax(net(x), 1)
        loss = torch.ops.cannon.nll_loss(logp, y)
        loss.backward()
        if ddp:
            flat = loss.detach().reshape(1).clone()
        else:
            flat = torch.cat([p.grad.reshape(-1) for p in params] + [loss.detach().reshape(1)])
        all_reduce(flat)
        flat /= world
        if not ddp:
            off = 0
            for p in params:
                n = p.numel()
                p.grad.copy_(flat[off:off + n].view_as(p))
                off += n
        losses.append(float(flat[-1]))
        sgd_step(model)
    return losses, model.state_dict()
