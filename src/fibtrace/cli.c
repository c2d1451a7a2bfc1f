// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace's command line: the options (argp), their values and the checks
 * of how they combine. docs/fibtrace.md documents each flag; the exit
 * statuses are run.h's enum ft_exit.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachesim.h"
#include "cli.h"
#include "kretprobe.h"
#include "timeline.h"

const char *argp_program_version = "fibtrace 0.2";
static const char doc[] =
	"Trace where the fibdrv kernel module spends its time (fentry/fexit, "
	"kprobe fallback).\n\n"
	"  fibtrace --sweep 0:92 --repeat 5       drive reads itself, then report\n"
	"  fibtrace -- CMD ARGS                   trace while CMD runs\n"
	"  fibtrace [-d SECONDS] [-i SECONDS]     trace until Ctrl-C\n"
	"  fibtrace --compare algos --sweep 4900:5100:50 --repeat 20 --algo bn-iter,bn-fdouble\n"
	"                                         compare algorithms (docs/compare.md)\n"
	"  fibtrace --compare builds base.ko head.ko --sweep 100:100100:20000 --repeat 20\n"
	"                                         compare two builds of fibdrv (docs/ci.md)\n"
	"\v(exit statuses: see help_filter)";
static const char args_doc[] = "[-- CMD ARGS...]\n--compare builds A.ko B.ko [B2.ko...]";

enum {
	OPT_NO_HIST = 0x100,
	OPT_HIST_BITS,
	OPT_RAW,
	OPT_DEVICE,
	OPT_NO_DISCOVER,
	OPT_LOAD,
	OPT_LINEAR,
	OPT_PLOT,
	OPT_CSV,
	OPT_KPROBE,
	OPT_ATTACH,
	OPT_REPEAT,
	OPT_RINGBUF_SIZE,
	OPT_COMPARE,
	OPT_BASELINE,
	OPT_OUTLIERS,
	OPT_STRICT,
	OPT_FAIL_ON_REGRESSION,
	OPT_FORMAT,
	OPT_METRIC,
	OPT_ROWS,
	OPT_LABELS,
	OPT_SAVE_JSON,
	OPT_SAVE_BENCHFMT,
	OPT_SAVE_CSV,
	OPT_ATTRIBUTE,
	OPT_REQUIRE_COUNTERS,
	OPT_NO_COMPENSATE,
	OPT_NO_SYMBOL_CACHE,
	OPT_MAXACTIVE,
	OPT_TREE,
	OPT_NO_TREE,
	OPT_OFF_CPU,
	OPT_TREE_N,
	OPT_FOLDED,
	OPT_FLAMEGRAPH,
	OPT_ALL,
	OPT_TRACE_OUT,
	OPT_TRACE_READS,
	OPT_MAX_RECORDS,
	OPT_CACHESIM,
	OPT_SIM_CACHE,
};

static const struct argp_option options[] = {
	{"sweep", 's', "A:B[:STEP]", 0, "Read every n from A to B (fibtrace drives the reads)", 0},
	{"repeat", OPT_REPEAT, "R", 0, "Rounds of the sweep (default 1)", 0},
	{"algo", 'a', "A[,B...]", 0, "Algorithms to sweep (default: the device's default)", 0},
	{"cpu", 'c', "N", 0, "Pin the sweep to CPU N", 0},
	{"func", 'f', "LIST", 0,
	 "Also trace these functions (func, mod:func, or globs: 'vfs_*', 'fibdrv:bn_mul*'; "
	 "comma-separated)",
	 1},
	{"no-discover", OPT_NO_DISCOVER, NULL, 0,
	 "Trace only the read path and -f, not every bn_*/fib_* function", 1},
	{"attach", OPT_ATTACH, "PLAN", 0,
	 "How to attach: fentry (fentry/fexit per function: the cheapest per call), multi (two "
	 "kprobe.multi links for all: the fastest start), kprobe (two programs, a kprobe and a "
	 "kretprobe link per function: a fast start where there is no multi), or auto (default: "
	 "multi where the kernel has it, else kprobe; fentry for --compare)",
	 1},
	{"kprobe", OPT_KPROBE, NULL, 0,
	 "Use kprobe/kretprobe instead of fentry/fexit (--attach kprobe)", 1},
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
	 "and puts each function's time beside its events (docs/counters.md)",
	 1},
	{"sim-cache", OPT_SIM_CACHE, "GEOM", 0,
	 "--cachesim's caches: I1=SIZE,ASSOC,LINE[:D1=...][:LL=...] (default I1 and D1 "
	 "32768,8,64, LL 8388608,16,64) or host (Valgrind's choice from this CPU)",
	 1},
	{"duration", 'd', "SECONDS", 0, "Stop after SECONDS", 2},
	{"interval", 'i', "SECONDS", 0, "Print a report every SECONDS (deltas)", 2},
	{"hist", 'H', NULL, 0, "Text: every function's histogram (default: fib_read's only)", 3},
	{"no-hist", OPT_NO_HIST, NULL, 0, "Text output without histograms", 3},
	{"all", OPT_ALL, NULL, 0,
	 "Text: every section in full (every function, every n, copy sizes, every loss counter, "
	 "the whole call tree)",
	 3},
	{"hist-bits", OPT_HIST_BITS, "K", 0, "2^K linear sub-buckets per power of two (0..3)", 3},
	{"linear", OPT_LINEAR, "MIN:MAX:STEP", 0, "Linear histogram buckets (ns)", 3},
	{"json", 'j', NULL, 0, "Print one JSON document (docs/fibtrace.schema.json)", 4},
	{"csv", OPT_CSV, NULL, 0, "Print CSV (functions, then per n)", 4},
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
	{"format", OPT_FORMAT, "text|json|benchfmt", 0,
	 "Compare output (benchfmt: Go benchmark lines)", 6},
	{"rows", OPT_ROWS, "N", 0, "Group n into at most N table rows (default 30, 0: one per n)",
	 6},
	{"strict", OPT_STRICT, NULL, 0,
	 "Refuse to compare when a hygiene check weakens the result (exit 2)", 6},
	{"fail-on-regression", OPT_FAIL_ON_REGRESSION, "PCT", 0,
	 "Exit 8 if a variant is significantly slower than the baseline by more than PCT%", 6},
	{},
};

/*
 * A usage error: argp prints it and exits FT_EXIT_USAGE; only when the
 * caller asked argp not to exit (ARGP_NO_EXIT: the fuzzer) does it return,
 * and then parsing stops with EINVAL.
 */
int ft_cli_usage(struct argp_state *state, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	argp_error(state, "%s", msg);
	return EINVAL;
}

/* Seconds: finite, above 0, at most a year. */
static int parse_seconds(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0 && v <= FT_SECONDS_MAX))
		return -1;
	*out = v;
	return 0;
}

/* What to read: --sweep, --repeat, --algo, --cpu. */
static error_t parse_sweep(struct ft_cli *cli, int key, char *arg, struct argp_state *state)
{
	uint64_t v;

	switch (key) {
	case 's':
		if (parse_u64_range(arg, &cli->range))
			return ft_cli_usage(
				state, "bad --sweep '%s' (want A:B[:STEP], A <= B, STEP > 0)", arg);
		cli->sweep = true;
		break;
	case OPT_REPEAT:
		if (parse_u64(arg, &v) || !v || v > 1000000)
			return ft_cli_usage(state, "bad --repeat '%s' (1..1000000)", arg);
		cli->repeat = v;
		break;
	case 'a':
		cli->algo_list = arg;
		break;
	case 'c':
		if (parse_u64(arg, &v) || v >= CPU_SETSIZE)
			return ft_cli_usage(state, "bad --cpu '%s'", arg);
		cli->cpu = v;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* What to trace and for how long. */
/*
 * -f: entries func or mod:func, comma-separated; no empty entry ("", "a,,b",
 * "a,"), module or function ("mod:", ":f"), no second colon, and only what
 * a kernel symbol or a glob holds (letters, digits, _ . $ and * ? [ ] ! ^ -).
 */
static bool funcs_ok(const char *list)
{
	static const char sym[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "0123456789_.$*?[]!^-";
	const char *p = list;

	do {
		size_t len = strcspn(p, ","), name = strspn(p, sym);

		if (name < len && p[name] == ':') /* mod:func */
			name += 1 + (name ? strspn(p + name + 1, sym) : 0);
		if (!len || name != len || p[len - 1] == ':')
			return false;
		p += len;
	} while (*p++);
	return true;
}

static error_t parse_trace(struct ft_cli *cli, int key, char *arg, struct argp_state *state)
{
	uint64_t v;

	switch (key) {
	case 'f':
		if (!funcs_ok(arg))
			return ft_cli_usage(state,
					    "bad --func '%s' (want func, mod:func or a glob, "
					    "comma-separated, no empty name)",
					    arg);
		cli->funcs = arg;
		break;
	case OPT_NO_DISCOVER:
		cli->discover = false;
		break;
	case 'e': {
		char msg[512];

		if (ft_counters_parse(&cli->counters, arg, msg, sizeof(msg)))
			return ft_cli_usage(state, "bad --events: %s", msg);
		break;
	}
	case OPT_REQUIRE_COUNTERS:
		cli->counters.require = true;
		break;
	case OPT_CACHESIM:
		if (arg && strcmp(arg, "join"))
			return ft_cli_usage(state,
					    "bad --cachesim '%s' (want --cachesim or "
					    "--cachesim=join)",
					    arg);
		cli->cachesim = arg ? FT_SIM_JOIN : FT_SIM_ONLY;
		break;
	case OPT_SIM_CACHE: {
		struct ft_sim_cache g[3];
		char msg[160];
		bool host;

		if (ft_sim_geometry_parse(arg, g, &host, msg, sizeof(msg)))
			return ft_cli_usage(state, "bad --sim-cache '%s': %s", arg, msg);
		cli->sim_cache = arg;
		break;
	}
	case OPT_KPROBE:
		cli->attach = FT_ATTACH_KPROBE;
		break;
	case OPT_ATTACH:
		if (ft_plan_parse(arg, &cli->attach))
			return ft_cli_usage(
				state, "bad --attach '%s' (want fentry, multi, kprobe or auto)",
				arg);
		break;
	case OPT_NO_COMPENSATE:
		cli->compensate = false;
		break;
	case OPT_NO_SYMBOL_CACHE:
		cli->symbol_cache = false;
		break;
	case OPT_OFF_CPU:
		cli->off_cpu = true;
		break;
	case OPT_NO_TREE:
		cli->tree = false;
		break;
	case OPT_TREE_N:
		if (parse_u64(arg, &v) || v == FT_TREE_ALL_N)
			return ft_cli_usage(state, "bad --tree-n '%s'", arg);
		cli->tree_n = v;
		break;
	case OPT_MAXACTIVE:
		if (parse_u64(arg, &v) || !v || v > FT_MAXACTIVE_MAX)
			return ft_cli_usage(state, "bad --maxactive '%s' (1..%d)", arg,
					    FT_MAXACTIVE_MAX);
		cli->maxactive = v;
		break;
	case 'p':
		if (parse_u64(arg, &v) || !v || v > INT32_MAX)
			return ft_cli_usage(state, "bad --pid '%s'", arg);
		cli->pid = v;
		break;
	case 'd':
		if (parse_seconds(arg, &cli->duration))
			return ft_cli_usage(state, "bad --duration '%s' (seconds, 0 < s <= %d)",
					    arg, FT_SECONDS_MAX);
		break;
	case 'i':
		if (parse_seconds(arg, &cli->interval))
			return ft_cli_usage(state, "bad --interval '%s' (seconds, 0 < s <= %d)",
					    arg, FT_SECONDS_MAX);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* Histograms and output formats. */
static error_t parse_output(struct ft_cli *cli, int key, char *arg, struct argp_state *state)
{
	uint64_t v;

	switch (key) {
	case 'H':
		cli->hists = FT_HISTS_ALL;
		break;
	case OPT_NO_HIST:
		cli->hists = FT_HISTS_NONE;
		break;
	case OPT_ALL:
		cli->all = true;
		break;
	case OPT_HIST_BITS:
		if (parse_u64(arg, &v) || v > FT_HIST_MAX_BITS)
			return ft_cli_usage(state, "bad --hist-bits '%s' (0..%d)", arg,
					    FT_HIST_MAX_BITS);
		cli->hist_cfg.bits = v;
		break;
	case OPT_LINEAR: {
		struct u64_range r;

		if (parse_u64_range(arg, &r) || r.first == r.last)
			return ft_cli_usage(
				state, "bad --linear '%s' (want MIN:MAX:STEP in ns, MIN < MAX)",
				arg);
		cli->hist_cfg.linear = true;
		cli->hist_cfg.lin_min = r.first;
		cli->hist_cfg.lin_max = r.last;
		cli->hist_cfg.lin_step = r.step;
		cli->hist_cfg.lin_buckets = (r.last - r.first + r.step - 1) / r.step;
		if (cli->hist_cfg.lin_buckets + 2 > FT_HIST_SLOTS)
			return ft_cli_usage(state, "--linear '%s' needs %llu buckets; at most %d",
					    arg, (unsigned long long)cli->hist_cfg.lin_buckets,
					    FT_HIST_SLOTS - 2);
		break;
	}
	case 'j':
		cli->json = true;
		break;
	case OPT_CSV:
		cli->csv = true;
		break;
	case OPT_RAW:
		cli->raw = true;
		break;
	case OPT_PLOT:
		cli->plot = arg;
		break;
	case OPT_TREE:
		cli->tree_full = true;
		break;
	case OPT_FOLDED:
		cli->folded = arg;
		break;
	case OPT_SAVE_CSV:
		if (!*arg)
			return ft_cli_usage(state, "--save-csv needs a file name");
		cli->save_csv = arg;
		break;
	case OPT_FLAMEGRAPH:
		cli->flamegraph = arg;
		break;
	case OPT_TRACE_OUT:
		cli->trace_out = arg;
		break;
	case OPT_TRACE_READS:
		if (parse_u64(arg, &v) || !v || v > FT_TRACE_READS_MAX)
			return ft_cli_usage(state, "bad --trace-reads '%s' (1..%d)", arg,
					    FT_TRACE_READS_MAX);
		cli->trace_reads = v;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The device, the module, the ring buffer, verbosity. */
static error_t parse_misc(struct ft_cli *cli, int key, char *arg, struct argp_state *state)
{
	uint64_t v;

	switch (key) {
	case OPT_LOAD:
		cli->load = arg;
		break;
	case OPT_DEVICE:
		cli->device = arg;
		break;
	case OPT_RINGBUF_SIZE:
		if (parse_u64(arg, &v) || v < (uint64_t)getpagesize() || v > (1u << 30) ||
		    (v & (v - 1)))
			return ft_cli_usage(
				state, "bad --ringbuf-size '%s' (a power of two, %d..%u bytes)",
				arg, getpagesize(), 1u << 30);
		cli->ringbuf_bytes = v;
		break;
	case OPT_MAX_RECORDS:
		if (parse_u64(arg, &v) || !v || v > FT_MAX_RECORDS_MAX)
			return ft_cli_usage(state, "bad --max-records '%s' (1..%u)", arg,
					    FT_MAX_RECORDS_MAX);
		cli->max_records = v;
		break;
	case 'v':
		cli->verbose = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* --compare and its options (compare/cstats.c parses the values). */
static error_t parse_compare(struct ft_cli *cli, int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case OPT_COMPARE:
	case OPT_BASELINE:
	case OPT_OUTLIERS:
	case OPT_STRICT:
	case OPT_FAIL_ON_REGRESSION:
	case OPT_FORMAT:
	case OPT_METRIC:
	case OPT_LABELS:
	case OPT_SAVE_JSON:
	case OPT_SAVE_BENCHFMT:
	case OPT_ATTRIBUTE:
	case OPT_ROWS: {
		const struct argp_option *o;
		const char *want;

		if (key == OPT_METRIC && arg && !strncmp(arg, "sim:", 4)) {
			cli->sim_metric = ft_sim_event_find(arg + 4);
			if (cli->sim_metric < 0)
				return ft_cli_usage(state,
						    "bad --metric '%s' (sim: one of Ir Dr Dw "
						    "I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi "
						    "Bim)",
						    arg);
			break;
		}
		for (o = options; o->name && o->key != key; o++)
			;
		want = ft_cmp_set(&cli->cmp, o->name, arg ? arg : "");
		if (want)
			return ft_cli_usage(state, "bad --%s '%s' (want %s)", o->name, arg, want);
		if (cli->cmp.metric == FT_METRIC_ONCPU)
			cli->off_cpu = true; /* on-CPU time needs the off-CPU time */
		break;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* The text after the options: the exit statuses, from run.c's one list. */
static char *help_filter(int key, const char *text, void *input)
{
	(void)input;
	if (key != ARGP_KEY_HELP_POST_DOC)
		return (char *)text;
	return ft_exit_help();
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	static error_t (*const groups[])(struct ft_cli *, int, char *, struct argp_state *) = {
		parse_sweep, parse_trace, parse_output, parse_misc, parse_compare,
	};
	struct ft_cli *cli = state->input;
	unsigned int g;

	switch (key) {
	case ARGP_KEY_ARG:
		return ARGP_ERR_UNKNOWN;
	case ARGP_KEY_ARGS:
		cli->cmd = state->argv + state->next;
		cli->ncmd = state->argc - state->next;
		return 0;
	case ARGP_KEY_END:
		return ft_cli_check(cli, state);
	}
	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		error_t err = groups[g](cli, key, arg, state);

		if (err != ARGP_ERR_UNKNOWN)
			return err;
	}
	return ARGP_ERR_UNKNOWN;
}

int ft_cli_parse(struct ft_cli *cli, int argc, char **argv, unsigned int argp_flags)
{
	static const struct argp argp = {options, parse_arg,   args_doc, doc,
					 NULL,	  help_filter, NULL};

	memset(cli, 0, sizeof(*cli));
	cli->cmp = (struct ft_cmp_opts)FT_CMP_OPTS_INIT;
	cli->hists = FT_HISTS_READ;
	cli->discover = true;
	cli->compensate = true;
	cli->symbol_cache = true;
	cli->tree = true;
	cli->tree_n = FT_TREE_ALL_N;
	cli->repeat = 1;
	cli->cpu = -1;
	cli->max_records = FT_MAX_RECORDS_DEFAULT;
	cli->device = FIBDRV_DEVICE_PATH;
	cli->sim_metric = -1;
	argp_err_exit_status = FT_EXIT_USAGE;
	return argp_parse(&argp, argc, argv, argp_flags, NULL, cli) ? -FT_EXIT_USAGE : 0;
}
