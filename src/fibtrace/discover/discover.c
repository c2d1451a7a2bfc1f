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

#include "core_btf.h"
#include "discover_int.h"
#include "model/run.h"
#include "plan.h"
#include "symbols/btf_index.h"
#include "symbols/ksyms.h"

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
 * --kprobe), fibdrv_calib1 in kprobe mode, and fibdrv_calib2 (a tail call
 * of fibdrv_calib1: what two calls returning together in one pass of the
 * kernel's return trampoline save) in kprobe mode when the module has it
 * (an older build does not: its tail calls are compensated as two calls),
 * excluded from tg->count.
 */
static void add_calib(const struct ft_disc *d, struct ft_targets *tg, bool force_kprobe,
		      struct ft_run *run)
{
	int k, first = tg->count;

	for (k = force_kprobe ? 1 : 0; k < FIBDRV_CALIB_FUNCS; k++) {
		char name[32];
		struct ft_target *t;
		bool have;

		snprintf(name, sizeof(name), FT_CALIB_PREFIX "%d", k);
		have = ft_ksym_find(d->ks, name, d->module) && ft_traceable(d->ks, name);
		if (k == FT_CALIB_TAIL && (!have || tg->count > FT_MAX_SLOTS))
			break; /* optional: an older build, or no slot */
		if (!have) {
			ft_warn(run,
				"%s has no traceable %s (an older build?): figures are "
				"not compensated for tracing overhead",
				d->module, name);
			break;
		}
		/* Past the last slot until the plan: kprobe.multi frees fibdrv_calib0's. */
		t = k == FT_CALIB_TAIL ? ft_add_target(tg, tg->count, name, d->module)
				       : ft_add_target(tg, -1, name, d->module);
		if (!t)
			break;
		ft_set_mode(d, t, d->mod, force_kprobe || k >= 1);
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
static void resolve_addrs(const struct ft_disc *d, struct ft_targets *tg)
{
	int i;

	for (i = 0; i < ft_targets_all(tg); i++) {
		struct ft_target *t = &tg->t[i];
		const struct ksym *k = t->addr ? NULL : ft_ksym_find(d->ks, t->name, t->module);

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
			n, tg->module);
}

/*
 * Is the module loaded (its fib_read in /proc/kallsyms)? 0 if so. fibdrv
 * absent with -f functions and no sweep: 0 too, tg->no_module set, and only
 * those functions are traced. Otherwise -(exit status), said why.
 */
static int module_present(const struct ft_disc *d, struct ft_targets *tg, const char *extra,
			  struct ft_run *run)
{
	if (ft_ksym_find(d->ks, "fib_read", d->module))
		return 0;
	if (ft_ksyms_unsettled(d->ks)) {
		fprintf(stderr,
			"fibtrace: %s's fib_read is not in /proc/kallsyms, which modules being "
			"loaded or unloaded changed during each of %d reads: run again once they "
			"settle\n",
			d->module, FT_KSYMS_READ_TRIES);
		return -FT_EXIT_NO_FIBDRV;
	}
	if (strcmp(d->module, "fibdrv")) {
		fprintf(stderr, "fibtrace: module %s has no fib_read in /proc/kallsyms\n",
			d->module);
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
static int add_fixed(const struct ft_disc *d, struct ft_targets *tg, bool force_kprobe,
		     struct ft_run *run)
{
	static const char *const fixed[FT_FIXED_SLOTS] = {
		"fib_read", "fibdrv_compute", "fibdrv_format", "fibdrv_copy", "_copy_to_user",
	};
	int i;

	for (i = 0; i < FT_FIXED_SLOTS; i++) {
		const char *mod = i == FT_SLOT_COPY_TO_USER ? "" : d->module;
		struct ft_target *t = ft_add_target(tg, i, fixed[i], mod);

		if (tg->no_module) {
			t->optional = t->unavailable = true;
			continue;
		}
		if (!ft_ksym_find(d->ks, fixed[i], mod)) {
			fprintf(stderr, "fibtrace: %s%s%s missing from /proc/kallsyms\n", mod,
				*mod ? ":" : "", fixed[i]);
			return -FT_EXIT_UNKNOWN_FUNC;
		}
		ft_set_mode(d, t, d->mod, force_kprobe);
		if (i == FT_SLOT_COPY_TO_USER) {
			t->optional = true;
			if (!ft_traceable(d->ks, t->name)) {
				t->unavailable = true;
				/* "fibtrace: warning: " and this: 95 columns (the demo fits 100) */
				ft_warn(run, "_copy_to_user is notrace on this kernel: "
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
static void add_defaults(const struct ft_disc *d, struct ft_targets *tg, bool force_kprobe,
			 int first)
{
	int i;

	if (d->mod) {
		__u32 id, start = btf__type_cnt(d->vmlinux), end = btf__type_cnt(d->mod);

		for (id = start; id < end; id++) {
			const struct btf_type *bt = btf__type_by_id(d->mod, id);
			const char *name;
			struct ft_target *t;

			if (!btf_is_func(bt))
				continue;
			name = btf__name_by_offset(d->mod, bt->name_off);
			if (!default_name(name))
				continue;
			if (!ft_ksym_find(d->ks, name, d->module) ||
			    ft_find_target(tg, name, d->module) || !ft_traceable(d->ks, name))
				continue;
			t = ft_add_target(tg, -1, name, d->module);
			if (t)
				ft_set_mode(d, t, d->mod, force_kprobe);
		}
	} else {
		size_t k;

		for (k = 0; k < ft_ksyms_count(d->ks); k++) {
			const char *name = ft_ksyms_at(d->ks, k)->name;
			struct ft_target *t;

			if (strcmp(ft_ksyms_at(d->ks, k)->module, d->module))
				continue;
			if (!default_name(name))
				continue;
			if (ft_find_target(tg, name, d->module))
				continue;
			t = ft_add_target(tg, -1, name, d->module);
			if (t)
				ft_set_mode(d, t, NULL, true);
		}
	}
	qsort(&tg->t[first], tg->count - first, sizeof(tg->t[0]), cmp_target);
	for (i = first; i < tg->count; i++)
		tg->t[i].slot = i;
}

/* Warnings about the targets (shadowed names, kprobes for many arguments); their addresses. */
static void check_targets(const struct ft_disc *d, struct ft_targets *tg, int first_dyn,
			  int last_dyn, bool force_kprobe, struct ft_run *run)
{
	int i;

	warn_ambiguous(tg, run);
	resolve_addrs(d, tg);
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

struct ft_discovery {
	struct btf *vmlinux;   /* the kernel's BTF */
	struct func_index idx; /* its FUNCs by name (0.13 s under emulation on 6.12) */
	struct ft_ksyms *ks;   /* kallsyms and ftrace's list */
};

static void *load_vmlinux_btf(void *arg)
{
	struct ft_discovery *dv = arg;

	dv->vmlinux = btf__load_vmlinux_btf();
	ft_func_index_build(&dv->idx, dv->vmlinux, NULL);
	return NULL;
}

int ft_discover_open(struct ft_discovery **out, bool symbol_cache)
{
	struct ft_discovery *dv = calloc(1, sizeof(*dv));
	pthread_t th;
	bool threaded;
	int err;

	*out = dv;
	if (!dv)
		return -FT_EXIT_ERROR;
	/*
	 * The kernel's BTF is parsed while the symbol tables are read: neither
	 * needs the other, and each took about half a second of a guest's
	 * start-up under emulation (a read-path run's discovery, 6.1 guest:
	 * BTF 0.55 s, then the symbol cache's key and contents 0.45 s).
	 */
	threaded = !pthread_create(&th, NULL, load_vmlinux_btf, dv);
	if (!threaded)
		load_vmlinux_btf(dv);
	err = ft_ksyms_load(&dv->ks, symbol_cache);
	if (threaded)
		pthread_join(th, NULL);
	if (!dv->vmlinux) {
		fprintf(stderr, "fibtrace: kernel BTF missing (/sys/kernel/btf/vmlinux): "
				"needs CONFIG_DEBUG_INFO_BTF=y\n");
		return -FT_EXIT_NO_BTF;
	}
	if (err) {
		fprintf(stderr, "fibtrace: cannot read /proc/kallsyms: %s\n", strerror(-err));
		return -FT_EXIT_ERROR;
	}
	return 0;
}

void ft_discover_close(struct ft_discovery *dv)
{
	if (!dv)
		return;
	ft_func_index_free(&dv->idx);
	btf__free(dv->vmlinux);
	ft_ksyms_free(dv->ks);
	free(dv);
}

int ft_discover(struct ft_discovery *dv, struct ft_targets *tg, const char *module,
		const char *extra, bool force_kprobe, bool defaults, bool calibrate,
		struct ft_run *run)
{
	struct func_index imod = {};
	struct btf *fib_btf = NULL;
	struct ft_disc disc = {
		.ks = dv->ks,
		.vmlinux = dv->vmlinux,
		.ivm = &dv->idx,
		.imod = &imod,
		.module = module ? module : "fibdrv",
	};
	const struct ft_disc *d = &disc;
	int err = 0, first_dyn = FT_FIXED_SLOTS, last_dyn = FT_FIXED_SLOTS;

	memset(tg, 0, sizeof(*tg));
	snprintf(tg->module, sizeof(tg->module), "%s", d->module);
	run->startup.symbols = ft_ksyms_source(dv->ks);
	err = module_present(d, tg, extra, run);
	if (err)
		goto out;
	fib_btf = tg->no_module ? NULL : btf__load_module_btf(d->module, dv->vmlinux);
	disc.mod = fib_btf;
	tg->module_btf = fib_btf != NULL;
	ft_func_index_build(&imod, fib_btf, dv->vmlinux);
	if (!fib_btf && !force_kprobe && !tg->no_module)
		ft_warn(run,
			"%s has no BTF (/sys/kernel/btf/%s): module functions "
			"traced with kprobes",
			d->module, d->module);

	err = add_fixed(d, tg, force_kprobe, run);
	if (err)
		goto out;
	first_dyn = tg->count;

	if (defaults && !tg->no_module) {
		add_defaults(d, tg, force_kprobe, first_dyn);
		last_dyn = tg->count;
	}
	/* An error in -f is returned after the checks below, as the whole list's warnings. */
	if (extra)
		err = ft_add_func_list(d, tg, extra, force_kprobe, run);
	if (tg->dropped)
		ft_warn(run, "%d functions not traced: at most %d slots", tg->dropped,
			FT_MAX_SLOTS);
	if (calibrate && !tg->no_module)
		add_calib(d, tg, force_kprobe, run);
	check_targets(d, tg, first_dyn, last_dyn, force_kprobe, run);
	tg->core_btf = ft_core_btf_build(dv->vmlinux, fib_btf, &tg->core_btf_size);
out:
	ft_func_index_free(&imod);
	btf__free(fib_btf);
	return err;
}
