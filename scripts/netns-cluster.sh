#!/usr/bin/env bash
# A cluster of N "hosts" on this machine for multi-node MPI tests: network namespaces cpuft-h1..hN on a
# private bridge, a hostfile, and an ssh-compatible rsh agent that runs a command inside a host's
# network namespace and in its own UTS namespace with the host name set (Open MPI needs every host to
# report its own name). Traffic stays on the bridge subnet. Needs root (ip netns, unshare).
#
#   scripts/netns-cluster.sh up N [SUBNET]   create (idempotent); SUBNET defaults to 10.77.0.0/24
#   scripts/netns-cluster.sh shape RATE      limit every host's link to RATE in each direction (tc tbf,
#                                            e.g. 10gbit, 25gbit, 100gbit); RATE "none" removes the limit
#   scripts/netns-cluster.sh down [N]        remove everything this script created
#
# Environment: CPUFT_NETNS_NAME (default cpuft: hosts NAME-h1.., bridge NAMEbr0, veths NAMEv1..; at most
# 6 letters or digits; a second cluster with another name and subnet can run beside the first),
# CPUFT_NETNS_STATE (state directory, default /run/NAME-netns), CPUFT_NETNS_SLOTS (slots
# per host in the hostfile, default: the CPUs of this machine), CPUFT_NETNS_CPUS (optional, at `up`:
# one CPU list per host separated by spaces, e.g. "0 1": whatever the agent starts on host i runs on
# the i-th list only (taskset), as on separate machines; the slots are then that list's CPU count).
#
# Shaping: the tbf qdisc on both ends of a host's veth (eth0 in the host for what it sends, the
# bridge port for what it receives) caps the rate; it adds no delay. The netem qdisc, which would
# add latency, is not available in every kernel (not in the one these figures were measured on), so
# link latency is not emulated here.
set -euo pipefail

NAME=${CPUFT_NETNS_NAME:-cpuft}
[[ $NAME =~ ^[a-z][a-z0-9]{0,5}$ ]] || { echo "netns-cluster.sh: CPUFT_NETNS_NAME: found '$NAME', expected 1-6 lowercase letters or digits, a letter first" >&2; exit 1; }
STATE=${CPUFT_NETNS_STATE:-/run/$NAME-netns}
BRIDGE=${NAME}br0
MARK="# $NAME-netns"

die() { echo "netns-cluster.sh: $*" >&2; exit 1; }

subnet_prefix() {  # 10.77.0.0/24 -> 10.77.0
  local s=$1
  [[ $s =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)\.0/24$ ]] || die "subnet: found '$s', expected A.B.C.0/24"
  echo "${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.${BASH_REMATCH[3]}"
}

write_agent() {
  sed "s/@NAME@/$NAME/g" > "$STATE/rsh-agent" <<'AGENT'
#!/bin/sh
# ssh-compatible agent for the cpuft netns cluster: [ssh options] [user@]HOST COMMAND...
while [ $# -gt 0 ]; do
  case "$1" in
    -[bcDEeFIiJLlmOoPpQRSWw]) shift 2 ;;   # ssh options that take an argument
    -*) shift ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "rsh-agent: no host given" >&2; exit 255; }
host=${1#*@}
shift
case "$host" in
  @NAME@-h[0-9]*) ;;
  *) echo "rsh-agent: $host is not a @NAME@ netns host" >&2; exit 255 ;;
esac
ip netns list | grep -qw "^$host" || { echo "rsh-agent: no namespace $host" >&2; exit 255; }
# The host's own CPUs, when the cluster was made with CPUFT_NETNS_CPUS.
pin=""
cpus_file="$(dirname "$0")/cpus-$host"
[ -f "$cpus_file" ] && pin="taskset -c $(cat "$cpus_file")"
# Like ssh, the remote command is the arguments joined by spaces, run by a shell.
exec $pin ip netns exec "$host" unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$host" "$*"
AGENT
  chmod +x "$STATE/rsh-agent"
}

# Number of CPUs in a list such as 0-3,8.
cpu_count() {
  local n=0 part lo hi
  for part in ${1//,/ }; do
    [[ $part =~ ^([0-9]+)(-([0-9]+))?$ ]] || die "CPUFT_NETNS_CPUS: found '$1', expected CPU lists such as 0-3,8"
    lo=${BASH_REMATCH[1]} hi=${BASH_REMATCH[3]:-${BASH_REMATCH[1]}}
    (( hi >= lo )) || die "CPUFT_NETNS_CPUS: found range '$part', expected low-high with low <= high"
    n=$((n + hi - lo + 1))
  done
  echo "$n"
}

up() {
  local n=$1 prefix=$2 slots=${CPUFT_NETNS_SLOTS:-$(nproc)}
  [[ $n =~ ^[1-9][0-9]?$ ]] || die "N: found '$n', expected 1..99"
  local -a host_cpus=()
  if [ -n "${CPUFT_NETNS_CPUS:-}" ]; then
    read -r -a host_cpus <<< "$CPUFT_NETNS_CPUS"
    [ "${#host_cpus[@]}" -eq "$n" ] || die "CPUFT_NETNS_CPUS: found ${#host_cpus[@]} CPU lists, expected $n (one per host)"
    for c in "${host_cpus[@]}"; do cpu_count "$c" >/dev/null; done
  fi
  mkdir -p "$STATE"
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
  fi
  ip addr replace "$prefix.1/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  : > "$STATE/hostfile.tmp"
  for i in $(seq 1 "$n"); do
    local ns=$NAME-h$i veth=${NAME}v$i
    ip netns list | grep -qw "^$ns" || ip netns add "$ns"
    if ! ip link show "$veth" >/dev/null 2>&1; then
      ip link add "$veth" type veth peer name "${NAME}p$i"
      ip link set "${NAME}p$i" netns "$ns"
      ip netns exec "$ns" ip link set "${NAME}p$i" name eth0
    fi
    ip link set "$veth" master "$BRIDGE" up
    ip netns exec "$ns" ip addr replace "$prefix.$((10 + i))/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    ip netns exec "$ns" ip link set lo up
    if [ ${#host_cpus[@]} -gt 0 ]; then
      echo "${host_cpus[$((i - 1))]}" > "$STATE/cpus-$ns"
      echo "$ns slots=$(cpu_count "${host_cpus[$((i - 1))]}")" >> "$STATE/hostfile.tmp"
    else
      rm -f "$STATE/cpus-$ns"
      echo "$ns slots=$slots" >> "$STATE/hostfile.tmp"
    fi
  done
  mv "$STATE/hostfile.tmp" "$STATE/hostfile"
  # Names resolve through /etc/hosts (seen inside the namespaces too); our lines carry a marker.
  local hosts
  hosts=$(grep -v "$MARK" /etc/hosts || true)
  for i in $(seq 1 "$n"); do hosts+=$'\n'"$prefix.$((10 + i)) $NAME-h$i $MARK"; done
  # /etc/hosts may be a bind mount (containers): rewrite it in place rather than renaming over it.
  printf '%s\n' "$hosts" > /etc/hosts
  echo "$n" > "$STATE/count"
  echo "$prefix" > "$STATE/prefix"
  write_agent
  echo "hostfile: $STATE/hostfile"
  echo "mpirun flags: --hostfile $STATE/hostfile --mca plm_rsh_agent $STATE/rsh-agent --mca btl tcp,self" \
       "--mca btl_tcp_if_include $prefix.0/24 --mca oob_tcp_if_include $prefix.0/24"
}

# tbf needs a bucket of at least one packet; a millisecond at the rate (at least 64 KiB, for the
# 64 KiB segments veth passes with GSO) keeps it accurate at 100 Gbit/s; queued data beyond 20 ms
# of the rate is dropped (TCP then backs off, as on a real link).
shape() {
  local rate=$1 n bits
  [ -f "$STATE/count" ] || die "shape: no cluster (run up first)"
  n=$(cat "$STATE/count")
  if [ "$rate" != none ]; then
    [[ $rate =~ ^([0-9]+)(k|m|g)bit$ ]] || die "RATE: found '$rate', expected e.g. 10gbit, 25gbit, 100gbit or none"
    case ${BASH_REMATCH[2]} in k) bits=$((BASH_REMATCH[1] * 1000));; m) bits=$((BASH_REMATCH[1] * 1000000));;
                               g) bits=$((BASH_REMATCH[1] * 1000000000));; esac
    local burst=$((bits / 8 / 1000))
    (( burst >= 65536 )) || burst=65536
  fi
  for i in $(seq 1 "$n"); do
    for dev in "${NAME}v$i" "netns:$NAME-h$i"; do
      local -a exe=()
      [[ $dev == netns:* ]] && exe=(ip netns exec "${dev#netns:}") && dev=eth0
      "${exe[@]}" tc qdisc del dev "$dev" root 2>/dev/null || true
      [ "$rate" = none ] || "${exe[@]}" tc qdisc add dev "$dev" root tbf rate "$rate" burst "$burst" latency 20ms
    done
  done
  echo "$rate" > "$STATE/rate"
  echo "links: $rate"
}

down() {
  for ns in $(ip netns list | awk '{print $1}' | grep -E "^$NAME-h[0-9]+\$" || true); do
    ip netns del "$ns"
  done
  for link in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "^${NAME}v[0-9]+\$" || true); do
    ip link del "$link" 2>/dev/null || true
  done
  if ip link show "$BRIDGE" >/dev/null 2>&1; then ip link del "$BRIDGE"; fi
  if grep -q "$MARK" /etc/hosts; then
    local hosts
    hosts=$(grep -v "$MARK" /etc/hosts || true)
    printf '%s\n' "$hosts" > /etc/hosts
  fi
  rm -rf "$STATE"
}

case "${1:-}" in
  up) [ $# -ge 2 ] || die "usage: $0 up N [SUBNET]"; up "$2" "$(subnet_prefix "${3:-10.77.0.0/24}")" ;;
  shape) [ $# -ge 2 ] || die "usage: $0 shape RATE"; shape "$2" ;;
  down) down ;;
  *) die "usage: $0 up N [SUBNET] | shape RATE | down [N]" ;;
esac
