// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace --compare algos|formats: measure several variants of fibdrv's read
 * in interleaved rounds, then compare each against a baseline, n by n.
 *
 * Every variant reads through its own open file (its own algorithm or output
 * format). A round visits every n and, for each n, every variant in turn,
 * the starting variant rotating from round to round, so slow drift (thermal,
 * frequency, other load) falls on every variant alike and none is always
 * first after another. Each read's kernel times come from the BPF per-read
 * record (fib_read total and its compute/format/copy stages); its user-side
 * time is CLOCK_MONOTONIC around read(). Records are matched to reads one
 * by one (single driving thread, pid filter = ourselves): a read whose record
 * is missing, extra or disagrees on n, algorithm or return value is counted
 * as unmatched and left out, never mixed in.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "fibdrv_uapi.h"
#include "trace_compare.h"
#include "trace_counters.h"
#include "trace_model.h"

#define WARMUP_ROUNDS 1

enum hy_status { HY_OK, HY_WARN, HY_INFO };

struct hygiene {
	const char *name;
	enum hy_status status;
	char detail[200];
};

#define HY_CHECKS 8

struct variant {
	char label[80];
	int algo_id;
	int format; /* FIBDRV_FORMAT_* */
	int fd;
	uint64_t reads, matched, unmatched, errors, removed;
};

/* Raw per-read values of one (variant, n). */
struct raw_cell {
	size_t count;
	double *v[FT_METRIC_NR];
};

struct ft_compare {
	struct ft_cmp_opts o;
	const char *device;
	uint64_t first, step;
	size_t nn; /* values of n */
	unsigned int repeat;
	int cpu;
	struct variant var[FT_CMP_MAX_VARIANTS];
	int nv, base;
	struct raw_cell *raw; /* [variant * nn + nidx] */
	struct hygiene hy[HY_CHECKS];
	int nhy;
	uint64_t reads_issued, unmatched, read_errors;
	bool interrupted;
	/* analysis */
	struct ft_cmp_cell *cell; /* [variant * nn + nidx] */
	struct ft_cmp_pair *pair; /* [(candidate order) * nn + nidx] */
	size_t npairs;
};

static uint64_t nth(const struct ft_compare *c, size_t i)
{
	return c->first + i * c->step;
}

static const char *kind_name(enum ft_cmp_kind k)
{
	return k == FT_CMP_FORMATS ? "formats" : "algos";
}

/* A counter delta scaled for multiplexing, as perf stat does. */
static double scaled_count(const struct ft_cnt_delta *d)
{
	if (d->running && d->running < d->enabled)
		return (double)d->value * d->enabled / d->running;
	return d->value;
}

/* Name of the event behind FT_METRIC_COUNTER, or NULL without -e. */
static const char *counter_event(const struct ft_run *run)
{
	const struct ft_counters *k = run->counters;

	return k && k->nev ? k->req[k->by_index[0]].def->name : NULL;
}

static const char *metric_desc(enum ft_cmp_metric m)
{
	switch (m) {
	case FT_METRIC_TOTAL:
		return "fib_read kernel time (BPF)";
	case FT_METRIC_COMPUTE:
		return "fibdrv_compute kernel time (BPF)";
	case FT_METRIC_FORMAT:
		return "fibdrv_format kernel time (BPF)";
	case FT_METRIC_COPY:
		return "fibdrv_copy kernel time (BPF)";
	case FT_METRIC_COUNTER:
		return "the first -e event counted inside fib_read (BPF, scaled)";
	default:
		return "read() syscall, user side (CLOCK_MONOTONIC)";
	}
}

/* ---------- hygiene ---------- */

static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t len;

	if (!f)
		return -errno;
	if (!fgets(buf, size, f)) {
		fclose(f);
		buf[0] = 0;
		return -EIO;
	}
	fclose(f);
	len = strlen(buf);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = 0;
	return 0;
}

/* Is cpu in a list such as "0-3,8,10-11"? */
static bool cpu_in_list(const char *list, int cpu)
{
	const char *p = list;

	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p)
			return false;
		b = a;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (cpu >= a && cpu <= b)
			return true;
		p = end;
		if (*p == ',')
			p++;
		else
			break;
	}
	return false;
}

static struct hygiene *hy_add(struct ft_compare *c, const char *name, enum hy_status st,
			      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static struct hygiene *hy_add(struct ft_compare *c, const char *name, enum hy_status st,
			      const char *fmt, ...)
{
	struct hygiene *h = &c->hy[c->nhy++];
	va_list ap;

	h->name = name;
	h->status = st;
	va_start(ap, fmt);
	vsnprintf(h->detail, sizeof(h->detail), fmt, ap);
	va_end(ap);
	return h;
}

static void check_governor(struct ft_compare *c)
{
	char path[128], gov[64], bad[128] = "";
	int cpu, ncpu = sysconf(_SC_NPROCESSORS_CONF), seen = 0, nbad = 0;

	for (cpu = 0; cpu < ncpu; cpu++) {
		if (c->cpu >= 0 && cpu != c->cpu)
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu);
		if (read_line(path, gov, sizeof(gov)))
			continue;
		seen++;
		if (strcmp(gov, "performance")) {
			if (!nbad++)
				snprintf(bad, sizeof(bad), "CPU %d uses '%s'", cpu, gov);
		}
	}
	if (!seen)
		hy_add(c, "governor", HY_INFO,
		       "no cpufreq governor exposed (no cpufreq driver: typical of a VM)");
	else if (nbad)
		hy_add(c, "governor", HY_WARN,
		       "%s%s, not 'performance': the clock may change during the run", bad,
		       nbad > 1 ? " (and others)" : "");
	else
		hy_add(c, "governor", HY_OK, "'performance' on %s",
		       c->cpu >= 0 ? "the pinned CPU" : "every CPU");
}

static void check_boost(struct ft_compare *c)
{
	char v[32];

	if (!read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", v, sizeof(v))) {
		if (!strcmp(v, "1"))
			hy_add(c, "turbo", HY_OK, "turbo off (intel_pstate/no_turbo = 1)");
		else
			hy_add(c, "turbo", HY_WARN,
			       "turbo on (intel_pstate/no_turbo = %s): the clock depends on "
			       "temperature and load",
			       v);
	} else if (!read_line("/sys/devices/system/cpu/cpufreq/boost", v, sizeof(v))) {
		if (!strcmp(v, "0"))
			hy_add(c, "turbo", HY_OK, "boost off (cpufreq/boost = 0)");
		else
			hy_add(c, "turbo", HY_WARN,
			       "boost on (cpufreq/boost = %s): the clock depends on temperature "
			       "and load",
			       v);
	} else {
		hy_add(c, "turbo", HY_INFO,
		       "no turbo/boost control exposed (intel_pstate/no_turbo, cpufreq/boost)");
	}
}

static void check_aslr(struct ft_compare *c)
{
	char v[16];

	if (read_line("/proc/sys/kernel/randomize_va_space", v, sizeof(v)))
		hy_add(c, "aslr", HY_INFO, "randomize_va_space unreadable");
	else if (!strcmp(v, "0"))
		hy_add(c, "aslr", HY_OK, "off (randomize_va_space = 0)");
	else
		hy_add(c, "aslr", HY_WARN,
		       "on (randomize_va_space = %s): user-side times vary with the address "
		       "layout from run to run",
		       v);
}

static void check_isolcpus(struct ft_compare *c)
{
	char v[256];

	if (read_line("/sys/devices/system/cpu/isolated", v, sizeof(v)))
		v[0] = 0;
	if (c->cpu < 0)
		hy_add(c, "isolcpus", HY_WARN, "not pinned (--cpu N on an isolcpus= CPU)");
	else if (!v[0])
		hy_add(c, "isolcpus", HY_WARN,
		       "no isolated CPU (boot with isolcpus=%d): other tasks may run on CPU %d",
		       c->cpu, c->cpu);
	else if (cpu_in_list(v, c->cpu))
		hy_add(c, "isolcpus", HY_OK, "CPU %d is isolated (%s)", c->cpu, v);
	else
		hy_add(c, "isolcpus", HY_WARN, "CPU %d is not isolated (isolated: %s)", c->cpu, v);
}

static void check_irqs(struct ft_compare *c)
{
	DIR *d;
	struct dirent *e;
	char path[300], v[256];
	int total = 0, on_cpu = 0;

	if (c->cpu < 0) {
		hy_add(c, "irq-affinity", HY_WARN, "not pinned: interrupts may hit any CPU");
		return;
	}
	d = opendir("/proc/irq");
	if (!d) {
		hy_add(c, "irq-affinity", HY_INFO, "/proc/irq unreadable");
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/irq/%s/smp_affinity_list", e->d_name);
		if (read_line(path, v, sizeof(v)))
			continue;
		total++;
		on_cpu += cpu_in_list(v, c->cpu);
	}
	closedir(d);
	if (on_cpu)
		hy_add(c, "irq-affinity", HY_WARN,
		       "%d of %d IRQs may be delivered to CPU %d (/proc/irq/*/smp_affinity_list)",
		       on_cpu, total, c->cpu);
	else
		hy_add(c, "irq-affinity", HY_OK, "none of %d IRQs is routed to CPU %d", total,
		       c->cpu);
}

static void check_virt(struct ft_compare *c)
{
	char what[160] = "", v[64];
	size_t len = 0;
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, cc, d;

	if (__get_cpuid(1, &a, &b, &cc, &d) && (cc >> 31 & 1)) {
		char vendor[13] = "";

		__cpuid(0x40000000, a, b, cc, d);
		memcpy(vendor, &b, 4);
		memcpy(vendor + 4, &cc, 4);
		memcpy(vendor + 8, &d, 4);
		for (a = 0; a < 12; a++)
			if (vendor[a] && (vendor[a] < ' ' || vendor[a] > '~'))
				vendor[a] = '?';
		len += snprintf(what + len, sizeof(what) - len, "cpuid hypervisor bit (%s)",
				vendor[0] ? vendor : "unnamed");
	}
#endif
	if (!read_line("/sys/hypervisor/type", v, sizeof(v)) && v[0] && len < sizeof(what))
		len += snprintf(what + len, sizeof(what) - len, "%s/sys/hypervisor/type %s",
				len ? ", " : "", v);
	if (!read_line("/sys/class/dmi/id/sys_vendor", v, sizeof(v)) && len < sizeof(what) &&
	    (strstr(v, "QEMU") || strstr(v, "VMware") || strstr(v, "innotek") || strstr(v, "Xen") ||
	     strstr(v, "Microsoft") || strstr(v, "Amazon EC2") || strstr(v, "Google")))
		len += snprintf(what + len, sizeof(what) - len, "%sDMI vendor %s", len ? ", " : "",
				v);
	if (len)
		hy_add(c, "virtualization", HY_WARN,
		       "virtualized: %s; the host schedules the vCPU and its clock", what);
	else
		hy_add(c, "virtualization", HY_OK, "bare metal (no hypervisor bit, no DMI hint)");
}

static void check_pmu(struct ft_compare *c)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
		.exclude_hv = 1,
	};
	int fd;

	if (!access("/sys/bus/event_source/devices/cpu", F_OK)) {
		hy_add(c, "pmu", HY_OK, "hardware PMU present (event_source/devices/cpu)");
		return;
	}
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd >= 0) {
		close(fd);
		hy_add(c, "pmu", HY_OK, "hardware PMU present (cycles counter opens)");
		return;
	}
	/* Times do not need the PMU: information, not a weakness of a time comparison. */
	hy_add(c, "pmu", HY_INFO,
	       "no hardware PMU (cycles: %s): no cycle/instruction counters; times unaffected",
	       strerror(errno));
}

/* The one CPU this thread may run on (taskset -c N), or -1. */
static int affinity_cpu(void)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) != 1)
		return -1;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return -1;
}

static void check_hygiene(struct ft_compare *c)
{
	c->nhy = 0;
	if (c->cpu >= 0) {
		hy_add(c, "pinned-cpu", HY_OK, "the driving thread is pinned to CPU %d", c->cpu);
	} else if ((c->cpu = affinity_cpu()) >= 0) {
		hy_add(c, "pinned-cpu", HY_OK,
		       "the driving thread may only run on CPU %d (affinity)", c->cpu);
	} else {
		hy_add(c, "pinned-cpu", HY_WARN,
		       "not pinned (--cpu N): migrations between reads add noise");
	}
	check_governor(c);
	check_boost(c);
	check_aslr(c);
	check_isolcpus(c);
	check_irqs(c);
	check_virt(c);
	check_pmu(c);
}

static const char *hy_status_name(enum hy_status s)
{
	return s == HY_OK ? "ok" : s == HY_WARN ? "warn" : "info";
}

/* ---------- setup ---------- */

static int add_variant(struct ft_compare *c, int algo_id, const char *algo_name, int format,
		       const char *label)
{
	struct variant *v;
	int i, dup = 1;

	if (c->nv == FT_CMP_MAX_VARIANTS) {
		fprintf(stderr, "fibtrace: --compare: at most %d variants\n", FT_CMP_MAX_VARIANTS);
		return -FT_EXIT_USAGE;
	}
	v = &c->var[c->nv];
	memset(v, 0, sizeof(*v));
	v->algo_id = algo_id;
	v->format = format;
	v->fd = -1;
	for (i = 0; i < c->nv; i++)
		if (c->var[i].algo_id == algo_id && c->var[i].format == format)
			dup++;
	/* Naming one algorithm twice (an A/A run) gives it distinct labels. */
	if (dup > 1)
		snprintf(v->label, sizeof(v->label), "%s#%d", label ? label : algo_name, dup);
	else
		snprintf(v->label, sizeof(v->label), "%s", label ? label : algo_name);
	c->nv++;
	return 0;
}

static int algo_index(const struct ft_run *run, const char *name)
{
	int i;

	for (i = 0; i < run->nalgos; i++)
		if (!strcmp(run->algos[i], name))
			return i;
	return -1;
}

static void list_algos(const struct ft_run *run)
{
	int i;

	for (i = 0; i < run->nalgos; i++)
		fprintf(stderr, " %s", run->algos[i]);
	fputc('\n', stderr);
}

static int device_default_algo(const struct ft_compare *c, const struct ft_run *run)
{
	struct fibdrv_algo_sel sel = {};
	int fd = open(c->device, O_RDONLY | O_CLOEXEC), id = -1;

	if (fd < 0) {
		fprintf(stderr, "fibtrace: %s: %s\n", c->device, strerror(errno));
		return -FT_EXIT_ERROR;
	}
	if (!ioctl(fd, FIBDRV_IOC_GET_ALGO, &sel)) {
		sel.name[sizeof(sel.name) - 1] = 0;
		id = algo_index(run, sel.name);
	}
	close(fd);
	if (id < 0) {
		fprintf(stderr, "fibtrace: cannot tell the device's default algorithm\n");
		return -FT_EXIT_ERROR;
	}
	return id;
}

static int resolve_variants(struct ft_compare *c, const struct ft_run *run, const __u64 *limits,
			    const char *algo_list, uint64_t last)
{
	char *copy, *tok, *save = NULL;
	int ids[FT_CMP_MAX_VARIANTS * 2], nid = 0, i, err;

	if (algo_list) {
		copy = strdup(algo_list);
		if (!copy)
			return -FT_EXIT_ERROR;
		for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			i = algo_index(run, tok);
			if (i < 0) {
				fprintf(stderr,
					"fibtrace: unknown algorithm '%s'; the device has:", tok);
				list_algos(run);
				free(copy);
				return -FT_EXIT_USAGE;
			}
			if (last > limits[i]) {
				fprintf(stderr,
					"fibtrace: --sweep up to %" PRIu64
					" exceeds %s's max_n %" PRIu64 "\n",
					last, tok, (uint64_t)limits[i]);
				free(copy);
				return -FT_EXIT_USAGE;
			}
			if (nid == FT_CMP_MAX_VARIANTS) {
				fprintf(stderr, "fibtrace: --compare: at most %d variants\n",
					FT_CMP_MAX_VARIANTS);
				free(copy);
				return -FT_EXIT_USAGE;
			}
			ids[nid++] = i;
		}
		free(copy);
	}
	if (c->o.kind == FT_CMP_FORMATS) {
		int id;

		if (nid > 1) {
			fprintf(stderr, "fibtrace: --compare formats takes one --algo\n");
			return -FT_EXIT_USAGE;
		}
		id = nid ? ids[0] : device_default_algo(c, run);
		if (id < 0)
			return id;
		if (last > limits[id]) {
			fprintf(stderr,
				"fibtrace: --sweep up to %" PRIu64 " exceeds %s's max_n %" PRIu64
				"\n",
				last, run->algos[id], (uint64_t)limits[id]);
			return -FT_EXIT_USAGE;
		}
		err = add_variant(c, id, run->algos[id], FIBDRV_FORMAT_DEC, "dec");
		if (!err)
			err = add_variant(c, id, run->algos[id], FIBDRV_FORMAT_BIN, "bin");
		return err;
	}
	if (!nid) {
		/* Every algorithm valid over the whole sweep, in registry order. */
		for (i = 0; i < run->nalgos && nid < FT_CMP_MAX_VARIANTS; i++)
			if (limits[i] >= last)
				ids[nid++] = i;
	}
	if (nid < 2) {
		fprintf(stderr,
			"fibtrace: --compare algos needs two algorithms valid up to n = %" PRIu64
			" (%d found); name one twice (--algo A,A) for an A/A run\n",
			last, nid);
		return -FT_EXIT_USAGE;
	}
	for (i = 0; i < nid; i++) {
		err = add_variant(c, ids[i], run->algos[ids[i]], FIBDRV_FORMAT_DEC, NULL);
		if (err)
			return err;
	}
	return 0;
}

static int resolve_baseline(struct ft_compare *c)
{
	int i;

	c->base = 0;
	if (!c->o.baseline)
		return 0;
	for (i = 0; i < c->nv; i++)
		if (!strcmp(c->var[i].label, c->o.baseline)) {
			c->base = i;
			return 0;
		}
	fprintf(stderr,
		"fibtrace: --baseline '%s' is not one of the compared variants:", c->o.baseline);
	for (i = 0; i < c->nv; i++)
		fprintf(stderr, " %s", c->var[i].label);
	fputc('\n', stderr);
	return -FT_EXIT_USAGE;
}

int ft_compare_prepare(struct ft_compare **out, const struct ft_cmp_opts *o, struct ft_run *run,
		       const __u64 *limits, const char *algo_list, const char *device,
		       uint64_t first, uint64_t last, uint64_t step, unsigned int repeat, int cpu)
{
	struct ft_compare *c = calloc(1, sizeof(*c));
	size_t i, m;
	int err, nwarn = 0, h;

	*out = c;
	if (!c)
		return -FT_EXIT_ERROR;
	c->o = *o;
	c->device = device;
	c->first = first;
	c->step = step;
	c->nn = (last - first) / step + 1;
	c->repeat = repeat;
	c->cpu = cpu;
	if (c->nn > 1000000) {
		fprintf(stderr, "fibtrace: --compare: at most 1000000 values of n\n");
		return -FT_EXIT_USAGE;
	}
	err = resolve_variants(c, run, limits, algo_list, last);
	if (!err)
		err = resolve_baseline(c);
	if (err)
		return err;
	c->raw = calloc((size_t)c->nv * c->nn, sizeof(*c->raw));
	if (!c->raw)
		return -FT_EXIT_ERROR;
	for (i = 0; i < (size_t)c->nv * c->nn; i++)
		for (m = 0; m < FT_METRIC_NR; m++) {
			c->raw[i].v[m] = malloc(repeat * sizeof(double));
			if (!c->raw[i].v[m])
				return -FT_EXIT_ERROR;
		}

	check_hygiene(c);
	for (h = 0; h < c->nhy; h++)
		nwarn += c->hy[h].status == HY_WARN;
	if (c->o.strict && nwarn) {
		fprintf(stderr,
			"fibtrace: --strict: refusing to measure: %d hygiene check%s weaken%s the "
			"result:\n",
			nwarn, nwarn > 1 ? "s" : "", nwarn > 1 ? "" : "s");
		for (h = 0; h < c->nhy; h++)
			if (c->hy[h].status == HY_WARN)
				fprintf(stderr, "fibtrace:   %s: %s\n", c->hy[h].name,
					c->hy[h].detail);
		return -FT_EXIT_USAGE;
	}
	for (h = 0; h < c->nhy; h++) {
		struct hygiene *x = &c->hy[h];

		if (x->status != HY_WARN)
			continue;
		/* Text output prints them in its header; elsewhere stderr says it. */
		if (c->o.output != FT_CMP_TEXT)
			fprintf(stderr, "fibtrace: warning: hygiene: %s: %s\n", x->name, x->detail);
		if (run->nwarnings < (int)(sizeof(run->warnings) / sizeof(run->warnings[0])))
			snprintf(run->warnings[run->nwarnings++], sizeof(run->warnings[0]),
				 "hygiene: %s: %s", x->name, x->detail);
	}
	run->sweep = true;
	run->first = first;
	run->last = first + (c->nn - 1) * step;
	run->step = step;
	run->repeat = repeat;
	if (!run->filter_pid)
		run->filter_pid = getpid();
	return 0;
}

/* ---------- driving ---------- */

static int open_variant(struct ft_compare *c, struct ft_run *run, struct variant *v)
{
	struct fibdrv_algo_sel sel = {};

	v->fd = open(c->device, O_RDONLY | O_CLOEXEC);
	if (v->fd < 0) {
		fprintf(stderr, "fibtrace: %s: %s\n", c->device, strerror(errno));
		return -FT_EXIT_ERROR;
	}
	snprintf(sel.name, sizeof(sel.name), "%s", run->algos[v->algo_id]);
	if (ioctl(v->fd, FIBDRV_IOC_SET_ALGO, &sel)) {
		fprintf(stderr, "fibtrace: selecting %s: %s\n", sel.name, strerror(errno));
		return -FT_EXIT_ERROR;
	}
	if (ioctl(v->fd, FIBDRV_IOC_SET_FORMAT, (unsigned long)v->format)) {
		fprintf(stderr, "fibtrace: selecting format %d: %s\n", v->format, strerror(errno));
		return -FT_EXIT_ERROR;
	}
	return 0;
}

static double mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void progress(uint64_t done, uint64_t total)
{
	static int last = -1;
	int pct = total ? (int)(done * 100 / total) : 100;

	if (pct == last)
		return;
	last = pct;
	fprintf(stderr, "\r[%-50.*s] %3d%% %" PRIu64 "/%" PRIu64, pct / 2,
		"##################################################", pct, done, total);
	if (done == total)
		fputc('\n', stderr);
}

int ft_compare_drive(struct ft_compare *c, struct ft_run *run, ft_cmp_drain_fn drain, void *ctx,
		     volatile sig_atomic_t *stop)
{
	size_t bufsize = (size_t)(nth(c, c->nn - 1) * 0.20898764 + 64), i;
	uint64_t total = (uint64_t)(c->repeat + WARMUP_ROUNDS) * c->nn * c->nv, done = 0;
	bool tty = isatty(STDERR_FILENO) && c->o.output == FT_CMP_TEXT;
	unsigned int r;
	char *buf = malloc(bufsize);
	int j, err = 0;

	if (!buf)
		return -FT_EXIT_ERROR;
	for (j = 0; j < c->nv && !err; j++)
		err = open_variant(c, run, &c->var[j]);
	for (r = 0; r < c->repeat + WARMUP_ROUNDS && !err && !*stop; r++) {
		bool warmup = r < WARMUP_ROUNDS;

		for (i = 0; i < c->nn && !*stop; i++) {
			uint64_t n = nth(c, i);

			for (j = 0; j < c->nv; j++) {
				struct variant *v = &c->var[(j + r) % c->nv];
				struct raw_cell *cell = &c->raw[(size_t)(v - c->var) * c->nn + i];
				size_t before = run->nrecs;
				const struct ft_read_rec *rec;
				ssize_t got = -1;
				double t0, t1;

				if (lseek(v->fd, n, SEEK_SET) == (off_t)n) {
					t0 = mono_ns();
					got = read(v->fd, buf, bufsize);
					t1 = mono_ns();
				} else {
					t0 = t1 = 0;
				}
				drain(ctx);
				if (warmup) {
					run->nrecs = before; /* not part of the report either */
					continue;
				}
				c->reads_issued++;
				run->reads_issued++;
				v->reads++;
				if (got < 0) {
					v->errors++;
					c->read_errors++;
					run->read_errors++;
					continue;
				}
				rec = run->nrecs == before + 1 ? &run->recs[before] : NULL;
				if (!rec || rec->n != n || rec->algo != (__u32)v->algo_id ||
				    rec->ret != got) {
					v->unmatched++;
					c->unmatched++;
					continue;
				}
				if (run->counters && run->counters->nev) {
					/*
					 * Counters that could not be paired (migrated,
					 * switched out) would mix in other work: the
					 * read is left out like an unmatched one.
					 */
					if (rec->cnt_status != FT_CNT_OK) {
						v->unmatched++;
						c->unmatched++;
						continue;
					}
					cell->v[FT_METRIC_COUNTER][cell->count] =
						scaled_count(&rec->cnt[0]);
				} else {
					cell->v[FT_METRIC_COUNTER][cell->count] = 0;
				}
				v->matched++;
				cell->v[FT_METRIC_TOTAL][cell->count] = rec->total_ns;
				cell->v[FT_METRIC_COMPUTE][cell->count] = rec->stage_ns[0];
				cell->v[FT_METRIC_FORMAT][cell->count] = rec->stage_ns[1];
				cell->v[FT_METRIC_COPY][cell->count] = rec->stage_ns[2];
				cell->v[FT_METRIC_USER][cell->count] = t1 - t0;
				cell->count++;
			}
			done += c->nv;
			if (tty && !(i & 15))
				progress(done, total);
		}
	}
	if (tty && !err)
		progress(done, total);
	if (*stop && !err) {
		c->interrupted = true;
		ft_warn(run, "interrupted: the comparison uses the rounds completed so far");
	}
	for (j = 0; j < c->nv; j++)
		if (c->var[j].fd >= 0) {
			close(c->var[j].fd);
			c->var[j].fd = -1;
		}
	if (c->unmatched)
		ft_warn(run, "%" PRIu64 " reads had no matching BPF record (left out)",
			c->unmatched);
	if (c->read_errors)
		ft_warn(run, "%" PRIu64 " reads failed (left out)", c->read_errors);
	free(buf);
	return err;
}

/* ---------- analysis ---------- */

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static int analyze(struct ft_compare *c)
{
	size_t i, k = 0;
	int v, err;

	c->cell = calloc((size_t)c->nv * c->nn, sizeof(*c->cell));
	c->pair = calloc((size_t)(c->nv - 1) * c->nn, sizeof(*c->pair));
	if (!c->cell || !c->pair)
		return -ENOMEM;
	for (v = 0; v < c->nv; v++) {
		for (i = 0; i < c->nn; i++) {
			struct raw_cell *r = &c->raw[(size_t)v * c->nn + i];
			struct ft_cmp_cell *cell = &c->cell[(size_t)v * c->nn + i];

			err = ft_cmp_cell_analyze(r->v, r->count, c->o.metric, c->o.outliers,
						  mix((uint64_t)v << 40 ^ nth(c, i)), cell);
			if (err && err != -EINVAL)
				return err;
			c->var[v].removed += cell->reads - cell->kept;
		}
	}
	for (v = 0; v < c->nv; v++) {
		if (v == c->base)
			continue;
		for (i = 0; i < c->nn; i++, k++) {
			struct ft_cmp_pair *p = &c->pair[k];

			ft_cmp_pair_analyze(
				&c->cell[(size_t)c->base * c->nn + i],
				&c->cell[(size_t)v * c->nn + i],
				mix(0x7261746fULL << 32 ^ (uint64_t)v << 48 ^ nth(c, i)), p);
			p->variant = v;
			p->nidx = i;
		}
	}
	c->npairs = k;
	ft_cmp_holm(c->pair, c->npairs);
	return 0;
}

/* Too few rounds for the number of comparisons: say so rather than print only "~". */
static void power_warning(const struct ft_compare *c, struct ft_run *run)
{
	double pmin = ft_cmp_min_p(c->repeat, c->repeat);

	if (c->npairs && pmin * c->npairs > FT_CMP_ALPHA)
		ft_warn(run,
			"%u rounds cannot show a difference: the smallest possible p is %.2g, and "
			"Holm over %zu comparisons needs %.2g or less; raise --repeat or compare "
			"fewer n",
			c->repeat, pmin, c->npairs, FT_CMP_ALPHA / c->npairs);
}

static const struct ft_cmp_cell *cell_of(const struct ft_compare *c, int v, size_t i)
{
	return &c->cell[(size_t)v * c->nn + i];
}

/* Pairs of candidate v: pair_of(c, v)[i] for n index i. */
static const struct ft_cmp_pair *pair_of(const struct ft_compare *c, int v)
{
	return &c->pair[(size_t)(v < c->base ? v : v - 1) * c->nn];
}

/* ---------- text ---------- */

static void pct_of(char *buf, size_t size, double part, double whole)
{
	if (isnan(part) || isnan(whole) || whole <= 0)
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%.1f%%", 100 * part / whole);
}

static void print_header(FILE *f, const struct ft_compare *c, const struct ft_run *run)
{
	uint64_t removed = 0, kept = 0;
	int v, h;

	fprintf(f,
		"fibtrace --compare %s: kernel %s, metric %s (%s)\n"
		"n %" PRIu64 "..%" PRIu64 " step %" PRIu64 " (%zu values), %u rounds interleaved "
		"(%d warm-up round discarded), baseline %s\n",
		kind_name(c->o.kind), run->kernel, ft_cmp_metric_name(c->o.metric),
		metric_desc(c->o.metric), c->first, nth(c, c->nn - 1), c->step, c->nn, c->repeat,
		WARMUP_ROUNDS, c->var[c->base].label);
	if (c->o.kind == FT_CMP_FORMATS)
		fprintf(f, "algorithm %s, output format dec (decimal) against bin (binary limbs)\n",
			run->algos[c->var[0].algo_id]);
	for (h = 0; h < c->nhy; h++)
		fprintf(f, "hygiene: %-4s %-15s %s\n",
			c->hy[h].status == HY_WARN ? "WARN" : hy_status_name(c->hy[h].status),
			c->hy[h].name, c->hy[h].detail);
	for (v = 0; v < c->nv; v++) {
		removed += c->var[v].removed;
		kept += c->var[v].matched - c->var[v].removed;
	}
	fprintf(f,
		"reads: %" PRIu64 " measured, %" PRIu64 " failed, %" PRIu64
		" without a matching BPF record; lost in BPF: %" PRIu64 " (ring buffer)\n",
		c->reads_issued, c->read_errors, c->unmatched,
		(uint64_t)run->lost[FT_LOST_RINGBUF]);
	fprintf(f, "outliers (%s%s): removed %" PRIu64 " of %" PRIu64 " reads:",
		ft_cmp_outliers_name(c->o.outliers),
		c->o.outliers == FT_OUTLIERS_TUKEY  ? ", outside Q1-1.5IQR..Q3+1.5IQR per n"
		: c->o.outliers == FT_OUTLIERS_TRIM ? ", 5% from each tail per n"
						    : ", none removed",
		removed, removed + kept);
	for (v = 0; v < c->nv; v++)
		fprintf(f, " %s %" PRIu64 "%s", c->var[v].label, c->var[v].removed,
			v + 1 < c->nv ? "," : "\n");
}

/* Geometric mean of the finite positive values of x[start..end). */
static double geomean_range(const double *x, size_t start, size_t end, size_t stride)
{
	double s = 0;
	size_t i, k = 0;

	for (i = start; i < end; i++) {
		double v = x[i * stride];

		if (v > 0 && isfinite(v)) {
			s += log(v);
			k++;
		}
	}
	return k ? exp(s / k) : NAN;
}

static double cell_median(const struct ft_compare *c, int v, size_t i)
{
	return cell_of(c, v, i)->s.median;
}

static void fmt_median_ci(char *buf, size_t size, const struct ft_cmp_cell *cell)
{
	char med[32];
	double half;

	ft_cmp_fmt_ns(med, sizeof(med), cell->s.median);
	half = fmax(cell->ci_hi - cell->s.median, cell->s.median - cell->ci_lo);
	if (isnan(half) || !(cell->s.median > 0))
		snprintf(buf, size, "%s", med);
	else
		snprintf(buf, size, "%s ±%3.0f%%", med, 100 * half / cell->s.median);
}

/* s left-aligned in `width` columns: UTF-8 continuation bytes take none. */
static void put_col(FILE *f, const char *s, int width)
{
	int cols = 0;
	const char *p;

	for (p = s; *p; p++)
		cols += ((unsigned char)*p & 0xc0) != 0x80;
	fputs(s, f);
	for (; cols < width; cols++)
		fputc(' ', f);
}

static void print_table_padded(FILE *f, const struct ft_compare *c)
{
	int width[FT_CMP_MAX_VARIANTS];
	size_t rows_cap = (c->o.max_rows && c->o.max_rows < c->nn ? c->o.max_rows : c->nn) + 1;
	size_t *start = malloc(rows_cap * sizeof(*start)), nrows, r, i;
	double *tmp = malloc(c->nn * sizeof(*tmp));
	bool grouped;
	int v;

	if (!start || !tmp) {
		free(start);
		free(tmp);
		return;
	}
	nrows = ft_cmp_group_rows(c->nn, c->o.max_rows, start);
	grouped = nrows < c->nn;
	fprintf(f, "\n%-17s", grouped ? "n (range, count)" : "n");
	for (v = 0; v < c->nv; v++) {
		char title[100];

		snprintf(title, sizeof(title), "%s%s", c->var[v].label,
			 v == c->base ? " (baseline)" : "");
		width[v] = strlen(title) > 19 ? (int)strlen(title) : 19;
		fprintf(f, " | ");
		put_col(f, title, width[v]);
		if (v != c->base)
			fprintf(f, " %-31s %-13s", "", "");
	}
	fprintf(f, "\n%-17s", "");
	for (v = 0; v < c->nv; v++) {
		fprintf(f, " | ");
		put_col(f, grouped ? "geomean of medians" : "median ± CI", width[v]);
		if (v != c->base)
			fprintf(f, " %-31s %-13s",
				grouped ? "vs base (min..max)" : "vs base [95% CI]",
				grouped ? "significant n" : "p (Holm)");
	}
	fputc('\n', f);
	for (r = 0; r < nrows; r++) {
		size_t a = start[r], b = start[r + 1];
		char label[64], cellbuf[64];

		if (b - a == 1)
			snprintf(label, sizeof(label), "%" PRIu64, nth(c, a));
		else
			snprintf(label, sizeof(label), "%" PRIu64 "-%" PRIu64 " (%zu)", nth(c, a),
				 nth(c, b - 1), b - a);
		fprintf(f, "%-17s", label);
		for (v = 0; v < c->nv; v++) {
			const struct ft_cmp_pair *pp = v == c->base ? NULL : pair_of(c, v);
			char d[24], lo[24], hi[24], span[96], pcol[40];

			if (b - a == 1) {
				fmt_median_ci(cellbuf, sizeof(cellbuf), cell_of(c, v, a));
			} else {
				for (i = a; i < b; i++)
					tmp[i - a] = cell_median(c, v, i);
				ft_cmp_fmt_ns(cellbuf, sizeof(cellbuf),
					      geomean_range(tmp, 0, b - a, 1));
			}
			if (!pp) {
				fprintf(f, " | ");
				put_col(f, cellbuf, width[v]);
				continue;
			}
			if (b - a == 1) {
				const struct ft_cmp_pair *p = &pp[a];

				ft_cmp_fmt_delta(d, sizeof(d), p->ratio);
				ft_cmp_fmt_delta(lo, sizeof(lo), p->ci_lo);
				ft_cmp_fmt_delta(hi, sizeof(hi), p->ci_hi);
				snprintf(span, sizeof(span), "%7s [%s, %s]", d, lo, hi);
				if (isnan(p->p_holm))
					snprintf(pcol, sizeof(pcol), "p=?");
				else
					snprintf(pcol, sizeof(pcol), "p=%.3f%s", p->p_holm,
						 p->significant ? " *" : " ~");
			} else {
				double mn = INFINITY, mx = -INFINITY;
				size_t sig = 0;

				for (i = a; i < b; i++) {
					tmp[i - a] = pp[i].ratio;
					if (pp[i].ratio < mn)
						mn = pp[i].ratio;
					if (pp[i].ratio > mx)
						mx = pp[i].ratio;
					sig += pp[i].significant;
				}
				ft_cmp_fmt_delta(d, sizeof(d), geomean_range(tmp, 0, b - a, 1));
				ft_cmp_fmt_delta(lo, sizeof(lo), mn);
				ft_cmp_fmt_delta(hi, sizeof(hi), mx);
				snprintf(span, sizeof(span), "%7s (%s..%s)", d, lo, hi);
				snprintf(pcol, sizeof(pcol), "%zu/%zu", sig, b - a);
			}
			fprintf(f, " | ");
			put_col(f, cellbuf, width[v]);
			fprintf(f, " %-31s %-13s", span, pcol);
		}
		fputc('\n', f);
	}
	fprintf(f,
		"\n± is the 95%% bootstrap interval of the median; vs base is median(variant) / "
		"median(baseline) - 1 with its 95%% bootstrap interval; p: two-sided "
		"Mann-Whitney U, Holm-adjusted over all %zu comparisons; * significant at %.2f, ~ "
		"not.\n",
		c->npairs, FT_CMP_ALPHA);
	if (grouped)
		fprintf(f, "Rows group consecutive n (--rows 0 for one row per n): geometric means "
			   "over the group, the range of the per-n changes, and how many n are "
			   "significant.\n");
	free(start);
	free(tmp);
}

/* The table without the padding at the end of its lines. */
static void print_table(FILE *out, const struct ft_compare *c)
{
	char *buf = NULL, *line, *end;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		print_table_padded(out, c);
		return;
	}
	print_table_padded(f, c);
	fclose(f);
	for (line = buf; *line; line = end + 1) {
		char *stop;

		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		for (stop = end; stop > line && stop[-1] == ' '; stop--)
			;
		fwrite(line, 1, stop - line, out);
		if (!*end)
			break;
		fputc('\n', out);
	}
	free(buf);
}

static void print_summary(FILE *f, const struct ft_compare *c)
{
	double *tmp = malloc(c->nn * sizeof(*tmp));
	size_t i;
	int v, m;

	if (!tmp)
		return;
	fputc('\n', f);
	for (v = 0; v < c->nv; v++) {
		const struct ft_cmp_pair *pp;
		size_t faster = 0, slower = 0, k = 0;
		char d[24];

		if (v == c->base)
			continue;
		pp = pair_of(c, v);
		for (i = 0; i < c->nn; i++) {
			if (isfinite(pp[i].ratio) && pp[i].ratio > 0)
				tmp[k++] = pp[i].ratio;
			faster += pp[i].significant && pp[i].ratio < 1;
			slower += pp[i].significant && pp[i].ratio > 1;
		}
		ft_cmp_fmt_delta(d, sizeof(d), stats_geomean(tmp, k));
		fprintf(f,
			"geomean %s / %s: %.4g (%s) over %zu n; significantly faster at %zu, "
			"slower "
			"at %zu, no significant difference at %zu\n",
			c->var[v].label, c->var[c->base].label, stats_geomean(tmp, k), d, k, faster,
			slower, c->nn - faster - slower);
	}
	/* Where the time goes: sums over n of the per-n medians (kept reads). */
	fprintf(f, "\ntime split (per-n medians summed over n):\n");
	for (v = 0; v < c->nv; v++) {
		double sum[FT_METRIC_NR] = {}, rest;
		char user[32], kern[32], parts[FT_METRIC_NR][16], restp[16];

		for (i = 0; i < c->nn; i++)
			for (m = 0; m < FT_METRIC_NR; m++)
				if (!isnan(cell_of(c, v, i)->med[m]))
					sum[m] += cell_of(c, v, i)->med[m];
		rest = sum[FT_METRIC_TOTAL] - sum[FT_METRIC_COMPUTE] - sum[FT_METRIC_FORMAT] -
		       sum[FT_METRIC_COPY];
		ft_cmp_fmt_ns(user, sizeof(user), sum[FT_METRIC_USER]);
		ft_cmp_fmt_ns(kern, sizeof(kern), sum[FT_METRIC_TOTAL]);
		for (m = 0; m < FT_METRIC_NR; m++)
			pct_of(parts[m], sizeof(parts[m]), sum[m], sum[FT_METRIC_TOTAL]);
		pct_of(restp, sizeof(restp), rest, sum[FT_METRIC_TOTAL]);
		pct_of(parts[FT_METRIC_USER], sizeof(parts[0]), sum[FT_METRIC_TOTAL],
		       sum[FT_METRIC_USER]);
		fprintf(f,
			"  %-22s read() %s user-side; fib_read %s = %s of it; of fib_read: compute "
			"%s, format %s, copy %s, rest %s\n",
			c->var[v].label, user, kern, parts[FT_METRIC_USER],
			parts[FT_METRIC_COMPUTE], parts[FT_METRIC_FORMAT], parts[FT_METRIC_COPY],
			restp);
	}
	free(tmp);
}

/* ---------- JSON ---------- */

static void json_num(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.9g", x);
	else
		fprintf(f, "null");
}

/* ", "key": number" (null when not finite). */
static void json_field(FILE *f, const char *key, double x)
{
	fprintf(f, ", \"%s\": ", key);
	json_num(f, x);
}

static void print_json_compare(FILE *f, const struct ft_compare *c, const struct ft_run *run)
{
	static const char *const mkey[FT_METRIC_NR] = {"total_ns", "compute_ns", "format_ns",
						       "copy_ns",  "user_ns",	 "counter"};
	size_t i, k;
	int v, h, m;

	fprintf(f,
		"  \"settings\": {\"kind\": \"%s\", \"metric\": \"%s\", \"outliers\": \"%s\", "
		"\"baseline\": ",
		kind_name(c->o.kind), ft_cmp_metric_name(c->o.metric),
		ft_cmp_outliers_name(c->o.outliers));
	ft_json_str(f, c->var[c->base].label);
	fprintf(f,
		", \"rounds\": %u, \"warmup_rounds\": %d, \"interleaved\": true, \"alpha\": %g, "
		"\"ci_level\": %g, \"bootstrap_resamples\": %u, \"comparisons\": %zu, "
		"\"strict\": %s, \"fail_on_regression_pct\": ",
		c->repeat, WARMUP_ROUNDS, FT_CMP_ALPHA, STATS_CI_LEVEL, STATS_BOOTSTRAP_RESAMPLES,
		c->npairs, c->o.strict ? "true" : "false");
	json_num(f, c->o.fail_pct >= 0 ? c->o.fail_pct : NAN);
	fprintf(f, ", \"interrupted\": %s, \"unmatched_reads\": %" PRIu64 "},\n",
		c->interrupted ? "true" : "false", c->unmatched);
	fprintf(f, "  \"hygiene\": [");
	for (h = 0; h < c->nhy; h++) {
		fprintf(f, "%s\n    {\"check\": \"%s\", \"status\": \"%s\", \"detail\": ",
			h ? "," : "", c->hy[h].name, hy_status_name(c->hy[h].status));
		ft_json_str(f, c->hy[h].detail);
		fputc('}', f);
	}
	fprintf(f, "\n  ],\n  \"variants\": [");
	for (v = 0; v < c->nv; v++) {
		const struct variant *x = &c->var[v];

		fprintf(f, "%s\n    {\"label\": ", v ? "," : "");
		ft_json_str(f, x->label);
		fprintf(f, ", \"algo\": ");
		ft_json_str(f, run->algos[x->algo_id]);
		fprintf(f,
			", \"algo_id\": %d, \"format\": \"%s\", \"baseline\": %s, \"reads\": "
			"%" PRIu64 ", \"matched\": %" PRIu64 ", \"unmatched\": %" PRIu64
			", \"errors\": %" PRIu64 ", \"outliers_removed\": %" PRIu64 "}",
			x->algo_id, x->format == FIBDRV_FORMAT_BIN ? "bin" : "dec",
			v == c->base ? "true" : "false", x->reads, x->matched, x->unmatched,
			x->errors, x->removed);
	}
	fprintf(f, "\n  ],\n  \"stats\": [");
	k = 0;
	for (v = 0; v < c->nv; v++)
		for (i = 0; i < c->nn; i++) {
			const struct ft_cmp_cell *x = cell_of(c, v, i);

			fprintf(f, "%s\n    {\"variant\": ", k++ ? "," : "");
			ft_json_str(f, c->var[v].label);
			fprintf(f,
				", \"n\": %" PRIu64 ", \"count\": %zu, \"kept\": %zu, "
				"\"outliers_removed\": %zu, \"median_ns\": ",
				nth(c, i), x->reads, x->kept, x->reads - x->kept);
			json_num(f, x->s.median);
			json_field(f, "q1_ns", x->s.q1);
			json_field(f, "q3_ns", x->s.q3);
			json_field(f, "iqr_ns", x->s.iqr);
			json_field(f, "min_ns", x->s.min);
			json_field(f, "max_ns", x->s.max);
			json_field(f, "mean_ns", x->s.mean);
			json_field(f, "ci_lo_ns", x->ci_lo);
			json_field(f, "ci_hi_ns", x->ci_hi);
			fprintf(f, ", \"medians\": {");
			for (m = 0; m < FT_METRIC_NR; m++) {
				if (m == FT_METRIC_COUNTER && !counter_event(run))
					continue;
				fprintf(f, "%s\"%s\": ", m ? ", " : "", mkey[m]);
				json_num(f, x->med[m]);
			}
			fprintf(f, "}}");
		}
	fprintf(f, "\n  ],\n  \"compare\": [");
	for (k = 0; k < c->npairs; k++) {
		const struct ft_cmp_pair *p = &c->pair[k];

		fprintf(f, "%s\n    {\"n\": %" PRIu64 ", \"a\": ", k ? "," : "", nth(c, p->nidx));
		ft_json_str(f, c->var[c->base].label);
		fprintf(f, ", \"b\": ");
		ft_json_str(f, c->var[p->variant].label);
		fprintf(f, ", \"ratio\": ");
		json_num(f, p->ratio);
		fprintf(f, ", \"ci_lo\": ");
		json_num(f, p->ci_lo);
		fprintf(f, ", \"ci_hi\": ");
		json_num(f, p->ci_hi);
		fprintf(f, ", \"p_value\": ");
		json_num(f, p->p);
		fprintf(f, ", \"p_holm\": ");
		json_num(f, p->p_holm);
		fprintf(f, ", \"significant\": %s}", p->significant ? "true" : "false");
	}
	fprintf(f, "\n  ],\n  \"summary\": [");
	k = 0;
	for (v = 0; v < c->nv; v++) {
		const struct ft_cmp_pair *pp;
		double *tmp;
		size_t faster = 0, slower = 0, q = 0;

		if (v == c->base)
			continue;
		pp = pair_of(c, v);
		tmp = malloc(c->nn * sizeof(*tmp));
		for (i = 0; i < c->nn; i++) {
			if (tmp && isfinite(pp[i].ratio) && pp[i].ratio > 0)
				tmp[q++] = pp[i].ratio;
			faster += pp[i].significant && pp[i].ratio < 1;
			slower += pp[i].significant && pp[i].ratio > 1;
		}
		fprintf(f, "%s\n    {\"a\": ", k++ ? "," : "");
		ft_json_str(f, c->var[c->base].label);
		fprintf(f, ", \"b\": ");
		ft_json_str(f, c->var[v].label);
		fprintf(f, ", \"geomean_ratio\": ");
		json_num(f, tmp ? stats_geomean(tmp, q) : NAN);
		fprintf(f, ", \"n_compared\": %zu, \"faster\": %zu, \"slower\": %zu}", q, faster,
			slower);
		free(tmp);
	}
	fprintf(f, "\n  ]");
}

/* The regular fibtrace document (docs/fibtrace.schema.json) plus the compare sections. */
static int report_json(FILE *f, const struct ft_compare *c, struct ft_run *run)
{
	char *doc = NULL, *end;
	size_t len = 0;
	FILE *mem = open_memstream(&doc, &len);

	if (!mem)
		return -ENOMEM;
	ft_report_json(mem, run);
	fclose(mem);
	end = strrchr(doc, '}');
	if (!end) {
		free(doc);
		return -EINVAL;
	}
	while (end > doc && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	fwrite(doc, 1, end - doc, f);
	fprintf(f, ",\n");
	print_json_compare(f, c, run);
	fprintf(f, "\n}\n");
	free(doc);
	return 0;
}

/* ---------- Go benchmark format ---------- */

static void report_benchfmt(FILE *f, const struct ft_compare *c, const struct ft_run *run)
{
	static const char *const unit[FT_METRIC_NR] = {"kernel-ns/op", "compute-ns/op",
						       "format-ns/op", "copy-ns/op",
						       "user-ns/op",   "counter/op"};
	size_t i, s;
	int v, m, h;

	/* Configuration lines ("key: value") that benchstat carries along. */
	fprintf(f, "goos: linux\n");
#if defined(__x86_64__)
	fprintf(f, "goarch: amd64\n");
#endif
	fprintf(f, "pkg: fibdrv\nkernel: %s\nfibtrace-metric: %s\nfibtrace-baseline: %s\n",
		run->kernel, ft_cmp_metric_name(c->o.metric), c->var[c->base].label);
	for (h = 0; h < c->nhy; h++)
		fprintf(f, "hygiene-%s: %s %s\n", c->hy[h].name, hy_status_name(c->hy[h].status),
			c->hy[h].detail);
	/* Every matched read, before outlier removal: benchstat does its own statistics. */
	for (v = 0; v < c->nv; v++)
		for (i = 0; i < c->nn; i++) {
			const struct raw_cell *r = &c->raw[(size_t)v * c->nn + i];

			for (s = 0; s < r->count; s++) {
				if (c->o.kind == FT_CMP_FORMATS)
					fprintf(f, "BenchmarkFibRead/algo=%s/format=%s/n=%" PRIu64,
						run->algos[c->var[v].algo_id], c->var[v].label,
						nth(c, i));
				else
					fprintf(f, "BenchmarkFibRead/algo=%s/n=%" PRIu64,
						c->var[v].label, nth(c, i));
				if (c->o.metric == FT_METRIC_COUNTER)
					fprintf(f, " 1 %.0f %s/op", r->v[c->o.metric][s],
						counter_event(run));
				else
					fprintf(f, " 1 %.0f ns/op", r->v[c->o.metric][s]);
				for (m = 0; m < FT_METRIC_NR; m++) {
					if (m == (int)c->o.metric)
						continue;
					if (m == FT_METRIC_COUNTER) {
						if (counter_event(run))
							fprintf(f, " %.0f %s/op", r->v[m][s],
								counter_event(run));
						continue;
					}
					fprintf(f, " %.0f %s", r->v[m][s], unit[m]);
				}
				fputc('\n', f);
			}
		}
}

/* ---------- plot ---------- */

static int report_plot(const struct ft_compare *c, const struct ft_run *run, const char *path)
{
	char dir[] = "/tmp/fibtrace-cmp-XXXXXX", lat[128], rat[128], script[128];
	const char *ext = strrchr(path, '.'), *term;
	size_t i;
	int v, ret = -1, k;
	FILE *f;

	if (ext && !strcmp(ext, ".svg"))
		term = "svg size 1000,800 dynamic background rgb 'white'";
	else if (ext && !strcmp(ext, ".png"))
		term = "pngcairo size 1000,800";
	else {
		fprintf(stderr, "fibtrace: --plot %s: want a .svg or .png file\n", path);
		return -1;
	}
	if (!mkdtemp(dir)) {
		fprintf(stderr, "fibtrace: --plot: %s\n", strerror(errno));
		return -1;
	}
	snprintf(lat, sizeof(lat), "%s/latency.dat", dir);
	snprintf(rat, sizeof(rat), "%s/ratio.dat", dir);
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	f = fopen(lat, "w");
	if (!f)
		goto out;
	/* One data block per variant: n median ci_lo ci_hi. */
	for (v = 0; v < c->nv; v++) {
		fprintf(f, "%s# %s\n", v ? "\n\n" : "", c->var[v].label);
		for (i = 0; i < c->nn; i++) {
			const struct ft_cmp_cell *x = cell_of(c, v, i);

			if (x->s.median > 0)
				fprintf(f, "%" PRIu64 " %.6g %.6g %.6g\n", nth(c, i), x->s.median,
					fmax(x->ci_lo, 1), fmax(x->ci_hi, 1));
		}
	}
	fclose(f);
	f = fopen(rat, "w");
	if (!f)
		goto out;
	k = 0;
	for (v = 0; v < c->nv; v++) {
		const struct ft_cmp_pair *pp;

		if (v == c->base)
			continue;
		pp = pair_of(c, v);
		fprintf(f, "%s# %s\n", k++ ? "\n\n" : "", c->var[v].label);
		for (i = 0; i < c->nn; i++)
			if (isfinite(pp[i].ratio) && pp[i].ratio > 0 && pp[i].ci_lo > 0 &&
			    isfinite(pp[i].ci_hi))
				fprintf(f, "%" PRIu64 " %.6g %.6g %.6g\n", nth(c, i), pp[i].ratio,
					pp[i].ci_lo, pp[i].ci_hi);
	}
	fclose(f);
	f = fopen(script, "w");
	if (!f)
		goto out;
	fprintf(f, "set terminal %s\nset output '%s'\nset multiplot layout 2,1\n", term, path);
	fprintf(f,
		"set title 'fibtrace --compare %s: %s per read, median and 95%% CI (kernel %s)'"
		"\n",
		kind_name(c->o.kind), ft_cmp_metric_name(c->o.metric), run->kernel);
	fprintf(f, "set xlabel 'n'\nset ylabel 'ns'\nset logscale y\nset grid\nset key left top\n");
	fprintf(f, "plot ");
	for (v = 0; v < c->nv; v++)
		fprintf(f, "%s'%s' index %d using 1:2:3:4 with yerrorlines pt 7 ps 0.4 title '%s'",
			v ? ", " : "", lat, v, c->var[v].label);
	fprintf(f,
		"\nset title 'ratio to the baseline %s (median / median, 95%% bootstrap band)'\n",
		c->var[c->base].label);
	fprintf(f, "set ylabel 'ratio'\nset style fill transparent solid 0.25 noborder\nplot ");
	k = 0;
	for (v = 0; v < c->nv; v++) {
		if (v == c->base)
			continue;
		fprintf(f,
			"%s'%s' index %d using 1:3:4 with filledcurves lc %d notitle, "
			"'' index %d using 1:2 with linespoints pt 7 ps 0.4 lc %d title '%s'",
			k ? ", " : "", rat, k, v + 1, k, v + 1, c->var[v].label);
		k++;
	}
	fprintf(f, ", 1 with lines dt 2 lc rgb 'black' notitle\nunset multiplot\n");
	fclose(f);
	if (ft_gnuplot(script, path))
		goto out;
	ret = 0;
out:
	unlink(lat);
	unlink(rat);
	unlink(script);
	rmdir(dir);
	return ret;
}

/* ---------- report ---------- */

static int regressions(const struct ft_compare *c)
{
	size_t k;
	int found = 0;

	if (c->o.fail_pct < 0)
		return 0;
	for (k = 0; k < c->npairs; k++) {
		const struct ft_cmp_pair *p = &c->pair[k];

		if (!p->significant || !(p->ratio > 1 + c->o.fail_pct / 100))
			continue;
		found++;
		fprintf(stderr,
			"fibtrace: regression: %s is %.1f%% slower than %s at n = %" PRIu64
			" (ratio %.4g, 95%% CI %.4g..%.4g, Holm p = %.3g; threshold %g%%)\n",
			c->var[p->variant].label, (p->ratio - 1) * 100, c->var[c->base].label,
			nth(c, p->nidx), p->ratio, p->ci_lo, p->ci_hi, p->p_holm, c->o.fail_pct);
	}
	return found;
}

int ft_compare_report(struct ft_compare *c, struct ft_run *run, FILE *f)
{
	int ret = FT_EXIT_OK;

	if (analyze(c)) {
		fprintf(stderr, "fibtrace: --compare: out of memory in the statistics\n");
		return FT_EXIT_ERROR;
	}
	power_warning(c, run);
	switch (c->o.output) {
	case FT_CMP_JSON:
		if (report_json(f, c, run))
			ret = FT_EXIT_ERROR;
		break;
	case FT_CMP_BENCHFMT:
		report_benchfmt(f, c, run);
		break;
	default:
		print_header(f, c, run);
		print_table(f, c);
		print_summary(f, c);
		break;
	}
	fflush(f);
	if (c->o.plot && report_plot(c, run, c->o.plot) && ret == FT_EXIT_OK)
		ret = FT_EXIT_ERROR;
	/* The gate's answer wins over a failed plot: CI must see the regression. */
	if (regressions(c))
		ret = FT_EXIT_REGRESSION;
	return ret;
}

void ft_compare_free(struct ft_compare *c)
{
	size_t i;
	int m;

	if (!c)
		return;
	if (c->raw)
		for (i = 0; i < (size_t)c->nv * c->nn; i++)
			for (m = 0; m < FT_METRIC_NR; m++)
				free(c->raw[i].v[m]);
	if (c->cell)
		for (i = 0; i < (size_t)c->nv * c->nn; i++)
			ft_cmp_cell_free(&c->cell[i]);
	free(c->raw);
	free(c->cell);
	free(c->pair);
	free(c);
}
