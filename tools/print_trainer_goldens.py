#!/usr/bin/env python3
"""Prints the reference values that tests/train/{lr_schedule,trainer_state}_test.cc and
tests/util/py_json_test.cc hard-code, computed with transformers + torch (run offline:
HF_HUB_OFFLINE=1 /work/pyref/bin/python tools/print_trainer_goldens.py). Nothing is written;
compare the output with the expected strings in those tests after upgrading the reference."""
import json
import tempfile
import time
from unittest import mock

import torch
import transformers
from transformers import TrainerControl, TrainerState, get_scheduler
from transformers.trainer_utils import speed_metrics


def schedule(name, base, warmup, total):
    param = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([param], lr=base)
    sched = get_scheduler(name, opt, num_warmup_steps=warmup, num_training_steps=total)
    rates = []
    for _ in range(total + 1):
        rates.append(repr(opt.param_groups[0]["lr"]))
        opt.step()
        sched.step()
    return rates


def main():
    print("transformers", transformers.__version__, "torch", torch.__version__)
    print("== lr schedules (rate before step k = 0..T)")
    for case in [("linear", 5e-5, 0, 10), ("linear", 5e-5, 3, 10), ("linear", 5e-5, 10, 10),
                 ("linear", 1e-3, 0, 1), ("cosine", 5e-5, 2, 9), ("cosine", 3e-5, 0, 1),
                 ("constant_with_warmup", 5e-5, 4, 8), ("constant", 5e-5, 4, 8)]:
        print(case, schedule(*case))

    print("== trainer_state.json")
    s = TrainerState()
    s.epoch, s.global_step, s.max_steps, s.num_train_epochs = 0.5, 2, 4, 1
    s.logging_steps, s.save_steps, s.train_batch_size, s.total_flos = 1, 2, 8, 1234567.0
    s.log_history = [{"loss": 1.23456, "grad_norm": 3.5, "learning_rate": 5e-05, "epoch": 0.25, "step": 1}]
    s.stateful_callbacks = {"TrainerControl": TrainerControl(should_save=True).state()}
    with tempfile.NamedTemporaryFile("r", suffix=".json") as f:
        s.save_to_json(f.name)
        print(f.read(), end="")

    print("== train_results.json / all_results.json")
    with mock.patch.object(time, "time", return_value=112.345678):
        m = speed_metrics("train", 100.0, num_samples=1000, num_steps=125)
    m.update(total_flos=208000000000000.0, train_loss=1.2345678901234567, epoch=2.0, train_samples=1000)
    print(json.dumps(m, indent=4, sort_keys=True))
    e = {"eval_exact_match": 81.2, "eval_f1": 88.51234, "eval_samples": 10784, "epoch": 2.0,
         "eval_runtime": round(10.5, 4), "eval_samples_per_second": round(10784 / 10.5, 3),
         "eval_steps_per_second": round(1348 / 10.5, 3)}
    m.update(e)
    print(json.dumps(m, indent=4, sort_keys=True))

    print("== repr / round")
    for v in [5e-05, 0.1, 1.0, 2.5e-06, 1e16, 1e15, 123456789012345678.0, 0.0001, 1e-05, -0.0, 1 / 3, 5e-324]:
        print(repr(v))
    print(round(1.23456, 4), round(0.00005, 4), round(2.675, 2), round(1.00005, 4), round(0.12345, 4))


if __name__ == "__main__":
    main()
