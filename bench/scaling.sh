#!/usr/bin/env bash
# The measured table of docs/scaling.md: `cpuft bench` under mpirun on 2 emulated hosts x 1 rank
# (scripts/netns-cluster.sh: network namespaces on a private bridge, one CPU each), the hosts' links
# shaped with tc tbf to each RATE, for every RATE x gradient dtype on the wire x bucket size,
# repeated REPS times in interleaved order. Writes one JSON line per run (the bench's report plus
# rate, repetition and the 1-minute load average before and after) and prints a markdown table of
# medians over the repetitions. Needs root. Builds nothing.
#
#   sudo bench/scaling.sh
#
# Environment (defaults in brackets):
#   CPUFT        the cpuft binary [build/cpuft]
#   REPS         repetitions of every run [2]
#   LAYERS       encoder layers of DistilBERT-base shapes [2]; batch 8 x 384 tokens per rank, 1 thread
#   STEPS        timed rounds per run (each: a step without and one with the allreduce) [3]
#   WARMUP       untimed rounds per run [1]
#   RATES        link rates for `netns-cluster.sh shape` ["1gbit 10gbit 25gbit 100gbit none"]
#   DTYPES       gradient dtypes on the wire ["f32 bf16"]
#   BUCKETS      bucket sizes in MB ["4 25 100"]
#   RESULTS      where the JSON lines go [bench-scaling.jsonl]; appended to, so runs can be resumed
#   TABLE_ONLY   1: print the table of RESULTS without measuring
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
CPUFT=${CPUFT:-$root/build/cpuft}
REPS=${REPS:-2}
LAYERS=${LAYERS:-2}
STEPS=${STEPS:-3}
WARMUP=${WARMUP:-1}
RATES=${RATES:-1gbit 10gbit 25gbit 100gbit none}
DTYPES=${DTYPES:-f32 bf16}
BUCKETS=${BUCKETS:-4 25 100}
RESULTS=${RESULTS:-bench-scaling.jsonl}

table() {
  python3 - "$RESULTS" <<'PY'
import collections, json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = collections.defaultdict(list)
for r in rows:
    if "failed" not in r:
        by[(r["rate"], r["allreduce_dtype"], r["bucket_size_mb"], r["layers"])].append(r)
def med(rs, k):
    return statistics.median(r[k] for r in rs)
order = {"1gbit": 0, "10gbit": 1, "25gbit": 2, "100gbit": 3, "none": 4}
print("| link | layers | grads | bucket MB | MB/step | step s | one-rank s | efficiency | allreduce ms | exposed ms |"
      " of it slowest rank ms | hidden | alone ms | 8 B ms | n | load 1 min |")
print("|" + "---|" * 16)
for key in sorted(by, key=lambda k: (k[3], order.get(k[0], 9), k[1], k[2])):
    rs = by[key]
    rate, dtype, bucket, layers = key
    ar, ex, st = med(rs, "allreduce_s"), med(rs, "allreduce_exposed_s"), med(rs, "straggler_s")
    loads = [x for r in rs for x in (r["load_before"], r["load_after"])]
    print(f"| {rate if rate != 'none' else 'unshaped'} | {layers} | {dtype} | {bucket:g} | {med(rs, 'allreduce_mb_per_step'):.1f} "
          f"| {med(rs, 'step_s'):.2f} | {med(rs, 'local_step_s'):.2f} | {100 * med(rs, 'scaling_efficiency'):.1f}% "
          f"| {1e3 * ar:.0f} | {1e3 * ex:.0f} | {1e3 * st:.0f} | {100 * (1 - (ex - st) / (ar - st)):.1f}% "
          f"| {1e3 * med(rs, 'allreduce_alone_s'):.0f} | {1e3 * med(rs, 'allreduce_8b_s'):.2f} | {len(rs)} "
          f"| {min(loads):.2f}-{max(loads):.2f} |")
PY
}

if [[ ${TABLE_ONLY:-0} == 1 ]]; then table; exit 0; fi
[[ $(id -u) -eq 0 ]] || { echo "scaling.sh: needs root (network namespaces, tc)" >&2; exit 2; }
[[ -x $CPUFT ]] || { echo "scaling.sh: $CPUFT is not an executable cpuft (build it, or set CPUFT)" >&2; exit 2; }

# A cluster of its own (name, subnet, state) so that the test suite's namespace tests may run meanwhile.
export CPUFT_NETNS_NAME=cpuftm CPUFT_NETNS_STATE=/run/cpuftm-netns OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cpus="0 0"
[[ $(nproc) -ge 2 ]] && cpus="0 1"
subnet=10.78.0
cluster() { CPUFT_NETNS_CPUS=$cpus "$root/scripts/netns-cluster.sh" "$@"; }
cluster up 2 "$subnet.0/24" >/dev/null
trap 'cluster down' EXIT

run() {  # RATE DTYPE BUCKET REP
  local load_before out rc=0
  load_before=$(cut -d' ' -f1 /proc/loadavg)
  echo "[$(date -u +%T) load $load_before] rep $4: $1 $2 ${3} MB" >&2
  out=$(timeout 900 mpirun -np 2 --map-by ppr:1:node --bind-to none --hostfile "$CPUFT_NETNS_STATE/hostfile" \
          --mca plm_rsh_agent "$CPUFT_NETNS_STATE/rsh-agent" --mca btl tcp,self \
          --mca btl_tcp_if_include "$subnet.0/24" --mca oob_tcp_if_include "$subnet.0/24" \
          "$CPUFT" bench --layers "$LAYERS" --batch 8 --seq 384 --threads 1 --steps "$STEPS" --warmup "$WARMUP" \
          --allreduce_dtype "$2" --bucket_size_mb "$3" --json 2>/dev/null) || rc=$?
  local json
  json=$(printf '%s\n' "$out" | grep '^{' | tail -n 1 || true)
  python3 - "$1" "$4" "$load_before" "$(cut -d' ' -f1 /proc/loadavg)" "$rc" "$2" "$3" "$LAYERS" "$json" >>"$RESULTS" <<'PY'
import json, sys
rate, rep, lb, la, rc, dtype, bucket, layers, text = sys.argv[1:]
r = json.loads(text) if text else {"failed": f"exit {rc}", "allreduce_dtype": dtype, "bucket_size_mb": float(bucket),
                                    "layers": int(layers)}
r.update(rate=rate, rep=int(rep), load_before=float(lb), load_after=float(la))
print(json.dumps(r))
PY
}

for rep in $(seq 1 "$REPS"); do
  for rate in $RATES; do
    cluster shape "$rate" >/dev/null
    for dtype in $DTYPES; do
      for bucket in $BUCKETS; do
        run "$rate" "$dtype" "$bucket" "$rep"
      done
    done
  done
done
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; $(uname -r)"
table
