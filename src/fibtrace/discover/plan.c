// SPDX-License-Identifier: GPL-2.0
/* The attach plan: see plan.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "plan.h"

/* The running kernel is @major.@minor or newer (false when uname cannot tell). */
bool ft_kernel_at_least(int major, int minor)
{
	static int maj = -1, min;
	struct utsname u;

	if (maj < 0 && (uname(&u) || sscanf(u.release, "%d.%d", &maj, &min) != 2))
		maj = min = 0;
	return maj > major || (maj == major && min >= minor);
}

/* x86 trampolines: 6 arguments before 6.5, 12 since. */
int ft_max_fentry_args(void)
{
	return ft_kernel_at_least(6, 5) ? 12 : 6;
}

/*
 * Before Linux 6.4 the kernel finds a module function's address for fentry
 * by its bare name in kallsyms: the first module that has it, whatever
 * module's BTF the program names (fixed in 6.4 by "bpf: Fix attaching
 * fentry/fexit/fmod_ret/lsm to modules"). Seen on 6.1 with two builds of
 * fibdrv loaded: the second build's attach fails with EBUSY, the first's
 * lands in whichever module was loaded first.
 */
bool ft_fentry_by_bare_name(void)
{
	return !ft_kernel_at_least(6, 4);
}

int ft_plan_parse(const char *s, enum ft_attach_req *req)
{
	static const char *const words[] = {"auto", "fentry", "multi", "kprobe"};
	unsigned int i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(s, words[i])) {
			*req = (enum ft_attach_req)i;
			return 0;
		}
	return -1;
}

/* Whether ft_plan_choose() needs to know if kprobe.multi works, for this --attach. */
bool ft_plan_asks_multi(enum ft_attach_req req, bool benchmark)
{
	return req == FT_ATTACH_MULTI || (req == FT_ATTACH_AUTO && !benchmark);
}

/* Every function in the kprobe.multi links; one calibration function for them. */
static void plan_multi(struct ft_targets *tg)
{
	int i, all = ft_targets_all(tg);

	for (i = 0; i < all; i++)
		tg->t[i].mode = FT_MODE_MULTI;
	if (tg->ncalib && !strcmp(tg->t[tg->count].name, FT_CALIB_PREFIX "0")) {
		/* fibdrv_calib0 (fentry's) goes; fibdrv_calib1 (and 2) move down a slot. */
		for (i = tg->count; i + 1 < all; i++) {
			tg->t[i] = tg->t[i + 1];
			tg->t[i].slot = i;
		}
		tg->ncalib--;
	}
}

int ft_plan_choose(enum ft_attach_req req, bool benchmark, bool multi, struct ft_run *run)
{
	struct ft_startup *su = &run->startup;

	su->reason = "forced by --attach";
	if (req == FT_ATTACH_MULTI && !multi) {
		fprintf(stderr, "fibtrace: --attach multi: this kernel has no kprobe.multi "
				"links (Linux 5.18+ built with CONFIG_FPROBE)\n");
		return -FT_EXIT_USAGE;
	}
	if (req != FT_ATTACH_AUTO)
		return req;
	if (benchmark) {
		su->reason = "auto: a comparison, the cheapest per call";
		return FT_ATTACH_FENTRY;
	}
	if (multi) {
		su->reason = "auto: the fastest start";
		return FT_ATTACH_MULTI;
	}
	/*
	 * The kprobe plan: two programs, as for kprobe.multi, and a link per
	 * function. make bench-trace, 6.1 guest, full default set, three runs
	 * on two days: each call cost 0.79-1.04x fentry's, start-up 5.0-7.0 s
	 * against 15.1-22.9 s; detach takes 3-4 s longer
	 * (docs/fibtrace.md#attach-plans).
	 */
	su->reason = "auto: the fastest start, no kprobe.multi on this kernel";
	return FT_ATTACH_KPROBE;
}

/*
 * What each plan costs under the instruction clock: instructions a traced
 * call adds (1 ns of that clock each), from make bench-parts (2026-12-02,
 * the programs timing themselves and tail calls corrected; full default
 * set, 125 functions, F(1000); docs/measurement.md, "Part by part"), and
 * start (load + attach)
 * plus detach per traced function, from make bench-trace (2026-11-28,
 * docs/measurement.md, "What a traced call costs").
 *   fentry        6.12: 1,635 per call, (2.14 + 3.92 + 17.56) s / 125;
 *                 6.1:  1,672 (one function on kprobes there),
 *                 (2.78 + 3.33 + 16.16) s / 125
 *   kprobe.multi  6.12: 2,771, (0.18 + 0.02 + 0.21) s / 125: two programs,
 *                 one link, whatever the number of functions
 *   kprobe        6.1:  2,250, (0.19 + 2.28 + 10.08) s / 125 (auto picks it
 *                 only where kprobe.multi is missing: 6.1's figures)
 */
static const struct {
	double call_ns, setup_ns_per_func;
} plan_cost[] = {
	[FT_ATTACH_FENTRY] = {1635, 184e6},
	[FT_ATTACH_MULTI] = {2771, 3.3e6},
	[FT_ATTACH_KPROBE] = {2250, 100e6},
};

/* What fentry saves per traced call against plan @req, and costs more per function to set up. */
static double call_gap(enum ft_attach_req req)
{
	return plan_cost[req].call_ns - plan_cost[FT_ATTACH_FENTRY].call_ns;
}

static double setup_gap(enum ft_attach_req req)
{
	return plan_cost[FT_ATTACH_FENTRY].setup_ns_per_func - plan_cost[req].setup_ns_per_func;
}

double ft_plan_break_even(enum ft_attach_req req, int nfuncs)
{
	if (req != FT_ATTACH_MULTI && req != FT_ATTACH_KPROBE)
		return 0;
	return nfuncs * setup_gap(req) / call_gap(req);
}

/* Traced functions (calibration ones aside) and those of them every read calls once. */
static void count_traced(const struct ft_targets *tg, int *funcs, int *per_read)
{
	int i;

	*funcs = *per_read = 0;
	for (i = 0; i < tg->count; i++) {
		if (tg->t[i].unavailable || tg->no_module)
			continue;
		(*funcs)++;
		if (tg->t[i].slot >= FT_SLOT_READ && tg->t[i].slot <= FT_SLOT_COPY)
			(*per_read)++;
	}
}

int ft_plan_weigh(const struct ft_targets *tg, __u64 reads, int req, struct ft_run *run)
{
	struct ft_startup *su = &run->startup;
	int funcs, per_read;
	double even, sure;

	if (req != FT_ATTACH_MULTI || !reads)
		return req;
	count_traced(tg, &funcs, &per_read);
	even = ft_plan_break_even(FT_ATTACH_MULTI, funcs);
	sure = (double)reads * per_read;
	if (!per_read)
		return req;
	snprintf(su->reason_buf, sizeof(su->reason_buf),
		 sure < even ? "auto: the fastest start (%llu reads make at least %.3g traced calls, "
			       "under the %.3g at which fentry would repay its slower start)"
			     : "auto: %llu reads make at least %.3g traced calls, more than the %.3g "
			       "at which fentry's cheaper calls repay its slower start and detach",
		 (unsigned long long)reads, sure, even);
	su->reason = su->reason_buf;
	return sure < even ? req : FT_ATTACH_FENTRY;
}

void ft_plan_hint(const struct ft_run *run, FILE *f)
{
	const struct ft_targets *tg = run->targets;
	const char *plan = run->startup.plan;
	enum ft_attach_req req;
	double calls = 0, even, saved;
	int i, funcs, per_read;

	if (!plan || !strcmp(plan, "fentry"))
		return;
	req = !strcmp(plan, "kprobe.multi") ? FT_ATTACH_MULTI : FT_ATTACH_KPROBE;
	for (i = 0; i < tg->count; i++)
		calls += (double)tg->t[i].st.count;
	count_traced(tg, &funcs, &per_read);
	even = ft_plan_break_even(req, funcs);
	if (!funcs || calls <= even)
		return;
	saved = (calls - even) * call_gap(req);
	fprintf(f,
		"fibtrace: hint: %.3g traced calls, more than the %.3g at which --attach fentry "
		"costs less than %s in all: about %.2g instructions less here (each call ~%.0f "
		"cheaper; its start and detach ~%.2f s longer per function)\n",
		calls, even, plan, saved, call_gap(req), setup_gap(req) / 1e9);
}

int ft_plan_apply(struct ft_targets *tg, enum ft_attach_req req, struct ft_run *run)
{
	struct ft_startup *su = &run->startup;
	bool multi = req == FT_ATTACH_MULTI, kprobes = false;
	int i, fentry = 0;

	if (multi)
		plan_multi(tg);
	/* fibdrv_calib2 past the last slot (discover.c): no room beside fibdrv_calib0. */
	if (ft_targets_all(tg) > FT_MAX_SLOTS)
		tg->ncalib--;
	su->plan = multi ? "kprobe.multi" : req == FT_ATTACH_KPROBE ? "kprobe" : "fentry";
	for (i = 0; i < ft_targets_all(tg); i++) {
		if (tg->t[i].unavailable)
			continue;
		if (tg->t[i].mode == FT_MODE_FENTRY)
			fentry++;
		else
			kprobes = true;
	}
	/* A pair per fentry function; the kprobe modes' pair is shared by all. */
	su->programs = 2 * fentry + (kprobes ? 2 : 0);
	return 0;
}
