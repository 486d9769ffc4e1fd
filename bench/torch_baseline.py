#!/usr/bin/env python3
"""PyTorch baseline for `curricula bench policy`: the embedded transformer in PyTorch, three modes.

Same model as src/policy/model.ts (GPT-2 layout: pre-LayerNorm eps 1e-5, learned positions, causal
attention scaled by 1/sqrt(hd), GELU tanh approximation, MLP width 4d, untied LM head, GPT-2 init).

--mode train (default): the benchmark's training step: cross-entropy over B full-context sequences of
  random tokens, backward, Adam (lr 1e-3). Median tokens/s (B*T per step) over the timed steps.
--mode sample: KV-cached sampling as src/policy/sampler.ts: P prompts of --prompt-length random tokens
  are prefilled once each, the caches repeated --samples times (batch P*n), then one token per row per
  step at temperature 1 up to the context length. Tokens/s = generated tokens / wall time, prefill
  included (as the TypeScript benchmark).
--mode gemm: float32 matrix products (torch.mm, i.e. the BLAS sgemm) at the given shapes, GFLOP/s.

Prints one JSON object on stdout. Threads: --threads sets torch.set_num_threads (intra-op pool); the
BLAS library's own threads come from the environment (OPENBLAS_NUM_THREADS), which the caller sets.
The JSON reports both, and OpenBLAS's own count when the library can be asked.
Usage: torch_baseline.py --d-model 128 --layers 4 --heads 4 --context 128 --vocab 64 --batch 8
"""

import argparse
import ctypes
import json
import math
import os
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d: int, heads: int, attention: str = "add"):
        super().__init__()
        self.heads = heads
        self.attention = attention
        self.ln_1 = nn.LayerNorm(d, eps=1e-5)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d, eps=1e-5)
        self.c_fc = nn.Linear(d, 4 * d)
        self.mlp_proj = nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        batch, time_, d = x.shape
        hd = d // self.heads
        # [B, T, 3d] -> q, k, v each [B, H, T, hd]
        q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
        q, k, v = (t.view(batch, time_, self.heads, hd).transpose(1, 2) for t in (q, k, v))
        if self.attention == "baddbmm":
            # mask + scale·q·kᵀ in one BLAS-backed call over [B·H, T, hd] (the mask broadcast over B·H)
            rows = batch * self.heads
            scores = torch.baddbmm(
                mask.expand(rows, time_, time_),
                q.reshape(rows, time_, hd),
                k.reshape(rows, time_, hd).transpose(1, 2),
                alpha=1 / math.sqrt(hd),
            ).view(batch, self.heads, time_, time_)
        else:
            scores = (q @ k.transpose(-2, -1)) / math.sqrt(hd) + mask  # [B, H, T, T]
        attended = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, time_, d)
        x = x + self.c_proj(attended)
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class Transformer(nn.Module):
    def __init__(self, vocab: int, d: int, layers: int, heads: int, context: int, attention: str = "add"):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(context, d)
        self.h = nn.ModuleList(Block(d, heads, attention) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d, eps=1e-5)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        mask = torch.triu(torch.full((context, context), -1e9), diagonal=1)
        self.register_buffer("mask", mask)
        # GPT-2 init, as model.ts: N(0, 0.02), residual projections scaled by 1/sqrt(2 layers), biases 0.
        for name, parameter in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(parameter)
            elif "ln_" in name:
                nn.init.ones_(parameter)
            else:
                std = 0.02 / math.sqrt(2 * layers) if ("c_proj" in name or "mlp_proj" in name) else 0.02
                nn.init.normal_(parameter, 0.0, std)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        time_ = tokens.shape[1]
        x = self.wte(tokens) + self.wpe.weight[:time_]
        mask = self.mask[:time_, :time_]
        for block in self.h:
            x = block(x, mask)
        return self.lm_head(self.ln_f(x))  # [B, T, V]


def blas_threads() -> int | None:
    """OpenBLAS's own thread count (openblas_get_num_threads), or None when OpenBLAS is not loaded."""
    for name in ("libopenblas.so.0", "libblas.so.3"):
        try:
            library = ctypes.CDLL(name, mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
            return int(library.openblas_get_num_threads())
        except (OSError, AttributeError):
            continue
    return None


def blas_library() -> str | None:
    """The BLAS shared library this process mapped (Debian picks it through libblas.so.3 alternatives)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if os.path.basename(line.split()[-1]).startswith("lib") and "blas" in os.path.basename(line.split()[-1])}
    except OSError:
        return None
    return ", ".join(sorted(os.path.realpath(path) for path in paths)) or None


def thread_report() -> dict:
    return {
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "blasThreads": blas_threads(),
        "blasLibrary": blas_library(),
        "env": {
            name: os.environ.get(name)
            for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
        },
    }


@torch.no_grad()
def block_step(block: Block, x: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, column: int):
    """One decoding step of a block. x [R, d]; keys/values [R, H, C, hd], written at `column`."""
    rows, d = x.shape
    hd = d // block.heads
    q, k, v = block.c_attn(block.ln_1(x)).split(d, dim=1)
    keys[:, :, column] = k.view(rows, block.heads, hd)
    values[:, :, column] = v.view(rows, block.heads, hd)
    q = q.view(rows, block.heads, 1, hd)
    # Attend over the filled columns 0..column: [R, H, 1, column + 1]
    scores = (q @ keys[:, :, : column + 1].transpose(-2, -1)) / math.sqrt(hd)
    attended = (scores.softmax(-1) @ values[:, :, : column + 1]).reshape(rows, d)
    x = x + block.c_proj(attended)
    return x + block.mlp_proj(F.gelu(block.c_fc(block.ln_2(x)), approximate="tanh"))


@torch.no_grad()
def sample(model: Transformer, prompts: torch.Tensor, n: int, context: int, generator: torch.Generator) -> int:
    """Prefill prompts [P, W], repeat each n times, decode to the context length. Returns tokens generated."""
    count, width = prompts.shape
    d = model.wte.weight.shape[1]
    heads = model.h[0].heads
    # Prefill: the full forward of each prompt once, keeping k and v per layer.
    x = model.wte(prompts) + model.wpe.weight[:width]
    prefix_keys, prefix_values = [], []
    for block in model.h:
        q, k, v = block.c_attn(block.ln_1(x)).split(d, dim=2)
        q, k, v = (t.view(count, width, heads, d // heads).transpose(1, 2) for t in (q, k, v))
        prefix_keys.append(k)
        prefix_values.append(v)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(d // heads) + model.mask[:width, :width]
        attended = (scores.softmax(-1) @ v).transpose(1, 2).reshape(count, width, d)
        x = x + block.c_proj(attended)
        x = x + block.mlp_proj(F.gelu(block.c_fc(block.ln_2(x)), approximate="tanh"))
    logits = model.lm_head(model.ln_f(x[:, -1])).repeat_interleave(n, dim=0)  # [P*n, V]
    rows = count * n
    caches = []
    for k, v in zip(prefix_keys, prefix_values):
        keys = torch.zeros(rows, heads, context, d // heads)
        values = torch.zeros(rows, heads, context, d // heads)
        keys[:, :, :width] = k.repeat_interleave(n, dim=0)
        values[:, :, :width] = v.repeat_interleave(n, dim=0)
        caches.append((keys, values))
    budget = context - width
    generated = 0
    for step in range(budget):
        token = torch.multinomial(logits.softmax(-1), 1, generator=generator)[:, 0]  # temperature 1
        generated += rows
        if step == budget - 1:
            break
        column = width + step
        x = model.wte(token) + model.wpe.weight[column]
        for block, (keys, values) in zip(model.h, caches):
            x = block_step(block, x, keys, values, column)
        logits = model.lm_head(model.ln_f(x))
    return generated


def run_sample(args, model: Transformer) -> dict:
    generator = torch.Generator().manual_seed(args.seed)
    prompts = torch.randint(3, args.vocab, (args.prompts, args.prompt_length), generator=generator)
    seconds, cpu_seconds, generated = [], [], 0
    for index in range(args.warmup + args.repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        generated = sample(model, prompts, args.samples, args.context, generator)
        if index >= args.warmup:
            seconds.append(time.perf_counter() - start)
            cpu_seconds.append(time.process_time() - cpu_start)
    median, cpu_median = statistics.median(seconds), statistics.median(cpu_seconds)
    return {
        "mode": "sample",
        "batch": args.prompts * args.samples,
        "promptLength": args.prompt_length,
        "tokensPerRun": generated,
        "medianMs": median * 1000,
        "tokensPerSecond": generated / median,
        "cpuMsMedian": cpu_median * 1000,
        "tokensPerCpuSecond": generated / cpu_median,
        "runsMs": [s * 1000 for s in seconds],
    }


def run_gemm(args) -> dict:
    """GFLOP/s of torch.mm (2*m*k*n flops) per shape 'm,k,n', median over the timed repeats."""
    results = []
    for shape in args.shapes.split(";"):
        m, k, n = (int(part) for part in shape.split(","))
        a, b = torch.randn(m, k), torch.randn(k, n)
        out = torch.empty(m, n)
        inner = min(1000, max(1, int(2e8 // (2 * m * k * n))))  # ~0.2 GFLOP per timed repeat
        seconds = []
        for index in range(args.warmup + args.repeats):
            start = time.perf_counter()
            for _ in range(inner):
                torch.mm(a, b, out=out)
            if index >= args.warmup:
                seconds.append((time.perf_counter() - start) / inner)
        median = statistics.median(seconds)
        results.append({"m": m, "k": k, "n": n, "medianMs": median * 1000, "gflops": 2 * m * k * n / median / 1e9})
    return {"mode": "gemm", "shapes": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d-model", type=int, default=128)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--context", type=int, default=128)
    parser.add_argument("--vocab", type=int, default=64)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", choices=("train", "sample", "gemm"), default="train")
    parser.add_argument("--prompts", type=int, default=8, help="sample: distinct prompts")
    parser.add_argument("--samples", type=int, default=8, help="sample: rows per prompt")
    parser.add_argument("--prompt-length", type=int, default=8, help="sample: tokens per prompt")
    parser.add_argument("--shapes", default="1024,1024,1024", help="gemm: 'm,k,n;m,k,n'")
    parser.add_argument("--adam", choices=("loop", "foreach"), default="loop",
                        help="train: torch.optim.Adam's per-parameter loop or its foreach (multi-tensor) path")
    parser.add_argument("--attention", choices=("add", "baddbmm"), default="add",
                        help="train: scores as (q·kᵀ)/√hd + mask, or one baddbmm(mask, q, kᵀ, alpha)")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    if args.mode == "gemm":
        print(json.dumps({**thread_report(), **run_gemm(args)}))
        return
    model = Transformer(args.vocab, args.d_model, args.layers, args.heads, args.context, args.attention)
    if args.mode == "sample":
        print(json.dumps({**thread_report(), **run_sample(args, model)}))
        return
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=args.adam == "foreach")
    # B sequences of T random tokens, as the TypeScript benchmark: inputs tokens[:, :-1], targets
    # tokens[:, 1:] (T - 1 predictions each); tokens/s counts the B*T sequence tokens, as there.
    tokens = torch.randint(0, args.vocab, (args.batch, args.context))
    inputs, targets = tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()

    def step() -> float:
        optimizer.zero_grad(set_to_none=True)
        logits = model(inputs)
        loss = F.cross_entropy(logits.reshape(-1, args.vocab), targets.reshape(-1), reduction="sum")
        loss.backward()
        optimizer.step()
        return loss.item()

    for _ in range(args.warmup):
        step()
    step_seconds = []
    cpu_seconds = []
    for _ in range(args.repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        step()
        step_seconds.append(time.perf_counter() - start)
        cpu_seconds.append(time.process_time() - cpu_start)  # all threads of the process
    median = statistics.median(step_seconds)
    cpu_median = statistics.median(cpu_seconds)
    tokens_per_step = args.batch * args.context
    print(
        json.dumps(
            {
                **thread_report(),
                "mode": "train",
                "adam": args.adam,
                "attention": args.attention,
                "batch": args.batch,
                "context": args.context,
                "tokensPerRun": tokens_per_step,
                "medianMs": median * 1000,
                "tokensPerSecond": tokens_per_step / median,
                "cpuMsMedian": cpu_median * 1000,
                "tokensPerCpuSecond": tokens_per_step / cpu_median,
                "runsMs": [s * 1000 for s in step_seconds],
            }
        )
    )


if __name__ == "__main__":
    main()
