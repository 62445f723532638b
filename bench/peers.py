#!/usr/bin/env python3
"""Times the peers of ctile's bandwidth-bound kernels on the GPU and writes them as JSON.

Peers: torch eager, torch.compile and (for most kernels) a hand-written Triton kernel. The
method is the one the C++ side (ctile's own run) uses, so that the numbers compare:
- fresh torch.randn inputs, seeded per run from the clock;
- k copies of the input set, k = ceil(256 MiB / bytes of one set) clamped to 1..16, launch i
  using copy i % k, so that inputs do not sit in the 60 MB L2 between launches;
- CUDA events around each single launch, 10 warm-ups, then --reps timed launches; the median;
- bytes = every input read once plus every output written once, in their storage types;
- every (kernel, shape, dtype, peer) checked once against a float64 reference on the GPU.
The copy ceiling (dst.copy_(src), bytes read + written) is timed the same way in the same run.

Usage: python3 bench/peers.py --out peers.json [--quick] [--kernels add,softmax] [--shapes 1024x262144] [--reps 50]
torch is imported only after the arguments are parsed, so --help works without it.
"""
import argparse
import datetime
import json
import math
import sys
import time

try:
    import triton
    import triton.language as tl
except ImportError:  # no GPU stack here (e.g. only --help): the Triton peers are left out
    triton = None

torch = F = None  # imported in main(), after argparse

WARMUP = 10
ROTATE_BYTES = 256 * 2**20  # the input copies of one measurement together span this (>> L2)
MAX_COPIES = 16

# Shapes. 2-D kernels take [M, N]; rope takes x: [B, S, H, D].
MAIN_2D, RAGGED_2D = (32768, 8192), (32767, 8191)
SWEEP_2D = [(2048, 8192), (8192, 8192)]
SOFTMAX_WIDE = [(4096, 65536), (1024, 262144)]
ROPE_MAIN, ROPE_RAGGED = (4, 8192, 64, 128), (3, 4095, 33, 128)
ROPE_SWEEP = [(1, 8192, 32, 128)]

# Inputs in argument order and outputs, for the 2-D kernels: "MN" is an [M, N] tensor, "N" a
# vector along the columns (bias, w, b, col_* results), "M" one along the rows (row_* results).
INPUTS = {
    "add": "MN MN", "mul": "MN MN", "scale": "MN",
    "bias_gelu": "MN N", "bias_silu": "MN N", "bias_relu": "MN N", "swiglu": "MN MN",
    "row_sum": "MN", "row_max": "MN", "col_sum": "MN", "col_max": "MN",
    "softmax": "MN",
    "layernorm": "MN N N", "layernorm_residual": "MN MN N N",
    "rmsnorm": "MN N", "rmsnorm_residual": "MN MN N",
}
OUTPUTS = {"row_sum": "M", "row_max": "M", "col_sum": "N", "col_max": "N",
           "layernorm_residual": "MN MN", "rmsnorm_residual": "MN MN"}  # others: "MN"
KERNELS = list(INPUTS) + ["rope"]


def shapes(kernel, quick, given=None):
    """(dtype, shape) pairs measured for one kernel: bf16 everywhere, f16 and f32 at main; or bf16
    at the given shapes of the kernel's rank (4-D for rope, 2-D for the others)."""
    if given:
        return [("bf16", s) for s in given if len(s) == (4 if kernel == "rope" else 2)]
    main, ragged, sweep = ((ROPE_MAIN, ROPE_RAGGED, ROPE_SWEEP) if kernel == "rope"
                           else (MAIN_2D, RAGGED_2D, SWEEP_2D))
    if quick:
        return [("bf16", main), ("bf16", ragged)]
    wide = SOFTMAX_WIDE if kernel == "softmax" else []
    return ([("bf16", s) for s in [main, ragged] + sweep + wide]
            + [("f16", main), ("f32", main)])


def io_specs(kernel, shape, dtype):
    """(inputs, outputs) of one kernel as lists of (shape, torch dtype), inputs in call order."""
    if kernel == "rope":
        s, half = shape[1], shape[3] // 2
        return ([(shape, dtype), ((s, half), torch.float32), ((s, half), torch.float32)],
                [(shape, dtype)])
    m, n = shape
    dims = {"MN": (m, n), "N": (n,), "M": (m,)}
    return ([(dims[d], dtype) for d in INPUTS[kernel].split()],
            [(dims[d], dtype) for d in OUTPUTS.get(kernel, "MN").split()])


def torch_dtype(name):
    return {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[name]


def nbytes(specs):
    return sum(math.prod(s) * torch.empty((), dtype=t).element_size() for s, t in specs)


# --- torch eager; the same functions are what torch.compile compiles ---------------------------

def t_add(a, b):
    return a + b


def t_mul(a, b):
    return a * b


def t_scale(x):
    return x * 1.7


def t_bias_gelu(x, bias):
    return F.gelu(x + bias, approximate="tanh")


def t_bias_silu(x, bias):
    return F.silu(x + bias)


def t_bias_relu(x, bias):
    return torch.relu(x + bias)


def t_swiglu(a, b):
    return F.silu(a) * b


def t_row_sum(x):
    return x.sum(dim=1)  # half-precision sums accumulate in f32 and round once


def t_row_max(x):
    return x.amax(dim=1)


def t_col_sum(x):
    return x.sum(dim=0)


def t_col_max(x):
    return x.amax(dim=0)


def t_softmax(x):
    return torch.softmax(x, dim=-1)


def t_layernorm(x, w, b):
    return F.layer_norm(x, x.shape[-1:], w, b, eps=1e-5)


def t_layernorm_residual(x, r, w, b):
    h = x + r
    return h, F.layer_norm(h, h.shape[-1:], w, b, eps=1e-5)


def t_rmsnorm(x, w):
    return F.rms_norm(x, x.shape[-1:], w, eps=1e-6)


def t_rmsnorm_residual(x, r, w):
    h = x + r
    return h, F.rms_norm(h, h.shape[-1:], w, eps=1e-6)


def t_rope(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    c, s = cos[:, None, :], sin[:, None, :]  # [S, 1, D/2]: broadcast over B and H
    # cos and sin are f32, so the products are f32; one rounding to x's dtype at the end.
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(x.dtype)


# --- the float64 reference: each kernel's definition, written out -----------------------------

def reference(kernel, args):
    """The kernel's outputs computed in float64 from its inputs, as a list."""
    a = [t.double() for t in args]
    x = a[0]
    if kernel == "add":
        return [x + a[1]]
    if kernel == "mul":
        return [x * a[1]]
    if kernel == "scale":
        return [x * 1.7]
    if kernel.startswith("bias_"):
        v = x + a[1]
        if kernel == "bias_gelu":
            return [0.5 * v * (1 + torch.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)))]
        return [v * torch.sigmoid(v)] if kernel == "bias_silu" else [v.clamp_min(0)]
    if kernel == "swiglu":
        return [x * torch.sigmoid(x) * a[1]]
    if kernel in ("row_sum", "col_sum"):
        return [x.sum(dim=1 if kernel == "row_sum" else 0)]
    if kernel in ("row_max", "col_max"):
        return [x.amax(dim=1 if kernel == "row_max" else 0)]
    if kernel == "softmax":
        e = (x - x.amax(-1, keepdim=True)).exp()
        return [e / e.sum(-1, keepdim=True)]
    if kernel.startswith("layernorm"):
        h, (w, b) = (x + a[1], a[2:]) if kernel.endswith("_residual") else (x, a[1:])
        mean = h.mean(-1, keepdim=True)
        var = ((h - mean) ** 2).mean(-1, keepdim=True)
        y = (h - mean) / torch.sqrt(var + 1e-5) * w + b
        return [h, y] if kernel.endswith("_residual") else [y]
    if kernel.startswith("rmsnorm"):
        h, w = (x + a[1], a[2]) if kernel.endswith("_residual") else (x, a[1])
        y = h / torch.sqrt((h * h).mean(-1, keepdim=True) + 1e-6) * w
        return [h, y] if kernel.endswith("_residual") else [y]
    if kernel == "rope":
        half = x.shape[-1] // 2
        x1, x2 = x[..., :half], x[..., half:]
        c, s = a[1][:, None, :], a[2][:, None, :]
        return [torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)]
    raise ValueError(f"no reference for {kernel}")


def check(outs, refs, dtype):
    """True if every output has the reference's shape, the storage dtype and its values."""
    rtol = 1e-4 if dtype == torch.float32 else 2e-2
    if len(outs) != len(refs):
        return False
    for o, r in zip(outs, refs):
        if o.shape != r.shape or o.dtype != dtype:
            return False
        # atol relative to the largest |ref|: values near zero get the same absolute slack.
        if not torch.allclose(o.double(), r, rtol=rtol, atol=rtol * r.abs().max().item()):
            return False
    return True


# --- Triton peers: straightforward kernels, f32 math, masks for ragged shapes -------------------

EW_BLOCK = 2048   # elements per program of the elementwise kernels
BIAS_BLOCK = 1024  # columns per program of the bias + activation kernel

if triton is not None:
    @triton.jit
    def _elementwise_kernel(a, b, y, n, OP: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        va = tl.load(a + offs, mask=mask).to(tl.float32)
        if OP == "scale":
            r = va * 1.7
        else:
            vb = tl.load(b + offs, mask=mask).to(tl.float32)
            if OP == "add":
                r = va + vb
            elif OP == "mul":
                r = va * vb
            else:  # swiglu
                r = va * tl.sigmoid(va) * vb
        tl.store(y + offs, r.to(y.dtype.element_ty), mask=mask)

    @triton.jit
    def _bias_act_kernel(x, bias, y, N, ACT: tl.constexpr, BLOCK: tl.constexpr):
        # Grid: (rows, column blocks).
        cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
        mask = cols < N
        offs = tl.program_id(0).to(tl.int64) * N + cols
        v = tl.load(x + offs, mask=mask).to(tl.float32) + tl.load(bias + cols, mask=mask).to(tl.float32)
        if ACT == "gelu":
            # 0.5 * (1 + tanh(z)) == sigmoid(2 z), with z = sqrt(2/pi) (v + 0.044715 v^3).
            r = v * tl.sigmoid(2 * 0.7978845608028654 * (v + 0.044715 * v * v * v))
        elif ACT == "silu":
            r = v * tl.sigmoid(v)
        else:  # relu
            r = tl.maximum(v, 0.0)
        tl.store(y + offs, r.to(y.dtype.element_ty), mask=mask)

    @triton.jit
    def _row_reduce_kernel(x, y, N, MAX: tl.constexpr, BLOCK: tl.constexpr):
        # One row per program; the whole row in one block (BLOCK >= N).
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        mask = cols < N
        if MAX:
            v = tl.load(x + row * N + cols, mask=mask, other=float("-inf")).to(tl.float32)
            r = tl.max(v, axis=0)
        else:
            v = tl.load(x + row * N + cols, mask=mask, other=0.0).to(tl.float32)
            r = tl.sum(v, axis=0)
        tl.store(y + row, r.to(y.dtype.element_ty))

    @triton.jit
    def _softmax_kernel(x, y, N, BLOCK: tl.constexpr):
        # One row per program, the whole row in one block: x read once.
        offs = tl.program_id(0).to(tl.int64) * N + tl.arange(0, BLOCK)
        mask = tl.arange(0, BLOCK) < N
        v = tl.load(x + offs, mask=mask, other=float("-inf")).to(tl.float32)
        e = tl.exp(v - tl.max(v, axis=0))  # masked lanes: exp(-inf) = 0
        tl.store(y + offs, (e / tl.sum(e, axis=0)).to(y.dtype.element_ty), mask=mask)

    @triton.jit
    def _softmax_looped_kernel(x, y, N, BLOCK: tl.constexpr):
        # Rows too long for one block (N > BLOCK): an online max and sum per lane over the row,
        # then a second pass that writes; x is read twice.
        row = tl.program_id(0).to(tl.int64) * N
        m = tl.full([BLOCK], float("-inf"), tl.float32)
        s = tl.zeros([BLOCK], tl.float32)
        for start in range(0, N, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            v = tl.load(x + row + cols, mask=cols < N, other=float("-inf")).to(tl.float32)
            # Every lane sees a real value in the first block (N > BLOCK), so m is finite after
            # it and exp(m - m_new) never meets -inf - -inf.
            m_new = tl.maximum(m, v)
            s = s * tl.exp(m - m_new) + tl.exp(v - m_new)
            m = m_new
        row_max = tl.max(m, axis=0)
        inv = 1 / tl.sum(s * tl.exp(m - row_max), axis=0)
        for start in range(0, N, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < N
            v = tl.load(x + row + cols, mask=mask, other=float("-inf")).to(tl.float32)
            tl.store(y + row + cols, (tl.exp(v - row_max) * inv).to(y.dtype.element_ty), mask=mask)

    @triton.jit
    def _norm_kernel(x, r, h, w, b, y, N, eps,
                     RMS: tl.constexpr, RESIDUAL: tl.constexpr, BLOCK: tl.constexpr):
        # One row per program, the whole row in one block. r and h are used only with RESIDUAL
        # (h = x + r, normalised and stored), b only without RMS.
        row = tl.program_id(0).to(tl.int64) * N
        cols = tl.arange(0, BLOCK)
        mask = cols < N
        v = tl.load(x + row + cols, mask=mask, other=0.0).to(tl.float32)
        if RESIDUAL:
            v += tl.load(r + row + cols, mask=mask, other=0.0).to(tl.float32)
            tl.store(h + row + cols, v.to(h.dtype.element_ty), mask=mask)
        wv = tl.load(w + cols, mask=mask).to(tl.float32)
        if RMS:
            out = v * tl.rsqrt(tl.sum(v * v, axis=0) / N + eps) * wv
        else:
            d = tl.where(mask, v - tl.sum(v, axis=0) / N, 0.0)
            bv = tl.load(b + cols, mask=mask).to(tl.float32)
            out = d * tl.rsqrt(tl.sum(d * d, axis=0) / N + eps) * wv + bv
        tl.store(y + row + cols, out.to(y.dtype.element_ty), mask=mask)

    @triton.jit
    def _rope_kernel(x, cos, sin, y, S, H, HALF: tl.constexpr, BLOCK_H: tl.constexpr):
        # One (b, s) position per program: its H heads of D = 2 * HALF values.
        pos = tl.program_id(0).to(tl.int64)
        heads = tl.arange(0, BLOCK_H)[:, None]
        d = tl.arange(0, HALF)[None, :]
        mask = heads < H
        offs = pos * H * (2 * HALF) + heads * (2 * HALF) + d
        cs = (pos % S) * HALF + d
        c = tl.load(cos + cs)
        s = tl.load(sin + cs)
        x1 = tl.load(x + offs, mask=mask).to(tl.float32)
        x2 = tl.load(x + offs + HALF, mask=mask).to(tl.float32)
        tl.store(y + offs, (x1 * c - x2 * s).to(y.dtype.element_ty), mask=mask)
        tl.store(y + offs + HALF, (x2 * c + x1 * s).to(y.dtype.element_ty), mask=mask)


def _row_block(n):
    """The one-block-per-row size for rows of n, and a warp count that keeps it in registers."""
    block = triton.next_power_of_2(n)
    if block > 16384:
        raise ValueError(f"rows of {n} do not fit one block")
    return block, min(max(block // 256, 1), 8)


def _tr_elementwise(op):
    def run(a, b=None):
        y = torch.empty_like(a)
        n = a.numel()
        _elementwise_kernel[(triton.cdiv(n, EW_BLOCK),)](a, a if b is None else b, y, n,
                                                          OP=op, BLOCK=EW_BLOCK, num_warps=4)
        return y
    return run


def _tr_bias_act(act):
    def run(x, bias):
        m, n = x.shape
        y = torch.empty_like(x)
        _bias_act_kernel[(m, triton.cdiv(n, BIAS_BLOCK))](x, bias, y, n, ACT=act,
                                                          BLOCK=BIAS_BLOCK, num_warps=4)
        return y
    return run


def _tr_row_reduce(is_max):
    def run(x):
        m, n = x.shape
        y = torch.empty(m, dtype=x.dtype, device=x.device)
        block, warps = _row_block(n)
        _row_reduce_kernel[(m,)](x, y, n, MAX=is_max, BLOCK=block, num_warps=warps)
        return y
    return run


def tr_softmax(x):
    m, n = x.shape
    y = torch.empty_like(x)
    if n <= 16384:
        block, warps = _row_block(n)
        _softmax_kernel[(m,)](x, y, n, BLOCK=block, num_warps=warps)
    else:
        _softmax_looped_kernel[(m,)](x, y, n, BLOCK=4096, num_warps=8)
    return y


def _tr_norm(rms, residual):
    def run(x, *rest):  # (x, [r,] w[, b]): r with residual, b without rms
        rest = list(rest)
        r = rest.pop(0) if residual else x  # x stands in for the missing ones; never read
        w = rest.pop(0)
        b = w if rms else rest.pop(0)
        m, n = x.shape
        y = torch.empty_like(x)
        h = torch.empty_like(x) if residual else y
        block, warps = _row_block(n)
        _norm_kernel[(m,)](x, r, h, w, b, y, n, 1e-6 if rms else 1e-5,
                           RMS=rms, RESIDUAL=residual, BLOCK=block, num_warps=warps)
        return (h, y) if residual else y
    return run


def tr_rope(x, cos, sin):
    bsz, s, h, d = x.shape
    half = d // 2
    if half != triton.next_power_of_2(half):
        raise ValueError(f"D/2 = {half} is not a power of two")
    y = torch.empty_like(x)
    _rope_kernel[(bsz * s,)](x, cos, sin, y, s, h, HALF=half,
                             BLOCK_H=triton.next_power_of_2(h), num_warps=4)
    return y


def triton_peer(kernel):
    """The Triton peer of a kernel, or None (column reductions: no simple kernel fills the GPU)."""
    if triton is None:
        return None
    if kernel in ("add", "mul", "scale", "swiglu"):
        return _tr_elementwise(kernel)
    if kernel.startswith("bias_"):
        return _tr_bias_act(kernel[len("bias_"):])
    if kernel in ("row_sum", "row_max"):
        return _tr_row_reduce(kernel == "row_max")
    if kernel.startswith(("layernorm", "rmsnorm")):
        return _tr_norm(kernel.startswith("rmsnorm"), kernel.endswith("_residual"))
    return {"softmax": tr_softmax, "rope": tr_rope}.get(kernel)


# --- measuring --------------------------------------------------------------------------------

def median_ms(fn, sets, reps):
    """Median time in ms of single launches of fn, launch i taking input set i % len(sets)."""
    for i in range(WARMUP):
        fn(*sets[i % len(sets)])
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for i in range(reps):
        args = sets[i % len(sets)]
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]  # the C++ side's median: element n/2 of the sorted list


def input_sets(specs):
    """k copies of fresh random inputs, enough that together they span ROTATE_BYTES."""
    k = min(MAX_COPIES, max(1, math.ceil(ROTATE_BYTES / nbytes(specs))))
    return [[torch.randn(s, dtype=t, device="cuda") for s, t in specs] for _ in range(k)]


def measure_copy(spec, reps):
    """The copy ceiling for an input of spec (shape, dtype): dst.copy_(src) on a contiguous
    tensor of as many bytes, counting bytes read + written."""
    numel, dtype = math.prod(spec[0]), spec[1]
    sets = input_sets([((numel,), dtype)])
    dst = torch.empty(numel, dtype=dtype, device="cuda")
    nb = 2 * nbytes([spec])
    ms = median_ms(dst.copy_, sets, reps)
    return {"bytes": nb, "ms": ms, "gbps": nb / ms / 1e6}


def compiled(fn):
    # A fresh compile per shape and dtype: reset so that earlier shapes neither count towards
    # dynamo's recompile limit (past which it would silently run eager) nor get reused.
    torch._dynamo.reset()
    return torch.compile(fn, dynamic=False, fullgraph=True)


def measure_kernel(kernel, dtype_name, shape, reps, log):
    """The result rows of every peer of one (kernel, dtype, shape)."""
    dtype = torch_dtype(dtype_name)
    ins, outs = io_specs(kernel, shape, dtype)
    nb = nbytes(ins) + nbytes(outs)
    eager = globals()["t_" + kernel]
    peers = [("torch", eager), ("torch.compile", compiled(eager)), ("triton", triton_peer(kernel))]
    rows, sets, refs = [], None, None
    for impl, fn in peers:
        if fn is None:
            continue
        row = {"kernel": kernel, "impl": impl, "dtype": dtype_name, "shape": list(shape),
               "bytes": nb, "ms": None, "gbps": None, "ok": False, "error": None}
        try:
            if refs is None:  # here, so that running out of memory is an error row too
                sets = input_sets(ins)
                refs = reference(kernel, sets[0])
            got = fn(*sets[0])  # compiles torch.compile and Triton kernels before the warm-ups
            row["ok"] = check(got if isinstance(got, tuple) else (got,), refs, dtype)
            del got
            row["ms"] = median_ms(fn, sets, reps)
            row["gbps"] = nb / row["ms"] / 1e6
        except Exception as e:  # a failing peer is a result too; the others go on
            row["error"] = f"{type(e).__name__}: {e}"[:2000]
        rows.append(row)
        log(row)
    return rows


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="JSON file to write (rewritten after each measurement)")
    p.add_argument("--quick", action="store_true", help="bf16 only, main and ragged shapes")
    p.add_argument("--kernels", help="comma-separated subset of: " + ", ".join(KERNELS))
    p.add_argument("--shapes", help="comma-separated RxC or BxSxHxD shapes timed (bf16) instead of the suite's")
    p.add_argument("--reps", type=int, default=50, help="timed launches per measurement")
    args = p.parse_args(argv)
    try:
        args.shapes = [tuple(int(d) for d in s.split("x")) for s in args.shapes.split(",")] if args.shapes else None
    except ValueError:
        p.error(f"--shapes {args.shapes}: expected RxC or BxSxHxD, comma-separated")
    if args.shapes and any(len(s) not in (2, 4) or min(s) < 1 for s in args.shapes):
        p.error("--shapes: each shape is RxC or BxSxHxD, positive integers")
    args.kernels = args.kernels.split(",") if args.kernels else KERNELS
    unknown = [k for k in args.kernels if k not in KERNELS]
    if unknown:
        p.error(f"unknown kernels: {','.join(unknown)}")
    if args.reps < 1:
        p.error("--reps must be at least 1")
    return args


def main():
    args = parse_args()
    global torch, F
    import torch
    import torch.nn.functional as F
    if not torch.cuda.is_available():
        sys.exit("peers.py: no CUDA GPU")
    seed = time.time_ns() % 2**32
    torch.manual_seed(seed)
    doc = {"tool": "peers", "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
           "triton": triton.__version__ if triton else None,
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "seed": seed, "reps": args.reps, "warmup": WARMUP, "copy_ceiling": [], "results": []}

    def log(row):
        what = f"{row['kernel']} {row['dtype']} {'x'.join(map(str, row['shape']))} {row['impl']}"
        if row["error"]:
            print(f"{what}: error: {row['error'].splitlines()[0]}", file=sys.stderr)
        else:
            print(f"{what}: {row['ms']:.4f} ms {row['gbps']:.0f} GB/s"
                  f"{'' if row['ok'] else ' WRONG'}", file=sys.stderr)

    copied = set()  # sizes of largest input whose copy ceiling this run has measured
    for kernel in args.kernels:
        for dtype_name, shape in shapes(kernel, args.quick, args.shapes):
            doc["results"] += measure_kernel(kernel, dtype_name, shape, args.reps, log)
            ins, _ = io_specs(kernel, shape, torch_dtype(dtype_name))
            largest = max(ins, key=lambda spec: nbytes([spec]))
            if nbytes([largest]) not in copied:
                copied.add(nbytes([largest]))
                try:
                    c = measure_copy(largest, args.reps)
                    doc["copy_ceiling"].append(c)
                    print(f"copy {c['bytes']} bytes: {c['ms']:.4f} ms {c['gbps']:.0f} GB/s",
                          file=sys.stderr)
                except Exception as e:
                    print(f"copy {2 * nbytes([largest])} bytes: error: {e}", file=sys.stderr)
            torch.cuda.empty_cache()
            # Written after every measurement, so that a run cut short still leaves its results.
            with open(args.out, "w") as f:
                json.dump(doc, f, indent=1)

if __name__ == "__main__":
    main()
