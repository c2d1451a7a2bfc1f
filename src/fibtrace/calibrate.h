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
 *                            time, its recorded interval; the costs into
 *                            run->overhead and into BPF per slot
 */
#ifndef FIBTRACE_CALIBRATE_H
#define FIBTRACE_CALIBRATE_H

#include "run.h"
#include "tracer.h"

#define FT_CALIB_ROUNDS 11
#define FT_CALIB_CALLS_WARM 2000 /* per round */
#define FT_CALIB_CALLS_COLD 100
#define FT_CALIB_WORK_N 1000 /* cold: F(n) computed before each call */

struct ft_calib {
	int fd; /* the device; -1 when not calibrating */
	__u64 work_n;
	double untraced_ns[FIBDRV_CALIB_FUNCS][2]; /* median per call: function, cold */
};

/* Opens @device and times the calibration functions untraced: 0 or -(exit status). */
int ft_calibrate_untraced(struct ft_calib *c, struct ft_run *run, const char *device);
/*
 * Times them traced, fills run->overhead and sets every reported slot's
 * costs in BPF; closes the device. 0 or -(exit status).
 */
int ft_calibrate(struct ft_calib *c, struct ft_tracer *tr, struct ft_run *run);

#endif
