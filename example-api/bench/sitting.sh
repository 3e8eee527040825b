#!/bin/bash
# The sitting the 16-core figures of make bench's scale targets come from, in one call of at
# most 600 s on a machine without Go (make bench-sitting prepares it: this script beside
# example-apiserver.xz, loadgen.xz and sample-apiserver.xz, the anchor). Every run is pinned
# (-pin auto: disjoint CPU sets from 12 CPUs up). Steps, each bounded, in this order so that
# those before come back even if a later one runs long:
#   embedded  the matrix at 1 and 64 clients with the anchor, and every fan-out (0:10 and
#             1000:10 write 50 s each, for the writer's p99; 10000:10 and 64:100 10 s); 420 s
#   external  the idle RSS of both on loadgen's etcd; 45 s
#   aged      creates and gets at 64 clients after 500,000 kept creates; 110 s
#   list10k   the unpaged list of 10,000 objects against raw etcd and the anchor; 70 s
# Each step's output goes to $OUT/<step>.txt (OUT defaults to ./out), with its exit status
# and time; $OUT/machine.txt has the total.
set -u
cd "$(dirname "$0")"
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
t0=$(date +%s)
# The binaries go to a directory of their own, removed at the end, so that the folder carried
# here stays as small as it came.
BIN=$(mktemp -d)
trap 'rm -rf "$BIN"' EXIT
for b in example-apiserver loadgen sample-apiserver; do xz -d -c -T0 "$b.xz" > "$BIN/$b" & done
wait
chmod +x "$BIN"/*
S=$BIN/example-apiserver
A=$BIN/sample-apiserver
step() {
  local name=$1 limit=$2 s
  shift 2
  s=$(date +%s)
  timeout "$limit" "$BIN/loadgen" -server-binary "$S" -pin auto -floor=false "$@" > "$OUT/$name.txt" 2>&1
  echo "rc=$? in $(($(date +%s) - s))s" >> "$OUT/$name.txt"
}
step embedded 420 -anchor-binary "$A" -clients 1,64 -duration 2s
step external 45 -anchor-binary "$A" -etcd external -ops get -clients 1 -duration 1s -watch '' -mem-objects 0
step aged 110 -age 500000 -clients 64 -duration 2s -ops create,get -watch '' -mem-objects 0
step list10k 70 -anchor-binary "$A" -ops list -objects 10000 -page-size 0 -clients 1,64 -duration 2s -watch '' -mem-objects 0
echo "total $(($(date +%s) - t0))s on $(nproc) CPUs, $(cat COMMIT 2>/dev/null)" > "$OUT/machine.txt"
