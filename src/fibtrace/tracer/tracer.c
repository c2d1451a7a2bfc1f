// SPDX-License-Identifier: GPL-2.0
/* fibtrace's BPF side behind one handle: see tracer.h; its collect half is tracer_collect.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "counters.h"
#include "discover/core_btf.h"
#include "kretprobe.h"
#include "model/timeline.h"
#include "multi.h"
#include "tracer_int.h"

/* The initial pid namespace's inode number (include/linux/proc_ns.h): fixed. */
#define PROC_PID_INIT_INO 0xEFFFFFFCU

/* ---------- program names (bpf/fibtrace.h: FT_PROG) ---------- */

static int prog_slot(const struct bpf_program *prog)
{
	const char *us = strrchr(bpf_program__name(prog), '_');
	char *end;
	long slot;

	if (!us)
		return -1;
	slot = strtol(us + 1, &end, 10);
	return *end || end == us + 1 ? -1 : (int)slot;
}

/* ---------- loading fentry programs ---------- */

static int module_btf_fd(const char *name)
{
	__u32 id = 0;

	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info = {};
		__u32 len = sizeof(info);
		char buf[64] = "";
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		info.name = (__u64)(unsigned long)buf;
		info.name_len = sizeof(buf);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.kernel_btf &&
		    !strcmp(buf, name))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

/*
 * fentry/fexit programs live in the sections "ftfentry"/"ftfexit", loaded
 * through this callback instead of by libbpf: bpf_program__set_attach_target()
 * looks the target up by a linear scan of vmlinux BTF per program (half a
 * second each under emulation, 180 programs). discover.c resolved every
 * target's BTF id once; this puts it and the module's BTF fd into the load
 * request. The handlers are process-wide (libbpf keeps one per section
 * name) while several tracers may live at once (--compare builds): the
 * tracer being loaded is `loading`.
 */
static struct ft_tracer *loading;
static int handler_ids[2], handler_refs;

static int prepare_fentry(struct bpf_program *prog, struct bpf_prog_load_opts *opts, long cookie)
{
	struct ft_tracer *tr = loading;
	int slot = prog_slot(prog);
	struct ft_target *t;

	(void)cookie;
	if (!tr || slot < 0 || slot >= ft_targets_all(tr->tg))
		return -EINVAL;
	t = &tr->tg->t[slot];
	if (!t->btf_id)
		return -ESRCH;
	opts->attach_btf_id = t->btf_id;
	opts->attach_btf_obj_fd = 0;
	if (t->module[0]) {
		if (strcmp(t->module, tr->tg->module))
			return -ENOTSUP; /* only the traced module's BTF fd is kept */
		if (tr->fibdrv_btf_fd < 0)
			tr->fibdrv_btf_fd = module_btf_fd(tr->tg->module);
		if (tr->fibdrv_btf_fd < 0)
			return tr->fibdrv_btf_fd;
		opts->attach_btf_obj_fd = tr->fibdrv_btf_fd;
	}
	return 0;
}

static int register_handlers(struct ft_tracer *tr)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, o, .prog_prepare_load_fn = prepare_fentry);
	int a, b;

	if (handler_refs) {
		handler_refs++;
		tr->handlers = true;
		return 0;
	}
	a = libbpf_register_prog_handler("ftfentry", BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, &o);
	if (a < 0)
		return a;
	b = libbpf_register_prog_handler("ftfexit", BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT, &o);
	if (b < 0) {
		libbpf_unregister_prog_handler(a);
		return b;
	}
	handler_ids[0] = a;
	handler_ids[1] = b;
	handler_refs = 1;
	tr->handlers = true;
	return 0;
}

static void unregister_handlers(struct ft_tracer *tr)
{
	if (!tr->handlers || --handler_refs)
		return;
	libbpf_unregister_prog_handler(handler_ids[0]);
	libbpf_unregister_prog_handler(handler_ids[1]);
}

static __u32 ringbuf_size(const struct ft_tracer *tr)
{
	__u64 want = 1 << 22;

	if (tr->o.ringbuf_bytes)
		return tr->o.ringbuf_bytes;
	if (tr->o.sweep_reads) /* room for a whole sweep round; drained while driving */
		want = tr->o.sweep_reads * (ft_run_rec_size(tr->run) + 8) * 2;
	if (want < (1 << 18))
		want = 1 << 18;
	if (want > (1 << 26))
		want = 1 << 26;
	/* A power of two of at least a page. */
	return 1u << (64 - __builtin_clzll(want - 1));
}

/* ---------- lifecycle ---------- */

static bool log_verbose; /* libbpf's print callback takes no context */

static int libbpf_print_fn(enum libbpf_print_level level, const char *format, va_list args)
{
	if (level == LIBBPF_DEBUG || !log_verbose)
		return 0;
	return vfprintf(stderr, format, args);
}

void ft_tracer_log(bool verbose)
{
	log_verbose = verbose;
	libbpf_set_print(libbpf_print_fn);
}

int ft_tracer_new(struct ft_tracer **out, const struct ft_tracer_opts *o, struct ft_run *run)
{
	struct ft_tracer *tr = calloc(1, sizeof(*tr));

	*out = tr;
	if (!tr)
		return -FT_EXIT_ERROR;
	tr->o = *o;
	tr->run = run;
	tr->tg = run->targets;
	tr->fibdrv_btf_fd = -1;
	tr->krp = ft_kretprobes_new(run);
	if (!tr->krp)
		return -FT_EXIT_ERROR;
	if (register_handlers(tr)) {
		fprintf(stderr, "fibtrace: cannot register libbpf section handlers\n");
		return -FT_EXIT_ERROR;
	}
	return 0;
}

/*
 * Every link destroyed: nothing is traced any more; the maps stay. Each
 * fentry/fexit or kprobe link's release waits for the kernel (a trampoline
 * rewritten, an RCU grace period): 13 s for 92 functions under emulation on
 * 6.1, where the two kprobe.multi links take 0.2 s. Closing them from 8
 * threads did not shorten it (measured on 6.1 and 6.12).
 */
void ft_tracer_detach(struct ft_tracer *tr)
{
	int i;

	bpf_link__destroy(tr->switch_link);
	tr->switch_link = NULL;
	bpf_link__destroy(tr->exit_link);
	tr->exit_link = NULL;
	bpf_link__destroy(tr->multi[0]);
	bpf_link__destroy(tr->multi[1]);
	tr->multi[0] = tr->multi[1] = NULL;
	for (i = 0; i < FT_MAX_SLOTS; i++) {
		bpf_link__destroy(tr->links[i][0]);
		ft_kretprobe_detach(tr->krp,
				    tr->links[i][1]); /* any exit link; kprobe events go too */
		tr->links[i][0] = tr->links[i][1] = NULL;
	}
}

static void unload(struct ft_tracer *tr)
{
	int i;

	ring_buffer__free(tr->rb);
	tr->rb = NULL;
	ft_tracer_detach(tr);
	fibtrace__destroy(tr->skel);
	tr->skel = NULL;
	for (i = 0; i < ft_targets_all(tr->tg); i++)
		tr->tg->t[i].attached = false;
}

/*
 * Call stacks in the pool (bpf/fibtrace.bpf.c, struct ft_stack; 7.6 KB
 * each): one per task inside traced calls at once. Four per CPU, at least
 * FT_STACK_POOL; a task that finds none is not traced (lost.task_storage).
 */
static __u32 stack_pool(void)
{
	int cpus = libbpf_num_possible_cpus();
	long want = cpus > 0 ? 4L * cpus : FT_STACK_POOL;

	return want < FT_STACK_POOL ? FT_STACK_POOL : want > 4096 ? 4096 : (__u32)want;
}

/* Whether a reported function returns through rethook, where tail calls share a return. */
static bool tails_shared(const struct ft_targets *tg)
{
	int i;

	for (i = 0; i < tg->count; i++)
		if (!tg->t[i].unavailable && tg->t[i].mode != FT_MODE_FENTRY)
			return true;
	return false;
}

static void configure(struct ft_tracer *tr)
{
	struct fibtrace *skel = tr->skel;
	const struct ft_run *run = tr->run;
	struct stat ns;

	skel->rodata->filter_tgid = run->filter_pid;
	if (!stat("/proc/self/ns/pid", &ns) && ns.st_ino != PROC_PID_INIT_INO) {
		/* The pids are the ones fibtrace sees: in a container, its namespace's. */
		skel->rodata->pidns_dev = ns.st_dev;
		skel->rodata->pidns_ino = ns.st_ino;
	}
	skel->rodata->hist_bits = run->hist.bits;
	if (run->hist.linear) {
		skel->rodata->lin_min = run->hist.lin_min;
		skel->rodata->lin_step = run->hist.lin_step;
		skel->rodata->lin_buckets = run->hist.lin_buckets;
	}
	bpf_map__set_max_entries(skel->maps.stats, ft_targets_all(tr->tg));
	skel->rodata->nr_stacks = stack_pool();
	bpf_map__set_max_entries(skel->maps.stacks, skel->rodata->nr_stacks);
	/*
	 * Under the instruction clock a run must cost what the last one did, and
	 * a hash map's seed is random: which paths share a bucket of the call
	 * tree, and so what a traced call costs, changed from run to run.
	 */
	if (ft_run_clock_exact(run))
		bpf_map__set_map_flags(skel->maps.tree,
				       bpf_map__map_flags(skel->maps.tree) | BPF_F_ZERO_SEED);
	skel->rodata->calib_first_slot = tr->tg->count;
	skel->rodata->tails_shared = tails_shared(tr->tg);
	skel->rodata->read_funcs = run->self_stride != 0;
	skel->rodata->tree_on = run->tree_on;
	skel->rodata->tree_n = run->tree_n;
	if (run->timeline) {
		/* Room for 2048 calls (24 bytes each) per read, between 64 KiB and 256 MiB. */
		__u64 want = (__u64)run->timeline->reads * 2048 * sizeof(struct ft_call_ev);

		want = want < (1 << 16) ? 1 << 16 : want > (1 << 28) ? 1 << 28 : want;
		skel->rodata->trace_mode = run->timeline->ntrace_n ? FT_TRACE_BY_N : FT_TRACE_FIRST;
		bpf_map__set_max_entries(skel->maps.trace_sel,
					 run->timeline->ntrace_n ? run->timeline->ntrace_n : 1);
		bpf_map__set_max_entries(skel->maps.calls, 1u << (64 - __builtin_clzll(want - 1)));
	}
	bpf_map__set_max_entries(skel->maps.reads, ringbuf_size(tr));
	ft_counters_prepare(skel, run);
	/* Records are drained every 100 ms at most; a wakeup only when half full. */
	skel->rodata->ringbuf_wakeup_bytes = ringbuf_size(tr) / 2;
}

/* Loads only the programs of the functions traced, in their modes. */
static int select_programs(struct ft_tracer *tr)
{
	struct bpf_program *prog;
	int i, e;

	bpf_object__for_each_program(prog, tr->skel->obj) bpf_program__set_autoload(prog, false);
	/* --off-cpu: needs the kernel's BTF (tp_btf), as fentry does. */
	if (tr->run->off_cpu && access("/sys/kernel/btf/vmlinux", R_OK)) {
		ft_warn(tr->run, "no kernel BTF: off-CPU time not measured");
		tr->run->off_cpu = false;
	}
	bpf_program__set_autoload(tr->skel->progs.ft_sched_switch, tr->run->off_cpu);
	bpf_program__set_autoload(tr->skel->progs.ft_task_exit, true);
	for (i = 0; i < ft_targets_all(tr->tg); i++) {
		const struct ft_target *t = &tr->tg->t[i];

		for (e = 0; e < 2 && !t->unavailable; e++) {
			prog = slot_prog(tr->skel, t->mode, t->slot, e);
			if (!prog) {
				fprintf(stderr, "fibtrace: no program for slot %d\n", t->slot);
				return -ENOENT;
			}
			bpf_program__set_autoload(prog, true);
		}
	}
	return 0;
}

/*
 * Opens the skeleton and loads the selected programs. CO-RE relocates
 * against the small BTF discovery made of this kernel's types (core_btf.h)
 * when there is one, instead of libbpf parsing the kernel's BTF again.
 */
static int open_and_load(struct ft_tracer *tr)
{
	double t0 = ft_now_s();
	char path[64];
	int err, fd = -1;

	if (tr->tg->core_btf)
		fd = ft_core_btf_open(tr->tg->core_btf, tr->tg->core_btf_size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = fd >= 0 ? path : NULL);
	tr->skel = fibtrace__open_opts(&oo);
	err = tr->skel ? 0 : -errno;
	if (err)
		fprintf(stderr, "fibtrace: cannot open the BPF object: %s\n", strerror(-err));
	if (!err) {
		configure(tr);
		err = select_programs(tr);
	}
	if (!err) {
		loading = tr;
		err = fibtrace__load(tr->skel);
		loading = NULL;
		if (err)
			fprintf(stderr, "fibtrace: loading BPF programs failed: %s\n",
				strerror(-err));
	}
	if (fd >= 0)
		close(fd); /* libbpf has parsed it */
	if (err)
		return err;
	if (tr->o.verbose)
		fprintf(stderr, "fibtrace: load %.2fs\n", ft_now_s() - t0);
	return ft_counters_install(tr->skel, tr->run);
}

static int exit_status(int err)
{
	if (err == -EPERM) {
		fprintf(stderr, "fibtrace: permission denied: run as root (CAP_BPF and "
				"CAP_PERFMON)\n");
		return -FT_EXIT_PERM;
	}
	return -FT_EXIT_ERROR;
}

int ft_tracer_load(struct ft_tracer *tr)
{
	int err = open_and_load(tr), i;

	if (!err || err == -EPERM || tr->o.force_kprobe)
		return err ? exit_status(err) : 0;
	/* fentry programs cannot load here at all: every function with kprobes. */
	unload(tr);
	ft_warn(tr->run, "fentry programs failed to load (%s): falling back to kprobes",
		strerror(-err));
	for (i = 0; i < ft_targets_all(tr->tg); i++)
		tr->tg->t[i].mode = FT_MODE_KPROBE;
	err = open_and_load(tr);
	return err ? exit_status(err) : 0;
}

/* --trace-out: the reads to put on the timeline, and the ring of their calls. */
/*
 * Attaches target i's entry and exit programs. A failure is reported here
 * unless it is an fentry one attach_all mends by moving to kprobe.
 */
static int attach_one(struct ft_tracer *tr, int i)
{
	struct ft_target *t = &tr->tg->t[i];
	char sym[200];
	int e, err;

	/*
	 * A module function by "module:name": kernels refuse a kprobe on a
	 * name that several modules have (EADDRNOTAVAIL), as two builds of
	 * fibdrv do, and a bare name could find vmlinux's function first.
	 */
	if (t->module[0])
		snprintf(sym, sizeof(sym), "%s:%s", t->module, t->name);
	else
		snprintf(sym, sizeof(sym), "%s", t->name);
	for (e = 0; e < 2; e++) {
		struct bpf_program *prog = slot_prog(tr->skel, t->mode, t->slot, e);

		LIBBPF_OPTS(bpf_kprobe_opts, ko, .bpf_cookie = t->slot);

		if (t->mode == FT_MODE_FENTRY)
			tr->links[i][e] = bpf_program__attach_trace(prog);
		else if (e) /* sized maxactive: kretprobe.c */
			tr->links[i][e] =
				ft_kretprobe_attach(tr->krp, prog, sym, tr->o.maxactive, t->slot);
		else /* the program is shared: the slot is the cookie */
			tr->links[i][e] = bpf_program__attach_kprobe_opts(prog, sym, &ko);
		if (!tr->links[i][e]) {
			err = -errno;
			if (t->mode != FT_MODE_FENTRY || err == -EPERM)
				fprintf(stderr, "fibtrace: attaching %s to %s failed: %s\n",
					e ? (t->mode ? "kretprobe" : "fexit")
					  : (t->mode ? "kprobe" : "fentry"),
					t->name, strerror(-err));
			return err;
		}
	}
	t->attached = true;
	return 0;
}

/*
 * Errors that say no fentry program can attach on this kernel, whatever the
 * function: no direct-call ftrace (ENODEV), no trampoline for the
 * architecture (ENOTSUPP, 524: kernel-internal, strerror has no text for it).
 * Others (E2BIG: the function's trampoline holds BPF_MAX_TRAMP_LINKS programs
 * already; EBUSY) concern one function.
 */
#define FT_ENOTSUPP 524

static bool fentry_unsupported(int err)
{
	return err == -ENODEV || err == -FT_ENOTSUPP || err == -EOPNOTSUPP;
}

static const char *attach_strerror(int err)
{
	return err == -FT_ENOTSUPP ? "not supported (ENOTSUPP)" : strerror(-err);
}

/* Every function still planned for fentry moves to kprobe: one warning. */
static void fentry_to_kprobe_all(struct ft_tracer *tr, const char *name, int err)
{
	int i, moved = 0;

	for (i = 0; i < ft_targets_all(tr->tg); i++) {
		if (tr->tg->t[i].mode == FT_MODE_FENTRY) {
			tr->tg->t[i].mode = FT_MODE_KPROBE;
			moved++;
		}
	}
	ft_warn(tr->run,
		"fentry cannot attach on this kernel (%s: %s): the %d functions left on fentry "
		"traced with kprobes",
		name, attach_strerror(err), moved);
}

/*
 * Attaches every pair. A failure that another mode can mend is recorded in
 * *retry (fentry -> kprobe: every function at once when fentry cannot work
 * on this kernel, else the one function; an optional function -> left out);
 * any other failure ends the attach. The functions moved to kprobe are
 * named in one warning.
 */
static int attach_all(struct ft_tracer *tr, bool *retry)
{
	char moved[160] = "";
	int i, err, nmoved = 0;

	*retry = false;
	/* Before the probes: no task may end holding a stack unseen. */
	if (!tr->exit_link) {
		tr->exit_link = bpf_program__attach(tr->skel->progs.ft_task_exit);
		if (!tr->exit_link) {
			err = -errno;
			fprintf(stderr, "fibtrace: sched_process_exit: %s\n", strerror(-err));
			return err;
		}
	}
	err = ft_multi_attach(tr->skel->progs.ft_multi_entry, tr->skel->progs.ft_multi_exit, tr->tg,
			      tr->multi);
	if (err)
		return err;
	for (i = 0; i < ft_targets_all(tr->tg); i++) {
		struct ft_target *t = &tr->tg->t[i];

		if (t->unavailable || t->mode == FT_MODE_MULTI)
			continue;
		err = attach_one(tr, i);
		if (!err)
			continue;
		if (err == -EPERM || tr->o.force_kprobe)
			return err;
		*retry = true;
		if (t->mode == FT_MODE_FENTRY && fentry_unsupported(err)) {
			fentry_to_kprobe_all(tr, t->name, err);
			break; /* the reload attaches them all */
		} else if (t->mode == FT_MODE_FENTRY) {
			t->mode = FT_MODE_KPROBE;
			if (nmoved++ < 4) /* the first few named, all counted */
				snprintf(moved + strlen(moved), sizeof(moved) - strlen(moved),
					 "%s%s (%s)", nmoved > 1 ? ", " : "", t->name,
					 attach_strerror(err));
		} else if (t->optional) {
			ft_warn(tr->run, "%s cannot be traced on this kernel: left out", t->name);
			t->unavailable = true;
		} else {
			return err;
		}
	}
	if (nmoved)
		ft_warn(tr->run, "fentry cannot attach to %d function%s: %s%s; traced with kprobes",
			nmoved, nmoved > 1 ? "s" : "", moved, nmoved > 4 ? ", ..." : "");
	return 0;
}

int ft_tracer_attach(struct ft_tracer *tr)
{
	double t0 = ft_now_s();
	bool retry;
	int err = attach_all(tr, &retry);

	if (!err && retry) {
		/* One reload with every function that failed moved. */
		unload(tr);
		err = open_and_load(tr);
		if (!err)
			err = attach_all(tr, &retry);
		if (!err && retry)
			err = -EINVAL;
	}
	if (err)
		return exit_status(err);
	if (tr->run->off_cpu) {
		tr->switch_link = bpf_program__attach(tr->skel->progs.ft_sched_switch);
		if (!tr->switch_link) {
			ft_warn(tr->run, "sched_switch: %s: off-CPU time not measured",
				strerror(errno));
			tr->run->off_cpu = false;
		}
	}
	if (tr->o.verbose)
		fprintf(stderr, "fibtrace: attach %.2fs\n", ft_now_s() - t0);
	return tracer_rings_open(tr);
}

void ft_tracer_set_state(struct ft_tracer *tr, enum ft_enabled state)
{
	if (state == FT_CALIB_CONTEXT)
		tr->skel->bss->calib_tgid = getpid();
	__atomic_store_n(&tr->skel->bss->enabled, state, __ATOMIC_SEQ_CST);
}

static __u32 ns32(double ns)
{
	return ns > 0 && ns < 4e9 ? (__u32)(ns + 0.5) : 0;
}

/* The same, signed: a tail call's saving may come out below 0. */
static __s32 ns32s(double ns)
{
	return ns > -2e9 && ns < 2e9 ? (__s32)(ns < 0 ? ns - 0.5 : ns + 0.5) : 0;
}

void ft_tracer_set_cost(struct ft_tracer *tr, int slot, const struct ft_cost *c)
{
	if (slot < 0 || slot >= FT_MAX_SLOTS)
		return;
	tr->skel->bss->cost_full[slot] = ns32(c->full_ns);
	tr->skel->bss->cost_in[slot] = ns32(c->in_ns);
	tr->skel->bss->err_full[slot] = ns32(c->full_err);
	tr->skel->bss->err_in[slot] = ns32(c->in_err);
	tr->skel->bss->tail_in[slot] = c->tail_valid ? ns32s(c->tail_in_ns) : 0;
	tr->skel->bss->tail_out[slot] = c->tail_valid ? ns32s(c->tail_out_ns) : 0;
}

void ft_tracer_free(struct ft_tracer *tr)
{
	if (!tr)
		return;
	unload(tr);
	unregister_handlers(tr);
	if (tr->fibdrv_btf_fd >= 0)
		close(tr->fibdrv_btf_fd);
	free(tr->stats_buf);
	ft_kretprobes_free(tr->krp);
	free(tr);
}
