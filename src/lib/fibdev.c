// SPDX-License-Identifier: GPL-2.0
/* /dev/fibonacci from user space: see fibdev.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "fibdev.h"

int fibdev_list_algos(const char *path, struct fibdev_algos *a)
{
	const char *slash, *name;
	char line[256];
	FILE *f;

	a->count = 0;
	path = path ? path : FIBDRV_DEVICE_PATH;
	slash = strrchr(path, '/');
	name = slash ? slash + 1 : path;
	snprintf(line, sizeof(line), "/sys/class/misc/%s/algorithms", name);
	f = fopen(line, "r");
	if (!f)
		return -errno;
	while (a->count < FIBDEV_MAX_ALGOS && fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		*tab = 0;
		snprintf(a->name[a->count], sizeof(a->name[0]), "%.63s", line);
		a->max_n[a->count] = strtoull(tab + 1, NULL, 10);
		a->count++;
	}
	fclose(f);
	return 0;
}

int fibdev_algo_index(const struct fibdev_algos *a, const char *name)
{
	int i;

	for (i = 0; i < a->count; i++)
		if (!strcmp(a->name[i], name))
			return i;
	return -1;
}

int fibdev_set_algo(int fd, const char *name, size_t len)
{
	struct fibdrv_algo_sel sel = {};

	snprintf(sel.name, sizeof(sel.name), "%.*s", (int)len, name);
	return ioctl(fd, FIBDRV_IOC_SET_ALGO, &sel) ? -errno : 0;
}

int fibdev_open(const char *path, const char *algo, int format, const char *who)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0) {
		err = -errno;
		fprintf(stderr, "%s: %s: %s%s\n", who, path, strerror(-err),
			err == -ENOENT ? " (is fibdrv loaded? sudo insmod fibdrv.ko)" : "");
		return err;
	}
	if (algo) {
		err = fibdev_set_algo(fd, algo, strlen(algo));
		if (err) {
			fprintf(stderr, "%s: selecting algorithm %s: %s\n", who, algo,
				strerror(-err));
			close(fd);
			return err;
		}
	}
	if (format >= 0 && ioctl(fd, FIBDRV_IOC_SET_FORMAT, (unsigned long)format)) {
		err = -errno;
		fprintf(stderr, "%s: selecting format %d: %s\n", who, format, strerror(-err));
		close(fd);
		return err;
	}
	return fd;
}

int fibdev_get_algo(int fd, char *name, size_t size)
{
	struct fibdrv_algo_sel sel = {};

	if (ioctl(fd, FIBDRV_IOC_GET_ALGO, &sel))
		return -errno;
	sel.name[sizeof(sel.name) - 1] = 0;
	snprintf(name, size, "%s", sel.name);
	return 0;
}

/* F(n) has about n log10(phi) = 0.20898764 n decimal digits; binary is less. */
size_t fibdev_bufsize(uint64_t max_n)
{
	return (size_t)(max_n * 0.20898764 + 64);
}

static double mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

ssize_t fibdev_read(int fd, uint64_t n, char *buf, size_t size, double *ns)
{
	double t0;
	ssize_t got;

	if (ns)
		*ns = 0;
	/* Above INT64_MAX, (off_t)n is negative: n = 2^64 - 1 would equal lseek's -1. */
	if (n > INT64_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (lseek(fd, (off_t)n, SEEK_SET) != (off_t)n)
		return -1;
	t0 = ns ? mono_ns() : 0;
	got = read(fd, buf, size);
	if (ns)
		*ns = mono_ns() - t0;
	return got;
}

int fibdev_calibrate(int fd, unsigned int func, uint32_t calls, uint64_t work_n, uint64_t *ns)
{
	struct fibdrv_calib c = { .func = func, .calls = calls, .work_n = work_n };

	if (ioctl(fd, FIBDRV_IOC_CALIBRATE, &c))
		return -errno;
	*ns = c.ns;
	return 0;
}
