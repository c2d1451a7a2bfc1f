// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace's options: argp's table, what --help-all lists (grouped), each
 * with its one spelling; old spellings are hidden aliases. cli.c parses
 * them; help.c's page names the ones people use.
 */
#include <stddef.h>

#include "cli_int.h"

const struct argp_option ft_cli_options[] = {
	{"sweep", 's', "A:B[:STEP]", 0, "Read every n from A to B (fibtrace drives the reads)", 0},
	{"repeat", OPT_REPEAT, "R", 0, "Rounds of the sweep (default 1)", 0},
	{"algo", 'a', "A[,B...]", 0, "Algorithms to sweep (default: the device's default)", 0},
	{"cpu", 'c', "N", 0, "Pin the sweep to CPU N", 0},
	{"func", 'f', "LIST", 0,
	 "Also trace these functions (func, mod:func, or globs: 'vfs_*', 'fibdrv:bn_mul*'; "
	 "comma-separated; repeatable)",
	 1},
	{"no-discover", OPT_NO_DISCOVER, NULL, 0,
	 "Trace only the read path and -f, not every bn_*/fib_* function", 1},
	{"attach", OPT_ATTACH, "PLAN", 0,
	 "How to attach: fentry (fentry/fexit per function: the cheapest per call), multi (two "
	 "kprobe.multi links for all: the fastest start), kprobe (two programs, a kprobe and a "
	 "kretprobe link per function: a fast start where there is no multi), or auto (default: "
	 "multi where the kernel has it, else kprobe; fentry for --compare, and for a --sweep "
	 "whose reads alone pass the calls at which fentry's cheaper calls repay its slower start)",
	 1},
	{"kprobe", OPT_KPROBE, NULL, OPTION_HIDDEN, "--attach kprobe", 1},
	{"no-compensate", OPT_NO_COMPENSATE, NULL, 0,
	 "Report raw figures only: no calibration of fibtrace's own cost", 1},
	{"no-symbol-cache", OPT_NO_SYMBOL_CACHE, NULL, 0,
	 "Read /proc/kallsyms and ftrace's function list from the kernel, not from the copy "
	 "kept in /run/fibtrace for this boot and these modules",
	 1},
	{"maxactive", OPT_MAXACTIVE, "N", 0,
	 "kretprobe instances per function: calls it can be inside at once over every task "
	 "(1..4096; default 64 with --sweep/--compare, 1024 otherwise)",
	 1},
	{"tree-n", OPT_TREE_N, "N", 0, "Call tree of the reads of F(N) only", 1},
	{"no-tree", OPT_NO_TREE, NULL, 0, "Keep no call tree (saves a map update per call)", 1},
	{"off-cpu", OPT_OFF_CPU, NULL, 0,
	 "Measure the time traced calls spend switched out (a sched_switch program)", 1},
	{"pid", 'p', "PID", 0, "Trace this process only", 1},
	{"events", 'e', "LIST", 0,
	 "Counters per call: cycles, instructions, branches, branch-misses, "
	 "cache-references, cache-misses, L1-dcache-load-misses, LLC-load-misses, page-faults, "
	 "minor-faults, major-faults, context-switches, cpu-migrations, cpu-clock (at most 8)",
	 1},
	{"require-counters", OPT_REQUIRE_COUNTERS, NULL, 0,
	 "Exit 9 when an -e event is not available", 1},
	{"cachesim", OPT_CACHESIM, "join", OPTION_ARG_OPTIONAL,
	 "Cache and branch events of the sweep's reads, SIMULATED by Valgrind on the user-space "
	 "build of the same library: no root, no PMU; =join also traces the reads in the kernel "
	 "and puts each function's time beside its events",
	 1},
	{"cache-geometry", OPT_SIM_CACHE, "GEOM", 0,
	 "--cachesim's caches: I1=SIZE,ASSOC,LINE[:D1=...][:LL=...] (default I1 and D1 "
	 "32768,8,64, LL 8388608,16,64) or host (Valgrind's choice from this CPU)",
	 1},
	{"sim-cache", OPT_SIM_CACHE, "GEOM", OPTION_ALIAS | OPTION_HIDDEN, NULL, 1},
	{"duration", 'd', "SECONDS", 0, "Stop after SECONDS", 2},
	{"interval", 'i', "SECONDS", 0, "Print a report every SECONDS (deltas)", 2},
	{"as-root", OPT_AS_ROOT, NULL, 0,
	 "Run -- CMD as root too (default: as --user's user, or under sudo the user who ran sudo)",
	 2},
	{"user", OPT_USER, "USER", 0,
	 "Run -- CMD, gnuplot, inferno-flamegraph, valgrind and fibcalc, and create the files "
	 "written, as USER (a name, or a uid with a passwd entry) instead of sudo's user: its "
	 "group, groups and HOME; root or 0 keeps root for everything (fibtrace must be root)",
	 2},
	{"hist", 'H', NULL, 0, "Text: every function's histogram (default: fib_read's only)", 3},
	{"no-hist", OPT_NO_HIST, NULL, 0, "Text output without histograms", 3},
	{"all", OPT_ALL, NULL, 0,
	 "Text: every section in full (every function, every n, copy sizes, every loss counter, "
	 "the whole call tree)",
	 3},
	{"hist-bits", OPT_HIST_BITS, "K", 0, "2^K linear sub-buckets per power of two (0..3)", 3},
	{"linear", OPT_LINEAR, "MIN:MAX:STEP", 0, "Linear histogram buckets (ns)", 3},
	{"format", OPT_FORMAT, "FORMAT", 0,
	 "text (default), json (one document, its schema: fibtrace(8)), csv (functions, then per "
	 "n), or with --compare benchfmt (Go benchmark lines)",
	 4},
	{"json", 'j', NULL, OPTION_HIDDEN, "--format json", 4},
	{"csv", OPT_CSV, NULL, OPTION_HIDDEN, "--format csv", 4},
	{"raw", OPT_RAW, NULL, 0, "JSON: include every read record", 4},
	{"save-csv", OPT_SAVE_CSV, "FILE", 0,
	 "Write the CSV report to FILE too (the report on stdout stays as chosen)", 4},
	{"plot", OPT_PLOT, "FILE", 0, "Plot latency versus n and the breakdown (.svg or .png)", 4},
	{"tree", OPT_TREE, NULL, 0,
	 "Text: the whole call tree (default: paths >= 5% of their root)", 4},
	{"folded", OPT_FOLDED, "FILE", 0,
	 "Write folded stacks (self ns per call path) for flamegraph.pl, inferno, speedscope", 4},
	{"flamegraph", OPT_FLAMEGRAPH, "FILE.svg", 0,
	 "Render the call tree as a flame graph (inferno)", 4},
	{"trace-out", OPT_TRACE_OUT, "FILE.json", 0,
	 "Timeline of single reads, every traced call (Chrome trace format: Perfetto, "
	 "chrome://tracing)",
	 4},
	{"trace-reads", OPT_TRACE_READS, "K", 0,
	 "Reads on the timeline (default 200; spread over the sweep's n, else the first K)", 4},
	{"load", OPT_LOAD, "PATH", 0, "insmod fibdrv from PATH if it is not loaded", 5},
	{"device", OPT_DEVICE, "PATH", 0, "Device (default /dev/fibonacci)", 5},
	{"ringbuf-size", OPT_RINGBUF_SIZE, "BYTES", 0,
	 "Per-read ring buffer (power of two >= a page)", 5},
	{"max-records", OPT_MAX_RECORDS, "N", 0,
	 "Read records kept for the per-n table (default 262144, 352 bytes each); later reads "
	 "are counted as lost.records_dropped; a --sweep that needs more is refused",
	 5},
	{"verbose", 'v', NULL, 0, "libbpf messages, memory use", 5},
	{"help", 'h', NULL, 0, "The options people use, examples first (-h)", 5},
	{"help-all", OPT_HELP_ALL, NULL, 0, "Every option (this list)", 5},
	{"compare", OPT_COMPARE, "algos|formats|builds", 0,
	 "Compare algorithms (or dec/bin output, or two builds A.ko B.ko of fibdrv given after "
	 "the options) against a baseline over --sweep",
	 6},
	{"labels", OPT_LABELS, "A,B[,...]", 0, "Names of the builds (default: their module names)",
	 6},
	{"save-json", OPT_SAVE_JSON, "FILE", 0,
	 "Write the JSON report (a trace's or the comparison's) to FILE too", 6},
	{"save-benchfmt", OPT_SAVE_BENCHFMT, "FILE", 0,
	 "Write the comparison's benchfmt lines to FILE too", 6},
	{"attribute", OPT_ATTRIBUTE, NULL, 0,
	 "Also test each traced function's self time per read: which functions changed "
	 "(traces every function, so reads are slower and fib_read carries their cost)",
	 6},
	{"baseline", OPT_BASELINE, "NAME", 0, "Baseline variant (default: the first)", 6},
	{"outliers", OPT_OUTLIERS, "tukey|keep|trim", 0,
	 "Outlier rule per (variant, n) (default tukey)", 6},
	{"metric", OPT_METRIC, "M", 0,
	 "total (default), compute, format, copy, oncpu (kernel), user (read syscall), counter "
	 "(first -e event) or sim:EVENT (simulated, e.g. sim:Ir: --cachesim)",
	 6},
	{"rows", OPT_ROWS, "N", 0, "Group n into at most N table rows (default 30, 0: one per n)",
	 6},
	{"strict", OPT_STRICT, NULL, 0,
	 "Refuse to compare when a hygiene check weakens the result (exit 2)", 6},
	{"fail-on-regression", OPT_FAIL_ON_REGRESSION, "PCT", 0,
	 "Exit 8 if a variant is significantly slower than the baseline by more than PCT%", 6},
	{},
};
