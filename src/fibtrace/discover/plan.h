/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attach plan: how each traced function is traced, decided before
 * anything is loaded (as bcc's funclatency decides fentry or kprobes).
 *
 *   fentry        an fentry/fexit program pair per function (the cheapest
 *                 per call); a function fentry cannot take gets kprobes
 *   kprobe.multi  one kprobe.multi and one kretprobe.multi program for all
 *                 of them, attached by address in one link each, the slot
 *                 in each address's cookie (Linux 5.18+, CONFIG_FPROBE):
 *                 two programs verified instead of two per function
 *   kprobe        a kprobe and a kretprobe link per function (--kprobe),
 *                 all served by one kprobe and one kretprobe program, the
 *                 slot in each link's BPF cookie (Linux 5.15+): two
 *                 programs verified, as for kprobe.multi
 *
 * --attach auto picks the fastest start: kprobe.multi where the kernel has
 * it, else the kprobe plan (two programs, as for kprobe.multi, but a link
 * per function; each call costs about what an fentry call costs); except
 * for a comparison (--compare), a benchmark where what each call costs
 * matters more than how fast tracing starts: fentry.
 */
#ifndef FIBTRACE_PLAN_H
#define FIBTRACE_PLAN_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>

#include "model/run.h"

enum ft_attach_req { FT_ATTACH_AUTO, FT_ATTACH_FENTRY, FT_ATTACH_MULTI, FT_ATTACH_KPROBE };

/* The running kernel is @major.@minor or newer (false when uname cannot tell). */
bool ft_kernel_at_least(int major, int minor);
/* x86 trampolines: 6 arguments before 6.5, 12 since. */
int ft_max_fentry_args(void);
/* Before 6.4, fentry finds a module function by its bare name (plan.c). */
bool ft_fentry_by_bare_name(void);

/* "auto", "fentry", "multi", "kprobe" -> *req: 0, or -1 for another word. */
int ft_plan_parse(const char *s, enum ft_attach_req *req);
/*
 * Whether the plan for --attach @req depends on this kernel having
 * kprobe.multi links (auto outside a comparison, multi): then the caller
 * asks the tracer (ft_multi_probe_start, ft_multi_available in
 * tracer/multi.h) and passes the answer to ft_plan_choose().
 */
bool ft_plan_asks_multi(enum ft_attach_req req, bool benchmark);
/*
 * The plan of this run, decided before discovery (which puts every function
 * on kprobes for FT_ATTACH_KPROBE): --attach's word, or what auto picks
 * (@benchmark: a comparison; @multi: the kernel attaches kprobe.multi
 * links, known only when ft_plan_asks_multi()). Records why in run->startup. Returns
 * FT_ATTACH_FENTRY, _MULTI or _KPROBE, or -(exit status) after saying why.
 */
int ft_plan_choose(enum ft_attach_req req, bool benchmark, bool multi, struct ft_run *run);
/*
 * The traced calls above which fentry costs less in all than plan @req
 * (kprobe.multi or kprobe) for @nfuncs functions: its calls are cheaper, its
 * start and detach slower per function (plan.c has the measured costs). 0
 * for fentry itself. About 164,000 calls per function against kprobe.multi.
 */
double ft_plan_break_even(enum ft_attach_req req, int nfuncs);
/*
 * auto's second look, once discovery knows the functions: kprobe.multi (the
 * fastest start) becomes fentry when the @reads this session issues itself
 * (a sweep; 0 when the workload is not known: a command, -p, a wait) are
 * sure to make more traced calls than the break-even. Sure: each read calls
 * every traced read-path function (fib_read, fibdrv_compute/format/copy)
 * once; the big-number calls, not known before the run, only add to that.
 * Returns the plan (@req or FT_ATTACH_FENTRY), the reason in run->startup.
 */
int ft_plan_weigh(const struct ft_targets *tg, __u64 reads, int req, struct ft_run *run);
/*
 * After the run, on @f: a hint when kprobe.multi or kprobe traced more calls
 * than the break-even, with what fentry would have saved (instructions, as
 * measured under the instruction clock; a real CPU runs them faster).
 */
void ft_plan_hint(const struct ft_run *run, FILE *f);
/*
 * Applies plan @req (from ft_plan_choose) to the discovered targets
 * (discover.c chose fentry or kprobe per function) and records it and its
 * program count in run->startup. Returns 0.
 */
int ft_plan_apply(struct ft_targets *tg, enum ft_attach_req req, struct ft_run *run);

#endif
