// SPDX-License-Identifier: GPL-2.0
/*
 * Which functions fibtrace traces, found at run time.
 *
 * Default set: the five read-path slots (fib_read, the three stage
 * functions, _copy_to_user) and every FUNC of fibdrv's BTF whose name starts
 * with bn_, fib_ or fibdrv_ and that /proc/kallsyms lists for module fibdrv
 * (so inlined, __init or renamed functions drop out). -f adds any kernel or
 * module function ("func", "mod:func" or a glob: funcspec.c). Unless
 * --no-compensate, fibdrv's calibration functions follow the reported
 * targets (tg->ncalib of them, one per mode: calibrate.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf_index.h"
#include "core_btf.h"
#include "discover_int.h"
#include "ksyms.h"
#include "model/run.h"
#include "plan.h"

/* The module traced: fibdrv, or a build loaded under another name (--compare builds). */
const char *ft_fibmod = "fibdrv";

struct ft_target *ft_find_target(struct ft_targets *tg, const char *name, const char *module)
{
	int i;

	for (i = 0; i < tg->count; i++)
		if (!strcmp(tg->t[i].name, name) && !strcmp(tg->t[i].module, module))
			return &tg->t[i];
	return NULL;
}

static struct func_index idx_vmlinux, idx_fibdrv;

bool ft_btf_has_func(const struct btf *btf, const char *name)
{
	if (!btf)
		return false;
	if (btf == idx_vmlinux.btf)
		return ft_func_index_find(&idx_vmlinux, name) != NULL;
	if (btf == idx_fibdrv.btf)
		return ft_func_index_find(&idx_fibdrv, name) != NULL;
	return btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) > 0;
}

static void set_btf_id(struct ft_target *t, const struct btf *btf)
{
	const struct btf_type *fn, *proto;
	const struct func_ent *e = NULL;
	__s32 id = -1;

	if (btf == idx_vmlinux.btf)
		e = ft_func_index_find(&idx_vmlinux, t->name);
	else if (btf == idx_fibdrv.btf)
		e = ft_func_index_find(&idx_fibdrv, t->name);
	if (e)
		id = e->id;
	else if (btf)
		id = btf__find_by_name_kind(btf, t->name, BTF_KIND_FUNC);
	if (id <= 0)
		return;
	t->btf_id = id;
	fn = btf__type_by_id(btf, id);
	proto = btf__type_by_id(btf, fn->type);
	t->nargs = proto ? btf_vlen(proto) : 0;
}

struct ft_target *ft_add_target(struct ft_targets *tg, int slot, const char *name,
				const char *module)
{
	struct ft_target *t;

	if (slot < 0) {
		if (tg->count >= FT_MAX_SLOTS) {
			tg->dropped++;
			return NULL;
		}
		slot = tg->count;
	}
	t = &tg->t[slot];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	snprintf(t->module, sizeof(t->module), "%s", module);
	t->slot = slot;
	if (slot >= tg->count)
		tg->count = slot + 1;
	return t;
}

void ft_set_mode(struct ft_target *t, const struct btf *vmlinux, const struct btf *mod_btf,
		 bool force_kprobe)
{
	if (t->module[0]) {
		t->in_btf = ft_btf_has_func(mod_btf, t->name);
		/* A kprobe by name would find the vmlinux function first. */
		t->shadowed = ft_btf_has_func(vmlinux, t->name);
		if (t->in_btf)
			set_btf_id(t, mod_btf);
	} else {
		t->in_btf = ft_btf_has_func(vmlinux, t->name);
		if (t->in_btf)
			set_btf_id(t, vmlinux);
	}
	t->ambiguous = !force_kprobe && t->module[0] && ft_fentry_by_bare_name() &&
		       ft_ksym_elsewhere(t->name, t->module);
	t->mode = (force_kprobe || !t->btf_id || t->nargs > ft_max_fentry_args() || t->ambiguous)
			  ? FT_MODE_KPROBE
			  : FT_MODE_FENTRY;
}

/* A function of the default set: bn_*, fib_*, fibdrv_*, not a calibration one. */
static bool default_name(const char *name)
{
	if (!strncmp(name, FT_CALIB_PREFIX, strlen(FT_CALIB_PREFIX)))
		return false;
	return !strncmp(name, "bn_", 3) || !strncmp(name, "fib_", 4) ||
	       !strncmp(name, "fibdrv_", 7);
}

/*
 * After the reported targets: fibdrv_calib0 in fentry mode (unless
 * --kprobe) and fibdrv_calib1 in kprobe mode, excluded from tg->count.
 */
static void add_calib(struct ft_targets *tg, const struct btf *vmlinux, const struct btf *fib_btf,
		      bool force_kprobe, struct ft_run *run)
{
	int k, first = tg->count;

	for (k = force_kprobe ? 1 : 0; k < 2; k++) {
		char name[32];
		struct ft_target *t;

		snprintf(name, sizeof(name), FT_CALIB_PREFIX "%d", k);
		if (!ft_ksym_find(name, ft_fibmod) || !ft_traceable(name)) {
			ft_warn(run,
				"%s has no traceable %s (an older build?): figures are "
				"not compensated for tracing overhead",
				ft_fibmod, name);
			break;
		}
		t = ft_add_target(tg, -1, name, ft_fibmod);
		if (!t)
			break;
		ft_set_mode(t, vmlinux, fib_btf, force_kprobe || k == 1);
		t->calib = true;
		if (k == 0 && t->mode == FT_MODE_KPROBE) {
			tg->count--; /* no fentry on this kernel for it: calib1 calibrates kprobes
				      */
			continue;
		}
	}
	tg->ncalib = tg->count - first;
	tg->count = first;
}

/*
 * Every target's address (kprobe.multi attaches by address: a bare name
 * would find the first module that has it), the first that kallsyms lists
 * for its module and name.
 */
static void resolve_addrs(struct ft_targets *tg)
{
	int i;

	for (i = 0; i < ft_targets_all(tg); i++) {
		struct ft_target *t = &tg->t[i];
		const struct ksym *k = t->addr ? NULL : ft_ksym_find(t->name, t->module);

		if (k)
			t->addr = k->addr;
	}
}

static int cmp_target(const void *a, const void *b)
{
	const struct ft_target *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static void warn_ambiguous(const struct ft_targets *tg, struct ft_run *run)
{
	int i, n = 0;

	for (i = 0; i < tg->count; i++)
		n += tg->t[i].ambiguous && tg->t[i].mode == FT_MODE_KPROBE;
	if (n)
		ft_warn(run,
			"%d functions of %s have names another loaded module has too: traced "
			"with kprobes (before Linux 6.4, fentry attaches to the first module's)",
			n, ft_fibmod);
}

/*
 * Is the module loaded (its fib_read in /proc/kallsyms)? 0 if so. fibdrv
 * absent with -f functions and no sweep: 0 too, tg->no_module set, and only
 * those functions are traced. Otherwise -(exit status), said why.
 */
static int module_present(struct ft_targets *tg, const char *extra, struct ft_run *run)
{
	if (ft_ksym_find("fib_read", ft_fibmod))
		return 0;
	if (strcmp(ft_fibmod, "fibdrv")) {
		fprintf(stderr, "fibtrace: module %s has no fib_read in /proc/kallsyms\n",
			ft_fibmod);
		return -FT_EXIT_NO_FIBDRV;
	}
	if (extra && run->run_mode && strcmp(run->run_mode, "sweep")) {
		tg->no_module = true;
		ft_warn(run, "fibdrv is not loaded: tracing the -f functions only (no read path, "
			     "per-n table or breakdown; times not compensated, fibtrace calibrates "
			     "its cost on fibdrv's functions)");
		return 0;
	}
	fprintf(stderr, "fibtrace: fibdrv is not loaded (no fib_read in /proc/kallsyms);\n"
			"  load it with: insmod fibdrv.ko (built for this kernel: fibtrace(8))\n"
			"  or pass --load PATH to fibtrace (-f functions alone need no fibdrv, "
			"without --sweep)\n");
	return -FT_EXIT_NO_FIBDRV;
}

/* The read path's slots; all unavailable without the module. */
static int add_fixed(struct ft_targets *tg, const struct btf *vmlinux, const struct btf *fib_btf,
		     bool force_kprobe, struct ft_run *run)
{
	static const char *const fixed[FT_FIXED_SLOTS] = {
		"fib_read", "fibdrv_compute", "fibdrv_format", "fibdrv_copy", "_copy_to_user",
	};
	int i;

	for (i = 0; i < FT_FIXED_SLOTS; i++) {
		const char *mod = i == FT_SLOT_COPY_TO_USER ? "" : ft_fibmod;
		struct ft_target *t = ft_add_target(tg, i, fixed[i], mod);

		if (tg->no_module) {
			t->optional = t->unavailable = true;
			continue;
		}
		if (!ft_ksym_find(fixed[i], mod)) {
			fprintf(stderr, "fibtrace: %s%s%s missing from /proc/kallsyms\n", mod,
				*mod ? ":" : "", fixed[i]);
			return -FT_EXIT_UNKNOWN_FUNC;
		}
		ft_set_mode(t, vmlinux, fib_btf, force_kprobe);
		if (i == FT_SLOT_COPY_TO_USER) {
			t->optional = true;
			if (!ft_traceable(t->name)) {
				t->unavailable = true;
				ft_warn(run, "_copy_to_user is notrace on this kernel: not traced; "
					     "the copy is measured at fibdrv_copy");
			}
		}
	}
	return 0;
}

/*
 * The default set: every bn_/fib_/fibdrv_ function of the module (its BTF,
 * or its kallsyms without it: then kprobes), sorted by name from slot @first.
 */
static void add_defaults(struct ft_targets *tg, struct btf *vmlinux, struct btf *fib_btf,
			 bool force_kprobe, int first)
{
	int i;

	if (fib_btf) {
		__u32 id, start = btf__type_cnt(vmlinux), end = btf__type_cnt(fib_btf);

		for (id = start; id < end; id++) {
			const struct btf_type *bt = btf__type_by_id(fib_btf, id);
			const char *name;
			struct ft_target *t;

			if (!btf_is_func(bt))
				continue;
			name = btf__name_by_offset(fib_btf, bt->name_off);
			if (!default_name(name))
				continue;
			if (!ft_ksym_find(name, ft_fibmod) || ft_find_target(tg, name, ft_fibmod) ||
			    !ft_traceable(name))
				continue;
			t = ft_add_target(tg, -1, name, ft_fibmod);
			if (t)
				ft_set_mode(t, vmlinux, fib_btf, force_kprobe);
		}
	} else {
		size_t k;

		for (k = 0; k < ft_nksyms; k++) {
			const char *name = ft_ksyms[k].name;
			struct ft_target *t;

			if (strcmp(ft_ksyms[k].module, ft_fibmod))
				continue;
			if (!default_name(name))
				continue;
			if (ft_find_target(tg, name, ft_fibmod))
				continue;
			t = ft_add_target(tg, -1, name, ft_fibmod);
			if (t)
				ft_set_mode(t, vmlinux, NULL, true);
		}
	}
	qsort(&tg->t[first], tg->count - first, sizeof(tg->t[0]), cmp_target);
	for (i = first; i < tg->count; i++)
		tg->t[i].slot = i;
}

/* Warnings about the targets (shadowed names, kprobes for many arguments); their addresses. */
static void check_targets(struct ft_targets *tg, int first_dyn, int last_dyn, bool force_kprobe,
			  struct ft_run *run)
{
	int i;

	warn_ambiguous(tg, run);
	resolve_addrs(tg);
	for (i = 0; i < tg->count; i++) {
		struct ft_target *t = &tg->t[i];

		if (t->shadowed)
			ft_warn(run, "%s:%s shares its name with a vmlinux function", t->module,
				t->name);
		if (i >= first_dyn && i < last_dyn && t->mode == FT_MODE_KPROBE && t->in_btf &&
		    !force_kprobe && !t->ambiguous)
			ft_warn(run,
				"%s has %d arguments, more than fentry takes here: traced "
				"with kprobe",
				t->name, t->nargs);
	}
}

/* The kernel's BTF and the index of its FUNCs (0.13 s under emulation on 6.12). */
static struct btf *vmlinux_btf;

static void *load_vmlinux_btf(void *unused)
{
	(void)unused;
	vmlinux_btf = btf__load_vmlinux_btf();
	ft_func_index_build(&idx_vmlinux, vmlinux_btf, NULL);
	return NULL;
}

int ft_discover_open(void)
{
	pthread_t th;
	bool threaded;
	int err;

	/*
	 * The kernel's BTF is parsed while the symbol tables are read: neither
	 * needs the other, and each took about half a second of a guest's
	 * start-up under emulation (a read-path run's discovery, 6.1 guest:
	 * BTF 0.55 s, then the symbol cache's key and contents 0.45 s).
	 */
	threaded = !pthread_create(&th, NULL, load_vmlinux_btf, NULL);
	if (!threaded)
		load_vmlinux_btf(NULL);
	err = ft_ksyms_load();
	if (threaded)
		pthread_join(th, NULL);
	if (!vmlinux_btf) {
		fprintf(stderr, "fibtrace: kernel BTF missing (/sys/kernel/btf/vmlinux): "
				"needs CONFIG_DEBUG_INFO_BTF=y\n");
		ft_discover_close();
		return -FT_EXIT_NO_BTF;
	}
	if (err) {
		fprintf(stderr, "fibtrace: cannot read /proc/kallsyms: %s\n", strerror(-err));
		ft_discover_close();
		return -FT_EXIT_ERROR;
	}
	return 0;
}

void ft_discover_close(void)
{
	ft_func_index_free(&idx_vmlinux);
	btf__free(vmlinux_btf);
	vmlinux_btf = NULL;
	ft_ksyms_free();
}

int ft_discover(struct ft_targets *tg, const char *module, const char *extra, bool force_kprobe,
		bool defaults, bool calibrate, struct ft_run *run)
{
	struct btf *vmlinux = vmlinux_btf;
	struct btf *fib_btf = NULL;
	int err = 0, first_dyn = FT_FIXED_SLOTS, last_dyn = FT_FIXED_SLOTS;

	memset(tg, 0, sizeof(*tg));
	ft_fibmod = module ? module : "fibdrv";
	snprintf(tg->module, sizeof(tg->module), "%s", ft_fibmod);
	run->startup.symbols = ft_ksyms_source;
	err = module_present(tg, extra, run);
	if (err)
		goto out;
	fib_btf = tg->no_module ? NULL : btf__load_module_btf(ft_fibmod, vmlinux);
	tg->module_btf = fib_btf != NULL;
	ft_func_index_build(&idx_fibdrv, fib_btf, vmlinux);
	if (!fib_btf && !force_kprobe && !tg->no_module)
		ft_warn(run,
			"%s has no BTF (/sys/kernel/btf/%s): module functions "
			"traced with kprobes",
			ft_fibmod, ft_fibmod);

	err = add_fixed(tg, vmlinux, fib_btf, force_kprobe, run);
	if (err)
		goto out;
	first_dyn = tg->count;

	if (defaults && !tg->no_module) {
		add_defaults(tg, vmlinux, fib_btf, force_kprobe, first_dyn);
		last_dyn = tg->count;
	}
	/* An error in -f is returned after the checks below, as the whole list's warnings. */
	if (extra)
		err = ft_add_func_list(tg, extra, vmlinux, fib_btf, force_kprobe, run);
	if (tg->dropped)
		ft_warn(run, "%d functions not traced: at most %d slots", tg->dropped,
			FT_MAX_SLOTS);
	if (calibrate && !tg->no_module)
		add_calib(tg, vmlinux, fib_btf, force_kprobe, run);
	check_targets(tg, first_dyn, last_dyn, force_kprobe, run);
	tg->core_btf = ft_core_btf_build(vmlinux, fib_btf, &tg->core_btf_size);
out:
	ft_func_index_free(&idx_fibdrv);
	btf__free(fib_btf);
	return err;
}
