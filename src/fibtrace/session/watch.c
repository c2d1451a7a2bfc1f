// SPDX-License-Identifier: GPL-2.0
/* Tracing without driving reads: see watch.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"
#include "report/report.h"
#include "watch.h"

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

/* 1 when the command has ended (*ret set when it failed), 0 while it runs. */
static int command_ended(struct ft_watch *w, struct ft_run *run, int *ret)
{
	int status;

	if (w->child <= 0 || w->child_ended)
		return 0;
	switch (helper_command_poll(w->child, &status)) {
	case HELPER_CMD_RUNS:
		return 0;
	case HELPER_CMD_STOPPED_TTY:
		if (!w->tty_warned)
			fprintf(stderr,
				"fibtrace: the command stopped at the terminal: it runs in a "
				"process group of its own, which may not read the terminal; give "
				"it its input from a file or a pipe (Ctrl-C ends the run)\n");
		w->tty_warned = true;
		return 0;
	case HELPER_CMD_ENDED:
		break;
	}
	w->child_ended = true; /* reaped by ft_watch_free, after what remains of its group */
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		ft_warn(run, "command exited with status %d",
			WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		*ret = -FT_EXIT_CHILD;
	}
	return 1;
}

int ft_watch(struct ft_watch *w, struct ft_run *run, struct ft_tracer *tr,
	     volatile sig_atomic_t *stop)
{
	const struct ft_watch_opts *o = &w->o;
	int ret = 0, err;

	w->fibdrv = fibdrv_instance();
	w->t0 = ft_now_s();
	w->stop = stop;
	if (o->cmd) {
		w->child = helper_command_start(o->cmd, o->as_root);
		if (w->child < 0) {
			w->child = 0;
			return -FT_EXIT_ERROR;
		}
	} else if (o->out == FT_OUT_TEXT) {
		fprintf(stderr, "fibtrace: tracing %d functions... Hit Ctrl-C to end.\n",
			run->targets->count);
	}
	if (o->interval) {
		w->prev = calloc(run->targets->count, sizeof(*w->prev));
		if (!w->prev)
			return -FT_EXIT_ERROR;
	}
	w->next_report = w->t0 + o->interval;
	w->last_report = w->t0;
	while (!*stop) {
		double t;

		err = ft_tracer_poll(tr, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "fibtrace: ring buffer poll: %s\n", strerror(-err));
			ret = -FT_EXIT_ERROR;
			break;
		}
		if (command_ended(w, run, &ret))
			break;
		if (!run->targets->no_module && fibdrv_instance() != w->fibdrv) {
			ft_warn(run, "fibdrv was unloaded while tracing: its probes are gone; "
				     "reporting what was gathered");
			ret = -FT_EXIT_NO_FIBDRV;
			break;
		}
		t = ft_now_s();
		if (o->duration && t - w->t0 >= o->duration)
			break;
		if (o->interval && t >= w->next_report) {
			ft_watch_report(w, run, tr);
			/* A late report (a starved CPU) skips the ticks it missed, not
			 * fires once per tick to catch up. */
			while (w->next_report <= ft_now_s())
				w->next_report += o->interval;
		}
	}
	ft_tracer_consume(tr);
	return ret;
}

void ft_watch_report(struct ft_watch *w, struct ft_run *run, struct ft_tracer *tr)
{
	double now = ft_now_s(); /* the interval ends as its counters are read */
	const struct ft_watch_opts *o = &w->o;

	ft_tracer_collect(tr);
	ft_interval_delta(run, w->prev, w->prev_lost);
	run->seconds = now - w->last_report; /* what this interval really covered */
	w->last_report = now;
	ft_report(stdout, run, o->out, o->hists);
	fflush(stdout);
	ft_run_clear_recs(run); /* --max-records bounds one interval */
}

void ft_watch_free(struct ft_watch *w)
{
	if (w->child > 0)
		helper_command_end(w->child, FT_CHILD_GRACE_S, w->stop);
	w->child = 0;
	free(w->prev);
	w->prev = NULL;
}
