/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The harness of the big-number unit tests (test_bn.c, test_bn_div.c,
 * test_bn_fib.c; bn_check.c): one line per check group, "PASS name", "FAIL name: reason"
 * or "SKIP name: why", the first failure's reason kept; random operands
 * with runs of all-ones and zero limbs; conversions to GMP.
 *
 * Built twice: -O2 (full ranges) and with ASan+UBSan and -DBN_TEST_REDUCED
 * (all n up to 1500 instead of 5000, fewer random operands, n up to 10^6).
 */
#ifndef BN_CHECK_H
#define BN_CHECK_H

#include <gmp.h>
#include <stddef.h>

#include "fib_algo.h"
#include "bn_impl.h"

#ifdef BN_TEST_REDUCED
#define ALL_N_MAX 1500
#define RAND_ITERS 3
#define BIG_N 1000000ULL
#else
#define ALL_N_MAX 5000
#define RAND_ITERS 10
#define BIG_N 10000000ULL
#endif

/* Groups that failed so far (main's exit status). */
extern int failures;

/* A check group: begin, fail() any number of times (the first reason is kept), end. */
void group_begin(void);
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the group's line; a group that leaves bytes allocated fails (leak). */
void group_end(const char *name);

/* Deterministic random limbs; rnd_limbs() with runs of all-ones / zero limbs and bit patterns. */
u64 rnd(void);
void rnd_limbs(u64 *x, size_t n);

void to_mpz(mpz_t z, const u64 *x, size_t n);
/* r (n limbs) == z ? */
int eq_mpz(const u64 *r, size_t n, const mpz_t z);
/* malloc or exit with a FAIL line */
u64 *xalloc(size_t n);

/* Operand sizes at and around every multiplication threshold. */
extern const size_t edge_sizes[];
extern const size_t nedge;

/* The groups of test_bn_div.c: the Newton inverse and every division. */
void test_invert_divrem(void);

/* The groups of test_bn_fib.c: conversions, values, the algorithms and their registry. */
void test_dec(void);
void test_values(void);
void test_registry(void);
void test_algorithms(void);
void test_result_size(void);

#endif /* BN_CHECK_H */
