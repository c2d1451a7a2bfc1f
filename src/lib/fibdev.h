/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/fibonacci from user space, in one place: the algorithm list in sysfs,
 * opening the device with an algorithm and an output format, the buffer a
 * read of F(n) needs, and one timed read. Every tool and test client uses
 * this (the ioctl protocol itself is fibdrv/fibdrv_uapi.h).
 */
#ifndef FIBTRACE_LIB_FIBDEV_H
#define FIBTRACE_LIB_FIBDEV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fibdrv_uapi.h"

#define FIBDEV_MAX_ALGOS 64

/* The device's algorithms, in registry order, with their largest n. */
struct fibdev_algos {
	int count;
	char name[FIBDEV_MAX_ALGOS][64];
	uint64_t max_n[FIBDEV_MAX_ALGOS];
};

/*
 * Reads the algorithms of the device at @path (NULL: FIBDRV_DEVICE_PATH)
 * from /sys/class/misc/<its name>/algorithms; count 0 (and -errno) when it
 * cannot be read.
 */
int fibdev_list_algos(const char *path, struct fibdev_algos *a);
/* Index of @name in @a, or -1. */
int fibdev_algo_index(const struct fibdev_algos *a, const char *name);

/*
 * Opens @path read-only and selects @algo (NULL: keep the device's default)
 * and @format (FIBDRV_FORMAT_*, or -1: keep the default). On failure prints
 * "@who: ..." on stderr and returns -errno.
 */
int fibdev_open(const char *path, const char *algo, int format, const char *who);
/* Selects the algorithm named by the first @len bytes of @name: 0 or -errno. */
int fibdev_set_algo(int fd, const char *name, size_t len);
/* The name of the algorithm a file uses (FIBDRV_IOC_GET_ALGO): 0 or -errno. */
int fibdev_get_algo(int fd, char *name, size_t size);

/* Bytes enough for F(n) for every n <= max_n, in decimal or binary. */
size_t fibdev_bufsize(uint64_t max_n);

/*
 * lseek to n, then one read(2) into buf; *ns (if not NULL) is the read's
 * CLOCK_MONOTONIC duration as the caller sees it, 0 when lseek failed.
 * Returns read's result, or -1 (errno set) when lseek failed.
 */
ssize_t fibdev_read(int fd, uint64_t n, char *buf, size_t size, double *ns);

/*
 * FIBDRV_IOC_CALIBRATE: @calls calls of fibdrv_calib<func>() in the kernel,
 * each after F(@work_n) (0: none); *ns the sum of the calls' own times.
 * 0 or -errno.
 */
int fibdev_calibrate(int fd, unsigned int func, uint32_t calls, uint64_t work_n, uint64_t *ns);

#endif
