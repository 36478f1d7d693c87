#!/usr/bin/env bash
# Runs cpuft's unit tests with CPUFT_ISA=ref on an emulated CPU without AVX (qemu-x86_64 -cpu Nehalem:
# SSE4.2, no AVX, AVX2, FMA or AVX-512), and `cpuft doctor` there: proof that everything outside the
# *_avx2.cc / *_avx512.cc files is built for baseline x86-64, so that cpuft runs on any x86-64 CPU.
# An AVX instruction anywhere else ends the run with "Illegal instruction". Installs qemu-user if it
# is missing (scripts/install-deps.sh baseline). About 2 minutes.
#
#   scripts/check-baseline-cpu.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bash scripts/install-deps.sh baseline
qemu="qemu-x86_64 -cpu Nehalem"
[ -x "$build/cpuft" ] || { echo "check-baseline-cpu: no $build/cpuft; build first (make build)" >&2; exit 2; }

fail=0
if out=$($qemu "$build/cpuft" doctor 2>&1); then
  echo "check-baseline-cpu: cpuft doctor: $(grep -m1 '^kernels:' <<< "$out")"
else
  echo "$out" | tail -5; echo "check-baseline-cpu: cpuft doctor FAILED"; fail=1
fi
# Every test binary but the e2e ones (test_*_e2e: they run whole programs, cpuft and mpirun, natively).
# Every test but one: qemu's user-mode emulation accepts madvise without passing it to the kernel, so
# the mapping of a buffer advised to use huge pages has no huge-page flag under it (the test that
# reads that flag runs natively, in make test and make test-isa).
not_emulated=HugePages.LargeBuffersAreAdvisedBeforeTheirFirstWrite
for t in "$build"/test_*; do
  [ -f "$t" ] && [ -x "$t" ] || continue
  case "$(basename "$t")" in *.*|*_e2e) continue ;; esac
  start=$(date +%s)
  if out=$(CPUFT_ISA=ref $qemu "$t" --gtest_brief=1 --gtest_filter="-$not_emulated" 2>&1); then
    echo "check-baseline-cpu: $(basename "$t"): $(grep -m1 -o 'PASSED.*' <<< "$out") ($(( $(date +%s) - start )) s)"
  else
    echo "$out" | tail -15; echo "check-baseline-cpu: $(basename "$t") FAILED"; fail=1
  fi
done
[ "$fail" = 0 ] && echo "check-baseline-cpu: PASS" || { echo "check-baseline-cpu: FAIL"; exit 1; }
