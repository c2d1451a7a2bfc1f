// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace counters (-e/--events): opens one counting perf event per event
 * and CPU (pid -1), hands the fds to BPF through the PERF_EVENT_ARRAY
 * "cnt_events", sums BPF's per-function deltas ("cstats") and reports them:
 * per call, scaled by enabled/running time when the PMU multiplexed, with
 * derived ratios (IPC, branch-miss and cache-miss rates). docs/counters.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fibtrace.skel.h"
#include "trace_counters.h"

/* A PMU has 4 general-purpose counters per core on most x86 parts (SMT on). */
#define FT_PMU_TYPICAL_COUNTERS 4

#define HW(cfg) PERF_TYPE_HARDWARE, PERF_COUNT_HW_##cfg, true
#define SW(cfg) PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##cfg, false
#define CACHE_MISS(c)                                                        \
	PERF_TYPE_HW_CACHE,                                                  \
		PERF_COUNT_HW_CACHE_##c | PERF_COUNT_HW_CACHE_OP_READ << 8 | \
			PERF_COUNT_HW_CACHE_RESULT_MISS << 16,               \
		true

static const struct ft_event_def event_defs[] = {
	{"cycles", HW(CPU_CYCLES)},
	{"instructions", HW(INSTRUCTIONS)},
	{"branches", HW(BRANCH_INSTRUCTIONS)},
	{"branch-misses", HW(BRANCH_MISSES)},
	{"cache-references", HW(CACHE_REFERENCES)},
	{"cache-misses", HW(CACHE_MISSES)},
	{"L1-dcache-load-misses", CACHE_MISS(L1D)},
	{"LLC-load-misses", CACHE_MISS(LL)},
	{"page-faults", SW(PAGE_FAULTS)},
	{"minor-faults", SW(PAGE_FAULTS_MIN)},
	{"major-faults", SW(PAGE_FAULTS_MAJ)},
	{"context-switches", SW(CONTEXT_SWITCHES)},
	{"cpu-migrations", SW(CPU_MIGRATIONS)},
	{"cpu-clock", SW(CPU_CLOCK)},
};

/* perf's other spellings. */
static const struct {
	const char *alias, *name;
} event_aliases[] = {
	{"cpu-cycles", "cycles"},   {"branch-instructions", "branches"}, {"faults", "page-faults"},
	{"cs", "context-switches"}, {"migrations", "cpu-migrations"},
};

static double running_pct(const struct ft_cnt_delta *d);

static const char *const status_names[FT_CNT_STATUS_NR] = {
	"none", "kept", "migrated", "read_failed", "switched",
};

static const struct ft_event_def *find_event(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(event_aliases) / sizeof(event_aliases[0]); i++)
		if (!strcmp(name, event_aliases[i].alias))
			name = event_aliases[i].name;
	for (i = 0; i < sizeof(event_defs) / sizeof(event_defs[0]); i++)
		if (!strcmp(name, event_defs[i].name))
			return &event_defs[i];
	return NULL;
}

int ft_counters_parse(struct ft_counters *c, const char *list, char *err, size_t errlen)
{
	char *copy = strdup(list), *tok, *save = NULL;
	size_t i, len = 0;
	int k;

	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct ft_event_def *d = find_event(tok);

		if (!d) {
			len = snprintf(err, errlen, "unknown event '%s'; known:", tok);
			for (i = 0; i < sizeof(event_defs) / sizeof(event_defs[0]) && len < errlen;
			     i++)
				len += snprintf(err + len, errlen - len, " %s", event_defs[i].name);
			free(copy);
			return -1;
		}
		for (k = 0; k < c->nreq; k++)
			if (c->req[k].def == d) {
				snprintf(err, errlen, "event '%s' given twice", d->name);
				free(copy);
				return -1;
			}
		if (c->nreq == FT_MAX_EVENTS) {
			snprintf(err, errlen, "at most %d events per run", FT_MAX_EVENTS);
			free(copy);
			return -1;
		}
		c->req[c->nreq].def = d;
		c->req[c->nreq].index = -1;
		c->nreq++;
	}
	free(copy);
	if (!c->nreq) {
		snprintf(err, errlen, "empty event list");
		return -1;
	}
	return 0;
}

static bool cpu_online(int cpu)
{
	char path[64];
	FILE *f;
	int on = 1;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "r");
	if (!f)
		return true; /* no such file: the CPU cannot go offline */
	if (fscanf(f, "%d", &on) != 1)
		on = 1;
	fclose(f);
	return on;
}

static int read_int_file(const char *path, int *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%d", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* Why perf_event_open(@d) failed with @err, in words. */
static void explain(const struct ft_event_def *d, int err, char *buf, size_t len)
{
	int paranoid = 2;

	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (d->hardware) {
			bool pmu = !access("/sys/bus/event_source/devices/cpu", F_OK) ||
				   !access("/sys/bus/event_source/devices/cpu_core", F_OK);

			snprintf(buf, len, "no hardware PMU counts it (perf_event_open: %s)%s",
				 strerror(err),
				 pmu ? ""
				     : "; the kernel has no CPU PMU (no "
				       "/sys/bus/event_source/devices/cpu),"
				       " as in a VM without PMU passthrough");
		} else {
			snprintf(buf, len, "the kernel does not support it (perf_event_open: %s)",
				 strerror(err));
		}
		break;
	case EACCES:
	case EPERM:
		read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid);
		snprintf(buf, len,
			 "permission denied (perf_event_open: %s): counting every CPU needs "
			 "CAP_PERFMON or CAP_SYS_ADMIN, or kernel.perf_event_paranoid <= 0 (it is "
			 "%d)",
			 strerror(err), paranoid);
		break;
	case EMFILE:
	case ENFILE:
		snprintf(buf, len,
			 "out of file descriptors (one per event and CPU): raise ulimit -n");
		break;
	default:
		snprintf(buf, len, "perf_event_open: %s", strerror(err));
	}
}

static int open_event(const struct ft_event_def *d, int cpu)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = d->type,
		.config = d->config,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
	};

	return syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int ft_counters_open(struct ft_counters *c, struct ft_run *run)
{
	int k, cpu, hw = 0, missing = 0, wd = 0;

	c->ncpus = libbpf_num_possible_cpus();
	if (c->ncpus <= 0)
		return -FT_EXIT_ERROR;
	c->fds = malloc(sizeof(int) * FT_MAX_EVENTS * c->ncpus);
	if (!c->fds)
		return -FT_EXIT_ERROR;
	for (k = 0; k < FT_MAX_EVENTS * c->ncpus; k++)
		c->fds[k] = -1;
	c->nev = 0;
	for (k = 0; k < c->nreq; k++) {
		struct ft_counter_ev *ev = &c->req[k];
		int *fds = &c->fds[c->nev * c->ncpus], err = 0;

		for (cpu = 0; cpu < c->ncpus && !err; cpu++) {
			fds[cpu] = open_event(ev->def, cpu);
			if (fds[cpu] < 0 && !cpu_online(cpu))
				continue; /* never runs anything: never read */
			if (fds[cpu] < 0)
				err = errno;
		}
		if (err) {
			for (cpu = 0; cpu < c->ncpus; cpu++) {
				if (fds[cpu] >= 0)
					close(fds[cpu]);
				fds[cpu] = -1;
			}
			explain(ev->def, err, ev->reason, sizeof(ev->reason));
			ft_warn(run, "%s: not available: %s", ev->def->name, ev->reason);
			missing++;
			continue;
		}
		ev->index = c->nev;
		c->by_index[c->nev++] = k;
		hw += ev->def->hardware;
	}
	if (hw > FT_PMU_TYPICAL_COUNTERS) {
		read_int_file("/proc/sys/kernel/nmi_watchdog", &wd);
		ft_warn(run,
			"%d hardware events: more than the %d general-purpose counters most PMUs "
			"have%s; the kernel multiplexes them and fibtrace scales each delta by "
			"enabled/running time (running %% shown)",
			hw, FT_PMU_TYPICAL_COUNTERS,
			wd ? " (the NMI watchdog holds one more)" : "");
	}
	if (missing && c->require) {
		fprintf(stderr, "fibtrace: --require-counters: %d of %d events not available\n",
			missing, c->nreq);
		return -FT_EXIT_NO_COUNTERS;
	}
	return 0;
}

void ft_counters_close(struct ft_counters *c)
{
	int k;

	if (!c || !c->fds)
		return;
	for (k = 0; k < FT_MAX_EVENTS * c->ncpus; k++)
		if (c->fds[k] >= 0)
			close(c->fds[k]);
	free(c->fds);
	c->fds = NULL;
}

size_t ft_counters_rec_size(const struct ft_counters *c)
{
	return c && c->nev ? sizeof(struct ft_read_rec) : FT_READ_REC_SIZE_NO_COUNTERS;
}

void ft_counters_prepare(struct fibtrace *skel, const struct ft_run *run)
{
	const struct ft_counters *c = run->counters;
	int ncpus = libbpf_num_possible_cpus();

	skel->rodata->nr_events = c ? c->nev : 0;
	skel->rodata->nr_cpus = c ? c->ncpus : 0;
	bpf_map__set_max_entries(skel->maps.cnt_events,
				 c && c->nev ? c->nev * c->ncpus : (ncpus > 0 ? ncpus : 1));
	bpf_map__set_max_entries(skel->maps.cstats, c && c->nev ? run->targets->count : 1);
}

int ft_counters_install(struct fibtrace *skel, const struct ft_run *run)
{
	const struct ft_counters *c = run->counters;
	int fd = bpf_map__fd(skel->maps.cnt_events), k;

	for (k = 0; c && k < c->nev * c->ncpus; k++) {
		__u32 key = k;

		if (c->fds[k] < 0)
			continue;
		if (bpf_map_update_elem(fd, &key, &c->fds[k], BPF_ANY)) {
			fprintf(stderr,
				"fibtrace: counters: cannot put %s (CPU %d) into the map: %s\n",
				c->req[c->by_index[k / c->ncpus]].def->name, k % c->ncpus,
				strerror(errno));
			return -errno;
		}
	}
	return 0;
}

static void add_delta(struct ft_cnt_delta *to, const struct ft_cnt_delta *d)
{
	to->value += d->value;
	to->enabled += d->enabled;
	to->running += d->running;
}

int ft_counters_collect(struct fibtrace *skel, struct ft_run *run)
{
	struct ft_counters *c = run->counters;
	struct ft_targets *tg = run->targets;
	size_t vsz = (sizeof(struct ft_cnt_stats) + 7) & ~7UL;
	int fd, i, cpu, e, r;
	char *buf;

	if (!c || !c->nev)
		return 0;
	buf = calloc(c->ncpus, vsz);
	if (!buf)
		return -ENOMEM;
	fd = bpf_map__fd(skel->maps.cstats);
	for (i = 0; i < tg->count; i++) {
		struct ft_cnt_stats *s = &tg->t[i].cnt;
		__u32 key = tg->t[i].slot;

		memset(s, 0, sizeof(*s));
		if (bpf_map_lookup_elem(fd, &key, buf))
			continue;
		for (cpu = 0; cpu < c->ncpus; cpu++) {
			const struct ft_cnt_stats *p = (void *)(buf + cpu * vsz);

			s->kept += p->kept;
			for (r = 0; r < FT_CNT_STATUS_NR; r++)
				s->discarded[r] += p->discarded[r];
			for (e = 0; e < c->nev; e++)
				add_delta(&s->sum[e], &p->sum[e]);
		}
	}
	free(buf);
	/* The whole run per event: how much of the time it was counting. */
	for (e = 0; e < c->nev; e++) {
		struct ft_counter_ev *ev = &c->req[c->by_index[e]];

		memset(&ev->whole, 0, sizeof(ev->whole));
		for (cpu = 0; cpu < c->ncpus; cpu++) {
			__u64 v[3];

			if (c->fds[e * c->ncpus + cpu] >= 0 &&
			    read(c->fds[e * c->ncpus + cpu], v, sizeof(v)) == sizeof(v)) {
				ev->whole.value += v[0];
				ev->whole.enabled += v[1];
				ev->whole.running += v[2];
			}
		}
		if (ev->whole.running < ev->whole.enabled && !c->warned_multiplex) {
			c->warned_multiplex = true;
			ft_warn(run,
				"%s was multiplexed: counting %.0f%% of the time; values are "
				"scaled by enabled/running time",
				ev->def->name, running_pct(&ev->whole));
		}
	}
	return 0;
}

void ft_counters_interval(struct ft_run *run)
{
	static struct ft_cnt_stats prev[FT_MAX_SLOTS];
	struct ft_targets *tg = run->targets;
	int i, e, r;

	if (!run->counters || !run->counters->nev)
		return;
	for (i = 0; i < tg->count && i < FT_MAX_SLOTS; i++) {
		struct ft_cnt_stats *s = &tg->t[i].cnt, cur = *s;

		s->kept -= prev[i].kept;
		for (r = 0; r < FT_CNT_STATUS_NR; r++)
			s->discarded[r] -= prev[i].discarded[r];
		for (e = 0; e < FT_MAX_EVENTS; e++) {
			s->sum[e].value -= prev[i].sum[e].value;
			s->sum[e].enabled -= prev[i].sum[e].enabled;
			s->sum[e].running -= prev[i].sum[e].running;
		}
		prev[i] = cur;
	}
}

/* ---------- values: scaling, per call, derived ratios ---------- */

/* The estimate perf stat prints: value * enabled / running. */
static double scaled_value(const struct ft_cnt_delta *d, bool *scaled)
{
	*scaled = d->running && d->running < d->enabled;
	if (*scaled)
		return d->value * ((double)d->enabled / d->running);
	return d->value;
}

static double running_pct(const struct ft_cnt_delta *d)
{
	return d->enabled ? 100.0 * d->running / d->enabled : 100.0;
}

static __u64 discarded_total(const struct ft_cnt_stats *s)
{
	__u64 n = 0;
	int r;

	for (r = FT_CNT_MIGRATED; r < FT_CNT_STATUS_NR; r++)
		n += s->discarded[r];
	return n;
}

static int index_of(const struct ft_counters *c, const char *name)
{
	int e;

	for (e = 0; e < c->nev; e++)
		if (!strcmp(c->req[c->by_index[e]].def->name, name))
			return e;
	return -1;
}

static const char *ev_name(const struct ft_counters *c, int e)
{
	return c->req[c->by_index[e]].def->name;
}

/* num/den of two events' scaled sums; false when one is missing or den is 0. */
static bool ratio(const struct ft_counters *c, const struct ft_cnt_delta *sum, const char *num,
		  const char *den, double *out)
{
	int a = index_of(c, num), b = index_of(c, den);
	bool s;
	double d;

	if (a < 0 || b < 0)
		return false;
	d = scaled_value(&sum[b], &s);
	if (d <= 0)
		return false;
	*out = scaled_value(&sum[a], &s) / d;
	return true;
}

static const struct {
	const char *key, *label, *num, *den;
	double mult;
} derived[] = {
	{"ipc", "IPC", "instructions", "cycles", 1},
	{"branch_miss_pct", "br-miss%", "branch-misses", "branches", 100},
	{"cache_miss_pct", "cache-miss%", "cache-misses", "cache-references", 100},
};
#define NDERIVED (sizeof(derived) / sizeof(derived[0]))

static bool active(const struct ft_run *run)
{
	return run->counters && run->counters->nreq;
}

/* Per-(algo, n) sums over the read records (sorted by algo, n). */
struct pern_cnt {
	__u64 kept, discarded;
	struct ft_cnt_delta sum[FT_MAX_EVENTS];
	double median[FT_MAX_EVENTS]; /* of the per-read scaled deltas */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void pern_build(const struct ft_run *run, unsigned int algo, __u64 n, struct pern_cnt *p)
{
	const struct ft_counters *c = run->counters;
	size_t lo = 0, hi = run->nrecs, i, cnt = 0;
	double *v;
	int e;

	memset(p, 0, sizeof(*p));
	while (lo < hi) { /* first record >= (algo, n) */
		size_t mid = lo + (hi - lo) / 2;
		const struct ft_read_rec *x = &run->recs[mid];

		if (x->algo < algo || (x->algo == algo && x->n < n))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (hi = lo; hi < run->nrecs && run->recs[hi].algo == algo && run->recs[hi].n == n; hi++)
		;
	v = malloc((hi - lo + 1) * sizeof(*v));
	for (i = lo; i < hi; i++) {
		const struct ft_read_rec *x = &run->recs[i];

		if (x->cnt_status != FT_CNT_OK) {
			p->discarded += x->cnt_status != FT_CNT_NONE;
			continue;
		}
		p->kept++;
		for (e = 0; e < c->nev; e++)
			add_delta(&p->sum[e], &x->cnt[e]);
	}
	for (e = 0; v && p->kept && e < c->nev; e++) {
		bool s;

		cnt = 0;
		for (i = lo; i < hi; i++)
			if (run->recs[i].cnt_status == FT_CNT_OK)
				v[cnt++] = scaled_value(&run->recs[i].cnt[e], &s);
		qsort(v, cnt, sizeof(*v), cmp_double);
		p->median[e] = v[(cnt - 1) / 2];
	}
	free(v);
}

/* ---------- text ---------- */

static void fmt_count(char *buf, size_t len, double v, const struct ft_cnt_delta *d)
{
	int n = v < 100 ? snprintf(buf, len, "%.2f", v) : snprintf(buf, len, "%.0f", v);

	if (d && d->running < d->enabled && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " (%.0f%%)", running_pct(d));
}

void ft_counters_text(FILE *f, struct ft_run *run)
{
	const struct ft_counters *c = run->counters;
	struct ft_targets *tg = run->targets;
	unsigned int d;
	int k, e;

	if (!active(run))
		return;
	fprintf(f, "\ncounters:");
	for (k = 0; k < c->nreq; k++) {
		const struct ft_counter_ev *ev = &c->req[k];

		fprintf(f, "%s %s (%s, %s", k ? "," : "", ev->def->name,
			ev->def->hardware ? "hardware" : "software",
			ev->index < 0 ? "not available" : "counting");
		if (ev->index >= 0 && ev->whole.running < ev->whole.enabled)
			fprintf(f, " %.0f%% of the time", running_pct(&ev->whole));
		fputc(')', f);
	}
	fputc('\n', f);
	if (!c->nev)
		return;
	fprintf(f, "per call, callees included; kept = same CPU at entry and exit, reads ok, "
		   "no context switch (%%: multiplexed, scaled):\n");
	fprintf(f, "%-28s %9s %9s", "function", "kept", "discarded");
	for (e = 0; e < c->nev; e++)
		fprintf(f, " %14s", ev_name(c, e));
	for (d = 0; d < NDERIVED; d++)
		if (index_of(c, derived[d].num) >= 0 && index_of(c, derived[d].den) >= 0)
			fprintf(f, " %11s", derived[d].label);
	fputc('\n', f);
	for (k = 0; k < tg->count; k++) {
		const struct ft_target *t = &tg->t[k];
		const struct ft_cnt_stats *s = &t->cnt;

		if (!t->attached || (!s->kept && !discarded_total(s)))
			continue;
		fprintf(f, "%-28s %9" PRIu64 " %9" PRIu64, t->name, (uint64_t)s->kept,
			(uint64_t)discarded_total(s));
		for (e = 0; e < c->nev; e++) {
			char buf[40];
			bool sc;
			double v = scaled_value(&s->sum[e], &sc);

			fmt_count(buf, sizeof(buf), s->kept ? v / s->kept : 0, &s->sum[e]);
			fprintf(f, " %14s", buf);
		}
		for (d = 0; d < NDERIVED; d++) {
			double r;

			if (index_of(c, derived[d].num) < 0 || index_of(c, derived[d].den) < 0)
				continue;
			if (ratio(c, s->sum, derived[d].num, derived[d].den, &r))
				fprintf(f, " %11.2f", r * derived[d].mult);
			else
				fprintf(f, " %11s", "-");
		}
		fputc('\n', f);
	}
}

void ft_counters_text_pern(FILE *f, struct ft_run *run)
{
	const struct ft_counters *c = run->counters;
	size_t i;
	int e;

	if (!active(run) || !c->nev || !run->nrecs)
		return;
	fprintf(f, "\nfib_read counters per n (mean per kept read):\n");
	fprintf(f, "%-22s %8s %6s %9s", "algo", "n", "kept", "discarded");
	for (e = 0; e < c->nev; e++)
		fprintf(f, " %14s", ev_name(c, e));
	fputc('\n', f);
	for (i = 0; i < run->nrecs;) {
		const struct ft_read_rec *x = &run->recs[i];
		struct pern_cnt p;
		size_t j = i;

		pern_build(run, x->algo, x->n, &p);
		fprintf(f, "%-22s %8" PRIu64 " %6" PRIu64 " %9" PRIu64, ft_algo_name(run, x->algo),
			(uint64_t)x->n, (uint64_t)p.kept, (uint64_t)p.discarded);
		for (e = 0; e < c->nev; e++) {
			char buf[40];
			bool sc;
			double v = scaled_value(&p.sum[e], &sc);

			fmt_count(buf, sizeof(buf), p.kept ? v / p.kept : 0, &p.sum[e]);
			fprintf(f, " %14s", buf);
		}
		fputc('\n', f);
		while (j < run->nrecs && run->recs[j].algo == x->algo && run->recs[j].n == x->n)
			j++;
		i = j;
	}
}

/* ---------- JSON ---------- */

static void json_events(FILE *f, const struct ft_counters *c, const struct ft_cnt_delta *sum,
			__u64 kept, const double *median)
{
	int e;

	fprintf(f, "\"counters\": {");
	for (e = 0; e < c->nev; e++) {
		bool sc;
		double v = scaled_value(&sum[e], &sc);

		fprintf(f, "%s\"%s\": {\"total\": %.0f, \"raw\": %" PRIu64 ", \"per_call\": %.6g",
			e ? ", " : "", ev_name(c, e), v, (uint64_t)sum[e].value,
			kept ? v / kept : 0.0);
		if (median)
			fprintf(f, ", \"median\": %.6g", median[e]);
		fprintf(f, ", \"scaled\": %s, \"running_pct\": %.2f}", sc ? "true" : "false",
			running_pct(&sum[e]));
	}
	fputc('}', f);
}

void ft_counters_json_meta(FILE *f, const struct ft_run *run)
{
	const struct ft_counters *c = run->counters;
	int k;

	if (!active(run))
		return;
	fprintf(f, ",\n    \"counters\": [");
	for (k = 0; k < c->nreq; k++) {
		const struct ft_counter_ev *ev = &c->req[k];

		fprintf(f, "%s{\"name\": \"%s\", \"kind\": \"%s\", \"available\": %s",
			k ? ", " : "", ev->def->name, ev->def->hardware ? "hardware" : "software",
			ev->index >= 0 ? "true" : "false");
		if (ev->index >= 0)
			fprintf(f, ", \"running_pct\": %.2f", running_pct(&ev->whole));
		else
			fprintf(f, ", \"reason\": \"%s\"", ev->reason); /* explain(): no quotes */
		fputc('}', f);
	}
	fputc(']', f);
}

void ft_counters_json_func(FILE *f, const struct ft_run *run, const struct ft_target *t)
{
	const struct ft_counters *c = run->counters;
	const struct ft_cnt_stats *s = &t->cnt;
	unsigned int d;
	bool first = true;

	if (!active(run))
		return;
	fprintf(f,
		",\n      \"counter_calls\": %" PRIu64
		", \"counter_discarded\": {\"migrated\": %" PRIu64 ", \"read_failed\": %" PRIu64
		", \"switched\": %" PRIu64 "},\n      ",
		(uint64_t)s->kept, (uint64_t)s->discarded[FT_CNT_MIGRATED],
		(uint64_t)s->discarded[FT_CNT_READ_FAILED],
		(uint64_t)s->discarded[FT_CNT_SWITCHED]);
	json_events(f, c, s->sum, s->kept, NULL);
	fprintf(f, ", \"counter_derived\": {");
	for (d = 0; d < NDERIVED; d++) {
		double r;

		if (!ratio(c, s->sum, derived[d].num, derived[d].den, &r))
			continue;
		fprintf(f, "%s\"%s\": %.6g", first ? "" : ", ", derived[d].key,
			r * derived[d].mult);
		first = false;
	}
	fputc('}', f);
}

void ft_counters_json_pern(FILE *f, const struct ft_run *run, unsigned int algo, __u64 n)
{
	struct pern_cnt p;

	if (!active(run))
		return;
	pern_build(run, algo, n, &p);
	fprintf(f, ", \"counter_reads\": %" PRIu64 ", \"counter_discarded\": %" PRIu64 ", ",
		(uint64_t)p.kept, (uint64_t)p.discarded);
	json_events(f, run->counters, p.sum, p.kept, p.median);
}

void ft_counters_json_rec(FILE *f, const struct ft_run *run, const struct ft_read_rec *x)
{
	const struct ft_counters *c = run->counters;
	int e;

	if (!active(run))
		return;
	fprintf(f, ", \"counter_status\": \"%s\"",
		status_names[x->cnt_status < FT_CNT_STATUS_NR ? x->cnt_status : 0]);
	if (x->cnt_status != FT_CNT_OK)
		return;
	fprintf(f, ", \"counters\": {");
	for (e = 0; e < c->nev; e++)
		fprintf(f,
			"%s\"%s\": {\"value\": %" PRIu64 ", \"enabled_ns\": %" PRIu64
			", \"running_ns\": %" PRIu64 "}",
			e ? ", " : "", ev_name(c, e), (uint64_t)x->cnt[e].value,
			(uint64_t)x->cnt[e].enabled, (uint64_t)x->cnt[e].running);
	fputc('}', f);
}

/* ---------- CSV: columns appended to the function and per-n rows ---------- */

void ft_counters_csv_func_head(FILE *f, const struct ft_run *run)
{
	const struct ft_counters *c = run->counters;
	int e;

	if (!active(run))
		return;
	fprintf(f, ",counter_calls,counter_discarded");
	for (e = 0; e < c->nev; e++)
		fprintf(f, ",%s_total,%s_per_call,%s_running_pct", ev_name(c, e), ev_name(c, e),
			ev_name(c, e));
}

static void csv_events(FILE *f, const struct ft_counters *c, const struct ft_cnt_delta *sum,
		       __u64 kept)
{
	int e;

	for (e = 0; e < c->nev; e++) {
		bool sc;
		double v = scaled_value(&sum[e], &sc);

		fprintf(f, ",%.0f,%.6g,%.2f", v, kept ? v / kept : 0.0, running_pct(&sum[e]));
	}
}

void ft_counters_csv_func(FILE *f, const struct ft_run *run, const struct ft_target *t)
{
	if (!active(run))
		return;
	fprintf(f, ",%" PRIu64 ",%" PRIu64, (uint64_t)t->cnt.kept,
		(uint64_t)discarded_total(&t->cnt));
	csv_events(f, run->counters, t->cnt.sum, t->cnt.kept);
}

void ft_counters_csv_pern_head(FILE *f, const struct ft_run *run)
{
	if (!active(run))
		return;
	ft_counters_csv_func_head(f, run);
}

void ft_counters_csv_pern(FILE *f, const struct ft_run *run, unsigned int algo, __u64 n)
{
	struct pern_cnt p;

	if (!active(run))
		return;
	pern_build(run, algo, n, &p);
	fprintf(f, ",%" PRIu64 ",%" PRIu64, (uint64_t)p.kept, (uint64_t)p.discarded);
	csv_events(f, run->counters, p.sum, p.kept);
}
