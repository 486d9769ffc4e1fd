#!/usr/bin/env python3
"""Reads a Curricula embedded-policy checkpoint with nothing but PyTorch and prints log-probs.

A self-contained reference for docs/checkpoint-format.md: it uses no Curricula code and no `safetensors`
or `transformers` package (the safetensors header is parsed with json + struct, the tensors are read with
torch.frombuffer), and runs on PyTorch 1.13 (no F.scaled_dot_product_attention, no F.gelu(approximate=...)
needed: attention is softmax(Q Kᵀ / sqrt(hd) + M) V and GELU is the tanh formula, both written out).

Usage:
    python3 docs/checkpoint-reader.py CHECKPOINT_DIR PROMPT ANSWER [PROMPT ANSWER ...]

For each (PROMPT, ANSWER) pair it prints one JSON line:
    {"tokens": [1, ..., 2], "answer_start": a, "logprobs": [...], "answer_logprob": s}
tokens = [BOS] + ids(PROMPT) + ids(ANSWER) + [EOS]; logprobs[t] = log p(tokens[t+1] | tokens[..t]) for
t = 0 .. len(tokens)-2; answer_logprob = the sum of logprobs[t] for t >= answer_start - 1 (the answer's
tokens and EOS given everything before them: what Curricula's RL and SFT losses weigh).
Exit status 2 with one line on stderr for a bad checkpoint or a character outside the vocabulary.
"""

import json
import math
import struct
import sys
from pathlib import Path

import torch

LAYER_NORM_EPS = 1e-5
MASKED_SCORE = -1e9  # additive mask value for future positions (Curricula's; -inf gives the same result)


class CheckpointError(Exception):
    pass


def read_safetensors(path: Path) -> dict:
    """name -> float32 tensor, from a safetensors file: u64 LE header length N, N bytes of JSON, data."""
    data = path.read_bytes()
    if len(data) < 8:
        raise CheckpointError(f"{path}: too short to be safetensors")
    (header_length,) = struct.unpack("<Q", data[:8])
    if 8 + header_length > len(data):
        raise CheckpointError(f"{path}: header length {header_length} runs past the end of the file")
    header = json.loads(data[8 : 8 + header_length].decode("utf-8"))
    body = data[8 + header_length :]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry["dtype"] != "F32":
            raise CheckpointError(f"{path}: tensor {name} has dtype {entry['dtype']}, expected F32")
        begin, end = entry["data_offsets"]
        count = math.prod(entry["shape"])
        if end - begin != 4 * count or end > len(body):
            raise CheckpointError(f"{path}: tensor {name} data does not match its shape {entry['shape']}")
        # Little-endian float32, row-major (C order). bytearray: frombuffer needs a writable buffer.
        flat = torch.frombuffer(bytearray(body[begin:end]), dtype=torch.float32)
        tensors[name] = flat.reshape(entry["shape"])
    return tensors


def read_vocabulary(tokenizer_json: dict) -> dict:
    """character -> id of the char tokenizer: PAD=0, BOS=1, EOS=2, then one id per character."""
    if tokenizer_json.get("type") == "char":  # legacy form: characters in id order from 3
        return {character: index + 3 for index, character in enumerate(tokenizer_json["characters"])}
    model = tokenizer_json.get("model", {})
    if model.get("type") != "BPE" or model.get("merges"):
        raise CheckpointError("tokenizer.json is not a character-level tokenizer (BPE without merges)")
    special = {token["id"] for token in tokenizer_json.get("added_tokens", [])}
    return {text: index for text, index in model["vocab"].items() if index not in special}


def encode(vocabulary: dict, text: str, what: str) -> list:
    ids = []
    for position, character in enumerate(text):
        if character not in vocabulary:
            raise CheckpointError(f"{what}: character {character!r} at {position} is not in the vocabulary")
        ids.append(vocabulary[character])
    return ids


def layer_norm(x, weight, bias):
    """(x - mean) / sqrt(var + 1e-5) * weight + bias over the last axis; var is the biased variance."""
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + LAYER_NORM_EPS) * weight + bias


def gelu_tanh(z):
    return 0.5 * z * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (z + 0.044715 * z**3)))


def logits(w: dict, config: dict, tokens: torch.Tensor) -> torch.Tensor:
    """int64 token ids [L] (L <= contextLength) -> logits [L, V]. Every matrix is [in, out]: x @ W."""
    d, heads, length = config["dModel"], config["heads"], tokens.shape[0]
    hd = d // heads
    # M[t, u] = 0 where u <= t (a position sees itself and the past), MASKED_SCORE where u > t.
    mask = torch.triu(torch.full((length, length), MASKED_SCORE), diagonal=1)
    h = w["wte.weight"][tokens] + w["wpe.weight"][:length]  # [L, d]: token + learned position
    for i in range(config["layers"]):
        p = f"h.{i}."
        a = layer_norm(h, w[p + "ln_1.weight"], w[p + "ln_1.bias"])
        qkv = a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]  # [L, 3d]: q | k | v
        q, k, v = (part.reshape(length, heads, hd).transpose(0, 1) for part in qkv.split(d, dim=1))
        scores = q @ k.transpose(1, 2) / math.sqrt(hd) + mask  # [H, L, L]
        o = torch.softmax(scores, dim=-1) @ v  # [H, L, hd]
        merged = o.transpose(0, 1).reshape(length, d)  # heads concatenated in head order
        h = h + merged @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        m = layer_norm(h, w[p + "ln_2.weight"], w[p + "ln_2.bias"]) @ w[p + "mlp.c_fc.weight"]
        m = m + w[p + "mlp.c_fc.bias"]  # [L, 4d]
        h = h + gelu_tanh(m) @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    return layer_norm(h, w["ln_f.weight"], w["ln_f.bias"]) @ w["lm_head.weight"]  # [L, V], no bias


def score(w: dict, config: dict, tokens: list) -> list:
    """log p(tokens[t+1] | tokens[..t]) for t = 0 .. L-2, at temperature 1."""
    ids = torch.tensor(tokens, dtype=torch.long)
    log_probs = torch.log_softmax(logits(w, config, ids[:-1]), dim=-1)  # [L-1, V]
    return log_probs.gather(1, ids[1:, None])[:, 0].tolist()


def main(argv: list) -> int:
    if len(argv) < 3 or len(argv) % 2 == 0:
        print("usage: checkpoint-reader.py CHECKPOINT_DIR PROMPT ANSWER [PROMPT ANSWER ...]", file=sys.stderr)
        return 2
    checkpoint = Path(argv[0])
    try:
        meta = json.loads((checkpoint / "config.json").read_text(encoding="utf-8"))
        if meta.get("format") != "curricula-embedded-policy" or meta.get("formatVersion") != 1:
            raise CheckpointError(f"{checkpoint}/config.json: not a version-1 curricula-embedded-policy")
        config = meta["model"]
        weights = read_safetensors(checkpoint / "model.safetensors")
        tokenizer_json = json.loads((checkpoint / "tokenizer.json").read_text(encoding="utf-8"))
        vocabulary = read_vocabulary(tokenizer_json)
        bos, eos = 1, 2  # the char tokenizer's fixed special ids (PAD = 0)
        with torch.no_grad():
            for prompt, answer in zip(argv[1::2], argv[2::2]):
                prompt_ids, answer_ids = encode(vocabulary, prompt, "prompt"), encode(vocabulary, answer, "answer")
                tokens = [bos, *prompt_ids, *answer_ids, eos]
                if len(tokens) > config["contextLength"]:
                    raise CheckpointError(f"{len(tokens)} tokens exceed the context of {config['contextLength']}")
                logprobs = score(weights, config, tokens)
                answer_start = 1 + len(prompt_ids)
                line = {
                    "tokens": tokens,
                    "answer_start": answer_start,
                    "logprobs": logprobs,
                    "answer_logprob": sum(logprobs[answer_start - 1 :]),
                }
                print(json.dumps(line))
    except (CheckpointError, OSError, KeyError, ValueError) as error:
        print(f"checkpoint-reader: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
