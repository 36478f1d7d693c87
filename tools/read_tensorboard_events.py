#!/usr/bin/env python3
"""Reads an event file written by cpuft with TensorBoard's own reader (the tensorboard package's
EventAccumulator) and writes what it found as JSON, for tests/report/tensorboard_parity_test.cc:

    HF_HUB_OFFLINE=1 python tools/read_tensorboard_events.py tests/fixtures/report/cpuft_writer.tfevents \\
        > tests/fixtures/report/cpuft_writer_read.json

Output: {"tensorboard": version, "file_version": N (of "brain.Event:N"), "scalars": {tag: [[step, wall_time, value], ...]}},
values as TensorBoard returns them (float32 widened to float). It fails if TensorBoard reports a
corrupt record (its reader checks both CRC-32C checksums of every record) or finds no scalars.
"""
import json
import sys

import tensorboard
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    acc = EventAccumulator(sys.argv[1], size_guidance={"scalars": 0})
    acc.Reload()
    scalars = {tag: [[e.step, e.wall_time, e.value] for e in acc.Scalars(tag)] for tag in sorted(acc.Tags()["scalars"])}
    if not scalars:
        sys.exit(sys.argv[1] + ": TensorBoard found no scalars")
    json.dump({"tensorboard": tensorboard.__version__, "file_version": acc.file_version, "scalars": scalars},
              sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
