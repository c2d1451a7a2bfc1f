/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The builds of fibdrv a run traces, each with its own tracer. Every mode
 * traces one: the loaded fibdrv (or --device's). --compare builds A.ko B.ko
 * traces several side by side: fibtrace loads each file (their module names
 * must differ: `scripts/build-module.sh KVER OBJS NAME` builds fibdrv under another name,
 * with the device /dev/<name>), discovers its functions by its own BTF,
 * gives it its own BPF object, calibration and ft_run, and unloads it at the
 * end. Build 0 reports through main's run; the others' losses and warnings
 * are added to it.
 */
#ifndef FIBTRACE_BUILDS_H
#define FIBTRACE_BUILDS_H

#include <stdbool.h>

#include "calibrate.h"
#include "discover/plan.h"
#include "model/run.h"
#include "tracer/tracer.h"

/* Which builds a run traces and how (the command line's: cli.h's ft_cli_builds_opts). */
struct ft_builds_opts {
	const char *device; /* the loaded fibdrv's device (--device) */
	char **kos;	    /* --compare builds A.ko B.ko...: loaded side by side */
	int nko;
	const char *labels;	   /* --labels, comma-separated; NULL: module names */
	enum ft_attach_req attach; /* --attach */
	bool benchmark;		   /* a comparison: the plan for it (plan.h) */
	__u64 reads;		   /* reads the session issues itself (--sweep), 0: not known */
	const char *funcs;	   /* -f */
	bool discover;		   /* not --no-discover */
	bool compensate;	   /* not --no-compensate */
	bool symbol_cache;	   /* not --no-symbol-cache (discover/ksyms.h) */
};

struct ft_build {
	const char *ko;	  /* the module file (--compare builds), or NULL */
	char module[64];  /* its module name: fibdrv for the loaded one */
	char device[128]; /* /dev/fibonacci for fibdrv, /dev/<module> otherwise */
	char label[64];	  /* --labels, or the module name */
	bool loaded;	  /* fibtrace loaded it: unloaded by ft_builds_close */
	struct ft_run *run;
	struct ft_targets *targets; /* owned for builds after the first */
	struct ft_tracer *tr;
	struct ft_calib calib;
};

struct ft_builds {
	struct ft_build b[FT_CMP_MAX_VARIANTS];
	int n;
};

/*
 * Which builds, loaded (--compare builds) and discovered: run is build 0's
 * and, for the others, the model of their runs (its settings are copied:
 * call before anything is measured). 0 or -(exit status).
 */
int ft_builds_open(struct ft_builds *bs, const struct ft_builds_opts *o, struct ft_run *run);
/* What prepare decided for build 0's run (sweep, pid filter, counters), to the others. */
void ft_builds_share(struct ft_builds *bs);
/* Several builds: one calibrated cost for all their tracers (ft_calibrate_pool). */
void ft_builds_pool_costs(struct ft_builds *bs);
/* finit_module(2) of @path; on failure "@who @path: why" on stderr, -(exit status). */
int ft_load_ko(const char *path, const char *who);
/* Drains every build's ring buffer into its run: records, or -errno. */
int ft_builds_consume(void *builds);
/* Collects every tracer; adds the other builds' losses and warnings to build 0's run. */
void ft_builds_collect(struct ft_builds *bs);
/* Frees the tracers and runs, unloads what fibtrace loaded. */
void ft_builds_close(struct ft_builds *bs);

#endif
