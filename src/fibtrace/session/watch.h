/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fibtrace's modes that do not drive reads themselves: trace while a command
 * runs (-- CMD), for a duration (-d), until Ctrl-C, for one process (-p),
 * with a report every interval (-i). The ring buffer is drained on a 100 ms
 * timer; tracing ends early when fibdrv is unloaded.
 */
#ifndef FIBTRACE_WATCH_H
#define FIBTRACE_WATCH_H

#include <signal.h>
#include <sys/types.h>

#include "model/aggregate.h"
#include "report/report.h"
#include "tracer/tracer.h"

/* What the watch does (the command line's: cli.h's ft_cli_watch_opts). */
struct ft_watch_opts {
	char **cmd;	     /* -- CMD ARGS, NULL-terminated; NULL: none */
	double duration;     /* -d: seconds, 0 until Ctrl-C (or the command's end) */
	double interval;     /* -i: a report every so many seconds, 0 one at the end */
	enum ft_output out;  /* the reports' format */
	enum ft_hists hists; /* their histograms */
	bool as_root;	     /* --as-root: the command keeps root under sudo */
};

/* How long a command that ignores SIGTERM gets before SIGKILL, at the end. */
#define FT_CHILD_GRACE_S 5.0

struct ft_watch {
	struct ft_watch_opts o;	     /* set before ft_watch() */
	pid_t child;		     /* the traced command, 0 when none */
	bool child_ended;	     /* it has ended (reaped by ft_watch_free) */
	bool tty_warned;	     /* it stopped at the terminal, and we said so */
	volatile sig_atomic_t *stop; /* ft_watch's: a second Ctrl-C ends ft_watch_free's wait */
	ino_t fibdrv;		     /* /sys/module/fibdrv's inode when tracing began */
	double t0, next_report;
	double last_report;	       /* when the previous interval ended (t0 at first) */
	struct ft_interval_prev *prev; /* -i: cumulative values at the last report */
	__u64 prev_lost[FT_LOST_NR];
};

/* Traces until the command ends, -d passes, fibdrv goes or *stop: 0 or -(exit status). */
int ft_watch(struct ft_watch *w, struct ft_run *run, struct ft_tracer *tr,
	     volatile sig_atomic_t *stop);
/* -i: the report of the interval since the last one (deltas). */
void ft_watch_report(struct ft_watch *w, struct ft_run *run, struct ft_tracer *tr);
/*
 * Ends the command if still running and reaps it (helper_command_end):
 * SIGTERM to its process group, then SIGKILL to what remains of the group
 * once it has ended, after FT_CHILD_GRACE_S, or at the next Ctrl-C (the wait
 * is bounded); frees the interval state. Call it after the tracers are
 * detached: nothing stays attached while it waits.
 */
void ft_watch_free(struct ft_watch *w);

#endif
