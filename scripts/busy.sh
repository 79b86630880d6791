#!/usr/bin/env bash
# busy.sh runs a command on a busy machine: while it runs, other processes
# keep every core busy and saturate the disk with fsync'd writes, as a
# parallel build and disk-heavy jobs would. It stops the load when the
# command ends, prints the command's time, and exits with its status.
#
#   scripts/busy.sh                      # the README's test command: go test -race -timeout 20m ./...
#   scripts/busy.sh go test ./cmd/simidx -run TestIndexInterrupt
#
# Settings, from the environment:
#   BUSY_CPU  CPU-bound loops (default: the number of cores)
#   BUSY_IO   writers of synced 1 MB blocks (default: 4)
#   BUSY_DIR  directory the writers write to (default: a new directory in
#             TMPDIR, the disk the tests' temporary files go to); each
#             writer rewrites one file of 16 MB, removed at the end
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -eq 0 ]; then
  set -- go test -race -timeout 20m ./...
fi
cpus=${BUSY_CPU:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
writers=${BUSY_IO:-4}
dir=${BUSY_DIR:-}
made_dir=
if [ -z "$dir" ]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/simidx-busy-XXXXXX")
  made_dir=$dir
fi

pids=()
stop_load() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  pids=()
  rm -f "$dir"/busy-writer-*
  if [ -n "$made_dir" ]; then
    rmdir "$made_dir" 2>/dev/null || true
  fi
}
trap stop_load EXIT
trap 'exit 130' INT TERM

for _ in $(seq "$cpus"); do
  (while :; do :; done) &
  pids+=($!)
done
for i in $(seq "$writers"); do
  # Each block is written with O_DSYNC: one device flush per MB. Four
  # such writers made a 4 kB synced write 5 to 10 times slower.
  (while :; do
    dd if=/dev/zero of="$dir/busy-writer-$i" bs=1M count=16 oflag=dsync conv=notrunc status=none || exit 0
  done) &
  pids+=($!)
done
echo "busy.sh: $cpus CPU loops, $writers synced writers in $dir; running: $*" >&2

start=$(date +%s)
status=0
"$@" || status=$?
end=$(date +%s)
stop_load
echo "busy.sh: exit status $status after $((end - start)) s under load: $*" >&2
exit "$status"
