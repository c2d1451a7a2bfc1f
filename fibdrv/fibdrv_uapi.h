/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fibdrv user-space interface: /dev/fibonacci.
 *
 * lseek(fd, n, SEEK_SET) selects n; read(fd, buf, size) writes F(n) in the
 * per-open output format and returns its length. See docs/fibdrv.md.
 */
#ifndef FIBDRV_UAPI_H
#define FIBDRV_UAPI_H

#ifdef __KERNEL__
#include <linux/ioctl.h>
#include <linux/types.h>
#else
#include <linux/types.h>
#include <sys/ioctl.h>
#endif

#define FIBDRV_DEVICE_PATH "/dev/fibonacci"
#define FIBDRV_ALGO_NAME_MAX 32

/*
 * Output formats: ASCII decimal (default) or little-endian u64 limbs.  The
 * library's fib_format_size()/fib_format() take the same constants.
 */
enum fib_format {
	FIBDRV_FORMAT_DEC = 0,
	FIBDRV_FORMAT_BIN = 1,
};

struct fibdrv_algo_sel {
	char name[FIBDRV_ALGO_NAME_MAX]; /* NUL-terminated */
};

#define FIBDRV_IOC_MAGIC 'f'
/* Select the algorithm of this open file by name. */
#define FIBDRV_IOC_SET_ALGO _IOW(FIBDRV_IOC_MAGIC, 1, struct fibdrv_algo_sel)
/* Read back the selected algorithm's name. */
#define FIBDRV_IOC_GET_ALGO _IOR(FIBDRV_IOC_MAGIC, 2, struct fibdrv_algo_sel)
/* Select the output format (FIBDRV_FORMAT_*), passed by value. */
#define FIBDRV_IOC_SET_FORMAT _IO(FIBDRV_IOC_MAGIC, 3)
/* Bytes a read at the current offset needs, returned in *arg (u64). */
#define FIBDRV_IOC_RESULT_SIZE _IOR(FIBDRV_IOC_MAGIC, 4, __u64)

/*
 * Tracer calibration: call the empty function fibdrv_calib<func>() @calls
 * times and return in @ns the sum of the calls' CLOCK_MONOTONIC durations,
 * each timed alone. Before each call, unless @work_n is 0, F(@work_n) is
 * computed (untimed) with the file's algorithm, so that each call finds the
 * caches as a call amid real work does. fibtrace times it untraced and
 * traced to learn what one traced call costs (docs/measurement.md). Two
 * functions, so that a run tracing with both fentry and kprobes can
 * calibrate each, and a third, fibdrv_calib2, which tail-calls
 * fibdrv_calib1 (what two calls returning together cost).
 */
#define FIBDRV_CALIB_FUNCS 3
#define FIBDRV_CALIB_MAX_CALLS 1000000U
/*
 * @func FIBDRV_CALIB_COMPUTE: no empty function; @calls computations of
 * F(@work_n) (not 0) with the file's algorithm, each with its release timed
 * alone, the sum in @ns: the module's own calls, for a tracer that compares
 * their time untraced and traced (docs/measurement.md, "in context").
 */
#define FIBDRV_CALIB_COMPUTE 0x100U

struct fibdrv_calib {
	__u32 func;   /* 0 .. FIBDRV_CALIB_FUNCS - 1, or FIBDRV_CALIB_COMPUTE */
	__u32 calls;  /* 1 .. FIBDRV_CALIB_MAX_CALLS */
	__u64 work_n; /* 0, or n <= max_n and the algorithm's cap */
	__u64 ns;     /* out */
};

#define FIBDRV_IOC_CALIBRATE _IOWR(FIBDRV_IOC_MAGIC, 5, struct fibdrv_calib)

#endif /* FIBDRV_UAPI_H */
