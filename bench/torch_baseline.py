#!/usr/bin/env python3
"""PyTorch baseline for `curricula bench policy`: the embedded transformer's training step in PyTorch.

Same model as src/policy/model.ts (GPT-2 layout: pre-LayerNorm eps 1e-5, learned positions, causal
attention scaled by 1/sqrt(hd), GELU tanh approximation, MLP width 4d, untied LM head, GPT-2 init) and
the same step as the benchmark: cross-entropy over B full-context sequences of random tokens, backward,
Adam (lr 1e-3). Prints one JSON object on stdout: median tokens/s (B*T per step) over the timed steps.

Runs on the CPU with a fixed number of threads (default 2, the size of the machine the benchmark targets).
Usage: torch_baseline.py --d-model 128 --layers 4 --heads 4 --context 128 --vocab 64 --batch 8
"""

import argparse
import json
import math
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
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
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(hd) + mask  # [B, H, T, T]
        attended = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, time_, d)
        x = x + self.c_proj(attended)
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class Transformer(nn.Module):
    def __init__(self, vocab: int, d: int, layers: int, heads: int, context: int):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(context, d)
        self.h = nn.ModuleList(Block(d, heads) for _ in range(layers))
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
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    model = Transformer(args.vocab, args.d_model, args.layers, args.heads, args.context)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    # B sequences of T random tokens, as the TypeScript benchmark: inputs tokens[:, :-1], targets
    # tokens[:, 1:] (T - 1 predictions each); tokens/s counts the B*T sequence tokens, as there.
    tokens = torch.randint(0, args.vocab, (args.batch, args.context))
    inputs, targets = tokens[:, :-1], tokens[:, 1:]

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
                "torch": torch.__version__,
                "threads": torch.get_num_threads(),
                "batch": args.batch,
                "context": args.context,
                "tokensPerStep": tokens_per_step,
                "stepMsMedian": median * 1000,
                "tokensPerSecond": tokens_per_step / median,
                "cpuMsMedian": cpu_median * 1000,
                "tokensPerCpuSecond": tokens_per_step / cpu_median,
                "stepMs": [s * 1000 for s in step_seconds],
            }
        )
    )


if __name__ == "__main__":
    main()
