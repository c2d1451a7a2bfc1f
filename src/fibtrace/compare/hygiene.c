// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace --compare: the hygiene checks. Each looks at one thing that makes
 * a timing comparison noisier (an unpinned thread, a CPU governor other than
 * performance, turbo, ASLR, no isolated CPU, interrupts on the CPU,
 * virtualization, no PMU) and says ok, warn or info; --strict refuses to
 * measure on a warning. docs/compare.md lists them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#endif

#include "compare_int.h"

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

/* Turbo (Intel) or boost (cpufreq): the first knob the kernel exposes. */
static void check_boost(struct ft_compare *c)
{
	static const struct {
		const char *path, *knob, *what, *off;
	} knobs[] = {
		{"/sys/devices/system/cpu/intel_pstate/no_turbo", "intel_pstate/no_turbo", "turbo",
		 "1"},
		{"/sys/devices/system/cpu/cpufreq/boost", "cpufreq/boost", "boost", "0"},
	};
	char v[32];
	size_t k;

	for (k = 0; k < sizeof(knobs) / sizeof(knobs[0]); k++) {
		if (read_line(knobs[k].path, v, sizeof(v)))
			continue;
		if (!strcmp(v, knobs[k].off))
			hy_add(c, "turbo", HY_OK, "%s off (%s = %s)", knobs[k].what, knobs[k].knob,
			       v);
		else
			hy_add(c, "turbo", HY_WARN,
			       "%s on (%s = %s): the clock depends on temperature and load",
			       knobs[k].what, knobs[k].knob, v);
		return;
	}
	hy_add(c, "turbo", HY_INFO,
	       "no turbo/boost control exposed (intel_pstate/no_turbo, cpufreq/boost)");
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
	char vendor[13];
	unsigned int a;

	if (ft_cpuid_hypervisor(vendor)) {
		for (a = 0; a < 12; a++)
			if (vendor[a] && (vendor[a] < ' ' || vendor[a] > '~'))
				vendor[a] = '?';
		len += snprintf(what + len, sizeof(what) - len, "cpuid hypervisor bit (%s)",
				vendor[0] ? vendor : "unnamed");
	}
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

void cmp_check_hygiene(struct ft_compare *c)
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

const char *cmp_hy_status_name(enum hy_status s)
{
	return s == HY_OK ? "ok" : s == HY_WARN ? "warn" : "info";
}

/*
 * --strict refuses when a check warns (-FT_EXIT_USAGE); otherwise each
 * warning goes to the report's warnings (and to stderr unless the text
 * report prints it in its header). 0 or -(exit status).
 */
int cmp_hygiene_verdict(struct ft_compare *c, struct ft_run *run)
{
	int nwarn = 0, h;

	/* Instruction counts (QEMU icount) do not depend on how the host schedules the vCPU. */
	for (h = 0; h < c->nhy && ft_run_clock_exact(run); h++)
		if (!strcmp(c->hy[h].name, "virtualization")) {
			c->hy[h].status = HY_INFO;
			snprintf(c->hy[h].detail, sizeof(c->hy[h].detail),
				 "QEMU with icount: the clock counts instructions executed, "
				 "which the host's scheduling cannot change");
		}
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
	return 0;
}
