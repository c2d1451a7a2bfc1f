// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bn_bench - user-space timing of the fibdrv big-number algorithms and
 * decimal conversions against GMP (mpz_fib_ui, mpz_get_str), n = 10^2..10^7,
 * and F(10^8) with the default algorithm past its cap.
 *
 *   build/bench/bn_bench [--json FILE] [--max-n N] [--tune]
 *
 * Every figure is the best of several repetitions (at least 3, more while
 * the total stays under ~0.3 s), in the thread's CPU time (a time slice
 * lost to another process is not counted); ours and GMP's are run in turn,
 * one repetition each, so that a ratio compares figures taken over the
 * same seconds (on a shared host, run one after the other, they moved
 * apart by up to 40%).  The whole table is measured --passes times (2),
 * and each row keeps its quieter pass: a burst of the host's load lasts
 * seconds, longer than a row.  Prints what it ran with (CPU, the schoolbook
 * kernel: mulx/adx asm or C, the thresholds of bn.h, GMP's version) and a
 * markdown table, and writes JSON: {"config": {cpu, row_kernel, gmp,
 * thresholds}, "rows": [{n, algo, op, ns, gmp_ns, ratio}], "peak_memory":
 * [{n, digits, peak_bytes, result_bytes, per_digit}]}.  --tune prints the
 * crossover measurements behind the thresholds in bn.h.
 *
 * glibc's malloc returns freed memory at the top of the heap to the kernel
 * past 128 KiB and maps larger blocks afresh, both adaptively: a scratch
 * block just under or over those lines then costs its page faults on every
 * repetition, or not, and a conversion's time moved by 17% with the size of
 * its scratch alone. Both lines are set out of reach first, so that the
 * figures are the arithmetic's (GMP's and ours alike); the kernel's
 * allocation cost is another matter (fibtrace --cachesim=join shows it).
 */
#include <gmp.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bn_impl.h"
#include "fib_algo.h"

#define MIN_REPS 3
#define MAX_REPS 200
#define BUDGET_NS 300000000.0

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef int (*bench_fn)(void *ctx);

/*
 * Best of several runs of fn, and, if gfn is given, of gfn run in turn
 * with it (its best in *gns); a negative return aborts.
 */
static double best_pair_ns(bench_fn fn, void *ctx, bench_fn gfn, void *gctx, double *gns)
{
	double best = 1e300, gbest = 1e300, total = 0;
	int r;

	for (r = 0; r < MAX_REPS; r++) {
		double t0 = now_ns(), t1, t2;

		if (fn(ctx) < 0)
			return -1;
		t1 = now_ns();
		if (gfn && gfn(gctx) < 0)
			return -1;
		t2 = now_ns();
		best = t1 - t0 < best ? t1 - t0 : best;
		gbest = t2 - t1 < gbest ? t2 - t1 : gbest;
		total += t2 - t0;
		if (r + 1 >= MIN_REPS && total > (gfn ? 2 : 1) * BUDGET_NS)
			break;
	}
	if (gns)
		*gns = gbest;
	return best;
}

static double best_ns(bench_fn fn, void *ctx)
{
	return best_pair_ns(fn, ctx, NULL, NULL, NULL);
}

struct fib_ctx {
	const struct fib_algo *algo;
	unsigned long n;
};

static int run_fib(void *p)
{
	struct fib_ctx *c = p;
	struct fib_value v = FIB_VALUE_INIT;
	int err = fib_compute(c->algo, c->n, &v);

	fib_value_release(&v);
	return err;
}

/* past the device's cap (fib_compute refuses it): the algorithm itself */
static int run_fib_uncapped(void *p)
{
	struct fib_ctx *c = p;
	struct fib_value v = FIB_VALUE_INIT;
	int err = c->algo->compute(c->n, &v);

	fib_value_release(&v);
	return err;
}

static int run_gmp_fib(void *p)
{
	struct fib_ctx *c = p;
	mpz_t z;

	mpz_init(z);
	mpz_fib_ui(z, c->n);
	mpz_clear(z);
	return 0;
}

struct dec_ctx {
	const struct bn *x;
	mpz_t z;
	char *buf;
	size_t cap;
	int dc;
};

static int run_dec(void *p)
{
	struct dec_ctx *c = p;
	long r = c->dc ? bn_to_dec_dc(c->x->limbs, c->x->size, c->buf, c->cap)
		       : bn_to_dec_simple(c->x->limbs, c->x->size, c->buf, c->cap);

	return r < 0 ? -1 : 0;
}

static int run_gmp_dec(void *p)
{
	struct dec_ctx *c = p;

	mpz_get_str(c->buf, 10, c->z);
	return 0;
}

struct row {
	unsigned long n;
	const char *algo;
	const char *op;
	double ns, gmp_ns;
};

static struct row rows[256];
static int nrows, passes = 2;

/* clang-format off */
static const char table_head[] =
	"| n        | algo                   | op     |        ns      |     gmp ns     |  ratio  |\n"
	"|----------|------------------------|--------|----------------|----------------|---------|\n";
/* clang-format on */

struct peak_row {
	unsigned long n;
	long digits;
	size_t peak, held;
};

static struct peak_row peaks[2];
static int npeaks;

/* the thresholds of bn.h this build uses, by name (printed and in the JSON) */
static const struct {
	const char *name;
	long value;
} thresholds[] = {
	{"mul_karatsuba", BN_MUL_KARATSUBA_THRESHOLD},
	{"sqr_karatsuba", BN_SQR_KARATSUBA_THRESHOLD},
	{"mul_toom3", BN_MUL_TOOM3_THRESHOLD},
	{"sqr_toom3", BN_SQR_TOOM3_THRESHOLD},
	{"mul_toom4", BN_MUL_TOOM4_THRESHOLD},
	{"sqr_toom4", BN_SQR_TOOM4_THRESHOLD},
	{"mul_ntt", BN_MUL_NTT_THRESHOLD},
	{"sqr_ntt", BN_SQR_NTT_THRESHOLD},
	{"ntt_full_min", BN_NTT_FULL_MIN},
	{"dec_dc", BN_DEC_DC_THRESHOLD},
	{"dec_chain_min", BN_DEC_CHAIN_MIN},
	{"dec_chain_parts", BN_DEC_CHAIN_PARTS},
};

static char cpu_name[128] = "unknown";

/* the first CPU's model name, family and model (/proc/cpuinfo), for the report */
static void read_cpu_name(void)
{
	char line[256], name[96] = "unknown";
	int family = -1, model = -1;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f) && line[0] != '\n') { /* the first CPU's block */
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		if (!strncmp(line, "model name", 10)) {
			snprintf(name, sizeof(name), "%s", colon + 2);
			name[strcspn(name, "\n\"\\")] = '\0';
		} else if (!strncmp(line, "cpu family", 10)) {
			family = atoi(colon + 1);
		} else if (!strncmp(line, "model\t", 6)) {
			model = atoi(colon + 1);
		}
	}
	if (f)
		fclose(f);
	snprintf(cpu_name, sizeof(cpu_name), "%s (family %d, model %d)", name, family, model);
}

static const char *row_kernel(void)
{
	return bn_mul_k_ok() ? "mulx+adx asm" : "C";
}

static void print_config(void)
{
	size_t i;

	read_cpu_name();
	printf("cpu: %s; schoolbook kernel: %s; GMP %s\n", cpu_name, row_kernel(), gmp_version);
	printf("thresholds (limbs; dec_chain_parts: a ratio):");
	for (i = 0; i < sizeof(thresholds) / sizeof(thresholds[0]); i++)
		printf(" %s %ld", thresholds[i].name, thresholds[i].value);
	printf("\n\n");
}

static void print_row(const struct row *r)
{
	printf("| %8lu | %-22s | %-6s | %14.0f | %14.0f | %7.2f |\n", r->n, r->algo, r->op, r->ns,
	       r->gmp_ns, r->ns / r->gmp_ns);
	fflush(stdout);
}

/*
 * A measured row, printed; a row measured in an earlier pass keeps the
 * pass whose pair (ours + GMP's) took less time: the quieter seconds, the
 * pair kept together so that its ratio compares the same seconds.
 */
static void add_row(unsigned long n, const char *algo, const char *op, double ns, double gns)
{
	struct row r = {n, algo, op, ns, gns};
	int i;

	print_row(&r);
	for (i = 0; i < nrows; i++)
		if (rows[i].n == n && !strcmp(rows[i].algo, algo) && !strcmp(rows[i].op, op)) {
			if (ns + gns < rows[i].ns + rows[i].gmp_ns)
				rows[i] = r;
			return;
		}
	if (nrows < (int)(sizeof(rows) / sizeof(rows[0])))
		rows[nrows++] = r;
}

/* ---- --tune: threshold crossovers ------------------------------------- */

struct mul_ctx {
	u64 *r, *a, *b, *s;
	size_t n;
	int which, iters;
};

static int run_mul(void *p)
{
	struct mul_ctx *c = p;
	int i;

	for (i = 0; i < c->iters; i++) {
		switch (c->which) {
		case 0: bn_mul_basecase(c->r, c->a, c->n, c->b, c->n); break;
		case 1: bn_mul_karatsuba(c->r, c->a, c->b, c->n, c->s); break;
		case 2: bn_mul_toom3(c->r, c->a, c->b, c->n, c->s); break;
		case 3: bn_sqr_basecase(c->r, c->a, c->n); break;
		case 4: bn_sqr_karatsuba(c->r, c->a, c->n, c->s); break;
		case 5: bn_sqr_toom3(c->r, c->a, c->n, c->s); break;
		case 6:
			bn_mul_ntt(c->r, c->a, c->n, c->b, c->n, c->s);
			break;
		case 7:
			bn_sqr_ntt(c->r, c->a, c->n, c->s);
			break;
		case 8:
			bn_sqr_toom4(c->r, c->a, c->n, c->s);
			break;
		case 9:
			bn_mul_toom4(c->r, c->a, c->b, c->n, c->s);
			break;
		}
	}
	return 0;
}

/* Toom-3 and Toom-4 against the NTT, n = 500 .. 40000 limbs (ns per product) */
static void tune_ntt(struct mul_ctx *c)
{
	size_t n;

	printf("\n| n | toom3 | toom4 | ntt | ntt / the faster Toom | (ns per mul, then per "
	       "sqr)\n");
	for (n = 500; n <= 40000; n += n < 4000 ? 250 : (n < 10000 ? 1000 : 5000)) {
		double t[6];
		int w;

		c->n = n;
		c->iters = n < 2000 ? 10 : 1;
		for (w = 0; w < 6; w++) {
			c->which = (int[]){2, 6, 5, 7, 8, 9}[w];
			t[w] = best_ns(run_mul, c) / c->iters;
		}
		printf("| %5zu | mul %10.0f %10.0f %10.0f %5.2f | sqr %10.0f %10.0f %10.0f %5.2f "
		       "|\n",
		       n, t[0], t[5], t[1], t[1] / (t[5] < t[0] ? t[5] : t[0]), t[2], t[4], t[3],
		       t[3] / (t[4] < t[2] ? t[4] : t[2]));
	}
}

static void tune(void)
{
	size_t n, i, max = 40000;
	struct mul_ctx c;

	c.a = malloc(max * 8);
	c.b = malloc(max * 8);
	c.r = malloc(2 * max * 8);
	c.s = malloc((bn_mul_itch(max, max) + bn_ntt_itch(2 * max, 0)) * 8);
	for (i = 0; i < max; i++) {
		c.a[i] = 0x9e3779b97f4a7c15ULL * (i + 1);
		c.b[i] = 0xc2b2ae3d27d4eb4fULL * (i + 7);
	}
	printf("| n | basecase | karatsuba | toom3 | (ns per mul, then per sqr)\n");
	c.iters = 100;
	for (n = 8; n <= 400; n += n < 64 ? 4 : (n < 160 ? 8 : 40)) {
		double t[6];
		int w;

		c.n = n;
		for (w = 0; w < 6; w++) {
			c.which = w;
			t[w] = best_ns(run_mul, &c) / 100;
		}
		printf("| %3zu | mul %9.0f %9.0f %9.0f | sqr %9.0f %9.0f %9.0f |\n", n, t[0], t[1],
		       t[2], t[3], t[4], t[5]);
	}
	tune_ntt(&c);
	free(c.a);
	free(c.b);
	free(c.r);
	free(c.s);
}

/* the JSON file: what ran, the rows, the peaks; 0 or 1 */
static int write_json(const char *path)
{
	FILE *f = fopen(path, "w");
	size_t t;
	int i;

	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f,
		"{\n  \"config\": {\"cpu\": \"%s\", \"row_kernel\": \"%s\", \"gmp\": \"%s\", "
		"\"passes\": %d, \"thresholds\": {",
		cpu_name, row_kernel(), gmp_version, passes);
	for (t = 0; t < sizeof(thresholds) / sizeof(thresholds[0]); t++)
		fprintf(f, "%s\"%s\": %ld", t ? ", " : "", thresholds[t].name, thresholds[t].value);
	fprintf(f, "}},\n  \"rows\": [\n");
	for (i = 0; i < nrows; i++)
		fprintf(f,
			"    {\"n\": %lu, \"algo\": \"%s\", \"op\": \"%s\", \"ns\": %.0f, "
			"\"gmp_ns\": %.0f, \"ratio\": %.3f}%s\n",
			rows[i].n, rows[i].algo, rows[i].op, rows[i].ns, rows[i].gmp_ns,
			rows[i].ns / rows[i].gmp_ns, i + 1 < nrows ? "," : "");
	fprintf(f, "  ],\n  \"peak_memory\": [\n");
	for (i = 0; i < npeaks; i++)
		fprintf(f,
			"    {\"n\": %lu, \"digits\": %ld, \"peak_bytes\": %zu, "
			"\"result_bytes\": %zu, \"per_digit\": %.2f}%s\n",
			peaks[i].n, peaks[i].digits, peaks[i].peak, peaks[i].held,
			(double)peaks[i].peak / (double)peaks[i].digits, i + 1 < npeaks ? "," : "");
	fprintf(f, "  ]\n}\n");
	if (fclose(f)) {
		perror(path);
		return 1;
	}
	printf("wrote %s\n", path);
	return 0;
}

/* every algorithm within its cap, then the conversions of F(n); 0 or 1 */
static int bench_n(unsigned long n)
{
	static const char *big[] = { "str-add", "bn-iter", "bn-fdouble", "bn-fdouble-sqr",
				     "bn-fdouble-karatsuba" };
	struct fib_ctx fc = {NULL, n};
	struct fib_value v = FIB_VALUE_INIT;
	struct dec_ctx dc;
	double ns, gns;
	size_t a;

	for (a = 0; a < sizeof(big) / sizeof(big[0]); a++) {
		fc.algo = fib_algo_find(big[a], strlen(big[a]));
		if (!fc.algo || n > fc.algo->max_n)
			continue;
		ns = best_pair_ns(run_fib, &fc, run_gmp_fib, &fc, &gns);
		add_row(n, big[a], "fib", ns, gns);
	}
	if (fib_compute(fib_algo_default(), n, &v)) {
		fprintf(stderr, "compute failed\n");
		return 1;
	}
	dc.x = &v.num;
	mpz_init(dc.z);
	mpz_import(dc.z, v.num.size, -1, 8, 0, 0, v.num.limbs);
	dc.cap = bn_dec_bound(v.num.size) + 2;
	dc.buf = malloc(dc.cap);
	dc.dc = 1;
	ns = best_pair_ns(run_dec, &dc, run_gmp_dec, &dc, &gns);
	add_row(n, "bn_to_dec_dc", "to_dec", ns, gns);
	if (n <= 1000000) {
		dc.dc = 0;
		ns = best_pair_ns(run_dec, &dc, run_gmp_dec, &dc, &gns);
		add_row(n, "bn_to_dec_simple", "to_dec", ns, gns);
	}
	free(dc.buf);
	mpz_clear(dc.z);
	fib_value_release(&v);
	return 0;
}

/* peak memory of one F(n) computation + decimal formatting, n = 10^6, 10^7; 0 or 1 */
static int measure_peaks(unsigned long max_n)
{
	unsigned long n;
	size_t cur, peak;

	for (n = 1000000; n <= 10000000 && n <= max_n; n *= 10) {
		struct fib_value v = FIB_VALUE_INIT;
		long len;

		bn_mem_reset_peak();
		bn_mem_stats(&cur, &peak);
		if (fib_compute(fib_algo_default(), n, &v))
			return 1;
		len = fib_format_size(&v, FIBDRV_FORMAT_DEC);
		bn_mem_stats(&cur, &peak);
		printf("%speak memory of F(%lu) with %s + decimal formatting (%ld digits): "
		       "%zu bytes (%.1f KiB, %.2f x the digits) allocated at peak, %zu held by the "
		       "result\n",
		       n == 1000000 ? "\n" : "", n, fib_algo_default()->name, len, peak,
		       peak / 1024.0, (double)peak / (double)len, cur);
		peaks[npeaks++] = (struct peak_row){n, len, peak, cur};
		fib_value_release(&v);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *json = "bench/results/bn.json";
	unsigned long max_n = 10000000UL, n;
	int i, pass;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tune")) {
			tune();
			return 0;
		} else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			json = argv[++i];
		} else if (!strcmp(argv[i], "--max-n") && i + 1 < argc) {
			max_n = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "--passes") && i + 1 < argc && atoi(argv[i + 1]) > 0) {
			passes = atoi(argv[++i]);
		} else {
			fprintf(stderr,
				"usage: %s [--json FILE] [--max-n N] [--passes N] [--tune]\n",
				argv[0]);
			return 2;
		}
	}

	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	mallopt(M_MMAP_THRESHOLD, 1 << 30);
	print_config();
	for (pass = 1; pass <= passes; pass++) {
		printf("pass %d of %d\n%s", pass, passes, table_head);
		for (n = 100; n <= max_n; n *= 10)
			if (bench_n(n))
				return 1;
		/* F(10^8): the default algorithm past its cap (a read would be refused) */
		if (max_n >= 10000000) {
			struct fib_ctx fc = {fib_algo_default(), 100000000UL};
			double ns, gns;

			ns = best_pair_ns(run_fib_uncapped, &fc, run_gmp_fib, &fc, &gns);
			add_row(fc.n, fc.algo->name, "fib", ns, gns);
		}
	}
	if (passes > 1) {
		printf("\nkept, each row from its quieter pass:\n%s", table_head);
		for (i = 0; i < nrows; i++)
			print_row(&rows[i]);
	}
	if (measure_peaks(max_n))
		return 1;
	return write_json(json);
}
