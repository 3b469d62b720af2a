"""torch peer of bench_eltwise: torch.add/mul(out=) on 64 MiB fp32 tensors, contiguous and
broadcast, median of 15 (torch threads = 2, the cores of the box). Run next to bench_eltwise and
compare the ms columns."""
import statistics
import time

import torch

torch.set_num_threads(2)
N = 16 << 20
a, b, c = torch.arange(N, dtype=torch.float32), torch.ones(N), torch.empty(N)
a2, c2, r, col = a.view(4096, 4096), c.view(4096, 4096), b[:4096], b[:4096].view(4096, 1)
cases = {"Add contiguous": lambda: torch.add(a, b, out=c), "Mul contiguous": lambda: torch.mul(a, b, out=c),
         "Add broadcast [4096,4096]+[4096]": lambda: torch.add(a2, r, out=c2),
         "Mul broadcast [4096,4096]*[4096,1]": lambda: torch.mul(a2, col, out=c2)}
for name, f in cases.items():
    ts = []
    for _ in range(15):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    print(f"torch {name:40s} {statistics.median(ts) * 1e3:8.3f} ms")
