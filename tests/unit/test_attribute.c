// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of fibtrace --compare --attribute (src/fibtrace/compare/
 * functions.c) on synthetic per-read self times: functions matched across
 * builds by name (their slots differ), the family of tests, Holm, the
 * order of the list (the planted change first, a change with negative
 * medians after it as dominated by tracing) and the JSON members. Each
 * check prints "PASS attribute.<name>" or "FAIL ...".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_int.h"

#define ROUNDS 20
#define NF 3

static int failures;

static void check(const char *name, int ok)
{
	printf("%s attribute.%s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

/* Build a's slots: fib_read 0, fibdrv_format 1, bn_x 2; build b's: bn_x 1, fibdrv_format 2. */
static const char *const names_a[NF] = {"fib_read", "fibdrv_format", "bn_x"};
static const char *const names_b[NF] = {"fib_read", "bn_x", "fibdrv_format"};

static void set_targets(struct ft_targets *tg, const char *const *names)
{
	int i;

	memset(tg, 0, sizeof(*tg));
	for (i = 0; i < NF; i++) {
		snprintf(tg->t[i].name, sizeof(tg->t[i].name), "%s", names[i]);
		tg->t[i].slot = i;
	}
	tg->count = NF;
}

/*
 * Self time of @fn in round @r of build @v at n index @i: the same noise on
 * both sides, fibdrv_format 1000 ns slower in build b at the second n, bn_x
 * below 0 (tracing-dominated) and 2000 ns faster in build b there.
 */
static double self_of(const char *fn, int v, size_t i, int r)
{
	double noise = (r * 37 % 11) - 5;

	if (!strcmp(fn, "fib_read"))
		return 10000 + noise;
	if (!strcmp(fn, "fibdrv_format"))
		return 500 + noise + (v == 1 && i == 1 ? 1000 : 0);
	return -200 + noise - (v == 1 && i == 1 ? 2000 : 0);
}

static void feed(struct ft_compare *c)
{
	size_t i;
	int r, v, k;

	for (r = 0; r < ROUNDS; r++)
		for (i = 0; i < c->nn; i++)
			for (v = 0; v < c->nv; v++) {
				struct ft_run *run = c->var[v].run;
				const struct ft_targets *tg = run->targets;

				for (k = 0; k < tg->count; k++)
					run->rec_self[tg->t[k].slot] =
						(__s64)self_of(tg->t[k].name, v, i, r);
				cmp_attr_record(c, v, i, 0);
			}
}

static void check_json(const struct ft_compare *c)
{
	char *buf = NULL, *first, *dominated, *entry = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		check("json", 0);
		return;
	}
	cmp_attr_json(f, c);
	fclose(f);
	first = strstr(buf, "\"function\": ");
	dominated = strstr(buf, "\"tracing_dominated\": true");
	for (p = buf; dominated && p < dominated; p++)
		if (*p == '{')
			entry = p; /* the dominated one's entry */
	check("json.members", strstr(buf, "\"compare_functions_tests\": 6,") != NULL && first &&
				      !strncmp(first, "\"function\": \"fibdrv_format\"", 27) &&
				      strstr(buf, "\"n\": 200") && entry &&
				      !strncmp(entry, "{\"function\": \"bn_x\"", 19));
	free(buf);
}

int main(void)
{
	static struct ft_targets tga, tgb;
	struct ft_run ra = {.targets = &tga}, rb = {.targets = &tgb};
	struct ft_compare *c = calloc(1, sizeof(*c));
	struct ft_cmp_opts o = FT_CMP_OPTS_INIT;
	const struct cmp_ftest *t;
	int err;

	if (!c)
		return 1;
	set_targets(&tga, names_a);
	set_targets(&tgb, names_b);
	o.attribute = true;
	c->o = o;
	c->nv = 2;
	c->nn = 2;
	c->first = 100;
	c->step = 100;
	c->repeat = ROUNDS;
	c->var[0].run = &ra;
	c->var[1].run = &rb;
	snprintf(c->var[0].label, sizeof(c->var[0].label), "a");
	snprintf(c->var[1].label, sizeof(c->var[1].label), "b");
	err = cmp_attr_prepare(c);
	check("prepare", !err && ra.self_stride == NF && rb.self_stride == NF &&
				 c->attr->nfunc == NF && c->attr->func[1].slot[1] == 2 &&
				 c->attr->func[2].slot[1] == 1);
	if (err)
		return 1;
	ra.rec_self = calloc(NF, sizeof(*ra.rec_self));
	rb.rec_self = calloc(NF, sizeof(*rb.rec_self));
	if (!ra.rec_self || !rb.rec_self)
		return 1;
	feed(c);
	err = cmp_attr_analyze(c);
	check("analyze", !err);
	if (err)
		return 1;
	/* 3 functions x 1 candidate x 2 n; only the two planted changes survive Holm. */
	check("family", c->attr->ntests == 6);
	check("significant", c->attr->nsig == 2 && c->attr->ndominated == 1);
	t = &c->attr->test[0];
	check("planted_first", !strcmp(c->attr->func[t->func].name, "fibdrv_format") &&
				       t->p.nidx == 1 && t->p.variant == 1 && t->p.significant &&
				       !t->dominated && fabs(t->med - t->base_med - 1000) < 1e-9 &&
				       t->p.ratio > 2.9 && t->p.ratio < 3.1 && t->p.ci_lo > 1 &&
				       t->p.p_holm <= FT_CMP_ALPHA);
	t = &c->attr->test[1];
	check("dominated_after", !strcmp(c->attr->func[t->func].name, "bn_x") && t->p.significant &&
					 t->dominated && fabs(t->med - t->base_med + 2000) < 1e-9 &&
					 isnan(t->p.ratio));
	check("rest_not_significant",
	      !c->attr->test[2].p.significant && !c->attr->test[5].p.significant);
	check_json(c);
	cmp_attr_free(c->attr);
	/* 3 functions x 2 builds x 2^20 n x 100 rounds: refused, not attempted. */
	c->nn = 1u << 20;
	c->repeat = 100;
	err = cmp_attr_prepare(c);
	check("too_many_values", err == -FT_EXIT_USAGE);
	cmp_attr_free(c->attr);
	free(ra.rec_self);
	free(rb.rec_self);
	free(c);
	return failures ? 1 : 0;
}
