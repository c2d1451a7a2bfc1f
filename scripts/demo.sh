#!/usr/bin/env bash
# make demo: boot a guest of the newest kernel, load fibdrv, and trace a sweep of reads with
# fibtrace, two algorithms in turn: the one-screen report (fib_read's histogram,
# whose count equals the reads fibtrace issued, the read path, the hottest
# functions, the per-n table, the losses) and a flame graph
# (build/vm/demo-flame.svg); then the plot of time per read against n per
# algorithm with compute/format/copy apart (build/vm/demo.png), from a sweep
# of the read path alone.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# The newest kernel line (6.12: kprobe.multi, so fibtrace starts and stops
# in about a second); DEMO_KVER=R for another.
kver=${DEMO_KVER:-$("$top/scripts/kernels.sh" | sort -V | tail -n 1)}
[ -n "$kver" ] || { echo "demo: no kernel with image and headers installed (make deps)" >&2; exit 1; }
sweep=${DEMO_SWEEP:-0:1000:10}
repeat=${DEMO_REPEAT:-5}
# The big-number addition loop against fast doubling with Karatsuba: two curves apart.
algos=${DEMO_ALGOS:-bn-iter,bn-fdouble-karatsuba}
# The guest's clock (scripts/vmaccel.sh): under software emulation it
# counts instructions (QEMU icount), so the demo's figures are the same on
# every host and every run; under KVM they are real time.
. "$top/scripts/vmaccel.sh"
vm_choose "/boot/vmlinuz-$kver" || exit 2
[ "$VM_CLOCK_NAME" = instructions ] && export VM_CLOCK=icount || export VM_CLOCK=real
[ "$VM_HOW" = kvm ] && export VM_ACCEL=kvm || export VM_ACCEL=tcg
echo "demo: booting $kver under QEMU ($VM_HOW, the clock counting $([ "$VM_CLOCK" = icount ] && echo instructions || echo real time)), then"
echo "demo:   insmod build/$kver/fibdrv.ko"
echo "demo:   build/fibtrace --sweep $sweep --repeat $repeat --algo $algos --flamegraph build/vm/demo-flame.svg"
echo "demo:   build/fibtrace --no-discover --sweep $sweep --repeat $repeat --algo $algos --plot build/vm/demo.png --format json >build/vm/demo-read-path.json"
# The plot comes from a second sweep that traces the read path alone: its
# compensated medians are within 2% of the untraced reads, where the first
# sweep's, with every big-number call traced, are mostly unresolved (the
# report's ? rows) and left out of a plot.
mkdir -p "$top/build/vm"
exec "$top/scripts/vmtest.sh" "$kver" -- bash -c \
	"insmod build/$kver/fibdrv.ko && build/fibtrace --sweep $sweep --repeat $repeat \
	 --algo $algos --flamegraph build/vm/demo-flame.svg &&
	 build/fibtrace --no-discover --sweep $sweep --repeat $repeat --algo $algos \
	 --plot build/vm/demo.png --format json >build/vm/demo-read-path.json 2>build/vm/demo-read-path.err ||
	 { cat build/vm/demo-read-path.err >&2; exit 1; }
	 echo 'demo: plot (the read path alone) in build/vm/demo.png, flame graph in build/vm/demo-flame.svg'"
