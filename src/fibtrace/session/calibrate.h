/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Overhead calibration (docs/measurement.md): what one traced call costs its
 * caller, and what part of that falls inside the call's own measured
 * interval, per mode (fentry, kprobe), measured in the kernel at start-up on
 * fibdrv's empty calibration functions (FIBDRV_IOC_CALIBRATE):
 *
 *   ft_calibrate_untraced()  before attach (and before the algorithm list is
 *                            read: after it): the empty call's own time
 *   ft_calibrate()           after attach, before FT_ON: the traced call's
 *                            time, its recorded interval; round by round
 *                            between those, in context (the module's own
 *                            calls: F(n) computed traced, every slot
 *                            recording, then cleared) the factor by which a
 *                            call there costs more or less; the costs into
 *                            run->overhead and into BPF per slot
 *   ft_calibrate_tick()      between reads of --sweep: every FT_RECAL_S,
 *                            a short recalibration that follows the host's
 *                            drift (BPF's costs and error bounds updated)
 *   ft_calibrate_close()     the device closed
 */
#ifndef FIBTRACE_CALIBRATE_H
#define FIBTRACE_CALIBRATE_H

#include "model/run.h"
#include "tracer/tracer.h"

#define FT_CALIB_ROUNDS 11
#define FT_CALIB_CALLS_WARM 2000 /* per round */
#define FT_CALIB_CALLS_COLD 100
#define FT_CALIB_WORK_N 1000	      /* cold: F(n) computed before each call */
#define FT_CALIB_CONTEXT_N 2000	      /* in context: F(n) computed, traced and untraced */
#define FT_CALIB_CONTEXT_N_MIN 1000   /* a sweep's middle n, at least this */
#define FT_CALIB_CONTEXT_N_MAX 10000  /* and at most this */
#define FT_CALIB_CONTEXT_COMPUTES 10  /* per round */
#define FT_CALIB_CONTEXT_MIN_CALLS 20 /* per computation, or no calibration in context */
/* An n above any fibdrv's max_n (a module parameter): fib_read refuses it at its first test. */
#define FT_CALIB_REFUSED_N (1ULL << 62)
#define FT_CALIB_CONTEXT_MIN_READ_CALLS 1 /* per read (its stages: every read makes the same) */
#define FT_CALIB_CONTEXT_GAP_US 20000	  /* between traced rounds: each sees its own moment */
#define FT_RECAL_S 2.0			  /* between recalibrations of a sweep */
#define FT_RECAL_ROUNDS_WARM 3		  /* per recalibration (a cold round costs 100 F(1000)) */
#define FT_RECAL_ROUNDS_COLD 1

struct ft_calib {
	int fd; /* the device; -1 when not calibrating */
	__u64 work_n;
	double untraced_ns[FIBDRV_CALIB_FUNCS][2]; /* median per call: function, cold */
	int callee_slot; /* fibdrv_calib1's slot (fibdrv_calib2 tail-calls it), or -1 */
	/* For ft_calibrate_tick(): set by ft_calibrate(). */
	struct ft_tracer *tr;
	struct ft_run *run;
	double last_s; /* when the last calibration ended (ft_now_s) */
	bool failed;   /* a recalibration failed: no more */
	bool exact;    /* run->clock is instructions: minima of rounds, no recalibration */
	/* The calibration in context by reads (calib_context.c): a buffer, the n refused. */
	char *buf;
	size_t bufsize;
	__u64 refuse_n;
};

/* Opens @device and times the calibration functions untraced: 0 or -(exit status). */
int ft_calibrate_untraced(struct ft_calib *c, struct ft_run *run, const char *device);
/*
 * Times them traced, fills run->overhead and sets every reported slot's
 * costs in BPF. 0 or -(exit status).
 */
int ft_calibrate(struct ft_calib *c, struct ft_tracer *tr, struct ft_run *run);
/*
 * Between two reads of fibtrace's own (no read may be in flight: the state
 * is FT_CALIBRATING meanwhile): when FT_RECAL_S have passed, times each
 * mode's calibration function again and moves BPF's subtracted cost to the
 * new midpoint; the error bound per call becomes the new spread plus the
 * move. @calib: a struct ft_calib (an ft_sweep tick).
 */
void ft_calibrate_tick(void *calib);
/*
 * --compare builds: one cost per mode for every build's tracer. Their
 * programs are the same and run on one machine, so their true costs are
 * equal; separate calibrations differ by noise, and that noise times the
 * traced calls per read would become a difference between the builds (seen
 * in an A/A run: +15.8% at n = 100, Holm p = 0.045). Each mode's cost
 * becomes the builds' mean; its error bound the largest one plus half the
 * builds' spread; run_full_min/max their range. Pushed into every tracer.
 */
void ft_calibrate_pool(struct ft_tracer *const *trs, struct ft_run *const *runs, int n);
void ft_calibrate_close(struct ft_calib *c);

#endif
