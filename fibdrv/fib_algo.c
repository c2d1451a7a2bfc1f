// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fib_algo.c - Fibonacci algorithms and their registry (fib_algos[]).
 * Computing into a struct fib_value and formatting it is in fib_value.c.
 */
#include "fib_algo.h"

#define FIB_U64_MAX_N 93    /* F(93) = 12200160415121876738 */
#define FIB_STOP_EVERY 4096 /* iterations between bn_should_stop() calls */

/* limbs enough for F(n) (and F(n + 1)): bits(F(n)) <= 0.69424192 n + 1 */
static size_t fib_limbs(u64 n)
{
	return (size_t)((n / 1000000 * 694242 + (n % 1000000) * 694242 / 1000000 + 64) / 64 + 2);
}

/* decimal digits enough for F(n): digits <= 0.20898764 n + 1 */
static size_t fib_digits(u64 n)
{
	return (size_t)(n / 100000 * 20899 + (n % 100000) * 20899 / 100000 + 2);
}

static int fib_value_set_u64(struct fib_value *out, u64 n, u64 v)
{
	int err = bn_set_u64(&out->num, v);

	if (err)
		return err;
	out->n = n;
	out->has_num = 1;
	return 0;
}

/* Copies F(n) = limbs[0..len) into out; the caller keeps its scratch. */
static int fib_value_set_limbs(struct fib_value *out, u64 n, const u64 *limbs, size_t len)
{
	int err = bn_reserve(&out->num, len);

	if (err)
		return err;
	bn_copyi(out->num.limbs, limbs, len);
	out->num.size = len;
	out->n = n;
	out->has_num = 1;
	return 0;
}

/* ---- 64-bit algorithms --------------------------------------------------- */

noinline int fib_iter64(u64 n, struct fib_value *out)
{
	u64 a = 0, b = 1, i;

	for (i = 0; i < n; i++) {
		u64 t = a + b;

		a = b;
		b = t;
	}
	return fib_value_set_u64(out, n, a);
}

/*
 * Fast doubling on (a, b) = (F(k), F(k+1)): F(2k) = a (2b - a),
 * F(2k+1) = a^2 + b^2.  Wrap-around in u64 is harmless: the identities hold
 * mod 2^64 and F(n) itself fits for n <= 93.
 */
static inline void fib_u64_step(u64 *a, u64 *b, int bit)
{
	u64 c = *a * (2 * *b - *a);
	u64 d = *a * *a + *b * *b;

	if (bit) {
		*a = d;
		*b = c + d;
	} else {
		*a = c;
		*b = d;
	}
}

noinline int fib_fdouble64(u64 n, struct fib_value *out)
{
	u64 a = 0, b = 1;
	int i;

	for (i = 63; i >= 0; i--)
		fib_u64_step(&a, &b, (int)((n >> i) & 1));
	return fib_value_set_u64(out, n, a);
}

noinline int fib_fdouble64_clz(u64 n, struct fib_value *out)
{
	u64 a = 0, b = 1;
	int i;

	if (n)
		for (i = 63 - __builtin_clzll(n); i >= 0; i--)
			fib_u64_step(&a, &b, (int)((n >> i) & 1));
	return fib_value_set_u64(out, n, a);
}

/* ---- str-add: decimal strings, one digit per byte ----------------------- */

noinline int fib_str_add(u64 n, struct fib_value *out)
{
	size_t cap = fib_digits(n) + 1, lp = 1, lc = 1, i;
	u8 *mem, *prev, *cur, *t;
	char *dec;
	u64 k;

	mem = bn_mem_alloc(2 * cap);
	if (!mem)
		return -ENOMEM;
	/* least significant digit first */
	prev = mem;
	cur = mem + cap;
	prev[0] = 0; /* F(0) */
	cur[0] = 1;  /* F(1) */
	if (n == 0) {
		t = prev;
		prev = cur;
		cur = t;
	}
	for (k = 2; k <= n; k++) {
		u8 c = 0;

		/* prev = prev + cur; lc >= lp */
		for (i = 0; i < lc; i++) {
			u8 s = (u8)(cur[i] + (i < lp ? prev[i] : 0) + c);

			c = s >= 10;
			prev[i] = c ? (u8)(s - 10) : s;
		}
		if (c)
			prev[i++] = 1;
		lp = lc;
		lc = i;
		t = prev;
		prev = cur;
		cur = t;
		if ((k % FIB_STOP_EVERY) == 0 && bn_should_stop()) {
			bn_mem_free(mem);
			return -EINTR;
		}
	}
	dec = bn_mem_alloc(lc);
	if (!dec) {
		bn_mem_free(mem);
		return -ENOMEM;
	}
	for (i = 0; i < lc; i++)
		dec[i] = (char)('0' + cur[lc - 1 - i]);
	bn_mem_free(mem);
	out->dec = dec;
	out->dec_len = lc;
	out->has_dec = 1;
	out->n = n;
	return 0;
}

/* ---- bn-iter: big-number additions -------------------------------------- */

noinline int fib_bn_iter(u64 n, struct fib_value *out)
{
	size_t cap = fib_limbs(n), lp = 0, lc = 1;
	u64 *mem, *prev, *cur, *t, k, cy;
	int err;

	if (n == 0)
		return fib_value_set_u64(out, n, 0);
	mem = bn_limbs_alloc(2 * cap);
	if (!mem)
		return -ENOMEM;
	prev = mem; /* F(0) = 0, no limbs */
	cur = mem + cap;
	cur[0] = 1; /* F(1) */
	for (k = 2; k <= n; k++) {
		cy = bn_add(prev, cur, lc, prev, lp);
		lp = lc;
		if (cy)
			prev[lc++] = cy;
		t = prev;
		prev = cur;
		cur = t;
		if ((k % FIB_STOP_EVERY) == 0 && bn_should_stop()) {
			bn_mem_free(mem);
			return -EINTR;
		}
	}
	err = fib_value_set_limbs(out, n, cur, lc);
	bn_mem_free(mem);
	return err;
}

/* ---- bn-fdouble: classic fast doubling, schoolbook products -------------- */

/* r = a * b, any sizes (0 allowed); returns the normalised size */
static size_t fib_mul_school(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn)
{
	if (!an || !bn)
		return 0;
	if (an >= bn)
		bn_mul_basecase(r, a, an, b, bn);
	else
		bn_mul_basecase(r, b, bn, a, an);
	return bn_normalized_size(r, an + bn);
}

/* Orders two operands so that *an >= *bn, as the limb primitives want. */
static void fib_longer_first(const u64 **a, size_t *an, const u64 **b, size_t *bn)
{
	const u64 *t = *a;
	size_t tn = *an;

	if (*an >= *bn)
		return;
	*a = *b;
	*an = *bn;
	*b = t;
	*bn = tn;
}

/* r = a + b, any sizes; returns the size */
static size_t fib_add(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn)
{
	u64 cy;

	fib_longer_first(&a, &an, &b, &bn);
	cy = bn_add(r, a, an, b, bn);
	if (cy)
		r[an++] = cy;
	return an;
}

noinline int fib_bn_fdouble(u64 n, struct fib_value *out)
{
	size_t cap = fib_limbs(n) + 4, la = 0, lb = 1, lt, lc, ld, lx;
	u64 *mem, *a, *b, *t, *c, *d, *x, cy;
	int i, err;

	if (n == 0)
		return fib_value_set_u64(out, n, 0);
	mem = bn_limbs_alloc(6 * cap);
	if (!mem)
		return -ENOMEM;
	a = mem;     /* F(k) */
	b = a + cap; /* F(k + 1) */
	t = b + cap;
	c = t + cap;
	d = c + cap;
	x = d + cap;
	b[0] = 1;
	for (i = 63 - __builtin_clzll(n); i >= 0; i--) {
		/* t = 2b - a */
		cy = bn_lshift(t, b, lb, 1);
		lt = lb;
		if (cy)
			t[lt++] = cy;
		bn_sub(t, t, lt, a, la);
		lt = bn_normalized_size(t, lt);
		lc = fib_mul_school(c, a, la, t, lt); /* F(2k) */
		ld = fib_mul_school(d, a, la, a, la);
		lx = fib_mul_school(x, b, lb, b, lb);
		ld = fib_add(d, x, lx, d, ld); /* F(2k+1) */
		if ((n >> i) & 1) {
			/* (a, b) = (d, c + d) */
			lb = fib_add(b, c, lc, d, ld);
			bn_copyi(a, d, ld);
			la = ld;
		} else {
			bn_copyi(a, c, lc);
			la = lc;
			bn_copyi(b, d, ld);
			lb = ld;
		}
		if (bn_should_stop()) {
			bn_mem_free(mem);
			return -EINTR;
		}
	}
	err = fib_value_set_limbs(out, n, a, la);
	bn_mem_free(mem);
	return err;
}

/* ---- fast doubling with squarings (as GMP's mpz_fib2_ui) ----------------- */

/* clang-format off */
static const u64 fib_table[FIB_U64_MAX_N + 1] = {
	0ULL, 1ULL, 1ULL, 2ULL, 3ULL, 5ULL, 8ULL, 13ULL, 21ULL, 34ULL, 55ULL,
	89ULL, 144ULL, 233ULL, 377ULL, 610ULL, 987ULL, 1597ULL, 2584ULL,
	4181ULL, 6765ULL, 10946ULL, 17711ULL, 28657ULL, 46368ULL, 75025ULL,
	121393ULL, 196418ULL, 317811ULL, 514229ULL, 832040ULL, 1346269ULL,
	2178309ULL, 3524578ULL, 5702887ULL, 9227465ULL, 14930352ULL,
	24157817ULL, 39088169ULL, 63245986ULL, 102334155ULL, 165580141ULL,
	267914296ULL, 433494437ULL, 701408733ULL, 1134903170ULL,
	1836311903ULL, 2971215073ULL, 4807526976ULL, 7778742049ULL,
	12586269025ULL, 20365011074ULL, 32951280099ULL, 53316291173ULL,
	86267571272ULL, 139583862445ULL, 225851433717ULL, 365435296162ULL,
	591286729879ULL, 956722026041ULL, 1548008755920ULL, 2504730781961ULL,
	4052739537881ULL, 6557470319842ULL, 10610209857723ULL,
	17167680177565ULL, 27777890035288ULL, 44945570212853ULL,
	72723460248141ULL, 117669030460994ULL, 190392490709135ULL,
	308061521170129ULL, 498454011879264ULL, 806515533049393ULL,
	1304969544928657ULL, 2111485077978050ULL, 3416454622906707ULL,
	5527939700884757ULL, 8944394323791464ULL, 14472334024676221ULL,
	23416728348467685ULL, 37889062373143906ULL, 61305790721611591ULL,
	99194853094755497ULL, 160500643816367088ULL, 259695496911122585ULL,
	420196140727489673ULL, 679891637638612258ULL, 1100087778366101931ULL,
	1779979416004714189ULL, 2880067194370816120ULL, 4660046610375530309ULL,
	7540113804746346429ULL, 12200160415121876738ULL,
};
/* clang-format on */

struct fib_sq_ops {
	int fast; /* 0: schoolbook squaring/product, 1: fastest */
	u64 *scratch;
};

static size_t fib_sq(const struct fib_sq_ops *o, u64 *r, const u64 *a, size_t an)
{
	if (!an)
		return 0;
	if (o->fast)
		bn_sqr_n(r, a, an, o->scratch);
	else
		bn_sqr_basecase(r, a, an);
	return bn_normalized_size(r, 2 * an);
}

static size_t fib_mul(const struct fib_sq_ops *o, u64 *r, const u64 *a, size_t an, const u64 *b,
		      size_t bn)
{
	fib_longer_first(&a, &an, &b, &bn);
	if (!bn)
		return 0;
	if (o->fast)
		bn_mul(r, a, an, b, bn, o->scratch);
	else
		bn_mul_basecase(r, a, an, b, bn);
	return bn_normalized_size(r, an + bn);
}

/* r = a + (b << 1), sizes any; r may alias a; returns the size */
static size_t fib_add_2x(u64 *r, const u64 *a, size_t an, const u64 *b, size_t bn, u64 *tmp)
{
	size_t tn = bn;
	u64 cy = bn_lshift(tmp, b, bn, 1);

	if (cy)
		tmp[tn++] = cy;
	return fib_add(r, a, an, tmp, tn);
}

/* F(k) and F(k - 1) during the doubling, and two scratch numbers */
struct fib_pair {
	u64 *f1, *f0, *s1, *s0;
	size_t l1, l0;
};

/*
 * One bit: (f1, f0) = (F(k), F(k - 1)) becomes (F(2k + 1), F(2k)) when bit
 * is set, else (F(2k), F(2k - 1)); odd_k is k & 1.
 */
static void fib_sq_step(const struct fib_sq_ops *o, struct fib_pair *p, int odd_k, int bit)
{
	u64 *f1 = p->f1, *f0 = p->f0, *s1 = p->s1, *s0 = p->s0;
	size_t l1, l0, ls1, ls0;
	u64 cy;

	ls1 = fib_sq(o, s1, f1, p->l1);
	ls0 = fib_sq(o, s0, f0, p->l0);
	/* f1 = F(2k+1) = 4 F(k)^2 - F(k-1)^2 + 2 (-1)^k */
	cy = bn_lshift(f1, s1, ls1, 2);
	l1 = ls1;
	if (cy)
		f1[l1++] = cy;
	bn_sub(f1, f1, l1, s0, ls0);
	if (odd_k)
		bn_sub_1(f1, f1, l1, 2);
	else if (bn_add_1(f1, f1, l1, 2))
		f1[l1++] = 1;
	l1 = bn_normalized_size(f1, l1);
	/* f0 = F(2k-1) = F(k)^2 + F(k-1)^2 */
	l0 = fib_add(f0, s1, ls1, s0, ls0);
	/* F(2k) = F(2k+1) - F(2k-1) */
	if (bit) {
		bn_sub(f0, f1, l1, f0, l0); /* (F(2k+1), F(2k)) */
		l0 = bn_normalized_size(f0, l1);
	} else {
		bn_sub(f1, f1, l1, f0, l0); /* (F(2k), F(2k-1)) */
		l1 = bn_normalized_size(f1, l1);
	}
	p->l1 = l1;
	p->l0 = l0;
}

/*
 * The last step, one product: r = F(n) from (f1, f0) = (F(m), F(m - 1)),
 * m = n >> 1.  Returns the size of r (its room is 2 * half + 2 limbs).
 */
static size_t fib_sq_last(const struct fib_sq_ops *o, struct fib_pair *p, u64 n, u64 m, u64 *r)
{
	u64 *f1 = p->f1, *f0 = p->f0, *s1 = p->s1, *s0 = p->s0;
	size_t l1 = p->l1, l0 = p->l0, lu, lw;
	u64 cy;

	if (!(n & 1)) {
		/* F(2m) = F(m) (F(m) + 2 F(m-1)) */
		lu = fib_add_2x(s1, f1, l1, f0, l0, s0);
		return fib_mul(o, r, f1, l1, s1, lu);
	}
	/* F(2m+1) = (2F(m) + F(m-1)) (2F(m) - F(m-1)) + 2 (-1)^m */
	cy = bn_lshift(s1, f1, l1, 1);
	lu = l1;
	if (cy)
		s1[lu++] = cy;
	bn_copyi(s0, s1, lu);
	lw = lu;
	lu = fib_add(s1, s1, lu, f0, l0);
	bn_sub(s0, s0, lw, f0, l0);
	lw = bn_normalized_size(s0, lw);
	l1 = fib_mul(o, r, s1, lu, s0, lw);
	if (m & 1) {
		bn_sub_1(r, r, l1, 2);
	} else {
		cy = bn_add_1(r, r, l1, 2);
		if (cy)
			r[l1++] = cy;
	}
	return l1;
}

static int fib_fdouble_sq(u64 n, struct fib_value *out, int fast)
{
	size_t half = fib_limbs(n / 2 + 1) + 8, itch;
	struct fib_sq_ops o;
	struct fib_pair p;
	unsigned int s;
	u64 *mem, m;
	int err, i;

	if (n <= FIB_U64_MAX_N)
		return fib_value_set_u64(out, n, fib_table[n]);
	m = n >> 1;
	s = 0;
	while ((m >> s) > FIB_U64_MAX_N)
		s++;
	/*
	 * squares of at most half limbs, and the last step's one product of
	 * two numbers of at most half limbs, one limb apart at most (both at
	 * least F(m)'s, half - 16 limbs or more): bn_mul() takes it as one
	 * transform, or below the NTT as bn_mul_n() of the shorter and one
	 * basecase row beside a product of 2 half limbs; not the bound of every
	 * unbalanced product (bn_mul_itch(), 4 to 6 half limbs more)
	 */
	itch = bn_mul_n_itch(half);
	if (bn_sqr_n_itch(half) > itch)
		itch = bn_sqr_n_itch(half);
	if (half < BN_MUL_NTT_THRESHOLD + 32)
		itch += 2 * half;
	itch = fast ? itch : 0;
	mem = bn_limbs_alloc(4 * half + itch);
	if (!mem)
		return -ENOMEM;
	err = bn_reserve(&out->num, 2 * half + 2);
	if (err) {
		bn_mem_free(mem);
		return err;
	}
	p.f1 = mem;	    /* F(k) */
	p.f0 = p.f1 + half; /* F(k - 1) */
	p.s1 = p.f0 + half;
	p.s0 = p.s1 + half;
	o.fast = fast;
	o.scratch = p.s0 + half;
	p.f1[0] = fib_table[m >> s];
	p.f0[0] = fib_table[(m >> s) - 1];
	p.l1 = 1;
	p.l0 = p.f0[0] ? 1 : 0;
	for (i = (int)s - 1; i >= 0; i--) {
		fib_sq_step(&o, &p, (int)((m >> (i + 1)) & 1), (int)((m >> i) & 1));
		if (bn_should_stop()) {
			err = -EINTR;
			goto out;
		}
	}
	/* now f1 = F(m), f0 = F(m - 1) */
	p.l1 = fib_sq_last(&o, &p, n, m, out->num.limbs);
	out->num.size = bn_normalized_size(out->num.limbs, p.l1);
	out->has_num = 1;
	out->n = n;
	err = 0;
out:
	bn_mem_free(mem);
	return err;
}

noinline int fib_bn_fdouble_sqr(u64 n, struct fib_value *out)
{
	return fib_fdouble_sq(n, out, 0);
}

noinline int fib_bn_fdouble_karatsuba(u64 n, struct fib_value *out)
{
	return fib_fdouble_sq(n, out, 1);
}

/* ---- registry ------------------------------------------------------------ */

/* caps: one computation stays under about a second; see docs/bignum.md */
const struct fib_algo fib_algos[] = {
	{"iter64", FIB_U64_MAX_N, fib_iter64, "u64 iteration, n <= 93", FIB_ALGO_U64},
	{"fdouble64", FIB_U64_MAX_N, fib_fdouble64, "u64 fast doubling over all 64 bits of n",
	 FIB_ALGO_U64},
	{"fdouble64-clz", FIB_U64_MAX_N, fib_fdouble64_clz,
	 "u64 fast doubling from the top set bit (clz)", FIB_ALGO_U64},
	{"str-add", 100000ULL, fib_str_add, "decimal string addition, one digit per byte", 0},
	{"bn-iter", 500000ULL, fib_bn_iter, "big-number addition loop", 0},
	{"bn-fdouble", 3000000ULL, fib_bn_fdouble, "fast doubling, 3 schoolbook products per bit",
	 0},
	{"bn-fdouble-sqr", 5000000ULL, fib_bn_fdouble_sqr,
	 "fast doubling, 2 schoolbook squarings per bit (GMP fib2 identities)", 0},
	{"bn-fdouble-karatsuba", 50000000ULL, fib_bn_fdouble_karatsuba,
	 "fast doubling, 2 squarings per bit, Karatsuba/Toom-3/NTT", 0},
};

const unsigned int fib_algo_count = sizeof(fib_algos) / sizeof(fib_algos[0]);

const struct fib_algo *fib_algo_find(const char *name, size_t len)
{
	unsigned int i;

	if (!name)
		return NULL;
	len = strnlen(name, len);
	if (len && name[len - 1] == '\n')
		len--;
	for (i = 0; i < fib_algo_count; i++) {
		const char *an = fib_algos[i].name;

		if (strlen(an) == len && !memcmp(an, name, len))
			return &fib_algos[i];
	}
	return NULL;
}

const struct fib_algo *fib_algo_default(void)
{
	return &fib_algos[fib_algo_count - 1];
}
