// SPDX-License-Identifier: GPL-2.0
/*
 * --trace-out: the reads model/timeline.c collected, written as a Chrome
 * trace (report.h, docs/views.md).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fmt.h"
#include "model/aggregate.h"
#include "model/events.h"
#include "model/timeline.h"
#include "report.h"

#define PID 1 /* one "process" in the trace: the kernel's reads */

/* Per thread, by start, the longer (outer) call first: parents before children. */
static int cmp_ev(const void *a, const void *b)
{
	const struct ft_call_ev *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->dur_ns != y->dur_ns)
		return x->dur_ns > y->dur_ns ? -1 : 1;
	return (int)x->depth - (int)y->depth;
}

static const char *slot_name(const struct ft_run *run, unsigned int slot)
{
	const struct ft_targets *tg = run->targets;
	int i;

	for (i = 0; i < tg->count; i++)
		if (tg->t[i].slot == (int)slot)
			return tg->t[i].name;
	return "?";
}

/* fib_read's record: the one of its thread that started at the same instant. */
static const struct ft_read_rec *read_rec(const struct ft_run *run, const struct ft_call_ev *e)
{
	size_t i;

	for (i = 0; i < run->nrecs; i++)
		if (run->recs[i].start_ns == e->start_ns && run->recs[i].tid == e->tid)
			return &run->recs[i];
	return NULL;
}

static void write_us(FILE *f, const char *key, __u64 ns)
{
	fprintf(f, ", \"%s\": %" PRIu64 ".%03u", key, (uint64_t)(ns / 1000), (unsigned)(ns % 1000));
}

/* The -e counters of one read, as counter events at its end. */
static void write_counters(FILE *f, const struct ft_run *run, const struct ft_read_rec *r, __u64 at)
{
	const struct ft_counters *c = run->counters;
	int e;

	if (!c || r->cnt_status != FT_CNT_OK)
		return;
	for (e = 0; e < c->nev; e++) {
		fprintf(f, ",\n{\"ph\": \"C\", \"pid\": %d, \"name\": ", PID);
		json_str(f, c->req[c->by_index[e]].def->name);
		write_us(f, "ts", at);
		fprintf(f, ", \"args\": {\"per read\": %.0f}}", ft_cnt_scaled(&r->cnt[e]));
	}
}

/* A read's own slice: its calls on the timeline against its traced calls. */
static void write_read(FILE *f, const struct ft_run *run, const struct ft_call_ev *e, size_t calls,
		       __u64 t0)
{
	const struct ft_read_rec *r = read_rec(run, e);

	fprintf(f, ", \"args\": {\"calls_on_timeline\": %zu", calls);
	if (r) {
		fprintf(f, ", \"algo\": ");
		json_str(f, ft_algo_name(run, r->algo));
		fprintf(f,
			", \"n\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"ret\": %" PRId64
			", \"traced_calls\": %u",
			(uint64_t)r->n, (uint64_t)r->copy_bytes, (int64_t)r->ret, r->calls);
	}
	fprintf(f, "}}");
	if (r)
		write_counters(f, run, r, e->start_ns + e->dur_ns - t0);
}

/* Calls of the read starting at @i (depth 0) on the same thread. */
static size_t read_calls(const struct ft_timeline *tl, size_t i)
{
	size_t k = i + 1;

	while (k < tl->nev && tl->ev[k].tid == tl->ev[i].tid && tl->ev[k].depth > 0)
		k++;
	return k - i - 1;
}

static void write_events(FILE *f, const struct ft_run *run, __u64 t0, size_t *nreads)
{
	const struct ft_timeline *tl = run->timeline;
	__u32 tid = 0;
	size_t i;
	int k;

	fprintf(f,
		"{\"ph\": \"M\", \"pid\": %d, \"name\": \"process_name\", "
		"\"args\": {\"name\": \"fibdrv reads (kernel, traced calls)\"}}",
		PID);
	for (i = 0; i < tl->nev; i++) {
		const struct ft_call_ev *e = &tl->ev[i];

		if (e->tid != tid || !i)
			fprintf(f,
				",\n{\"ph\": \"M\", \"pid\": %d, \"tid\": %u, \"name\": "
				"\"thread_name\", \"args\": {\"name\": \"task %u\"}}",
				PID, e->tid, e->tid);
		tid = e->tid;
		fprintf(f,
			",\n{\"ph\": \"X\", \"pid\": %d, \"tid\": %u, \"cat\": \"%s\", \"name\": ",
			PID, e->tid, e->depth ? "call" : "read");
		json_str(f, slot_name(run, e->slot));
		write_us(f, "ts", e->start_ns - t0);
		write_us(f, "dur", e->dur_ns);
		if (e->depth) {
			fprintf(f, ", \"args\": {\"depth\": %u}}", e->depth);
			continue;
		}
		(*nreads)++;
		write_read(f, run, e, read_calls(tl, i), t0);
	}
	for (k = 0; k < FT_LOST_NR; k++) {
		if (!run->lost[k])
			continue;
		fprintf(f,
			",\n{\"ph\": \"i\", \"s\": \"g\", \"pid\": %d, \"tid\": 0, \"ts\": 0, "
			"\"name\": \"lost.%s\", \"args\": {\"count\": %" PRIu64 "}}",
			PID, ft_lost_names[k], (uint64_t)run->lost[k]);
	}
}

struct written {
	const struct ft_run *run;
	size_t nreads;
};

static int fill_trace(FILE *f, void *ctx)
{
	struct written *w = ctx;
	const struct ft_run *run = w->run;
	struct ft_timeline *tl = run->timeline;
	__u64 t0 = ~0ULL;
	size_t i;

	qsort(tl->ev, tl->nev, sizeof(*tl->ev), cmp_ev);
	for (i = 0; i < tl->nev; i++)
		t0 = tl->ev[i].start_ns < t0 ? tl->ev[i].start_ns : t0;
	fprintf(f, "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"tool\": \"fibtrace\", "
		   "\"kernel\": ");
	json_str(f, run->kernel);
	fprintf(f,
		", \"clock\": \"bpf_ktime_get_ns (CLOCK_MONOTONIC), %s\", \"times\": \"raw: a "
		"call's duration includes fibtrace's cost for the traced calls inside it "
		"(fibtrace(8), COMPENSATION)\"},\n\"traceEvents\": [\n",
		run->clocksource);
	write_events(f, run, t0 == ~0ULL ? 0 : t0, &w->nreads);
	fprintf(f, "\n]}\n");
	return 0;
}

int ft_timeline_write(const struct ft_run *run)
{
	struct ft_timeline *tl = run->timeline;
	struct written w = {run, 0};
	struct stat st;

	if (ft_write_file(tl->path, fill_trace, &w))
		return -1;
	fprintf(stderr, "fibtrace: timeline of %zu reads (%zu calls) in %s, %.1f MB%s\n", w.nreads,
		tl->nev, tl->path, stat(tl->path, &st) ? 0.0 : st.st_size / 1e6,
		run->lost[FT_LOST_TIMELINE] ? " (calls lost: lost.timeline)" : "");
	return 0;
}
