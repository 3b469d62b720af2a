"""A matrix multiplication written in Triton: C = A @ B for 2-D fp32, fp16 or bf16 tensors (fp32
accumulation, C in A's dtype), tiled BLOCK_M x BLOCK_N per program over BLOCK_K steps, autotuned
over CPU-sized tiles; registered as ``torch.ops.cannon_examples.matmul`` with its gradient.

    PYTHONPATH=python /usr/bin/python3 examples/triton/matmul.py
"""
import torch

import cannon.triton as triton
import cannon.triton.language as tl

# CPU-sized tiles: an accumulator of BLOCK_M x BLOCK_N fp32 plus the A and B tiles fit the L2 cache
CONFIGS = [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk})
           for bm, bn, bk in ((32, 64, 64), (64, 64, 32), (64, 128, 32), (32, 128, 64), (128, 128, 32))]


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_blk = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (pid_m * BLOCK_M, 0), (BLOCK_M, BLOCK_K), (1, 0))
    b_blk = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, stride_bn), (0, pid_n * BLOCK_N), (BLOCK_K, BLOCK_N), (1, 0))
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_blk, boundary_check=(0, 1))
        b = tl.load(b_blk, boundary_check=(0, 1))
        acc = tl.dot(a, b, acc)
        a_blk = tl.advance(a_blk, (0, BLOCK_K))
        b_blk = tl.advance(b_blk, (BLOCK_K, 0))
    c_blk = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, stride_cn), (pid_m * BLOCK_M, pid_n * BLOCK_N),
                              (BLOCK_M, BLOCK_N), (1, 0))
    tl.store(c_blk, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0] or a.dtype != b.dtype:
        raise ValueError("matmul: 2-D operands of one dtype with matching inner dimensions")
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))  # noqa: E731
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                        c.stride(1))
    return c


matmul_op = triton.torch_op("cannon_examples::matmul", matmul,
                            backward=lambda g, inp, out: (matmul(g[0], inp[1].t()), matmul(inp[0].t(), g[0])))

if __name__ == "__main__":
    a, b = torch.randn(300, 200), torch.randn(200, 100)
    print("max error:", (matmul_op(a, b) - a @ b).abs().max().item())
