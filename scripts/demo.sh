#!/usr/bin/env bash
# make demo: boot the 6.1 guest, load fibdrv, and trace a sweep of reads with
# fibtrace: the one-screen report (fib_read's histogram, whose count equals the
# reads fibtrace issued, the read path, the call tree, the hottest functions,
# the per-n table, the losses) and a flame graph.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kver=$("$top/scripts/kernels.sh" | grep '^6\.1\.' | head -n 1)
[ -n "$kver" ] || { echo "demo: no 6.1 kernel installed (make deps)" >&2; exit 1; }
sweep=${DEMO_SWEEP:-0:1000:10}
repeat=${DEMO_REPEAT:-5}
echo "demo: booting $kver under QEMU (software emulation, ~20 s), then"
echo "demo:   insmod build/$kver/fibdrv.ko"
echo "demo:   build/fibtrace --sweep $sweep --repeat $repeat --flamegraph build/vm/demo-flame.svg"
mkdir -p "$top/build/vm"
exec "$top/scripts/vmtest.sh" "$kver" -- bash -c \
	"insmod build/$kver/fibdrv.ko && build/fibtrace --sweep $sweep --repeat $repeat \
	 --flamegraph build/vm/demo-flame.svg && echo 'demo: flame graph in build/vm/demo-flame.svg'"
