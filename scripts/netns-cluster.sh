#!/usr/bin/env bash
# A cluster of N "hosts" on this machine for multi-node MPI tests: network namespaces cpuft-h1..hN on a
# private bridge, a hostfile, and an ssh-compatible rsh agent that runs a command inside a host's
# network namespace and in its own UTS namespace with the host name set (Open MPI needs every host to
# report its own name). Traffic stays on the bridge subnet. Needs root (ip netns, unshare).
#
#   scripts/netns-cluster.sh up N [SUBNET]   create (idempotent); SUBNET defaults to 10.77.0.0/24
#   scripts/netns-cluster.sh down [N]        remove everything this script created
#
# Environment: CPUFT_NETNS_STATE (state directory, default /run/cpuft-netns), CPUFT_NETNS_SLOTS (slots
# per host in the hostfile, default: the CPUs of this machine).
set -euo pipefail

STATE=${CPUFT_NETNS_STATE:-/run/cpuft-netns}
BRIDGE=cpuftbr0
MARK="# cpuft-netns"

die() { echo "netns-cluster.sh: $*" >&2; exit 1; }

subnet_prefix() {  # 10.77.0.0/24 -> 10.77.0
  local s=$1
  [[ $s =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)\.0/24$ ]] || die "subnet: found '$s', expected A.B.C.0/24"
  echo "${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.${BASH_REMATCH[3]}"
}

write_agent() {
  cat > "$STATE/rsh-agent" <<'AGENT'
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
  cpuft-h[0-9]*) ;;
  *) echo "rsh-agent: $host is not a cpuft netns host" >&2; exit 255 ;;
esac
ip netns list | grep -qw "^$host" || { echo "rsh-agent: no namespace $host" >&2; exit 255; }
# Like ssh, the remote command is the arguments joined by spaces, run by a shell.
exec ip netns exec "$host" unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$host" "$*"
AGENT
  chmod +x "$STATE/rsh-agent"
}

up() {
  local n=$1 prefix=$2 slots=${CPUFT_NETNS_SLOTS:-$(nproc)}
  [[ $n =~ ^[1-9][0-9]?$ ]] || die "N: found '$n', expected 1..99"
  mkdir -p "$STATE"
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
  fi
  ip addr replace "$prefix.1/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  : > "$STATE/hostfile.tmp"
  for i in $(seq 1 "$n"); do
    local ns=cpuft-h$i veth=cpuftv$i
    ip netns list | grep -qw "^$ns" || ip netns add "$ns"
    if ! ip link show "$veth" >/dev/null 2>&1; then
      ip link add "$veth" type veth peer name "cpuftp$i"
      ip link set "cpuftp$i" netns "$ns"
      ip netns exec "$ns" ip link set "cpuftp$i" name eth0
    fi
    ip link set "$veth" master "$BRIDGE" up
    ip netns exec "$ns" ip addr replace "$prefix.$((10 + i))/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    ip netns exec "$ns" ip link set lo up
    echo "$ns slots=$slots" >> "$STATE/hostfile.tmp"
  done
  mv "$STATE/hostfile.tmp" "$STATE/hostfile"
  # Names resolve through /etc/hosts (seen inside the namespaces too); our lines carry a marker.
  local hosts
  hosts=$(grep -v "$MARK" /etc/hosts || true)
  for i in $(seq 1 "$n"); do hosts+=$'\n'"$prefix.$((10 + i)) cpuft-h$i $MARK"; done
  # /etc/hosts may be a bind mount (containers): rewrite it in place rather than renaming over it.
  printf '%s\n' "$hosts" > /etc/hosts
  echo "$n" > "$STATE/count"
  echo "$prefix" > "$STATE/prefix"
  write_agent
  echo "hostfile: $STATE/hostfile"
  echo "mpirun flags: --hostfile $STATE/hostfile --mca plm_rsh_agent $STATE/rsh-agent --mca btl tcp,self" \
       "--mca btl_tcp_if_include $prefix.0/24 --mca oob_tcp_if_include $prefix.0/24"
}

down() {
  for ns in $(ip netns list | awk '{print $1}' | grep -E '^cpuft-h[0-9]+$' || true); do
    ip netns del "$ns"
  done
  for link in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E '^cpuftv[0-9]+$' || true); do
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
  down) down ;;
  *) die "usage: $0 up N [SUBNET] | down [N]" ;;
esac
