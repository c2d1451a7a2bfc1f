/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli/: argv into options, and options into what each stage is given. It
 * owns the option table (options.c), the parser (cli.c), the checks of how
 * options combine (cli_check.c), the one-page help (help.c; --help-all is
 * argp's), each stage's settings built from the options (stages.c:
 * struct ft_builds_opts, struct ft_watch_opts, ...) and --cachesim run from
 * the command line alone (cachesim_cli.c). struct ft_cli below holds every
 * option's value after parsing. Only cli/ and main.c include this header:
 * the stages below take their own settings, never struct ft_cli
 * (scripts/layers.py checks it).
 */
#ifndef FIBTRACE_CLI_H
#define FIBTRACE_CLI_H

#include <linux/types.h>
#include <stdbool.h>

#include "cachesim/cachesim.h"
#include "compare/compare.h"
#include "discover/plan.h"
#include "model/run.h"
#include "range.h"
#include "report/report.h"
#include "session/builds.h"
#include "session/watch.h"
#include "tracer/counters.h"

struct ft_cli {
	bool verbose, json, csv, raw, discover, sweep, all;
	enum ft_attach_req attach; /* --attach (--kprobe: FT_ATTACH_KPROBE) */
	enum ft_hists hists;	   /* --hist, --no-hist */
	bool compensate;	   /* not --no-compensate */
	bool symbol_cache;	   /* not --no-symbol-cache (ksyms.h) */
	bool tree, tree_full;	   /* not --no-tree; --tree */
	bool off_cpu;		   /* --off-cpu */
	__u64 tree_n;		   /* --tree-n; FT_TREE_ALL_N */
	const char *folded, *flamegraph;
	const char *save_csv;	  /* --save-csv: the CSV report to this file too */
	const char *trace_out;	  /* --trace-out */
	unsigned int trace_reads; /* --trace-reads */
	const char *funcs, *plot, *load, *device, *algo_list;
	char *funcs_own, *algo_own; /* -f, -a given more than once: joined (ft_cli_free) */
	struct u64_range range;
	unsigned int repeat;
	__u32 ringbuf_bytes;
	unsigned int maxactive; /* kretprobe instances per function (kretprobe.h) */
	__u64 max_records;	/* --max-records (FT_MAX_RECORDS_DEFAULT) */
	int cpu;		/* -1: not pinned */
	unsigned int pid;	/* 0: every process */
	double duration, interval;
	bool as_root;	  /* --as-root: -- CMD keeps root under sudo */
	const char *user; /* --user: whom helpers, CMD and files are for (helper_set_user) */
	struct ft_hist_cfg hist_cfg;
	char **cmd; /* -- CMD ARGS */
	int ncmd;
	char **kos; /* --compare builds A.ko B.ko... */
	int nko;
	struct ft_cmp_opts cmp;
	struct ft_counters counters; /* -e, --require-counters */
	int cachesim;		     /* --cachesim[=join]: FT_SIM_OFF, _ONLY, _JOIN */
	const char *sim_cache;	     /* --cache-geometry */
	int sim_metric;		     /* --metric sim:EVENT: enum ft_sim_event; -1 */
};

enum { FT_SIM_OFF, FT_SIM_ONLY, FT_SIM_JOIN };

/* The output format the flags chose (--json, --csv, or text). */
static inline enum ft_output ft_cli_output(const struct ft_cli *cli)
{
	return cli->json ? FT_OUT_JSON : cli->csv ? FT_OUT_CSV : FT_OUT_TEXT;
}

/* -h, --help: one page (help.c); --help-all is argp's list. */
void ft_cli_help(FILE *f);

/* The per-stage settings the options make: what session/ is given, not the options. */
void ft_cli_watch_opts(const struct ft_cli *cli, struct ft_watch_opts *o);
void ft_cli_builds_opts(const struct ft_cli *cli, struct ft_builds_opts *o);
/* Reads a --sweep issues: every n of the range, --repeat times, per --algo; 0 without one. */
__u64 ft_cli_sweep_reads(const struct ft_cli *cli);

/* --max-records: read records kept (each sizeof(struct ft_read_rec), 352 bytes: 88 MiB). */
#define FT_MAX_RECORDS_DEFAULT (1u << 18)
#define FT_MAX_RECORDS_MAX (1u << 26)

/* -d and -i: at most a year (a finite, sleepable time). */
#define FT_SECONDS_MAX (366 * 24 * 3600)

/*
 * Parses argv: 0 or -FT_EXIT_USAGE. argp prints each usage error and, with
 * @argp_flags 0 (fibtrace), exits; ARGP_NO_EXIT makes it return instead
 * (tests/fuzz/fuzz_cli.c).
 */
int ft_cli_parse(struct ft_cli *cli, int argc, char **argv, unsigned int argp_flags);
/* What parsing allocated (repeated list options). */
void ft_cli_free(struct ft_cli *cli);

/* cli.c and cli_check.c between them: a usage error (argp's), and the combination checks. */
struct argp_state;
int ft_cli_usage(struct argp_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int ft_cli_check(struct ft_cli *cli, struct argp_state *state);

/*
 * cachesim_cli.c, for main(): --cachesim alone or --metric sim:EVENT (no kernel, no
 * root; 0 or -(exit status)), and --cachesim=join's simulation of the traced
 * sweep's algorithms into @sim, kept in @run for its report (0 or -FT_EXIT_*).
 */
int ft_sim_cli_only(const struct ft_cli *cli);
int ft_sim_cli_join(const struct ft_cli *cli, struct ft_run *run, struct ft_sim *sim);

#endif
