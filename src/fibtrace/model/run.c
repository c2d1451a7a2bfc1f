// SPDX-License-Identifier: GPL-2.0
/* The model's few behaviours: names and warnings (run.h). */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "events.h"
#include "run.h"

const char *const ft_lost_names[FT_LOST_NR] = {
	"unmatched_exit", "unwound",	  "stack_overflow",
	"task_storage",	  "ringbuf",	  "counters_discarded",
	"no_return",	  "outside_read", "kretprobe_missed",
	"kprobe_missed",  "tree",	  "timeline",
};

/* What each exit status means, in enum ft_exit order; --help prints this. */
static const struct {
	enum ft_exit status;
	const char *meaning;
} exit_help[] = {
	{FT_EXIT_OK, "ok"},
	{FT_EXIT_ERROR, "runtime error"},
	{FT_EXIT_USAGE, "bad usage (also --strict refusing)"},
	{FT_EXIT_PERM, "not root / no CAP_BPF"},
	{FT_EXIT_NO_FIBDRV,
	 "fibdrv not loaded and needed (or unloaded while tracing, or a build would not load)"},
	{FT_EXIT_UNKNOWN_FUNC, "unknown function"},
	{FT_EXIT_NO_BTF, "kernel BTF missing"},
	{FT_EXIT_CHILD, "the traced command failed"},
	{FT_EXIT_REGRESSION, "--fail-on-regression found a regression"},
	{FT_EXIT_NO_COUNTERS, "--require-counters but an event is not available"},
	{FT_EXIT_NO_TOOL, "a program the option runs is missing (--cachesim: valgrind)"},
};

int ft_exit_status(int err)
{
	if (!err)
		return FT_EXIT_OK;
	if (err < 0 && -err <= FT_EXIT_LAST)
		return -err;
	return FT_EXIT_ERROR; /* a raw -errno, or a positive value: a bug; an error all the same */
}

char *ft_exit_help(const char *see)
{
	size_t n = sizeof(exit_help) / sizeof(exit_help[0]), i;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fprintf(f, "Exit status:");
	for (i = 0; i < n; i++)
		fprintf(f, " %d %s%s", exit_help[i].status, exit_help[i].meaning,
			i + 1 < n ? "," : ".");
	fputs(see, f);
	fclose(f);
	return text;
}

const char *ft_mode_name(enum ft_mode m)
{
	return m == FT_MODE_FENTRY ? "fentry" : m == FT_MODE_MULTI ? "kprobe.multi" : "kprobe";
}

const char *ft_algo_name(const struct ft_run *run, unsigned int id)
{
	return (int)id < run->algos.count ? run->algos.name[id] : "?";
}

void ft_warn(struct ft_run *run, const char *fmt, ...)
{
	va_list ap;
	char buf[256];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fibtrace: warning: %s\n", buf);
	if (run && run->nwarnings < (int)(sizeof(run->warnings) / sizeof(run->warnings[0])))
		snprintf(run->warnings[run->nwarnings++], sizeof(run->warnings[0]), "%s", buf);
}

void ft_run_set_sweep(struct ft_run *run, __u64 first, __u64 last, __u64 step, unsigned int repeat)
{
	run->sweep = true;
	run->first = first;
	run->last = last;
	run->step = step;
	run->repeat = repeat;
	if (!run->filter_pid)
		run->filter_pid = getpid(); /* count fibtrace's own reads only */
}

size_t ft_run_rec_size(const struct ft_run *run)
{
	if (run->self_stride)
		return FT_READ_REC_SIZE_FUNCS;
	return run->counters && run->counters->nev ? sizeof(struct ft_read_rec)
						   : FT_READ_REC_SIZE_NO_COUNTERS;
}

/* Room for one more record (and its self times): 0 or -ENOMEM. */
static int grow_recs(struct ft_run *run)
{
	size_t cap = run->caprecs ? run->caprecs * 2 : 4096;

	if (run->max_recs && cap > run->max_recs)
		cap = run->max_recs;
	struct ft_read_rec *n;
	__s64 *self;

	if (run->self_stride) {
		self = realloc(run->rec_self, cap * run->self_stride * sizeof(*self));
		if (!self)
			return -ENOMEM;
		run->rec_self = self;
	}
	n = realloc(run->recs, cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	run->recs = n;
	run->caprecs = cap;
	return 0;
}

void ft_run_clear_recs(struct ft_run *run)
{
	run->nrecs = 0;
	run->recs_dropped = 0;
	run->pern_valid = false;
}

void ft_run_truncate_recs(struct ft_run *run, size_t keep)
{
	if (keep < run->nrecs) {
		run->nrecs = keep;
		run->pern_valid = false;
	}
}

void ft_run_move_rec(struct ft_run *run, size_t dst, size_t src)
{
	if (dst == src || src >= run->nrecs || dst >= run->nrecs)
		return;
	run->recs[dst] = run->recs[src];
	if (run->self_stride)
		memcpy(&run->rec_self[dst * run->self_stride], &run->rec_self[src * run->self_stride],
		       run->self_stride * sizeof(*run->rec_self));
	run->pern_valid = false;
}

void ft_run_free(struct ft_run *run)
{
	free(run->recs);
	free(run->rec_self);
	free(run->tree);
	free(run->pern);
	run->recs = NULL;
	run->rec_self = NULL;
	run->tree = NULL;
	run->pern = NULL;
	run->nrecs = run->npern = 0;
	run->ntree = run->captree = 0;
	run->pern_valid = false;
}

int ft_run_add_rec(struct ft_run *run, const void *data, size_t size)
{
	const struct ft_read_funcs *funcs = (const void *)((const char *)data + sizeof(*run->recs));
	__s64 *self;

	if (size < FT_READ_REC_SIZE_NO_COUNTERS)
		return 0;
	if (run->max_recs && run->nrecs >= run->max_recs) {
		run->recs_dropped++;
		if (!run->recs_warned) {
			run->recs_warned = true;
			ft_warn(run,
				"%zu read records kept (--max-records): later reads count in the "
				"function histograms but not in the per-n table",
				run->max_recs);
		}
		return 0;
	}
	if (run->nrecs == run->caprecs && grow_recs(run))
		return -ENOMEM;
	if (run->self_stride) {
		self = &run->rec_self[run->nrecs * run->self_stride];
		if (size >= FT_READ_REC_SIZE_FUNCS)
			memcpy(self, funcs->self_ns, run->self_stride * sizeof(*self));
		else
			memset(self, 0, run->self_stride * sizeof(*self));
	}
	/* Records without counters end before cnt[]: the rest is zero. */
	memset(&run->recs[run->nrecs], 0, sizeof(struct ft_read_rec));
	memcpy(&run->recs[run->nrecs++], data,
	       size < sizeof(struct ft_read_rec) ? size : sizeof(struct ft_read_rec));
	run->pern_valid = false;
	return 0;
}

int ft_algo_list_parse(const struct ft_run *run, const char *list, __u64 last, int *ids, int max,
		       const char *what)
{
	const struct fibdev_algos *a = &run->algos;
	char *copy = strdup(list), *tok, *save = NULL;
	int n = 0, i, err = 0;

	if (!copy)
		return -FT_EXIT_ERROR;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		i = fibdev_algo_index(a, tok);
		err = -FT_EXIT_USAGE;
		if (i < 0) {
			fprintf(stderr, "fibtrace: unknown algorithm '%s'; the device has:", tok);
			for (i = 0; i < a->count; i++)
				fprintf(stderr, " %s", a->name[i]);
			fputc('\n', stderr);
		} else if (last > a->max_n[i]) {
			fprintf(stderr,
				"fibtrace: --sweep up to %" PRIu64 " exceeds %s's max_n %" PRIu64
				"\n",
				(uint64_t)last, tok, (uint64_t)a->max_n[i]);
		} else if (n == max) {
			fprintf(stderr, "fibtrace: %s: at most %d variants\n", what, max);
		} else {
			ids[n++] = i;
			err = 0;
		}
	}
	free(copy);
	return err ? err : n;
}

/* The value of word KEY=value on the kernel command line into buf; 0 or -ENOENT. */
static int cmdline_value(const char *key, char *buf, size_t size)
{
	char line[4096], *tok, *save = NULL;
	size_t klen = strlen(key);
	FILE *f = fopen("/proc/cmdline", "r");
	int err = -ENOENT;

	if (!f)
		return -ENOENT;
	if (fgets(line, sizeof(line), f))
		for (tok = strtok_r(line, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save))
			if (!strncmp(tok, key, klen) && tok[klen] == '=') {
				snprintf(buf, size, "%s", tok + klen + 1);
				err = 0; /* the last one wins, as for the kernel's own */
			}
	fclose(f);
	return err;
}

bool ft_cpuid_hypervisor(char vendor[13])
{
	vendor[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c >> 31 & 1))
		return false;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &c, 4);
	memcpy(vendor + 8, &d, 4);
	vendor[12] = '\0';
	return true;
#else
	return false;
#endif
}

/* CPUID's hypervisor vendor as a short name; "none" without the hypervisor bit. */
static void cpuid_vm(char *buf, size_t size)
{
	static const struct {
		const char *vendor, *name;
	} known[] = {
		{"TCGTCGTCGTCG", "tcg"},    {"KVMKVMKVM", "kvm"},    {"Microsoft Hv", "hyperv"},
		{"VMwareVMware", "vmware"}, {"XenVMMXenVMM", "xen"}, {"VBoxVBoxVBox", "virtualbox"},
	};
	char vendor[13];
	unsigned int i;

	snprintf(buf, size, "none");
	if (!ft_cpuid_hypervisor(vendor))
		return;
	snprintf(buf, size, "hypervisor");
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strncmp(vendor, known[i].vendor, 12))
			snprintf(buf, size, "%s", known[i].name);
}

void ft_run_clocksource(struct ft_run *run)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	snprintf(run->clocksource, sizeof(run->clocksource), "unknown");
	if (f && fscanf(f, "%31s", run->clocksource) != 1)
		snprintf(run->clocksource, sizeof(run->clocksource), "unknown");
	if (f)
		fclose(f);
	if (cmdline_value("fibtrace.clock", run->clock, sizeof(run->clock)) ||
	    (strcmp(run->clock, "instructions") && strcmp(run->clock, "real")))
		snprintf(run->clock, sizeof(run->clock), "real");
	if (cmdline_value("fibtrace.vm", run->vm, sizeof(run->vm)) ||
	    strspn(run->vm, "abcdefghijklmnopqrstuvwxyz-") != strlen(run->vm) || !run->vm[0])
		cpuid_vm(run->vm, sizeof(run->vm));
}

const char *ft_run_clock_desc(const struct ft_run *run)
{
	if (ft_run_clock_exact(run))
		return "instructions (QEMU icount: 1 ns = 1 instruction)";
	if (!strcmp(run->vm, "tcg"))
		return "real (QEMU TCG: an emulated CPU, ~10x slower, noisy)";
	if (!strcmp(run->vm, "kvm"))
		return "real (KVM guest)";
	if (!strcmp(run->vm, "none"))
		return "real";
	return "real (virtual machine)";
}

double ft_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *ft_counters_first_event(const struct ft_counters *c)
{
	return c && c->nev ? c->req[c->by_index[0]].def->name : NULL;
}
