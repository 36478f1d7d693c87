#!/usr/bin/env bash
# Checks the README's set-up on a fresh Debian 12: makes a clean root with
# `debootstrap --variant=minbase bookworm`, clones this repository's HEAD into it (and copies the
# optional full SQuAD files of ../shared/data/squad beside it when present: docs/parity.md, Fixtures),
# installs only make, git and ca-certificates, then
# runs the README's two commands, `make test` and `make demo`, inside it with chroot. Prints PASS or
# FAIL and the time of each step. A long-lived machine keeps whatever was installed on it before, so
# only a run like this proves that install-deps and the CMake find logic are complete.
# `--only emulated` runs `make test-isa-emulated` there instead (its own package group, libsimde-dev).
#
#   sudo scripts/check-fresh-install.sh [--keep] [--only test|demo|emulated] [ROOT]
#
# ROOT defaults to /var/tmp/cpuft-fresh (removed first, and afterwards unless --keep). Needs root,
# Debian's package mirror and about 3 GB of disk; takes 20-40 minutes on 2 cores. The multi-host
# tests that need network namespaces skip inside the chroot.
set -euo pipefail

keep=0
only=""
root=/var/tmp/cpuft-fresh
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=1; shift ;;
    --only) only=${2:-}; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-fresh-install: unknown flag '$1'" >&2; exit 2 ;;
    *) root=$1; shift ;;
  esac
done
case "$only" in ""|test|demo|emulated) ;; *) echo "check-fresh-install: --only takes test, demo or emulated, found '$only'" >&2; exit 2 ;; esac
[ "$(id -u)" -eq 0 ] || { echo "check-fresh-install: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
case "$root" in /|/usr|/var|/tmp|/home|/root|"") echo "check-fresh-install: refusing ROOT '$root'" >&2; exit 2 ;; esac

repo=$(cd "$(dirname "$0")/.." && pwd)
mirror=${CPUFT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
t_start=$(date +%s)
stamp() { echo "[$(date +%H:%M:%S)] check-fresh-install: $*"; }

mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -R "${mounted[i]}" 2> /dev/null || umount -l "${mounted[i]}" 2> /dev/null || true; done
  # Anything else mounted inside the root (e.g. /run/netns by a test's `ip netns add`), deepest first.
  awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do umount -l "$m" || true; done
  if [ "$keep" = 0 ] && [ -d "$root" ]; then rm -rf --one-file-system "$root"; fi
}
trap cleanup EXIT

if ! command -v debootstrap > /dev/null; then
  stamp "installing debootstrap"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap > /dev/null
fi

rm -rf --one-file-system "$root"
mkdir -p "$root"
stamp "debootstrap --variant=minbase bookworm $root"
t0=$(date +%s)
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1 ||
  { tail -20 "$root.debootstrap.log"; echo "check-fresh-install: FAIL (debootstrap)"; exit 1; }
t_boot=$(( $(date +%s) - t0 ))
rm -f "$root.debootstrap.log"

# A fresh install's package sources: the release, its updates and security.
cat > "$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb ${mirror%/debian}/debian-security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null || true
for m in proc sys dev tmp; do mkdir -p "$root/$m"; done
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
mount -t sysfs sysfs "$root/sys" && mounted+=("$root/sys")
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" && mounted+=("$root/dev")
mount -t tmpfs tmpfs "$root/tmp" && mounted+=("$root/tmp")

in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  TERM=dumb LANG=C.UTF-8 /bin/bash -c "$1"; }

# This network's own certificate authorities (e.g. a proxy in front of PyPI), as any machine on it
# would have them; ca-certificates picks them up when it is installed next.
if compgen -G "/usr/local/share/ca-certificates/*.crt" > /dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
fi
stamp "installing make git ca-certificates"
in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends make git ca-certificates > /dev/null"

mkdir -p "$root/work"
git clone -q --no-hardlinks "$repo" "$root/work/cpuft"
commit=$(git -C "$root/work/cpuft" rev-parse --short HEAD)
if [ -d "$repo/../shared/data/squad" ]; then
  mkdir -p "$root/work/shared/data" && cp -r "$repo/../shared/data/squad" "$root/work/shared/data/"
fi

result=PASS
report=()
run_step() {  # name command
  local t0 rc
  stamp "$1 (commit $commit)"
  t0=$(date +%s)
  set +e
  in_root "cd /work/cpuft && $2" 2>&1 | tee "$root.$1.log" | tail -n 25
  rc=${PIPESTATUS[0]}
  set -e
  local secs=$(( $(date +%s) - t0 ))
  report+=("$(printf '%-10s %s  %dm%02ds' "$1" "$([ "$rc" = 0 ] && echo PASS || echo "FAIL (rc $rc)")" $((secs / 60)) $((secs % 60)))")
  if [ "$rc" = 0 ]; then rm -f "$root.$1.log"; else result=FAIL; echo "check-fresh-install: full log in $root.$1.log"; fi
}
case "$only" in
  "") run_step "make-test" "make test"; run_step "make-demo" "make demo" ;;
  test) run_step "make-test" "make test" ;;
  demo) run_step "make-demo" "make demo" ;;
  emulated) run_step "make-test-isa-emulated" "make test-isa-emulated" ;;
esac

total=$(( $(date +%s) - t_start ))
echo
echo "check-fresh-install: Debian 12 minbase (debootstrap ${t_boot}s), commit $commit, $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
for line in "${report[@]}"; do echo "  $line"; done
printf 'check-fresh-install: %s in %dm%02ds\n' "$result" $((total / 60)) $((total % 60))
[ "$result" = PASS ]
