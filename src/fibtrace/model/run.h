/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fibtrace's model: what was traced (targets) and what was measured (the
 * run), the exit statuses and the warnings. Every other module of
 * src/fibtrace/ builds on this header; it depends on nothing but the BPF ABI
 * (bpf/fibtrace.h) and lib/fibdev.h. docs/architecture.md is the map.
 */
#ifndef FIBTRACE_RUN_H
#define FIBTRACE_RUN_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fibdev.h"
#include "fibtrace.h"

/* Exit statuses: the only list (docs/fibtrace.md documents it, --help prints it). */
enum ft_exit {
	FT_EXIT_OK = 0,
	FT_EXIT_ERROR = 1,	  /* runtime failure (load, attach, device I/O) */
	FT_EXIT_USAGE = 2,	  /* bad flags */
	FT_EXIT_PERM = 3,	  /* not root / no CAP_BPF+CAP_PERFMON */
	FT_EXIT_NO_FIBDRV = 4,	  /* fibdrv not loaded */
	FT_EXIT_UNKNOWN_FUNC = 5, /* -f names no traceable function */
	FT_EXIT_NO_BTF = 6,	  /* /sys/kernel/btf/vmlinux missing */
	FT_EXIT_CHILD = 7,	  /* the traced command failed */
	FT_EXIT_REGRESSION = 8,	  /* --fail-on-regression found a regression */
	FT_EXIT_NO_COUNTERS = 9,  /* --require-counters and an event unavailable */
	FT_EXIT_NO_TOOL = 10,	  /* a program an option runs is missing (valgrind: --cachesim) */
	FT_EXIT_LAST = FT_EXIT_NO_TOOL,
};

/*
 * The one error convention across folders: 0, or -(exit status) after the
 * message has been printed (-errno stays inside a file, turned into a
 * status where it is said). main() turns the result into the process's
 * exit status here, and only here.
 */
int ft_exit_status(int err);

/* How a function is traced (plan.c): fentry/fexit, a kprobe pair, or in the kprobe.multi links. */
enum ft_mode { FT_MODE_FENTRY, FT_MODE_KPROBE, FT_MODE_MULTI, FT_MODE_NR };

struct ft_target {
	char name[128];
	char module[64]; /* "" for vmlinux */
	int slot;
	enum ft_mode mode;
	bool in_btf;	  /* has a BTF FUNC (fentry possible) */
	__u32 btf_id;	  /* FUNC id in vmlinux or module BTF (split ids) */
	__u64 addr;	  /* its /proc/kallsyms address (kprobe.multi attaches by address) */
	int nargs;	  /* parameters of its FUNC_PROTO */
	bool shadowed;	  /* a module function whose name vmlinux BTF also has */
	bool ambiguous;	  /* another loaded module has its name, and fentry before
			     Linux 6.4 would attach to the first one's: kprobe */
	bool optional;	  /* _copy_to_user: may be notrace; then not traced */
	bool unavailable; /* optional and not traceable on this kernel */
	bool attached;
	bool calib;		 /* a calibration function (after tg->count) */
	__u64 recursion_misses;	 /* bpf_prog_info, entry + exit programs */
	__u64 kretprobe_missed;	 /* returns not probed (kretprobe.c), where the kernel says */
	__u64 kprobe_missed;	 /* entries not probed (kretprobe.c), Linux 6.7+ */
	struct ft_func_stats st; /* summed over CPUs */
	struct ft_cnt_stats cnt; /* counters (-e), summed over CPUs */
};

struct ft_targets {
	struct ft_target t[FT_MAX_SLOTS + 1]; /* one over: fibdrv_calib2, until the plan (plan.c) */
	int count;
	int dropped;	 /* functions beyond FT_MAX_SLOTS */
	int ncalib;	 /* calibration targets at t[count .. count + ncalib) */
	bool module_btf; /* /sys/kernel/btf/<module> present */
	bool no_module;	 /* fibdrv not loaded: -f functions only, the read path's slots unavailable
			  */
	char module[64]; /* the traced module: fibdrv, or a build's name (--compare builds) */
	void *core_btf;	 /* the CO-RE types of this kernel and module (core_btf.h), or NULL */
	__u32 core_btf_size;
};

struct ft_hist_cfg {
	unsigned int bits; /* log2 sub-bucket bits */
	bool linear;
	__u64 lin_min, lin_max, lin_step, lin_buckets;
};

/* Reported and calibration targets: what is loaded and attached. */
static inline int ft_targets_all(const struct ft_targets *tg)
{
	return tg->count + tg->ncalib;
}

/*
 * fibdrv's calibration functions: fibdrv_calib0, fibdrv_calib1, and
 * fibdrv_calib2, which tail-calls fibdrv_calib1 (fibdrv_uapi.h).
 */
#define FT_CALIB_PREFIX "fibdrv_calib"
#define FT_CALIB_TAIL 2

/* At most this many variants in one run: --compare's algorithms, formats or builds (a tracer each).
 */
#define FT_CMP_MAX_VARIANTS 16

/*
 * What one traced call costs, calibrated per mode (calibrate.c,
 * docs/measurement.md), in two settings: warm (calls back to back) and
 * cold (each call after a computation of F(work_n)). Medians over rounds,
 * with their range.
 */
struct ft_cost_series {
	unsigned int rounds, calls;	    /* calls per round */
	__u64 work_n;			    /* F(work_n) computed before each call; 0: warm */
	double untraced_ns;		    /* one untraced call of the empty function */
	double full_ns, full_min, full_max; /* a traced call's cost to its caller */
	double in_ns, in_min, in_max;	    /* the part inside its own interval */
};

/*
 * What a traced call costs varies with the function and from run to run by
 * more than any calibration resolves: measured under the instruction clock
 * (docs/measurement.md, "Where the compensation is checked"), up to 1.4% of
 * the cost from one function, attach set or boot to another. The error bound
 * per call carries this fraction of the subtracted cost besides the spread
 * the calibration saw.
 */
#define FT_COST_CALL_SPREAD 0.02

struct ft_cost {
	bool valid;
	struct ft_cost_series warm, cold;
	double full_ns, in_ns;	 /* subtracted: the midpoints of warm and cold */
	double full_err, in_err; /* their spreads: the error bound per call, either way */
	int funcs;		 /* reported functions compensated with it */
	/* The context's factor on the midpoints (1 unless the context calibrated this mode),
	 * and half its rounds' range, part of full_err at every (re)calibration. */
	double ratio, ctx_err;
	/* Recalibrations between reads (--sweep), and the range of full_ns over the run. */
	unsigned int recals;
	double run_full_min, run_full_max;
	/*
	 * Two calls returning together, a tail call where exits share the
	 * kernel's return trampoline (kprobes, kprobe.multi): what the caller
	 * costs less inside its own interval (in) and to its own caller (out)
	 * than the two costs above; fibdrv_calib2's calls against
	 * fibdrv_calib1's, at start-up (calibrate.c). Not valid: nothing
	 * subtracted (fentry shares nothing; an older fibdrv has no calib2).
	 */
	bool tail_valid;
	struct ft_cost_series tail; /* fibdrv_calib2's warm rounds: the pair's full and in */
	double tail_in_ns, tail_out_ns;
};

/*
 * The calibration in context (calibrate.c): computations of F(n) by the
 * module's own functions, timed untraced and traced, every slot recording.
 */
struct ft_cost_context {
	bool wanted;			    /* not --compare: its variants keep one cost */
	bool done;			    /* measured and applied to mode */
	bool reads;			    /* samples are reads (a sweep's), not computations */
	enum ft_mode mode;		    /* the mode of most of its calls */
	__u64 n;			    /* F(n) computed */
	unsigned int rounds, computes;	    /* computations per round */
	double calls;			    /* traced calls per computation */
	double untraced_ns;		    /* one computation untraced */
	double full_ns, full_min, full_max; /* a traced call's cost to its caller, in context */
	double read_in_ns, read_in_err;	    /* reads: fib_read's own in-interval cost, its bound */
};

struct ft_overhead {
	bool on; /* figures are compensated */
	struct ft_cost_context ctx;
	struct ft_cost mode[FT_MODE_NR];
	int uncompensated; /* reported functions without a calibration */
};

/*
 * One call-tree path (bpf/fibtrace.h: struct ft_tree_key), summed over CPUs;
 * tree.c links the nodes into trees.
 */
struct ft_tnode {
	struct ft_tree_key key;
	struct ft_tree_node v;
	int target;	 /* its function: index in targets->t */
	int parent;	 /* index in run->tree; -1 for a root */
	int child, next; /* first child, next sibling: hottest (total) first; -1 for none */
	int depth;	 /* 0 for a root */
};

/*
 * --trace-out (timeline.c): which reads go on the timeline and their calls.
 * With a sweep, trace_n[] lists the n chosen and per_n reads of each (one
 * per algorithm); otherwise the first @reads reads.
 */
struct ft_timeline {
	const char *path;
	unsigned int reads; /* --trace-reads */
	__u64 *trace_n;
	size_t ntrace_n;
	unsigned int per_n;
	struct ft_call_ev *ev;
	size_t nev, capev;
};

/*
 * The attach plan (plan.c) and the start-up it gave, in seconds of
 * CLOCK_MONOTONIC: discovery (kallsyms, BTF, the traceable list), loading
 * and verifying the programs, attaching them, calibrating fibtrace's cost;
 * detach, when the run's links were destroyed (before the report).
 */
struct ft_startup {
	const char *plan;     /* "fentry", "kprobe.multi", "kprobe" */
	const char *reason;   /* why auto chose it, or "forced by --attach" */
	char reason_buf[192]; /* a reason with figures (plan.c: ft_plan_weigh) */
	int programs;	      /* BPF programs loaded for the traced functions */
	const char *symbols;  /* where discovery's kernel tables came from (ksyms.h) */
	double discover_s, load_s, attach_s, calibrate_s, detach_s;
	double total_s; /* process start to recording (FT_ON) */
};

/* Everything a report needs. */
struct ft_sim; /* cachesim.h */

struct ft_pern;

struct ft_run {
	struct ft_targets *targets;
	struct ft_hist_cfg hist;
	const char *kernel;
	const char *run_mode; /* "sweep", "command", "interval", "wait" */
	int cpu;	      /* -1: not pinned */
	double seconds;
	/* --sweep */
	bool sweep;
	__u64 first, last, step;
	unsigned int repeat;
	__u64 reads_issued, read_errors;
	/* algorithms as the device lists them (names, max_n) */
	struct fibdev_algos algos;
	/* per-read records */
	struct ft_read_rec *recs;
	size_t nrecs, caprecs;
	/*
	 * The per-(algo, n) model of recs, built once, when a report first
	 * asks for it (ft_pern_rows, aggregate.h), rebuilt only after recs
	 * change (ft_run_add_rec, ft_run_clear_recs).
	 */
	struct ft_pern *pern;
	size_t npern;
	bool pern_valid;
	/*
	 * --attribute: beside recs[i], each slot's self time in that read,
	 * tracing subtracted (struct ft_read_funcs): rec_self[i * self_stride +
	 * slot]; self_stride 0 without.
	 */
	__s64 *rec_self;
	unsigned int self_stride;
	__u64 lost[FT_LOST_NR]; /* named by ft_lost_names */
	__u64 recursion_misses;
	char warnings[16][256];
	int nwarnings;
	bool raw;	      /* --raw: include every read in the JSON */
	char clocksource[32]; /* the kernel's, which bpf_ktime_get_ns reads */
	/*
	 * What a nanosecond is here (ft_run_clock): "instructions" when the
	 * machine is a QEMU guest under icount (1 ns per instruction executed),
	 * else "real"; and how the machine runs: "tcg-icount", "tcg", "kvm",
	 * another hypervisor's name, or "none" (no hypervisor).
	 */
	char clock[16];
	char vm[24];
	__u32 max_depth;	/* deepest stack of traced calls seen (FT_STACK_DEPTH kept) */
	size_t max_recs;	/* --max-records: read records kept at most; 0: no bound */
	__u64 recs_dropped;	/* reads past max_recs: in the histograms, not in per_n */
	bool recs_warned;	/* the warning about max_recs given (once per run) */
	unsigned int maxactive; /* kretprobe instances per function (--maxactive) */
	unsigned int filter_pid;
	struct ft_counters *counters; /* -e; NULL without (counters.h) */
	const struct ft_sim *sim;     /* --cachesim=join: the same reads simulated; NULL without */
	struct ft_overhead overhead;
	/* fibtrace's heap in use when the counts were last read (tracer_collect.c); -1: unknown */
	long long heap_bytes;
	/* The call tree (tree.c): nodes, the hottest root, what it kept. */
	struct ft_tnode *tree;
	size_t ntree, captree; /* captree: kept across -i intervals (no realloc churn) */
	int tree_root;	       /* first root (roots chained by next); -1 for none */
	bool tree_on;	       /* not --no-tree */
	bool off_cpu;	       /* --off-cpu, and measured (sched_switch attached) */
	bool tree_full;	       /* --tree: every path, not only those >= 5% of their root */
	bool all;	       /* --all: every text section in full */
	__u64 tree_n;	       /* --tree-n: only reads of F(tree_n); FT_TREE_ALL_N for all */
	/* The attach plan and how long starting and stopping took (plan.c). */
	struct ft_startup startup;
	/* The timeline (timeline.c): the reads chosen, the call events drained. */
	struct ft_timeline *timeline; /* NULL without --trace-out */
};

/* run.c */
/* "Exit status: 0 ok, 1 runtime error, ... ." then @see, malloc'd (--help, --help-all). */
char *ft_exit_help(const char *see);
const char *ft_mode_name(enum ft_mode m);
const char *ft_algo_name(const struct ft_run *run, unsigned int id);
/* Prints "fibtrace: warning: ..." and keeps it for the report's warnings. */
void ft_warn(struct ft_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Resolves an --algo list (comma-separated names) against run->algos into
 * ids[] (room for max): every name must be the device's and allow n up to
 * @last. Returns how many, or -(exit status) after saying why ("@what: at
 * most @max" when there are more).
 */
int ft_algo_list_parse(const struct ft_run *run, const char *list, __u64 last, int *ids, int max,
		       const char *what);

/*
 * The kernel's clocksource (tsc, hpet, ...), which every BPF timestamp reads,
 * and the clock those timestamps count (run->clock, run->vm): from the
 * kernel command line's fibtrace.clock= and fibtrace.vm= (scripts/vmtest.sh
 * sets them: QEMU's icount cannot be seen from inside), else from CPUID's
 * hypervisor leaf.
 */
void ft_run_clocksource(struct ft_run *run);
/* CPUID's hypervisor vendor (12 bytes and a NUL) when the hypervisor bit is set. */
bool ft_cpuid_hypervisor(char vendor[13]);
/* One phrase for report headers: "instructions (QEMU TCG icount: 1 ns = 1 instruction)". */
const char *ft_run_clock_desc(const struct ft_run *run);
/* Times are instruction counts (QEMU icount: run->clock "instructions"). */
static inline bool ft_run_clock_exact(const struct ft_run *run)
{
	return !strcmp(run->clock, "instructions");
}
/* CLOCK_MONOTONIC in seconds. */
double ft_now_s(void);

/* The size of the records BPF sends (ft_read_rec and what follows it). */
size_t ft_run_rec_size(const struct ft_run *run);
/* fibtrace drives the reads (--sweep, --compare): the sweep fields, and its own pid as filter. */
void ft_run_set_sweep(struct ft_run *run, __u64 first, __u64 last, __u64 step, unsigned int repeat);

/* An interval's end (-i): the records go, and the model built from them. */
void ft_run_clear_recs(struct ft_run *run);
/*
 * Keeps recs[0..keep) only (a warm-up read's records, or the reads a
 * --compare visit did not count, go).
 */
void ft_run_truncate_recs(struct ft_run *run, size_t keep);
/* recs[src] (and its self times) over recs[dst]. */
void ft_run_move_rec(struct ft_run *run, size_t dst, size_t src);
/* Frees what a run holds: its records, self times, tree nodes, model (not targets or timeline). */
void ft_run_free(struct ft_run *run);

/*
 * Appends one ring buffer record (with or without cnt[], and with
 * --attribute's self times) to run->recs: 0 or -ENOMEM.
 */
int ft_run_add_rec(struct ft_run *run, const void *data, size_t size);

/* Names of the loss counters, in enum ft_lost order (JSON keys, text, the timeline). */
extern const char *const ft_lost_names[FT_LOST_NR];

#endif
