// SPDX-License-Identifier: GPL-2.0
/* The timeline of single reads: see timeline.h and docs/views.md. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

int ft_timeline_choose(struct ft_timeline *tl, const struct ft_run *run, unsigned int nalgos)
{
	__u64 nvals, want, i;

	tl->ntrace_n = 0;
	if (!run->sweep || !nalgos)
		return 0;
	nvals = (run->last - run->first) / run->step + 1;
	want = tl->reads / nalgos ? tl->reads / nalgos : 1;
	if (want > nvals)
		want = nvals;
	tl->trace_n = calloc(want, sizeof(*tl->trace_n));
	if (!tl->trace_n)
		return -ENOMEM;
	/* Evenly spaced indexes, first and last included, distinct since want <= nvals. */
	for (i = 0; i < want; i++)
		tl->trace_n[i] =
			run->first + run->step * (want > 1 ? i * (nvals - 1) / (want - 1) : 0);
	tl->ntrace_n = want;
	tl->per_n = nalgos;
	return 0;
}

int ft_timeline_add(void *ctx, void *data, size_t size)
{
	struct ft_timeline *tl = ctx;

	if (size < sizeof(struct ft_call_ev))
		return 0;
	if (tl->nev == tl->capev) {
		size_t cap = tl->capev ? tl->capev * 2 : 4096;
		struct ft_call_ev *n = realloc(tl->ev, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		tl->ev = n;
		tl->capev = cap;
	}
	memcpy(&tl->ev[tl->nev++], data, sizeof(struct ft_call_ev));
	return 0;
}

void ft_timeline_free(struct ft_timeline *tl)
{
	if (!tl)
		return;
	free(tl->trace_n);
	free(tl->ev);
	tl->trace_n = NULL;
	tl->ev = NULL;
}
