#!/usr/bin/env python3
"""Writes tests/fixtures/kernels/adamw_torch.json: four torch.optim.AdamW steps on a 64-element f32
parameter (changing lr, weight decay 0.01), with w, m (exp_avg), v (exp_avg_sq) after each step.

cpuft's adamw_step is held to these values: m and v bit for bit, w within 2 ulps (torch's f32
sqrt in some builds, e.g. MKL-backed 2.x wheels, is not correctly rounded; cpuft's is).
Run offline: HF_HUB_OFFLINE=1 /work/pyref/bin/python tools/kernels_adamw_fixture.py
"""
import json
import os

import torch

N, STEPS = 64, 4
LR, WD, BETAS, EPS = 3e-5, 0.01, (0.9, 0.999), 1e-8


def floats(t):
    return [float(x) for x in t.tolist()]  # f32 values are exact as doubles


def main():
    gen = torch.Generator().manual_seed(1234)
    w0 = torch.randn(N, generator=gen) * 0.05
    grads = []
    for _ in range(STEPS):
        mag = 10.0 ** (torch.rand(N, generator=gen) * 7 - 6)  # 1e-6 .. 10
        grads.append((torch.randn(N, generator=gen) * mag).float())
    p = torch.nn.Parameter(w0.clone())
    opt = torch.optim.AdamW([p], lr=LR, betas=BETAS, eps=EPS, weight_decay=WD, foreach=False)
    steps = []
    for t in range(1, STEPS + 1):
        lr = LR * (1.0 - (t - 1) / 10.0)
        opt.param_groups[0]["lr"] = lr
        p.grad = grads[t - 1].clone()
        opt.step()
        st = opt.state[p]
        steps.append({"lr": lr, "grad": floats(grads[t - 1]), "w": floats(p.detach()),
                      "m": floats(st["exp_avg"]), "v": floats(st["exp_avg_sq"])})
    out = {"torch": torch.__version__, "beta1": BETAS[0], "beta2": BETAS[1], "eps": EPS,
           "weight_decay": WD, "w0": floats(w0), "steps": steps}
    path = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "kernels",
                        "adamw_torch.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
