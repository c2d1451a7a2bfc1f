// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of auto's weighing of per-call cost against start-up
 * (src/fibtrace/discover/plan.c): the break-even grows with the functions
 * traced; a sweep whose reads alone are sure to pass it gets fentry, one
 * below it, one of unknown size (0 reads) and a forced plan keep theirs;
 * the hint after a run names the break-even only when the run passed it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "discover/plan.h"

static int failures;

static void check(const char *name, int ok)
{
	printf("%s plan.%s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

/* @funcs traced functions: the read path's four, then big-number ones. */
static void targets(struct ft_targets *tg, int funcs)
{
	int i;

	memset(tg, 0, sizeof(*tg));
	tg->count = funcs;
	for (i = 0; i < funcs; i++) {
		snprintf(tg->t[i].name, sizeof(tg->t[i].name), "f%d", i);
		tg->t[i].slot = i; /* FT_SLOT_READ .. FT_SLOT_COPY first */
	}
}

/* The hint printed after a run of @calls calls spread over the functions (into @buf). */
static void hint(struct ft_run *run, const char *plan, double calls, char *buf, size_t len)
{
	struct ft_targets *tg = run->targets;
	FILE *f = fmemopen(buf, len, "w");
	int i;

	for (i = 0; i < tg->count; i++)
		tg->t[i].st.count = (__u64)(calls / tg->count);
	run->startup.plan = plan;
	buf[0] = '\0';
	ft_plan_hint(run, f);
	fclose(f);
}

int main(void)
{
	static struct ft_targets tg;
	static struct ft_run run;
	double e4 = ft_plan_break_even(FT_ATTACH_MULTI, 4);
	double e125 = ft_plan_break_even(FT_ATTACH_MULTI, 125);
	char buf[512];

	/* (184e6 - 3.3e6) ns per function / (2771 - 1635) ns per call: ~159,000 calls each */
	check("break-even.multi-125", e125 > 19e6 && e125 < 22e6);
	check("break-even.per-function", e125 > 31 * e4 && e125 < 32 * e4);
	check("break-even.kprobe", ft_plan_break_even(FT_ATTACH_KPROBE, 125) > 15e6 &&
					   ft_plan_break_even(FT_ATTACH_KPROBE, 125) < 20e6);
	check("break-even.fentry-zero", ft_plan_break_even(FT_ATTACH_FENTRY, 125) == 0);

	run.targets = &tg;
	targets(&tg, 4); /* --no-discover: 4 calls a read for sure, ~636,000 to break even */
	check("weigh.small-sweep-keeps-multi",
	      ft_plan_weigh(&tg, 1000, FT_ATTACH_MULTI, &run) == FT_ATTACH_MULTI);
	check("weigh.unknown-workload-keeps-multi",
	      ft_plan_weigh(&tg, 0, FT_ATTACH_MULTI, &run) == FT_ATTACH_MULTI);
	check("weigh.long-sweep-fentry",
	      ft_plan_weigh(&tg, 200000, FT_ATTACH_MULTI, &run) == FT_ATTACH_FENTRY &&
		      strstr(run.startup.reason, "200000 reads"));
	check("weigh.other-plans-kept",
	      ft_plan_weigh(&tg, 200000, FT_ATTACH_KPROBE, &run) == FT_ATTACH_KPROBE &&
		      ft_plan_weigh(&tg, 200000, FT_ATTACH_FENTRY, &run) == FT_ATTACH_FENTRY);
	targets(&tg, 125); /* the read path's 4 sure calls a read, 20 M to break even */
	check("weigh.full-set-needs-more-reads",
	      ft_plan_weigh(&tg, 200000, FT_ATTACH_MULTI, &run) == FT_ATTACH_MULTI &&
		      ft_plan_weigh(&tg, 6000000, FT_ATTACH_MULTI, &run) == FT_ATTACH_FENTRY);
	tg.t[0].slot = 200; /* a -f set without the read path: nothing is sure */
	tg.t[1].slot = tg.t[2].slot = tg.t[3].slot = 201;
	check("weigh.no-read-path-keeps-multi",
	      ft_plan_weigh(&tg, 6000000, FT_ATTACH_MULTI, &run) == FT_ATTACH_MULTI);

	targets(&tg, 125);
	hint(&run, "kprobe.multi", 30e6, buf, sizeof(buf));
	check("hint.past-break-even", strstr(buf, "--attach fentry") && strstr(buf, "3e+07"));
	hint(&run, "kprobe.multi", 1e6, buf, sizeof(buf));
	check("hint.below-break-even-silent", buf[0] == '\0');
	hint(&run, "fentry", 30e6, buf, sizeof(buf));
	check("hint.fentry-silent", buf[0] == '\0');
	hint(&run, "kprobe", 30e6, buf, sizeof(buf));
	check("hint.kprobe", strstr(buf, "than kprobe in all") != NULL);
	return failures ? 1 : 0;
}
