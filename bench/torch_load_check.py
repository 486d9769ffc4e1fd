#!/usr/bin/env python3
"""Loads an embedded-policy checkpoint in PyTorch and checks its log-probs against the TypeScript model.

Follows docs/checkpoint-format.md: reads model.safetensors (own 10-line reader, no safetensors package),
runs the GPT-2-style forward pass (weights stored [in, out], applied as x @ W), and compares
log p(x[t+1] | x[..t]) with the values in expected.json, written by the TypeScript side:

    npx tsx src/testing/policy/torch-check-data.ts /tmp/ckpt /tmp/expected.json
    python3 bench/torch_load_check.py /tmp/ckpt /tmp/expected.json

It also tokenizes expected.json's texts by reading the checkpoint's tokenizer.json as a Hugging Face file
(the char tokenizer's layout in docs/checkpoint-format.md: a BPE with no merges, so one vocab lookup per
character) and compares the ids with the TypeScript tokenizer's.

Prints one JSON line {"max_abs_diff": ..., "tokenizer_ok": ..., "ok": ...}; exits 1 when the log-prob
difference exceeds 1e-4 or the token ids differ.
"""

import json
import math
import struct
import sys
from pathlib import Path

import torch
import torch.nn.functional as F


def load_safetensors(path: Path) -> dict:
    data = path.read_bytes()
    (header_length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_length])
    body = data[8 + header_length :]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        assert entry["dtype"] == "F32", f"{name}: dtype {entry['dtype']}"
        begin, end = entry["data_offsets"]
        flat = torch.frombuffer(bytearray(body[begin:end]), dtype=torch.float32)
        tensors[name] = flat.reshape(entry["shape"])
    return tensors


def logits(w: dict, config: dict, tokens: torch.Tensor) -> torch.Tensor:
    """tokens: int64 [L] -> logits [L, V]."""
    d, heads, length = config["dModel"], config["heads"], tokens.shape[0]
    hd = d // heads

    def ln(x, prefix):
        return F.layer_norm(x, (d,), w[f"{prefix}.weight"], w[f"{prefix}.bias"], eps=1e-5)

    h = w["wte.weight"][tokens] + w["wpe.weight"][:length]  # [L, d]
    for i in range(config["layers"]):
        p = f"h.{i}."
        qkv = ln(h, p + "ln_1") @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]  # [L, 3d]
        q, k, v = (t.reshape(length, heads, hd).transpose(0, 1) for t in qkv.split(d, dim=1))  # [H, L, hd]
        scores = q @ k.transpose(1, 2) / math.sqrt(hd)  # [H, L, L]
        causal = torch.ones(length, length, dtype=torch.bool).tril()
        attended = scores.masked_fill(~causal, float("-inf")).softmax(-1) @ v  # [H, L, hd]
        merged = attended.transpose(0, 1).reshape(length, d)
        h = h + merged @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        hidden = ln(h, p + "ln_2") @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]
        h = h + F.gelu(hidden, approximate="tanh") @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    return ln(h, "ln_f") @ w["lm_head.weight"]  # [L, V]


def char_tokenize(tokenizer_json: dict, text: str) -> list:
    """Ids of `text` under a char-level HF tokenizer.json (BPE without merges, no pre-tokenizer)."""
    if tokenizer_json.get("type") == "char":  # the legacy form: ids 3, 4, … in list order
        return [tokenizer_json["characters"].index(character) + 3 for character in text]
    model = tokenizer_json["model"]
    assert model["type"] == "BPE" and not model["merges"], "not a character-level tokenizer.json"
    return [model["vocab"][character] for character in text]


def main() -> int:
    checkpoint, expected_path = Path(sys.argv[1]), Path(sys.argv[2])
    config = json.loads((checkpoint / "config.json").read_text())["model"]
    weights = load_safetensors(checkpoint / "model.safetensors")
    expected = json.loads(expected_path.read_text())
    worst = 0.0
    with torch.no_grad():
        for sequence, reference in zip(expected["sequences"], expected["logprobs"]):
            tokens = torch.tensor(sequence, dtype=torch.long)
            log_probs = logits(weights, config, tokens[:-1]).log_softmax(-1)
            ours = log_probs.gather(1, tokens[1:, None])[:, 0]
            worst = max(worst, (ours - torch.tensor(reference)).abs().max().item())
    tokenizer_json = json.loads((checkpoint / "tokenizer.json").read_text())
    tokenizer_ok = all(
        char_tokenize(tokenizer_json, text) == ids
        for text, ids in zip(expected.get("texts", []), expected.get("textIds", []))
    )
    ok = worst < 1e-4 and tokenizer_ok
    print(json.dumps({"max_abs_diff": worst, "tokenizer_ok": tokenizer_ok, "ok": ok}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
