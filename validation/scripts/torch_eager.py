#!/usr/bin/env python3
"""PyTorch eager decode steps written as Hugging Face transformers' LlamaForCausalLM runs them
(modeling_llama.py with a StaticCache: fp32 RMSNorm in several ops, separate q/k/v projections,
rotary through mul/neg/cat/add, index_copy_ into the cache, repeat_kv, SDPA with a mask, logits
upcast), with random bf16 weights, timed on the GPU machine through the `run` tool:

    python3 validation/scripts/torch_eager.py OUT_DIR

Writes OUT_DIR/eager.json: per-op host dispatch (a 4096-element add, back to back) and, per model,
batch and context, the wall time of one decode step (the median of 20 after 3 warm-ups, each
step synchronized). This is the measurement the `--impl eager` profile predicts (docs/profiles.md);
transformers itself is not installed on the machine, so the forward pass is re-written here from
its source, op for op.
"""
import json
import math
import sys
import time

import torch
import torch.nn.functional as F

MODELS = {  # hidden, layers, heads, kv_heads, intermediate, vocab (the catalogue's configs)
    "tinyllama-1.1b": (2048, 22, 32, 4, 5632, 32000),
    "llama2-7b": (4096, 32, 32, 32, 11008, 32000),
    "llama3-8b": (4096, 32, 32, 8, 14336, 128256),
}
dev = torch.device("cuda")
bf16 = torch.bfloat16


def rms_norm(x, w, eps=1e-5):  # LlamaRMSNorm.forward
    dtype = x.dtype
    h = x.to(torch.float32)
    var = h.pow(2).mean(-1, keepdim=True)
    h = h * torch.rsqrt(var + eps)
    return w * h.to(dtype)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n):
    if n == 1:
        return x
    b, h, s, d = x.shape
    return x[:, :, None, :, :].expand(b, h, n, s, d).reshape(b, h * n, s, d)


class Llama:
    def __init__(self, cfg, batch, max_len):
        hid, layers, heads, kvh, inter, vocab = cfg
        self.hid, self.heads, self.kvh, self.d = hid, heads, kvh, hid // heads
        g = torch.Generator(device=dev).manual_seed(0)
        r = lambda *s: (torch.randn(*s, device=dev, generator=g, dtype=torch.float32) * 0.02).to(bf16)
        self.embed = r(vocab, hid)
        self.layers = []
        for _ in range(layers):
            self.layers.append(dict(
                ln1=torch.ones(hid, device=dev, dtype=bf16), ln2=torch.ones(hid, device=dev, dtype=bf16),
                q=r(heads * self.d, hid), k=r(kvh * self.d, hid), v=r(kvh * self.d, hid), o=r(hid, heads * self.d),
                gate=r(inter, hid), up=r(inter, hid), down=r(hid, inter),
                kc=torch.zeros(batch, kvh, max_len, self.d, device=dev, dtype=bf16),
                vc=torch.zeros(batch, kvh, max_len, self.d, device=dev, dtype=bf16)))
        self.norm = torch.ones(hid, device=dev, dtype=bf16)
        self.lm_head = r(vocab, hid)
        self.inv_freq = 1.0 / (10000.0 ** (torch.arange(0, self.d, 2, device=dev, dtype=torch.float32) / self.d))
        self.max_len = max_len

    def step(self, ids, pos):  # one decode token per sequence at position `pos`
        b = ids.shape[0]
        x = F.embedding(ids, self.embed)
        cache_position = torch.arange(pos, pos + 1, device=dev)
        position_ids = cache_position.unsqueeze(0).expand(b, -1)
        # LlamaRotaryEmbedding.forward (once per forward)
        inv = self.inv_freq[None, :, None].float().expand(b, -1, 1)
        freqs = (inv @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos().to(bf16), emb.sin().to(bf16)
        # _update_causal_mask for a StaticCache: a full-length additive mask
        mask = torch.full((1, self.max_len), torch.finfo(bf16).min, device=dev, dtype=bf16)
        mask = torch.triu(mask, diagonal=1)
        mask = mask * (torch.arange(self.max_len, device=dev) > cache_position.reshape(-1, 1))
        mask = mask[None, None, :, :].expand(b, 1, -1, -1)
        for L in self.layers:
            res = x
            h = rms_norm(x, L["ln1"])
            q = F.linear(h, L["q"]).view(b, 1, self.heads, self.d).transpose(1, 2)
            k = F.linear(h, L["k"]).view(b, 1, self.kvh, self.d).transpose(1, 2)
            v = F.linear(h, L["v"]).view(b, 1, self.kvh, self.d).transpose(1, 2)
            c, s = cos.unsqueeze(1), sin.unsqueeze(1)
            q = (q * c) + (rotate_half(q) * s)
            k = (k * c) + (rotate_half(k) * s)
            L["kc"].index_copy_(2, cache_position, k)  # StaticCache.update
            L["vc"].index_copy_(2, cache_position, v)
            kk = repeat_kv(L["kc"], self.heads // self.kvh)
            vv = repeat_kv(L["vc"], self.heads // self.kvh)
            a = F.scaled_dot_product_attention(q, kk, vv, attn_mask=mask, scale=1.0 / math.sqrt(self.d))
            a = a.transpose(1, 2).contiguous().reshape(b, 1, -1)
            x = res + F.linear(a, L["o"])
            res = x
            h = rms_norm(x, L["ln2"])
            x = res + F.linear(F.silu(F.linear(h, L["gate"])) * F.linear(h, L["up"]), L["down"])
        x = rms_norm(x, self.norm)
        return F.linear(x[:, -1:, :], self.lm_head).float()


def wall(fn, n=20, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    t = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        t.append(time.perf_counter() - t0)
    t.sort()
    return t[len(t) // 2]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "steps": []}
    x = torch.randn(4096, device=dev, dtype=bf16)
    n = 20000
    res["dispatch_s"] = wall(lambda: [x.add(1.0) for _ in range(n)], n=5, warm=1) / n
    y = x.view(64, 64)
    res["view_dispatch_s"] = wall(lambda: [y.transpose(0, 1) for _ in range(n)], n=5, warm=1) / n
    print(f"dispatch per op {res['dispatch_s'] * 1e6:.2f} us, per view {res['view_dispatch_s'] * 1e6:.2f} us", flush=True)
    # The same two as calibration points (perfmodel calibrate --from-raw): the framework's host
    # time per kernel-launching op and per op that launches nothing.
    raw = {"schema_version": 1, "device": {"name": res["device"]}, "points": [
        {"what": "eager_dispatch", "seconds": res["dispatch_s"]},
        {"what": "eager_view", "seconds": res["view_dispatch_s"]}]}
    with open(f"{out}/calibration-eager-raw.json", "w") as f:
        json.dump(raw, f, indent=1)
    for name, b, ctx in [("tinyllama-1.1b", 1, 256), ("tinyllama-1.1b", 16, 2048), ("tinyllama-1.1b", 64, 1024),
                         ("llama2-7b", 1, 2048), ("llama2-7b", 16, 1024), ("llama3-8b", 1, 1024), ("llama3-8b", 32, 2048)]:
        m = Llama(MODELS[name], b, ctx + 8)
        ids = torch.randint(0, MODELS[name][5], (b, 1), device=dev)
        with torch.no_grad():
            t = wall(lambda: m.step(ids, ctx - 1))
        res["steps"].append({"model": name, "batch": b, "ctx": ctx, "measured_s": t})
        print(f"{name} b{b} ctx{ctx}: {t * 1e3:.3f} ms", flush=True)
        del m
        torch.cuda.empty_cache()
    with open(f"{out}/eager.json", "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
