// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_cmp.c - comparison and normalisation of limb vectors: the exported
 * copies of the inline forms in bn_impl.h, and bn_cmp built from them.
 */
#include "bn_impl.h"

int bn_cmp_n(const u64 *a, const u64 *b, size_t n)
{
	return __bn_cmp_n(a, b, n);
}

size_t bn_normalized_size(const u64 *a, size_t n)
{
	return __bn_normalized_size(a, n);
}

int bn_cmp(const u64 *a, size_t an, const u64 *b, size_t bn)
{
	an = __bn_normalized_size(a, an);
	bn = __bn_normalized_size(b, bn);
	if (an != bn)
		return an > bn ? 1 : -1;
	return __bn_cmp_n(a, b, an);
}
