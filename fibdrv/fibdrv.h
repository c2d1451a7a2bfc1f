/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stages of a read on /dev/fibonacci. They are global, noinline and
 * named for good: fibtrace attaches to them to split a read's time into
 * compute, format and copy without knowing any algorithm.
 */
#ifndef FIBDRV_H
#define FIBDRV_H

#include <linux/fs.h>
#include <linux/types.h>

#include "fib_algo.h"

int fibdrv_compute(const struct fib_algo *algo, u64 n, struct fib_value *value);
long fibdrv_format(struct fib_value *value, enum fib_format format,
		   size_t size, char **out);
ssize_t fibdrv_copy(char __user *ubuf, const char *kbuf, size_t len);
ssize_t fib_read(struct file *file, char __user *buf, size_t size,
		 loff_t *offset);

#endif /* FIBDRV_H */
