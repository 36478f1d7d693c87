#!/usr/bin/env bash
# Checks that no vector kernel calls a loop body: every lambda given to over_columns or
# for_each_flat_chunk (kernels/vec_loop.h; written [&](int64_t c, int k) CPUFT_INLINE_BODY { ... }) must be
# inlined where it runs, once per vector. A body left as a function is a call per vector: GCC did that to
# the AVX-512 softmax backward's exp loop, on the one ISA this project's usual test machines cannot run,
# so no test and no timing there would have seen it. Reads the disassembly of BINARY (objdump -d -C) and
# lists every call to a `lambda(long, int)`. Run by CTest (test "kernel_loop_bodies_inlined"); usage:
# check-kernel-inlining.sh BINARY.
set -euo pipefail
bin=${1:?usage: check-kernel-inlining.sh BINARY}
if [[ ! -r $bin ]]; then
  echo "check-kernel-inlining: $bin: cannot read it, expected the cpuft binary" >&2
  exit 2
fi
if ! command -v objdump > /dev/null; then
  echo "check-kernel-inlining: objdump not found (Debian package binutils), expected it on PATH" >&2
  exit 2
fi
calls=$(objdump -d -C --no-show-raw-insn "$bin" | grep -E $'\tcall .*lambda\\(long, int\\)' || true)
if [[ -n $calls ]]; then
  echo "check-kernel-inlining: $bin: $(wc -l <<< "$calls") calls to a loop body, expected none (mark the lambda CPUFT_INLINE_BODY):" >&2
  sed -E 's/^ *[0-9a-f]+:\tcall +[0-9a-f]+ //' <<< "$calls" | cut -c1-300 | sort | uniq -c | sort -rn | head -20 >&2
  exit 1
fi
echo "check-kernel-inlining: $bin: no call to a loop body"
