// SPDX-License-Identifier: GPL-2.0
/* kretprobes with an explicit maxactive, and their misses: see kretprobe.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "discover/plan.h"
#include "kretprobe.h"

/* One kprobe event this process created (group "fibtrace_<pid>"). */
struct krp_event {
	struct bpf_link *link;
	char name[32];	 /* "ft<pid>_<seq>": kprobe_profile lists events without their group */
	__u64 missed;	 /* from kprobe_profile, at the last collect */
	bool in_profile; /* found there at the last collect */
};

/* What the system has, learnt once per process. */
static struct {
	const char *dir;  /* tracefs; NULL when kprobe_events is not there */
	bool looked;	  /* dir has been looked for */
	bool swept;	  /* leftovers of dead fibtraces removed */
	bool warned;	  /* the no-tracefs warning was given */
	unsigned int seq; /* event names are unique in the process */
} krp;

/* One tracer's kprobe events: a handle (kretprobe.h). */
struct ft_kretprobes {
	struct ft_run *run;
	int nev;
	struct krp_event ev[FT_MAX_SLOTS];
};

struct ft_kretprobes *ft_kretprobes_new(struct ft_run *run)
{
	struct ft_kretprobes *k = calloc(1, sizeof(*k));

	if (k)
		k->run = run;
	return k;
}

void ft_kretprobes_free(struct ft_kretprobes *k)
{
	free(k);
}

/* ---------- tracefs ---------- */

static const char *tracefs(void)
{
	static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	char path[64];
	unsigned int i;

	if (krp.looked)
		return krp.dir;
	krp.looked = true;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !krp.dir; i++) {
		snprintf(path, sizeof(path), "%s/kprobe_events", dirs[i]);
		if (!access(path, W_OK))
			krp.dir = dirs[i];
	}
	return krp.dir;
}

static FILE *open_tracefs(const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", krp.dir, file);
	return fopen(path, "r");
}

/* One command to kprobe_events: 0 or -errno. */
static int write_events(const char *cmd)
{
	char path[128];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/kprobe_events", krp.dir);
	/* Never O_TRUNC: truncating kprobe_events removes every kprobe event. */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, cmd, strlen(cmd)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static int remove_event(int pid, const char *name)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "-:fibtrace_%d/%s", pid, name);
	return write_events(cmd);
}

/* A fibtrace process with this pid is running (its events are its own). */
static bool fibtrace_running(int pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strcmp(comm, "fibtrace\n");
}

/*
 * Events left by fibtrace processes that are gone (killed before their
 * cleanup ran): removed once, before this process adds its own. Listed
 * first, removed after: kprobe_events is not read while it changes.
 */
static void remove_leftovers(void)
{
	char line[512], name[64], (*names)[64] = NULL;
	int pid, *pids = NULL, n = 0, k;
	FILE *f = open_tracefs("kprobe_events");

	while (f && fgets(line, sizeof(line), f)) {
		void *p, *q;

		if (sscanf(line, "%*[^:]:fibtrace_%d/%63s", &pid, name) != 2 || pid == getpid() ||
		    fibtrace_running(pid))
			continue;
		p = realloc(names, (n + 1) * sizeof(*names));
		if (p)
			names = p;
		q = realloc(pids, (n + 1) * sizeof(*pids));
		if (q)
			pids = q;
		if (!p || !q)
			break;
		pids[n] = pid;
		memcpy(names[n++], name, sizeof(name));
	}
	if (f)
		fclose(f);
	for (k = 0; k < n; k++)
		remove_event(pids[k], names[k]);
	free(names);
	free(pids);
}

/* ---------- attach ---------- */

static int event_id(const char *name)
{
	char file[128];
	FILE *f;
	int id = -ENOENT;

	snprintf(file, sizeof(file), "events/fibtrace_%d/%s/id", getpid(), name);
	f = open_tracefs(file);
	if (!f)
		return -errno;
	if (fscanf(f, "%d", &id) != 1)
		id = -EINVAL;
	fclose(f);
	return id;
}

/* A perf event on the kprobe event @name, with @prog attached; NULL and errno. */
static struct bpf_link *attach_event(const struct bpf_program *prog, const char *name, __u64 cookie)
{
	struct perf_event_attr attr = {.size = sizeof(attr), .type = PERF_TYPE_TRACEPOINT};
	LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = cookie);
	struct bpf_link *link;
	int id = event_id(name), pfd, err;

	if (id < 0) {
		errno = -id;
		return NULL;
	}
	attr.config = id;
	/* Every task (pid -1), one CPU: the program runs on any CPU's hit. */
	pfd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return NULL;
	link = bpf_program__attach_perf_event_opts(prog, pfd, &po); /* the link owns pfd */
	if (!link) {
		err = errno;
		close(pfd);
		errno = err;
	}
	return link;
}

/* No tracefs: libbpf's perf kprobe, with the kernel's default maxactive. */
static struct bpf_link *attach_default(struct ft_run *run, const struct bpf_program *prog,
				       const char *sym, __u64 cookie)
{
	LIBBPF_OPTS(bpf_kprobe_opts, ko, .retprobe = true, .bpf_cookie = cookie);

	if (!krp.warned)
		ft_warn(run,
			"kprobe_events not writable (tracefs not mounted?): kretprobes keep the "
			"kernel's default maxactive, max(10, 2 x CPUs), and their misses are "
			"reported only on Linux 6.7+");
	krp.warned = true;
	return bpf_program__attach_kprobe_opts(prog, sym, &ko);
}

struct bpf_link *ft_kretprobe_attach(struct ft_kretprobes *k, const struct bpf_program *prog,
				     const char *sym, unsigned int maxactive, __u64 cookie)
{
	struct krp_event *e = &k->ev[k->nev];
	char cmd[320];
	int err;

	if (!tracefs())
		return attach_default(k->run, prog, sym, cookie);
	if (k->nev >= (int)(sizeof(k->ev) / sizeof(k->ev[0]))) {
		errno = ENOSPC;
		return NULL;
	}
	if (!krp.swept)
		remove_leftovers();
	krp.swept = true;
	snprintf(e->name, sizeof(e->name), "ft%d_%u", getpid(), krp.seq++);
	snprintf(cmd, sizeof(cmd), "r%u:fibtrace_%d/%s %s", maxactive, getpid(), e->name, sym);
	err = write_events(cmd);
	if (err) {
		fprintf(stderr,
			"fibtrace: %s/kprobe_events refused '%s': %s (its error_log says why)\n",
			krp.dir, cmd, strerror(-err));
		errno = -err;
		return NULL;
	}
	e->link = attach_event(prog, e->name, cookie);
	if (!e->link) {
		err = errno;
		remove_event(getpid(), e->name);
		errno = err;
		return NULL;
	}
	k->nev++;
	return e->link;
}

void ft_kretprobe_detach(struct ft_kretprobes *k, struct bpf_link *link)
{
	int i, err;

	if (!link)
		return;
	bpf_link__destroy(link);
	for (i = 0; i < k->nev && k->ev[i].link != link; i++)
		;
	if (i == k->nev)
		return; /* attached by libbpf (no tracefs): no event of ours */
	err = remove_event(getpid(), k->ev[i].name);
	if (err)
		fprintf(stderr, "fibtrace: cannot remove kprobe event fibtrace_%d/%s: %s\n",
			getpid(), k->ev[i].name, strerror(-err));
	k->ev[i] = k->ev[--k->nev];
}

/* ---------- misses ---------- */

/* Each event's misses from kprobe_profile: "  <event> <hits> <misses>". */
static void read_profile(struct ft_kretprobes *k)
{
	char line[256], name[64];
	unsigned long long hits, missed;
	FILE *f = open_tracefs("kprobe_profile");
	int i;

	for (i = 0; i < k->nev; i++)
		k->ev[i].in_profile = false;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %llu %llu", name, &hits, &missed) != 3)
			continue;
		for (i = 0; i < k->nev; i++) {
			if (strcmp(name, k->ev[i].name))
				continue;
			k->ev[i].missed = missed;
			k->ev[i].in_profile = true;
		}
	}
	if (f)
		fclose(f);
}

/*
 * A kprobe link's bpf_link_info as Linux 6.7+ fills it ("missed": for a
 * kretprobe, entries that found no free instance). The host's uapi header
 * predates the perf_event member; this is its layout.
 */
struct ft_kprobe_link_info {
	__u32 type, id, prog_id, pad;
	__u32 pe_type, pe_pad; /* enum bpf_perf_event_type */
	__u64 func_name;
	__u32 name_len, offset;
	__u64 addr, missed, cookie;
};

#define FT_PERF_EVENT_KPROBE 3
#define FT_PERF_EVENT_KRETPROBE 4

/* Misses of one kprobe or kretprobe link: 0, or -ENODATA when the kernel does not say. */
static int link_missed(const struct ft_kretprobes *k, struct bpf_link *link, bool ret,
		       __u64 *missed)
{
	struct ft_kprobe_link_info info = {};
	__u32 len = sizeof(info);
	int i;

	for (i = 0; i < k->nev; i++) {
		if (k->ev[i].link != link)
			continue;
		*missed = k->ev[i].missed;
		return k->ev[i].in_profile ? 0 : -ENODATA;
	}
	if (!ft_kernel_at_least(6, 7) || bpf_obj_get_info_by_fd(bpf_link__fd(link), &info, &len) ||
	    info.type != BPF_LINK_TYPE_PERF_EVENT ||
	    info.pe_type != (ret ? FT_PERF_EVENT_KRETPROBE : FT_PERF_EVENT_KPROBE))
		return -ENODATA;
	*missed = info.missed;
	return 0;
}

void ft_kretprobe_collect(struct ft_kretprobes *k, struct bpf_link *links[][2])
{
	struct ft_run *run = k->run;
	struct ft_targets *tg = run->targets;
	static bool warned;
	int i, unknown = 0;

	if (k->nev)
		read_profile(k);
	run->lost[FT_LOST_KRETPROBE_MISSED] = 0;
	run->lost[FT_LOST_KPROBE_MISSED] = 0;
	for (i = 0; i < tg->count; i++) {
		struct ft_target *t = &tg->t[i];

		t->kretprobe_missed = 0;
		t->kprobe_missed = 0;
		if (t->mode != FT_MODE_KPROBE)
			continue;
		/* Entry misses: the link says on 6.7+; before, nothing does (not warned). */
		if (links[i][0])
			link_missed(k, links[i][0], false, &t->kprobe_missed);
		run->lost[FT_LOST_KPROBE_MISSED] += t->kprobe_missed;
		if (!links[i][1])
			continue;
		if (link_missed(k, links[i][1], true, &t->kretprobe_missed))
			unknown++;
		run->lost[FT_LOST_KRETPROBE_MISSED] += t->kretprobe_missed;
	}
	if (unknown && !warned)
		ft_warn(run,
			"this kernel does not report the misses of %d kretprobes: "
			"lost.kretprobe_missed leaves them out",
			unknown);
	warned |= unknown > 0;
}
