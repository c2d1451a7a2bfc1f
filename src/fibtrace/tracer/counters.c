// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace counters (-e/--events): opens one counting perf event per event
 * and CPU (pid -1), hands the fds to BPF through the PERF_EVENT_ARRAY
 * "cnt_events" and sums BPF's per-function deltas ("cstats"). The reports
 * print them (report_counters.c); docs/counters.md.
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

#include "counters.h"
#include "fibtrace.skel.h"
#include "model/aggregate.h"

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

void ft_counters_prepare(struct fibtrace *skel, const struct ft_run *run)
{
	const struct ft_counters *c = run->counters;
	int ncpus = libbpf_num_possible_cpus();

	skel->rodata->nr_events = c ? c->nev : 0;
	skel->rodata->nr_cpus = c ? c->ncpus : 0;
	bpf_map__set_max_entries(skel->maps.cnt_events,
				 c && c->nev ? c->nev * c->ncpus : (ncpus > 0 ? ncpus : 1));
	bpf_map__set_max_entries(skel->maps.cstats, c && c->nev ? ft_targets_all(run->targets) : 1);
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
				ft_cnt_add(&s->sum[e], &p->sum[e]);
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
				ev->def->name, ft_cnt_running_pct(&ev->whole));
		}
	}
	return 0;
}
