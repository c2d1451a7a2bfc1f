// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_val.c - struct bn, the value layer over the limb primitives (GMP's
 * mpz over mpn): its limbs come from the allocator (bn_mem.c), its
 * arithmetic from the limb layer.
 */
#include "bn_impl.h"

/* ---- struct bn --------------------------------------------------------- */

noinline int bn_init(struct bn *x, size_t cap)
{
	x->limbs = NULL;
	x->size = 0;
	x->cap = 0;
	if (!cap)
		return 0;
	x->limbs = bn_limbs_alloc(cap);
	if (!x->limbs)
		return -ENOMEM;
	x->cap = cap;
	return 0;
}

noinline void bn_release(struct bn *x)
{
	bn_mem_free(x->limbs);
	x->limbs = NULL;
	x->size = 0;
	x->cap = 0;
}

noinline int bn_reserve(struct bn *x, size_t cap)
{
	u64 *p;

	if (cap <= x->cap)
		return 0;
	p = bn_limbs_alloc(cap);
	if (!p)
		return -ENOMEM;
	bn_copyi(p, x->limbs, x->size);
	bn_mem_free(x->limbs);
	x->limbs = p;
	x->cap = cap;
	return 0;
}

noinline int bn_set_u64(struct bn *x, u64 v)
{
	int err = bn_reserve(x, 1);

	if (err)
		return err;
	x->limbs[0] = v;
	x->size = v ? 1 : 0;
	return 0;
}

int bn_copy(struct bn *dst, const struct bn *src)
{
	int err;

	if (dst == src)
		return 0;
	err = bn_reserve(dst, src->size);
	if (err)
		return err;
	bn_copyi(dst->limbs, src->limbs, src->size);
	dst->size = src->size;
	return 0;
}

noinline int bn_cmp_val(const struct bn *a, const struct bn *b)
{
	return bn_cmp(a->limbs, a->size, b->limbs, b->size);
}

noinline int bn_add_val(struct bn *r, const struct bn *a, const struct bn *b)
{
	const struct bn *big = a, *small = b;
	u64 cy;
	int err;

	if (a->size < b->size) {
		big = b;
		small = a;
	}
	err = bn_reserve(r, big->size + 1); /* a, b may alias r: reserve copies */
	if (err)
		return err;
	cy = bn_add(r->limbs, big->limbs, big->size, small->limbs, small->size);
	r->limbs[big->size] = cy;
	r->size = big->size + (cy ? 1 : 0);
	return 0;
}

noinline int bn_sub_val(struct bn *r, const struct bn *a, const struct bn *b)
{
	int err;

	if (bn_cmp_val(a, b) < 0)
		return -EINVAL;
	if (!a->size) /* 0 - 0: r may own no limbs to point into */
		return bn_set_u64(r, 0);
	err = bn_reserve(r, a->size);
	if (err)
		return err;
	bn_sub(r->limbs, a->limbs, a->size, b->limbs, b->size);
	r->size = __bn_normalized_size(r->limbs, a->size);
	return 0;
}

noinline int bn_mul_val(struct bn *r, const struct bn *a, const struct bn *b)
{
	const struct bn *big = a, *small = b;
	size_t rn, itch;
	u64 *t;

	if (a->size < b->size) {
		big = b;
		small = a;
	}
	if (!small->size)
		return bn_set_u64(r, 0);
	rn = big->size + small->size;
	itch = a == b ? __bn_sqr_n_itch(big->size) : __bn_mul_itch(big->size, small->size);
	t = bn_limbs_alloc(rn + itch);
	if (!t)
		return -ENOMEM;
	if (a == b)
		bn_sqr_n(t, a->limbs, a->size, t + rn);
	else
		bn_mul(t, big->limbs, big->size, small->limbs, small->size, t + rn);
	if (bn_reserve(r, rn)) {
		bn_mem_free(t);
		return -ENOMEM;
	}
	bn_copyi(r->limbs, t, rn);
	r->size = __bn_normalized_size(r->limbs, rn);
	bn_mem_free(t);
	return 0;
}

int bn_sqr_val(struct bn *r, const struct bn *a)
{
	return bn_mul_val(r, a, a);
}
