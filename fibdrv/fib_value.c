// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fib_value.c - struct fib_value: fib_compute() runs an algorithm of the
 * registry into one, fib_format_size()/fib_format() convert it to decimal
 * or binary (caching the other representation), fib_value_release().
 */
#include "fib_algo.h"

void fib_value_release(struct fib_value *v)
{
	if (!v)
		return;
	bn_release(&v->num);
	bn_mem_free(v->dec);
	v->dec = NULL;
	v->dec_len = 0;
	v->has_num = 0;
	v->has_dec = 0;
	v->n = 0;
}

noinline int fib_compute(const struct fib_algo *a, u64 n, struct fib_value *out)
{
	int err;

	if (!a || !out)
		return -EINVAL;
	fib_value_release(out);
	if (n > a->max_n)
		return (a->flags & FIB_ALGO_U64) ? -EOVERFLOW : -E2BIG;
	err = a->compute(n, out);
	if (err)
		fib_value_release(out);
	return err;
}

long fib_format_size(struct fib_value *v, enum fib_format f)
{
	long len;
	int err;

	if (!v || (!v->has_num && !v->has_dec))
		return -EINVAL;
	switch (f) {
	case FIBDRV_FORMAT_DEC:
		if (!v->has_dec) {
			size_t cap = bn_dec_bound(v->num.size);
			char *buf = bn_mem_alloc(cap);

			if (!buf)
				return -ENOMEM;
			len = bn_to_dec(v->num.limbs, v->num.size, buf, cap);
			if (len < 0) {
				bn_mem_free(buf);
				return len;
			}
			v->dec = buf;
			v->dec_len = (size_t)len;
			v->has_dec = 1;
		}
		return (long)v->dec_len;
	case FIBDRV_FORMAT_BIN:
		if (!v->has_num) {
			err = bn_from_dec(&v->num, v->dec, v->dec_len);
			if (err) {
				bn_release(&v->num);
				return err;
			}
			v->has_num = 1;
		}
		return (long)bn_bin_size(&v->num);
	}
	return -EINVAL;
}

noinline long fib_format(struct fib_value *v, enum fib_format f, char *buf, size_t cap)
{
	long size = fib_format_size(v, f);

	if (size < 0)
		return size;
	if ((size_t)size > cap)
		return -ENOSPC;
	if (f == FIBDRV_FORMAT_DEC) {
		memcpy(buf, v->dec, (size_t)size);
		return size;
	}
	return bn_to_bin(&v->num, buf, cap);
}
