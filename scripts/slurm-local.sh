#!/usr/bin/env bash
# A one-machine Slurm cluster for testing cpuft under Slurm: a private munged (its own key and
# socket, run as the munge user), slurmctld and slurmd for this host, all state, logs and pid files
# in one directory. Needs root and Debian's slurmctld, slurmd, slurm-client and munge packages.
#
#   scripts/slurm-local.sh up      start the daemons; waits until the node is idle; prints the
#                                  `export SLURM_CONF=...` line the client commands need
#   scripts/slurm-local.sh down    stop the daemons this script started (by their pid files) and
#                                  remove the state directory
#
# Environment: CPUFT_SLURM_STATE (state directory, default /run/cpuft-slurm), CPUFT_SLURM_PORT
# (slurmctld's port, default 16817; slurmd takes the next one).
set -euo pipefail

STATE=${CPUFT_SLURM_STATE:-/run/cpuft-slurm}
PORT=${CPUFT_SLURM_PORT:-16817}

die() { echo "slurm-local.sh: $*" >&2; exit 1; }

# Kills the daemon whose pid file is $1 (if it still runs) and waits for it to go.
stop_pidfile() {
  local f=$1 pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

show_logs() {
  for log in "$STATE/munge/munged.log" "$STATE/slurmctld.log" "$STATE/slurmd.log"; do
    [ -f "$log" ] && { echo "--- $log"; tail -n 15 "$log"; }
  done
}

up() {
  [ "$(id -u)" -eq 0 ] || die "needs root (slurmd runs as root)"
  [[ $PORT =~ ^[0-9]+$ ]] && (( PORT >= 1024 && PORT < 65535 )) || die "CPUFT_SLURM_PORT: found '$PORT', expected 1024..65534"
  for tool in munged slurmctld slurmd sinfo; do
    command -v "$tool" >/dev/null || die "$tool not found, expected Debian's munge, slurmctld, slurmd and slurm-client"
  done
  id munge >/dev/null 2>&1 || die "no munge user (install Debian's munge package)"
  local host
  host=$(hostname)
  mkdir -p "$STATE/state" "$STATE/spool" "$STATE/munge"
  # munged checks that its socket directory is reachable by all and owned by it, its key private.
  chown munge:munge "$STATE/munge"
  chmod 755 "$STATE" "$STATE/munge"
  runuser -u munge -- test -x "$STATE/munge" ||
    die "the munge user cannot reach $STATE (a parent directory is private); set CPUFT_SLURM_STATE elsewhere"
  if [ ! -f "$STATE/munge/munge.key" ]; then
    dd if=/dev/urandom of="$STATE/munge/munge.key" bs=128 count=1 status=none
    chown munge:munge "$STATE/munge/munge.key"
    chmod 400 "$STATE/munge/munge.key"
  fi
  cat > "$STATE/slurm.conf" <<CONF
# One-machine cluster written by scripts/slurm-local.sh.
ClusterName=cpuft
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
AuthInfo=socket=$STATE/munge/munge.socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
StateSaveLocation=$STATE/state
SlurmdSpoolDir=$STATE/spool
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/slurmctld.log
SlurmdLogFile=$STATE/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 $(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]* //') State=UNKNOWN
PartitionName=cpuft Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$STATE/slurm.conf
  runuser -u munge -- munged --socket="$STATE/munge/munge.socket" --key-file="$STATE/munge/munge.key" \
    --pid-file="$STATE/munge/munged.pid" --log-file="$STATE/munge/munged.log" --seed-file="$STATE/munge/munge.seed" \
    || { show_logs; die "munged did not start"; }
  slurmctld -f "$SLURM_CONF" || { show_logs; die "slurmctld did not start"; }
  slurmd -f "$SLURM_CONF" || { show_logs; die "slurmd did not start"; }
  local state=""
  for _ in $(seq 60); do
    state=$(sinfo -h -N -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.5
  done
  [ "$state" = idle ] || { show_logs; die "node $host is '${state:-unknown}' after 30 s, expected idle"; }
  echo "slurm: node $host idle (slurmctld port $PORT)"
  echo "export SLURM_CONF=$SLURM_CONF"
}

down() {
  stop_pidfile "$STATE/slurmd.pid"
  stop_pidfile "$STATE/slurmctld.pid"
  stop_pidfile "$STATE/munge/munged.pid"
  rm -rf "$STATE"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) die "usage: $0 up | down" ;;
esac
