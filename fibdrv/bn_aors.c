// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_aors.c - addition and subtraction of limb vectors, built from one body
 * (bn_aors_tmpl.h) instantiated once per operation:
 *
 *   bn_add_n, bn_add_1, bn_add     r = a + b, returns the carry
 *   bn_sub_n, bn_sub_1, bn_sub     r = a - b, returns the borrow
 *
 * On x86-64 the _n functions run adc/sbb chains (bn_x86.h) on 4-limb
 * blocks and finish with the C step below.
 */
#include "bn_impl.h"

/* *r = a + b + c, returns the carry out (c and the carry are 0 or 1) */
static inline u64 bn_add_step(u64 *r, u64 a, u64 b, u64 c)
{
	bn_u128 t = (bn_u128)a + b + c;

	*r = (u64)t;
	return (u64)(t >> 64);
}

/* *r = a + b, returns the carry out */
static inline u64 bn_add_step1(u64 *r, u64 a, u64 b)
{
	u64 s = a + b;

	*r = s;
	return s < b;
}

/* *r = a - b - c, returns the borrow out (c and the borrow are 0 or 1) */
static inline u64 bn_sub_step(u64 *r, u64 a, u64 b, u64 c)
{
	*r = a - b - c;
	return (a < b) | ((a == b) & c);
}

/* *r = a - b, returns the borrow out */
static inline u64 bn_sub_step1(u64 *r, u64 a, u64 b)
{
	*r = a - b;
	return a < b;
}

#define BN_AORS(suffix) bn_add##suffix
#define BN_AORS_STEP bn_add_step
#define BN_AORS_STEP1 bn_add_step1
#define BN_AORS_X4 bn_add_n_x4
#include "bn_aors_tmpl.h"

#define BN_AORS(suffix) bn_sub##suffix
#define BN_AORS_STEP bn_sub_step
#define BN_AORS_STEP1 bn_sub_step1
#define BN_AORS_X4 bn_sub_n_x4
#include "bn_aors_tmpl.h"
