// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace: where the kernel module fibdrv spends its time, call by call.
 *
 *   fibtrace --sweep 0:92 --repeat 5          drive reads, then report
 *   fibtrace -- CMD ARGS                      trace while CMD runs
 *   fibtrace [-d SECONDS] [-i SECONDS]        trace until Ctrl-C
 *
 * See docs/fibtrace.md for the design, the output and the exit statuses.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fibdrv_uapi.h"
#include "fibtrace.h"
#include "fibtrace.skel.h"
#include "range.h"
#include "trace_compare.h"
#include "trace_counters.h"
#include "trace_model.h"

#define ALGO_SYSFS "/sys/class/misc/fibonacci/algorithms"
#define MAX_ALGOS 64

static volatile sig_atomic_t exiting;

static struct env {
	bool verbose, json, csv, hist, kprobe, raw, discover, sweep;
	const char *funcs, *plot, *load, *device, *algo_list;
	struct u64_range range;
	unsigned int repeat;
	__u32 ringbuf_bytes;
	int cpu;
	unsigned int pid;
	double duration, interval;
	struct ft_hist_cfg hist_cfg;
	char **cmd;
	int ncmd;
	struct ft_cmp_opts cmp;
} env = {
	.cmp = FT_CMP_OPTS_INIT,
	.hist = true,
	.discover = true,
	.repeat = 1,
	.cpu = -1,
	.device = FIBDRV_DEVICE_PATH,
};

/* -e/--events, --require-counters (trace_counters.c) */
static struct ft_counters counters;

const char *argp_program_version = "fibtrace 0.2";
static const char doc[] =
	"Trace where the fibdrv kernel module spends its time (fentry/fexit, "
	"kprobe fallback).\n\n"
	"  fibtrace --sweep 0:92 --repeat 5       drive reads itself, then report\n"
	"  fibtrace -- CMD ARGS                   trace while CMD runs\n"
	"  fibtrace [-d SECONDS] [-i SECONDS]     trace until Ctrl-C\n"
	"  fibtrace --compare algos --sweep 4900:5100:50 --repeat 20 --algo bn-iter,bn-fdouble\n"
	"                                         compare algorithms (docs/compare.md)\n"
	"\vExit status: 0 ok, 1 runtime error, 2 bad usage (also --strict refusing), "
	"3 not root / no CAP_BPF, 4 fibdrv not loaded (or unloaded while tracing), "
	"5 unknown function, 6 kernel BTF missing, 7 the traced command failed, "
	"8 --fail-on-regression found a regression, "
	"9 --require-counters but an event is not available. "
	"See docs/fibtrace.md and docs/counters.md.";
static const char args_doc[] = "[-- CMD ARGS...]";

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
	OPT_REQUIRE_COUNTERS,
};

static const struct argp_option options[] = {
	{ "sweep", 's', "A:B[:STEP]", 0, "Read every n from A to B (fibtrace drives the reads)", 0 },
	{ "repeat", OPT_REPEAT, "R", 0, "Rounds of the sweep (default 1)", 0 },
	{ "algo", 'a', "A[,B...]", 0, "Algorithms to sweep (default: the device's default)", 0 },
	{ "cpu", 'c', "N", 0, "Pin the sweep to CPU N", 0 },
	{ "func", 'f', "LIST", 0, "Also trace these functions (func or mod:func, comma-separated)", 1 },
	{ "no-discover", OPT_NO_DISCOVER, NULL, 0, "Trace only the read path and -f, not every bn_*/fib_* function", 1 },
	{ "kprobe", OPT_KPROBE, NULL, 0, "Use kprobe/kretprobe instead of fentry/fexit", 1 },
	{ "pid", 'p', "PID", 0, "Trace this process only", 1 },
	{ "events", 'e', "LIST", 0, "Counters per call: cycles, instructions, branches, branch-misses, "
	  "cache-references, cache-misses, L1-dcache-load-misses, LLC-load-misses, page-faults, "
	  "minor-faults, major-faults, context-switches, cpu-migrations, cpu-clock (at most 8)", 1 },
	{ "require-counters", OPT_REQUIRE_COUNTERS, NULL, 0, "Exit 9 when an -e event is not available", 1 },
	{ "duration", 'd', "SECONDS", 0, "Stop after SECONDS", 2 },
	{ "interval", 'i', "SECONDS", 0, "Print a report every SECONDS (deltas)", 2 },
	{ "hist", 'H', NULL, 0, "Print histograms (default in text output)", 3 },
	{ "no-hist", OPT_NO_HIST, NULL, 0, "Text output without histograms", 3 },
	{ "hist-bits", OPT_HIST_BITS, "K", 0, "2^K linear sub-buckets per power of two (0..3)", 3 },
	{ "linear", OPT_LINEAR, "MIN:MAX:STEP", 0, "Linear histogram buckets (ns)", 3 },
	{ "json", 'j', NULL, 0, "Print one JSON document (docs/fibtrace.schema.json)", 4 },
	{ "csv", OPT_CSV, NULL, 0, "Print CSV (functions, then per n)", 4 },
	{ "raw", OPT_RAW, NULL, 0, "JSON: include every read record", 4 },
	{ "plot", OPT_PLOT, "FILE", 0, "Plot latency versus n and the breakdown (.svg or .png)", 4 },
	{ "load", OPT_LOAD, "PATH", 0, "insmod fibdrv from PATH if it is not loaded", 5 },
	{ "device", OPT_DEVICE, "PATH", 0, "Device (default /dev/fibonacci)", 5 },
	{ "ringbuf-size", OPT_RINGBUF_SIZE, "BYTES", 0, "Per-read ring buffer (power of two >= a page)", 5 },
	{ "verbose", 'v', NULL, 0, "libbpf messages, memory use", 5 },
	{ "compare", OPT_COMPARE, "algos|formats", 0, "Compare algorithms (or dec/bin output) against a baseline over --sweep", 6 },
	{ "baseline", OPT_BASELINE, "NAME", 0, "Baseline variant (default: the first)", 6 },
	{ "outliers", OPT_OUTLIERS, "tukey|keep|trim", 0, "Outlier rule per (variant, n) (default tukey)", 6 },
	{ "metric", OPT_METRIC, "M", 0, "total (default), compute, format, copy (kernel) or user (read syscall)", 6 },
	{ "format", OPT_FORMAT, "text|json|benchfmt", 0, "Compare output (benchfmt: Go benchmark lines)", 6 },
	{ "rows", OPT_ROWS, "N", 0, "Group n into at most N table rows (default 30, 0: one per n)", 6 },
	{ "strict", OPT_STRICT, NULL, 0, "Refuse to compare when a hygiene check weakens the result (exit 2)", 6 },
	{ "fail-on-regression", OPT_FAIL_ON_REGRESSION, "PCT", 0, "Exit 8 if a variant is significantly slower than the baseline by more than PCT%", 6 },
	{},
};

static int parse_seconds(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || v <= 0)
		return -1;
	*out = v;
	return 0;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	uint64_t v;

	switch (key) {
	case 's':
		if (parse_u64_range(arg, &env.range))
			argp_error(state, "bad --sweep '%s' (want A:B[:STEP], A <= B, STEP > 0)", arg);
		env.sweep = true;
		break;
	case OPT_REPEAT:
		if (parse_u64(arg, &v) || !v || v > 1000000)
			argp_error(state, "bad --repeat '%s' (1..1000000)", arg);
		env.repeat = v;
		break;
	case 'a':
		env.algo_list = arg;
		break;
	case 'c':
		if (parse_u64(arg, &v) || v >= CPU_SETSIZE)
			argp_error(state, "bad --cpu '%s'", arg);
		env.cpu = v;
		break;
	case 'f':
		env.funcs = arg;
		break;
	case OPT_NO_DISCOVER:
		env.discover = false;
		break;
	case 'e': {
		char msg[512];

		if (ft_counters_parse(&counters, arg, msg, sizeof(msg)))
			argp_error(state, "bad --events: %s", msg);
		break;
	}
	case OPT_REQUIRE_COUNTERS:
		counters.require = true;
		break;
	case OPT_KPROBE:
		env.kprobe = true;
		break;
	case 'p':
		if (parse_u64(arg, &v) || !v || v > INT32_MAX)
			argp_error(state, "bad --pid '%s'", arg);
		env.pid = v;
		break;
	case 'd':
		if (parse_seconds(arg, &env.duration))
			argp_error(state, "bad --duration '%s' (seconds > 0)", arg);
		break;
	case 'i':
		if (parse_seconds(arg, &env.interval))
			argp_error(state, "bad --interval '%s' (seconds > 0)", arg);
		break;
	case 'H':
		env.hist = true;
		break;
	case OPT_NO_HIST:
		env.hist = false;
		break;
	case OPT_HIST_BITS:
		if (parse_u64(arg, &v) || v > FT_HIST_MAX_BITS)
			argp_error(state, "bad --hist-bits '%s' (0..%d)", arg, FT_HIST_MAX_BITS);
		env.hist_cfg.bits = v;
		break;
	case OPT_LINEAR: {
		struct u64_range r;

		if (parse_u64_range(arg, &r) || r.first == r.last)
			argp_error(state, "bad --linear '%s' (want MIN:MAX:STEP in ns, MIN < MAX)", arg);
		env.hist_cfg.linear = true;
		env.hist_cfg.lin_min = r.first;
		env.hist_cfg.lin_max = r.last;
		env.hist_cfg.lin_step = r.step;
		env.hist_cfg.lin_buckets = (r.last - r.first + r.step - 1) / r.step;
		if (env.hist_cfg.lin_buckets + 2 > FT_HIST_SLOTS)
			argp_error(state, "--linear '%s' needs %llu buckets; at most %d", arg,
				   (unsigned long long)env.hist_cfg.lin_buckets, FT_HIST_SLOTS - 2);
		break;
	}
	case 'j':
		env.json = true;
		break;
	case OPT_CSV:
		env.csv = true;
		break;
	case OPT_RAW:
		env.raw = true;
		break;
	case OPT_PLOT:
		env.plot = arg;
		break;
	case OPT_LOAD:
		env.load = arg;
		break;
	case OPT_DEVICE:
		env.device = arg;
		break;
	case OPT_RINGBUF_SIZE:
		if (parse_u64(arg, &v) || v < (uint64_t)getpagesize() || v > (1u << 30) ||
		    (v & (v - 1)))
			argp_error(state, "bad --ringbuf-size '%s' (a power of two, %d..%u bytes)",
				   arg, getpagesize(), 1u << 30);
		env.ringbuf_bytes = v;
		break;
	case 'v':
		env.verbose = true;
		break;
	case OPT_COMPARE:
	case OPT_BASELINE:
	case OPT_OUTLIERS:
	case OPT_STRICT:
	case OPT_FAIL_ON_REGRESSION:
	case OPT_FORMAT:
	case OPT_METRIC:
	case OPT_ROWS: {
		const struct argp_option *o;
		const char *want;

		for (o = options; o->name && o->key != key; o++)
			;
		want = ft_cmp_set(&env.cmp, o->name, arg ? arg : "");
		if (want)
			argp_error(state, "bad --%s '%s' (want %s)", o->name, arg, want);
		break;
	}
	case ARGP_KEY_ARG:
		return ARGP_ERR_UNKNOWN;
	case ARGP_KEY_ARGS:
		env.cmd = state->argv + state->next;
		env.ncmd = state->argc - state->next;
		break;
	case ARGP_KEY_END:
		if (env.cmp.output_set && env.cmp.output == FT_CMP_JSON)
			env.json = true;
		if ((env.cmp.baseline || env.cmp.strict || env.cmp.fail_pct >= 0 ||
		     env.cmp.output == FT_CMP_BENCHFMT || env.cmp.outliers || env.cmp.metric ||
		     env.cmp.max_rows != FT_CMP_DEFAULT_ROWS) &&
		    !env.cmp.kind)
			argp_error(state, "--baseline, --outliers, --metric, --rows, --strict, "
					  "--fail-on-regression and --format benchfmt need --compare");
		if (env.cmp.kind) {
			if (!env.sweep)
				argp_error(state, "--compare needs --sweep A:B[:STEP]");
			if (env.csv || env.interval || env.duration || env.pid)
				argp_error(state, "--compare does not combine with --csv, -i, -d or -p");
			if (env.json && env.cmp.output == FT_CMP_BENCHFMT)
				argp_error(state, "--json and --format benchfmt are exclusive");
			if (env.json)
				env.cmp.output = FT_CMP_JSON;
			env.cmp.plot = env.plot;
			env.discover = false; /* the read path (and -f) is all it needs */
		}
		if (env.json && env.csv)
			argp_error(state, "--json and --csv are exclusive");
		if (env.sweep && env.ncmd)
			argp_error(state, "--sweep and a command are exclusive");
		if ((env.algo_list || env.cpu >= 0 || env.repeat > 1) && !env.sweep)
			argp_error(state, "--algo, --cpu and --repeat need --sweep");
		if (env.interval && (env.sweep || env.plot))
			argp_error(state, "--interval does not combine with --sweep or --plot");
		if (counters.require && !counters.nreq)
			argp_error(state, "--require-counters needs -e");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *format, va_list args)
{
	if (level == LIBBPF_DEBUG || !env.verbose)
		return 0;
	return vfprintf(stderr, format, args);
}

static void sig_handler(int sig)
{
	(void)sig;
	exiting = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* root, or CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN. */
static bool have_privileges(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long eff = 0;
	char line[256];

	if (geteuid() == 0)
		return true;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return (eff >> 21 & 1) || ((eff >> 39 & 1) && (eff >> 38 & 1));
}

static int load_module(const char *path)
{
	int fd;

	if (access("/sys/module/fibdrv", F_OK) == 0)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "fibtrace: --load %s: %s\n", path, strerror(errno));
		return -FT_EXIT_NO_FIBDRV;
	}
	if (syscall(SYS_finit_module, fd, "", 0)) {
		fprintf(stderr, "fibtrace: --load %s: finit_module: %s\n", path, strerror(errno));
		close(fd);
		return errno == EPERM ? -FT_EXIT_PERM : -FT_EXIT_NO_FIBDRV;
	}
	close(fd);
	return 0;
}

static void read_algorithms(struct ft_run *run, __u64 *limits)
{
	static char names[MAX_ALGOS][64];
	FILE *f = fopen(ALGO_SYSFS, "r");
	char line[256];

	run->algos = names;
	run->nalgos = 0;
	if (!f)
		return;
	while (run->nalgos < MAX_ALGOS && fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		*tab = 0;
		snprintf(names[run->nalgos], sizeof(names[0]), "%.63s", line);
		limits[run->nalgos] = strtoull(tab + 1, NULL, 10);
		run->nalgos++;
	}
	fclose(f);
}

/* ---------- BPF setup: one attempt, retried with kprobes on failure ---------- */

struct tracer {
	struct fibtrace *skel;
	struct bpf_link *links[FT_MAX_SLOTS][2];
	struct ring_buffer *rb;
};

/*
 * fentry/fexit programs live in the sections "ftfentry"/"ftfexit", handled
 * here instead of by libbpf: bpf_program__set_attach_target() looks the
 * target up by a linear scan of vmlinux BTF per program (half a second each
 * under emulation, 180 programs). trace_btf.c resolved every target's BTF id
 * once; this callback puts it and the module's BTF fd into the load request.
 */
static struct ft_targets *load_targets;
static int fibdrv_btf_fd = -1;

static int module_btf_fd(const char *name)
{
	__u32 id = 0;

	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info = {};
		__u32 len = sizeof(info);
		char buf[64] = "";
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		info.name = (__u64)(unsigned long)buf;
		info.name_len = sizeof(buf);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.kernel_btf &&
		    !strcmp(buf, name))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

static int prepare_fentry(struct bpf_program *prog, struct bpf_prog_load_opts *opts,
			  long cookie)
{
	const char *name = bpf_program__name(prog);
	struct ft_target *t;
	int slot;

	(void)cookie;
	if (!load_targets || sscanf(name, "%*2s_%d", &slot) != 1 || slot < 0 ||
	    slot >= load_targets->count)
		return -EINVAL;
	t = &load_targets->t[slot];
	if (!t->btf_id)
		return -ESRCH;
	opts->attach_btf_id = t->btf_id;
	opts->attach_btf_obj_fd = 0;
	if (t->module[0]) {
		if (strcmp(t->module, "fibdrv"))
			return -ENOTSUP; /* only fibdrv's BTF fd is kept */
		if (fibdrv_btf_fd < 0)
			fibdrv_btf_fd = module_btf_fd("fibdrv");
		if (fibdrv_btf_fd < 0)
			return fibdrv_btf_fd;
		opts->attach_btf_obj_fd = fibdrv_btf_fd;
	}
	return 0;
}

static int register_handlers(void)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, o, .prog_prepare_load_fn = prepare_fentry);
	int a, b;

	a = libbpf_register_prog_handler("ftfentry", BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, &o);
	b = libbpf_register_prog_handler("ftfexit", BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT, &o);
	return a < 0 ? a : b < 0 ? b : 0;
}

static struct bpf_program *slot_prog(struct fibtrace *skel, enum ft_mode mode, int slot,
				     bool exit)
{
	static const char *const prefix[2][2] = { { "fe", "fx" }, { "kp", "kr" } };
	char name[32];

	snprintf(name, sizeof(name), "%s_%d", prefix[mode][exit], slot);
	return bpf_object__find_program_by_name(skel->obj, name);
}

static void tracer_destroy(struct tracer *tr)
{
	int i;

	ring_buffer__free(tr->rb);
	for (i = 0; i < FT_MAX_SLOTS; i++) {
		bpf_link__destroy(tr->links[i][0]);
		bpf_link__destroy(tr->links[i][1]);
	}
	fibtrace__destroy(tr->skel);
	memset(tr, 0, sizeof(*tr));
}

static int handle_rec(void *ctx, void *data, size_t size)
{
	struct ft_run *run = ctx;

	if (size < FT_READ_REC_SIZE_NO_COUNTERS)
		return 0;
	if (run->nrecs == run->caprecs) {
		size_t cap = run->caprecs ? run->caprecs * 2 : 4096;
		struct ft_read_rec *n = realloc(run->recs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		run->recs = n;
		run->caprecs = cap;
	}
	/* Records without counters end before cnt[]: the rest is zero. */
	memset(&run->recs[run->nrecs], 0, sizeof(struct ft_read_rec));
	memcpy(&run->recs[run->nrecs++], data,
	       size < sizeof(struct ft_read_rec) ? size : sizeof(struct ft_read_rec));
	return 0;
}

static __u32 ringbuf_size(void)
{
	__u64 want = 1 << 22, reads;

	if (env.ringbuf_bytes)
		return env.ringbuf_bytes;
	if (env.sweep) {
		/* Room for a whole sweep round; it is drained while driving. */
		reads = u64_range_count(&env.range);
		want = reads * (ft_counters_rec_size(&counters) + 8) * 2;
	}
	if (want < (1 << 18))
		want = 1 << 18;
	if (want > (1 << 26))
		want = 1 << 26;
	/* A power of two of at least a page. */
	return 1u << (64 - __builtin_clzll(want - 1));
}

/* Returns 0, or the slot whose fentry failed (>= 0 + 1 encoded as -1 - slot), or -errno. */
static int tracer_setup(struct tracer *tr, struct ft_run *run, int *bad_slot)
{
	struct ft_targets *tg = run->targets;
	struct bpf_program *prog;
	double t_load, t_attach;
	int i, err;

	*bad_slot = -1;
	load_targets = tg;
	tr->skel = fibtrace__open();
	if (!tr->skel) {
		fprintf(stderr, "fibtrace: cannot open the BPF object: %s\n", strerror(errno));
		return -errno;
	}
	tr->skel->rodata->filter_tgid = run->filter_pid;
	tr->skel->rodata->hist_bits = run->hist.bits;
	if (run->hist.linear) {
		tr->skel->rodata->lin_min = run->hist.lin_min;
		tr->skel->rodata->lin_step = run->hist.lin_step;
		tr->skel->rodata->lin_buckets = run->hist.lin_buckets;
	}
	bpf_map__set_max_entries(tr->skel->maps.stats, tg->count);
	bpf_map__set_max_entries(tr->skel->maps.reads, ringbuf_size());
	ft_counters_prepare(tr->skel, run);
	/* Records are drained every 100 ms at most; a wakeup only when half full. */
	tr->skel->rodata->ringbuf_wakeup_bytes = ringbuf_size() / 2;

	bpf_object__for_each_program(prog, tr->skel->obj)
		bpf_program__set_autoload(prog, false);
	for (i = 0; i < tg->count; i++) {
		struct ft_target *t = &tg->t[i];
		int e;

		if (t->unavailable)
			continue;
		for (e = 0; e < 2; e++) {
			prog = slot_prog(tr->skel, t->mode, t->slot, e);
			if (!prog) {
				fprintf(stderr, "fibtrace: no program for slot %d\n", t->slot);
				return -ENOENT;
			}
			bpf_program__set_autoload(prog, true);
		}
	}
	t_load = now_s();
	err = fibtrace__load(tr->skel);
	if (err) {
		fprintf(stderr, "fibtrace: loading BPF programs failed: %s\n", strerror(-err));
		return err;
	}
	err = ft_counters_install(tr->skel, run);
	if (err)
		return err;
	t_attach = now_s();
	for (i = 0; i < tg->count; i++) {
		struct ft_target *t = &tg->t[i];
		char sym[200];
		int e;

		if (t->unavailable)
			continue;
		if (t->shadowed)
			snprintf(sym, sizeof(sym), "%s:%s", t->module, t->name);
		else
			snprintf(sym, sizeof(sym), "%s", t->name);
		for (e = 0; e < 2; e++) {
			prog = slot_prog(tr->skel, t->mode, t->slot, e);
			if (t->mode == FT_MODE_FENTRY)
				tr->links[i][e] = bpf_program__attach_trace(prog);
			else
				tr->links[i][e] = bpf_program__attach_kprobe(prog, e, sym);
			if (!tr->links[i][e]) {
				err = -errno;
				fprintf(stderr, "fibtrace: attaching %s to %s failed: %s\n",
					e ? (t->mode ? "kretprobe" : "fexit") :
					    (t->mode ? "kprobe" : "fentry"),
					t->name, strerror(-err));
				*bad_slot = i;
				return err;
			}
		}
		t->attached = true;
	}
	if (env.verbose)
		fprintf(stderr, "fibtrace: load %.2fs, attach %.2fs\n", t_attach - t_load,
			now_s() - t_attach);
	tr->rb = ring_buffer__new(bpf_map__fd(tr->skel->maps.reads), handle_rec, run, NULL);
	if (!tr->rb) {
		fprintf(stderr, "fibtrace: ring buffer: %s\n", strerror(errno));
		return -errno;
	}
	return 0;
}

static int tracer_start(struct tracer *tr, struct ft_run *run)
{
	struct ft_targets *tg = run->targets;
	int attempt, err, bad, i;

	for (attempt = 0; attempt < 6; attempt++) {
		err = tracer_setup(tr, run, &bad);
		if (!err)
			return 0;
		tracer_destroy(tr);
		for (i = 0; i < tg->count; i++)
			tg->t[i].attached = false;
		if (err == -EPERM) {
			fprintf(stderr, "fibtrace: permission denied: run as root (CAP_BPF and "
					"CAP_PERFMON)\n");
			return -FT_EXIT_PERM;
		}
		if (env.kprobe)
			break;
		if (bad >= 0 && tg->t[bad].mode == FT_MODE_FENTRY) {
			ft_warn(run, "fentry cannot attach to %s: falling back to kprobe for it",
				tg->t[bad].name);
			tg->t[bad].mode = FT_MODE_KPROBE;
			continue;
		}
		if (bad >= 0 && tg->t[bad].optional) {
			ft_warn(run, "%s cannot be traced on this kernel: left out",
				tg->t[bad].name);
			tg->t[bad].unavailable = true;
			continue;
		}
		if (bad >= 0)
			break;
		/* Load failed: retry with kprobes for every function. */
		ft_warn(run, "fentry programs failed to load (%s): falling back to kprobes",
			strerror(-err));
		for (i = 0; i < tg->count; i++)
			tg->t[i].mode = FT_MODE_KPROBE;
	}
	return -FT_EXIT_ERROR;
}

/* Cumulative values: per-CPU stats summed, loss counters, recursion misses. */
static int tracer_collect(struct tracer *tr, struct ft_run *run)
{
	struct ft_targets *tg = run->targets;
	int ncpus = libbpf_num_possible_cpus(), i, c, fd;
	size_t vsz = (sizeof(struct ft_func_stats) + 7) & ~7UL;
	struct ft_func_stats *buf;
	__u64 lost[256];

	if (ncpus <= 0)
		return -EINVAL;
	buf = calloc(ncpus, vsz);
	if (!buf)
		return -ENOMEM;
	fd = bpf_map__fd(tr->skel->maps.stats);
	run->recursion_misses = 0;
	for (i = 0; i < tg->count; i++) {
		struct ft_target *t = &tg->t[i];
		__u32 key = t->slot;
		struct ft_func_stats *s = &t->st;
		int e;

		memset(s, 0, sizeof(*s));
		if (!bpf_map_lookup_elem(fd, &key, buf)) {
			for (c = 0; c < ncpus; c++) {
				const struct ft_func_stats *p = (void *)((char *)buf + c * vsz);
				int h;

				s->count += p->count;
				s->total_ns += p->total_ns;
				s->self_ns += p->self_ns;
				if (p->min_ns && (!s->min_ns || p->min_ns < s->min_ns))
					s->min_ns = p->min_ns;
				if (p->max_ns > s->max_ns)
					s->max_ns = p->max_ns;
				for (h = 0; h < FT_HIST_SLOTS; h++)
					s->hist[h] += p->hist[h];
			}
		}
		t->recursion_misses = 0;
		for (e = 0; e < 2 && t->attached; e++) {
			struct bpf_program *prog = slot_prog(tr->skel, t->mode, t->slot, e);
			struct bpf_prog_info info = {};
			__u32 len = sizeof(info);

			if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
				t->recursion_misses += info.recursion_misses;
		}
		run->recursion_misses += t->recursion_misses;
	}
	fd = bpf_map__fd(tr->skel->maps.lost);
	for (i = 0; i < FT_LOST_NR; i++) {
		__u32 key = i;

		run->lost[i] = 0;
		if (ncpus > 256 || bpf_map_lookup_elem(fd, &key, lost))
			continue;
		for (c = 0; c < ncpus; c++)
			run->lost[i] += lost[c];
	}
	free(buf);
	return ft_counters_collect(tr->skel, run);
}

/* Resident memory of fibtrace and kernel memory of its BPF maps (-v). */
static void print_memory(struct tracer *tr)
{
	struct bpf_map *map;
	unsigned long long total = 0;
	char line[256], path[64];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6) || !strncmp(line, "VmHWM:", 6))
			fprintf(stderr, "fibtrace: %s", line);
	if (f)
		fclose(f);
	bpf_object__for_each_map(map, tr->skel->obj) {
		unsigned long long memlock = 0;

		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", bpf_map__fd(map));
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			sscanf(line, "memlock: %llu", &memlock);
		if (f)
			fclose(f);
		/* Kernels before 6.4 report no memlock for ring buffers. */
		if (!memlock && bpf_map__type(map) == BPF_MAP_TYPE_RINGBUF)
			memlock = bpf_map__max_entries(map) + 2 * getpagesize();
		fprintf(stderr, "fibtrace: map %-16s %10llu bytes (max_entries %u)\n",
			bpf_map__name(map), memlock, bpf_map__max_entries(map));
		total += memlock;
	}
	fprintf(stderr, "fibtrace: BPF maps total %llu KiB (task storage grows with traced tasks)\n",
		total / 1024);
}

/*
 * kprobes do not pin fibdrv (fentry trampolines do): rmmod may succeed while
 * tracing, and the probes then die with the module. The sysfs directory's
 * inode tells the traced instance from a new one loaded after it.
 */
static ino_t fibdrv_instance(void)
{
	struct stat st;

	return stat("/sys/module/fibdrv", &st) ? 0 : st.st_ino;
}

/* ---------- driving reads ---------- */

static int pin_and_lock(struct ft_run *run)
{
	if (env.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(env.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "fibtrace: cannot pin to CPU %d: %s\n", env.cpu, strerror(errno));
			return -FT_EXIT_USAGE;
		}
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		ft_warn(run, "mlockall failed: %s", strerror(errno));
	return 0;
}

static void progress(__u64 done, __u64 total, bool tty)
{
	static int last = -1;
	int pct = total ? (int)(done * 100 / total) : 100;

	if (!tty || pct == last)
		return;
	last = pct;
	fprintf(stderr, "\r[%-50.*s] %3d%% %" PRIu64 "/%" PRIu64, pct / 2,
		"##################################################", pct, (uint64_t)done,
		(uint64_t)total);
	if (done == total)
		fputc('\n', stderr);
}

static int drive_sweep(struct tracer *tr, struct ft_run *run, const int *algo_ids, int nalgo)
{
	__u64 per_round = u64_range_count(&env.range);
	__u64 total = per_round * env.repeat * nalgo, done = 0, n;
	size_t bufsize = (size_t)(env.range.last * 0.20898764 + 64);
	bool tty = isatty(STDERR_FILENO);
	unsigned int r;
	char *buf;
	int a, fd;

	buf = malloc(bufsize);
	if (!buf)
		return -FT_EXIT_ERROR;
	for (a = 0; a < nalgo && !exiting; a++) {
		fd = open(env.device, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "fibtrace: %s: %s\n", env.device, strerror(errno));
			free(buf);
			return -FT_EXIT_ERROR;
		}
		if (algo_ids[a] >= 0) {
			struct fibdrv_algo_sel sel = {};

			snprintf(sel.name, sizeof(sel.name), "%s", run->algos[algo_ids[a]]);
			if (ioctl(fd, FIBDRV_IOC_SET_ALGO, &sel)) {
				fprintf(stderr, "fibtrace: selecting %s: %s\n", sel.name, strerror(errno));
				close(fd);
				free(buf);
				return -FT_EXIT_ERROR;
			}
		}
		for (r = 0; r < env.repeat && !exiting; r++) {
			for (n = env.range.first; n <= env.range.last && !exiting; n += env.range.step) {
				ssize_t got = -1;

				if (lseek(fd, n, SEEK_SET) == (off_t)n)
					got = read(fd, buf, bufsize);
				run->reads_issued++;
				if (got < 0)
					run->read_errors++;
				if (!(++done & 63)) {
					ring_buffer__consume(tr->rb);
					progress(done, total, tty);
				}
				if (env.range.last - n < env.range.step)
					break; /* no overflow past UINT64_MAX */
			}
		}
		close(fd);
	}
	ring_buffer__consume(tr->rb);
	progress(done, total, tty);
	free(buf);
	return 0;
}

/* --compare: records of the reads just made, into run->recs. */
static int drain_records(void *ctx)
{
	return ring_buffer__consume(((struct tracer *)ctx)->rb);
}

/* Interval report: the deltas since the previous one. */
static void print_interval(struct tracer *tr, struct ft_run *run, struct ft_func_stats *prev,
			   __u64 *prev_lost, double t0)
{
	struct ft_targets *tg = run->targets;
	__u64 lost_now[FT_LOST_NR];
	int i, h;

	tracer_collect(tr, run);
	ft_counters_interval(run);
	for (i = 0; i < tg->count; i++) {
		struct ft_func_stats *s = &tg->t[i].st, cur = *s;

		s->count -= prev[i].count;
		s->total_ns -= prev[i].total_ns;
		s->self_ns -= prev[i].self_ns;
		for (h = 0; h < FT_HIST_SLOTS; h++)
			s->hist[h] -= prev[i].hist[h];
		prev[i] = cur;
	}
	memcpy(lost_now, run->lost, sizeof(lost_now));
	for (i = 0; i < FT_LOST_NR; i++) {
		run->lost[i] -= prev_lost[i];
		prev_lost[i] = lost_now[i];
	}
	run->seconds = now_s() - t0;
	if (env.json)
		ft_report_json(stdout, run);
	else if (env.csv)
		ft_report_csv(stdout, run);
	else
		ft_report_text(stdout, run, env.hist);
	fflush(stdout);
	run->nrecs = 0;
}

static int resolve_algos(struct ft_run *run, const __u64 *limits, int *ids)
{
	char *copy, *tok, *save = NULL;
	int n = 0, i;

	if (!env.algo_list) {
		ids[0] = -1; /* the device's default */
		return 1;
	}
	copy = strdup(env.algo_list);
	for (tok = strtok_r(copy, ",", &save); tok && n < MAX_ALGOS;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < run->nalgos; i++)
			if (!strcmp(run->algos[i], tok))
				break;
		if (i == run->nalgos) {
			fprintf(stderr, "fibtrace: unknown algorithm '%s'; the device has:", tok);
			for (i = 0; i < run->nalgos; i++)
				fprintf(stderr, " %s", run->algos[i]);
			fputc('\n', stderr);
			free(copy);
			return -FT_EXIT_USAGE;
		}
		if (env.range.last > limits[i]) {
			fprintf(stderr, "fibtrace: --sweep up to %" PRIu64 " exceeds %s's max_n %" PRIu64 "\n",
				(uint64_t)env.range.last, tok, (uint64_t)limits[i]);
			free(copy);
			return -FT_EXIT_USAGE;
		}
		ids[n++] = i;
	}
	free(copy);
	return n;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { options, parse_arg, args_doc, doc, NULL, NULL, NULL };
	static struct ft_targets targets;
	struct ft_run run = { .targets = &targets, .cpu = -1 };
	struct tracer tr = {};
	struct ft_func_stats *prev = NULL;
	__u64 limits[MAX_ALGOS] = {}, prev_lost[FT_LOST_NR] = {};
	int algo_ids[MAX_ALGOS], nalgo = 0, err, ret = FT_EXIT_OK;
	struct ft_compare *cmp = NULL;
	struct utsname uts;
	double t0, next_report = 0;
	pid_t child = -1;
	ino_t traced_fibdrv;

	argp_err_exit_status = FT_EXIT_USAGE;
	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return FT_EXIT_USAGE;
	libbpf_set_print(libbpf_print_fn);
	if (register_handlers()) {
		fprintf(stderr, "fibtrace: cannot register libbpf section handlers\n");
		return FT_EXIT_ERROR;
	}
	uname(&uts);
	run.kernel = uts.release;
	run.hist = env.hist_cfg;
	run.raw = env.raw;
	run.cpu = env.cpu;
	run.filter_pid = env.pid;

	if (!have_privileges()) {
		fprintf(stderr, "fibtrace: needs root (or CAP_BPF and CAP_PERFMON)\n");
		return FT_EXIT_PERM;
	}
	if (env.load) {
		err = load_module(env.load);
		if (err)
			return -err;
	}
	err = ft_discover(&targets, env.funcs, env.kprobe, env.discover, &run);
	if (err)
		return -err;
	read_algorithms(&run, limits);
	if (env.cmp.kind) {
		err = ft_compare_prepare(&cmp, &env.cmp, &run, limits, env.algo_list, env.device,
					 env.range.first, env.range.last, env.range.step,
					 env.repeat, env.cpu);
		if (err) {
			ret = -err;
			goto cleanup;
		}
	} else if (env.sweep) {
		nalgo = resolve_algos(&run, limits, algo_ids);
		if (nalgo < 0)
			return -nalgo;
		run.sweep = true;
		run.first = env.range.first;
		run.last = env.range.last;
		run.step = env.range.step;
		run.repeat = env.repeat;
		/* Count our own reads only. */
		if (!run.filter_pid)
			run.filter_pid = getpid();
	}
	run.run_mode = env.cmp.kind ? "compare" : env.sweep ? "sweep" : env.ncmd ? "command" : env.interval ? "interval" : "wait";
	if (counters.nreq) {
		run.counters = &counters;
		err = ft_counters_open(&counters, &run);
		if (err) {
			ret = -err;
			goto cleanup;
		}
	}
	if (env.cmp.kind && env.cmp.metric == FT_METRIC_COUNTER && !counters.nev) {
		fprintf(stderr, "fibtrace: --metric counter needs an -e event that is available "
				"here (e.g. -e page-faults)\n");
		ret = FT_EXIT_USAGE;
		goto cleanup;
	}

	err = tracer_start(&tr, &run);
	if (err) {
		ret = -err;
		goto cleanup;
	}
	if (env.verbose) {
		int i;

		for (i = 0; i < targets.count; i++)
			fprintf(stderr, "fibtrace: slot %3d %-6s %s%s%s\n", targets.t[i].slot,
				targets.t[i].unavailable ? "none" : ft_mode_name(targets.t[i].mode), targets.t[i].module,
				targets.t[i].module[0] ? ":" : "", targets.t[i].name);
	}
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	traced_fibdrv = fibdrv_instance();
	t0 = now_s();

	if (env.cmp.kind) {
		err = pin_and_lock(&run);
		if (!err)
			err = ft_compare_drive(cmp, &run, drain_records, &tr, &exiting);
		if (err) {
			ret = -err;
			goto cleanup;
		}
	} else if (env.sweep) {
		err = pin_and_lock(&run);
		if (!err)
			err = drive_sweep(&tr, &run, algo_ids, nalgo);
		if (err) {
			ret = -err;
			goto cleanup;
		}
	} else {
		if (env.ncmd) {
			child = fork();
			if (child < 0) {
				fprintf(stderr, "fibtrace: fork: %s\n", strerror(errno));
				ret = FT_EXIT_ERROR;
				goto cleanup;
			}
			if (child == 0) {
				signal(SIGINT, SIG_DFL);
				signal(SIGTERM, SIG_DFL);
				execvp(env.cmd[0], env.cmd);
				fprintf(stderr, "fibtrace: %s: %s\n", env.cmd[0], strerror(errno));
				_exit(127);
			}
		} else if (!env.json && !env.csv) {
			fprintf(stderr, "fibtrace: tracing %d functions... Hit Ctrl-C to end.\n",
				targets.count);
		}
		if (env.interval) {
			prev = calloc(targets.count, sizeof(*prev));
			if (!prev) {
				ret = FT_EXIT_ERROR;
				goto cleanup;
			}
		}
		next_report = t0 + env.interval;
		while (!exiting) {
			double t;

			err = ring_buffer__poll(tr.rb, 100);
			/* Records are submitted without wakeups: drain on the timer too. */
			if (err >= 0 || err == -EINTR)
				err = ring_buffer__consume(tr.rb);
			if (err < 0 && err != -EINTR) {
				fprintf(stderr, "fibtrace: ring buffer poll: %s\n", strerror(-err));
				ret = FT_EXIT_ERROR;
				break;
			}
			if (child > 0) {
				int status;

				if (waitpid(child, &status, WNOHANG) == child) {
					child = -1;
					if (!WIFEXITED(status) || WEXITSTATUS(status)) {
						ft_warn(&run, "command exited with status %d",
							WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
						ret = FT_EXIT_CHILD;
					}
					break;
				}
			}
			if (fibdrv_instance() != traced_fibdrv) {
				ft_warn(&run,
					"fibdrv was unloaded while tracing: its probes are gone; "
					"reporting what was gathered");
				ret = FT_EXIT_NO_FIBDRV;
				break;
			}
			t = now_s();
			if (env.duration && t - t0 >= env.duration)
				break;
			if (env.interval && t >= next_report) {
				print_interval(&tr, &run, prev, prev_lost, next_report - env.interval);
				next_report += env.interval;
			}
		}
		ring_buffer__consume(tr.rb);
	}
	run.seconds = now_s() - t0;
	tracer_collect(&tr, &run);
	if (env.verbose)
		print_memory(&tr);
	if (env.cmp.kind) {
		ret = ft_compare_report(cmp, &run, stdout);
	} else if (env.interval) {
		print_interval(&tr, &run, prev, prev_lost, next_report - env.interval);
	} else if (env.json) {
		ft_report_json(stdout, &run);
	} else if (env.csv) {
		ft_report_csv(stdout, &run);
	} else {
		ft_report_text(stdout, &run, env.hist);
	}
	if (env.plot && !env.cmp.kind && ft_plot(&run, env.plot) && ret == FT_EXIT_OK)
		ret = FT_EXIT_ERROR;

cleanup:
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	tracer_destroy(&tr);
	ft_compare_free(cmp);
	ft_counters_close(&counters);
	if (fibdrv_btf_fd >= 0)
		close(fibdrv_btf_fd);
	free(prev);
	free(run.recs);
	return ret;
}
