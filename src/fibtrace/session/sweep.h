/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one read loop: fibtrace drives reads of /dev/fibonacci itself, for
 * --sweep and for --compare. Variants are open files of the device (one per
 * algorithm, or per output format); n goes from first to last by step, for
 * `rounds` rounds after `warmup` rounds.
 *
 * Order: sequential (--sweep): variant by variant, each doing every round of
 * the whole range. Interleaved (--compare): round by round, n by n, every
 * variant in turn with the first variant rotating from round to round, so
 * slow drift falls on every variant alike. A visit (one variant, one n,
 * one round) is `burst` reads back to back (0 or 1: one read); on_read()
 * sees each, with its place in the burst.
 *
 * After each read on_read() gets what happened; drain() (the tracer's ring
 * buffer consumer) runs after every read when drain_each_read is set (so the
 * callback can match the read's BPF record), otherwise every 64 reads and at
 * the end.
 */
#ifndef FIBTRACE_SWEEP_H
#define FIBTRACE_SWEEP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "range.h"

struct ft_sweep_read {
	int variant;		       /* index into fds[] */
	unsigned int round;	       /* 0-based, warm-up rounds included */
	bool warmup;		       /* a warm-up round: not to be counted */
	unsigned int burst_idx, burst; /* its place in the visit's reads back to back */
	size_t nidx;		       /* index of n in the range */
	uint64_t n;
	ssize_t got;	/* read(2)'s result; -1 also when lseek failed */
	double user_ns; /* read(2) as the caller saw it (CLOCK_MONOTONIC) */
};

struct ft_sweep {
	struct u64_range range;
	unsigned int rounds, warmup;
	unsigned int burst; /* reads back to back per visit: 0 or 1 for one */
	const int *fds;	    /* open device files, one per variant */
	int nvar;
	bool interleave;
	bool drain_each_read;
	bool progress; /* a progress bar on stderr */
	void (*on_read)(void *ctx, const struct ft_sweep_read *r);
	int (*drain)(void *ctx);
	void *ctx;
	/* Optional, after every read: fibtrace's recalibration (calibrate.h). */
	void (*tick)(void *tick_ctx);
	void *tick_ctx;
	volatile sig_atomic_t *stop; /* set by a signal handler: stop early */
};

/* Runs the loop: 0, or -errno when the read buffer cannot be had. */
int ft_sweep_run(const struct ft_sweep *s);

#endif
