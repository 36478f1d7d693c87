#!/usr/bin/env bash
# Installs the Debian packages cpuft needs to build and test. Idempotent: installs only what is missing.
set -euo pipefail
pkgs=(
  build-essential cmake pkg-config
  libdnnl-dev            # oneDNN: matrix products (AMX / AVX-512 BF16 / AVX2 dispatch)
  libopenmpi-dev openmpi-bin  # MPI: data-parallel training
  libutf8proc-dev        # Unicode data for the tokenizer
  nlohmann-json3-dev     # JSON (configs, SQuAD, safetensors headers)
  libgtest-dev libgmock-dev   # unit tests
  libbenchmark-dev       # microbenchmarks
  iproute2               # network namespaces for the multi-host tests
)
# `install-deps.sh fuzz` (make fuzz) adds clang and its libFuzzer runtime.
if [ "${1:-}" = fuzz ]; then pkgs+=(clang libclang-rt-14-dev); fi
# `install-deps.sh slurm` adds a one-machine Slurm (scripts/slurm-local.sh) for the Slurm tests.
if [ "${1:-}" = slurm ]; then pkgs+=(slurmctld slurmd slurm-client munge); fi
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
