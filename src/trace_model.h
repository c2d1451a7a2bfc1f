/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fibtrace user space: what was traced and what was measured, shared by the
 * CLI (fibtrace.c), function discovery (trace_btf.c), the reports
 * (trace_report.c) and the plots (trace_plot.c).
 */
#ifndef FIBTRACE_TRACE_MODEL_H
#define FIBTRACE_TRACE_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

#include "fibtrace.h"

/* Exit statuses (documented in docs/fibtrace.md). */
enum ft_exit {
	FT_EXIT_OK = 0,
	FT_EXIT_ERROR = 1, /* runtime failure (load, attach, device I/O) */
	FT_EXIT_USAGE = 2, /* bad flags */
	FT_EXIT_PERM = 3, /* not root / no CAP_BPF+CAP_PERFMON */
	FT_EXIT_NO_FIBDRV = 4, /* fibdrv not loaded */
	FT_EXIT_UNKNOWN_FUNC = 5, /* -f names no traceable function */
	FT_EXIT_NO_BTF = 6, /* /sys/kernel/btf/vmlinux missing */
	FT_EXIT_CHILD = 7, /* the traced command failed */
	FT_EXIT_NO_COUNTERS = 9, /* --require-counters and an event unavailable */
};

enum ft_mode { FT_MODE_FENTRY, FT_MODE_KPROBE };

struct ft_target {
	char name[128];
	char module[64]; /* "" for vmlinux */
	int slot;
	enum ft_mode mode;
	bool in_btf; /* has a BTF FUNC (fentry possible) */
	__u32 btf_id; /* FUNC id in vmlinux or module BTF (split ids) */
	int nargs; /* parameters of its FUNC_PROTO */
	bool shadowed; /* a module function whose name vmlinux BTF also has */
	bool optional; /* _copy_to_user: may be notrace; then not traced */
	bool unavailable; /* optional and not traceable on this kernel */
	bool attached;
	__u64 recursion_misses; /* bpf_prog_info, entry + exit programs */
	struct ft_func_stats st; /* summed over CPUs */
	struct ft_cnt_stats cnt; /* counters (-e), summed over CPUs */
};

struct ft_targets {
	struct ft_target t[FT_MAX_SLOTS];
	int count;
	int dropped; /* functions beyond FT_MAX_SLOTS */
	bool module_btf; /* /sys/kernel/btf/fibdrv present */
};

struct ft_hist_cfg {
	unsigned int bits; /* log2 sub-bucket bits */
	bool linear;
	__u64 lin_min, lin_max, lin_step, lin_buckets;
};

/* Everything a report needs. */
struct ft_run {
	struct ft_targets *targets;
	struct ft_hist_cfg hist;
	const char *kernel;
	const char *run_mode; /* "sweep", "command", "interval", "wait" */
	int cpu; /* -1: not pinned */
	double seconds;
	/* --sweep */
	bool sweep;
	__u64 first, last, step;
	unsigned int repeat;
	__u64 reads_issued, read_errors;
	/* algorithms as the device lists them */
	char (*algos)[64];
	int nalgos;
	/* per-read records */
	struct ft_read_rec *recs;
	size_t nrecs, caprecs;
	__u64 lost[FT_LOST_NR];
	__u64 recursion_misses;
	char warnings[16][256];
	int nwarnings;
	bool raw; /* --raw: include every read in the JSON */
	unsigned int filter_pid;
	struct ft_counters *counters; /* -e; NULL without (trace_counters.h) */
};

/* trace_btf.c */
int ft_discover(struct ft_targets *tg, const char *extra, bool force_kprobe,
		bool defaults, struct ft_run *run);
const char *ft_mode_name(enum ft_mode m);

/* trace_report.c */
void ft_hist_bounds(const struct ft_hist_cfg *cfg, unsigned int idx,
		    __u64 *lo, __u64 *hi);
__u64 ft_hist_percentile(const struct ft_hist_cfg *cfg,
			 const struct ft_func_stats *st, double p);
void ft_report_text(FILE *f, struct ft_run *run, bool hist);
void ft_report_json(FILE *f, struct ft_run *run);
void ft_report_csv(FILE *f, struct ft_run *run);
void ft_json_str(FILE *f, const char *s); /* a JSON string, escaped */
const char *ft_algo_name(const struct ft_run *run, unsigned int id);
void ft_warn(struct ft_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Per-(algo, n) aggregation of the read records. */
struct ft_pern {
	unsigned int algo;
	__u64 n, count, errors;
	__u64 median, p90, p99, min, max;
	__u64 compute, format, copy, rest; /* medians over the reads */
	__u64 parts_over_total; /* reads whose parts exceed the total: 0 */
};
size_t ft_pern_build(struct ft_run *run, struct ft_pern **out);

/* trace_plot.c */
int ft_plot(struct ft_run *run, const char *path);
int ft_gnuplot(const char *script, const char *path);

#endif
