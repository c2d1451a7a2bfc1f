// SPDX-License-Identifier: GPL-2.0
/*
 * -f: the functions asked for by name ("func", "mod:func") or by glob
 * ("vfs_*", "fibdrv:bn_mul*"), resolved against /proc/kallsyms, ftrace's
 * traceable list and BTF, each added as a target (discover.c decides its
 * mode the same way as the default set's).
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "discover_int.h"

/* "mod:func" or "func": vmlinux, then fibdrv, then any module in kallsyms. */
static int add_extra(const struct ft_disc *d, struct ft_targets *tg, char *spec, bool force_kprobe,
		     struct ft_run *run)
{
	char *colon = strchr(spec, ':');
	const char *mod = NULL, *func = spec;
	struct btf *mbtf = NULL;
	const struct ksym *ks;
	struct ft_target *t;

	if (colon) {
		*colon = 0;
		mod = spec;
		func = colon + 1;
		if (!strcmp(mod, "vmlinux") || !strcmp(mod, "kernel"))
			mod = "";
	}
	if (!*func) {
		fprintf(stderr, "fibtrace: empty function name in -f\n");
		return -FT_EXIT_USAGE;
	}
	if (!mod) {
		if (ft_btf_has_func(d, d->vmlinux, func) && ft_ksym_find(d->ks, func, ""))
			mod = "";
		else if (ft_btf_has_func(d, d->mod, func) && ft_ksym_find(d->ks, func, d->module))
			mod = d->module;
		else if ((ks = ft_ksym_find(d->ks, func, NULL)))
			mod = ks->module;
		else {
			fprintf(stderr,
				"fibtrace: unknown function '%s': not in kernel BTF "
				"nor in /proc/kallsyms\n",
				func);
			return -FT_EXIT_UNKNOWN_FUNC;
		}
	}
	if (!ft_ksym_find(d->ks, func, mod)) {
		fprintf(stderr, "fibtrace: unknown function '%s%s%s': not in /proc/kallsyms%s\n",
			mod, *mod ? ":" : "", func, *mod ? " (is the module loaded?)" : "");
		return -FT_EXIT_UNKNOWN_FUNC;
	}
	if (!ft_traceable(d->ks, func)) {
		fprintf(stderr,
			"fibtrace: function '%s' is not traceable (notrace: not in "
			"available_filter_functions)\n",
			func);
		return -FT_EXIT_UNKNOWN_FUNC;
	}
	if (ft_find_target(tg, func, mod))
		return 0;
	t = ft_add_target(tg, -1, func, mod);
	if (!t) {
		ft_warn(run, "more than %d functions: '%s' not traced", FT_MAX_SLOTS, func);
		return 0;
	}
	if (*mod && strcmp(mod, d->module)) {
		/* fentry needs the module's BTF fd at load; only fibdrv's is kept. */
		mbtf = btf__load_module_btf(mod, (struct btf *)d->vmlinux);
		ft_set_mode(d, t, mbtf, true);
		btf__free(mbtf);
		if (!force_kprobe)
			ft_warn(run, "%s:%s traced with kprobe (fentry only for vmlinux and %s)",
				mod, func, d->module);
		return 0;
	} else {
		ft_set_mode(d, t, d->mod, force_kprobe);
	}
	if (!t->in_btf && !force_kprobe)
		ft_warn(run, "%s has no BTF: traced with kprobe", func);
	else if (t->mode == FT_MODE_KPROBE && !force_kprobe)
		ft_warn(run, "%s has %d arguments, more than fentry takes here: traced with kprobe",
			func, t->nargs);
	return 0;
}

/* Is this -f item a pattern (fnmatch: *, ?, [...])? */
static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Matches of one glob: kallsyms indexes, at most @room traceable ones. */
struct glob_hits {
	size_t *idx;
	size_t n;	/* traceable, new, distinct */
	size_t matched; /* every text symbol matched */
	size_t notrace; /* matched but not traceable */
	bool overflow;	/* more than room */
};

static bool glob_seen(const struct ft_disc *d, const struct glob_hits *h, const struct ksym *ks)
{
	size_t k;

	for (k = 0; k < h->n; k++) {
		const struct ksym *seen = ft_ksyms_at(d->ks, h->idx[k]);

		if (!strcmp(seen->name, ks->name) && !strcmp(seen->module, ks->module))
			return true;
	}
	return false;
}

static void glob_match(const struct ft_disc *d, struct ft_targets *tg, const char *mod,
		       const char *pat, size_t room, struct glob_hits *h)
{
	size_t i;

	for (i = 0; i < ft_ksyms_count(d->ks); i++) {
		const struct ksym *ks = ft_ksyms_at(d->ks, i);

		if ((mod && strcmp(ks->module, mod)) || fnmatch(pat, ks->name, 0))
			continue;
		/* fibtrace's own calibration functions are never reported. */
		if (!strcmp(ks->module, d->module) &&
		    !strncmp(ks->name, FT_CALIB_PREFIX, strlen(FT_CALIB_PREFIX)))
			continue;
		h->matched++;
		if (h->overflow || ft_find_target(tg, ks->name, ks->module) || glob_seen(d, h, ks))
			continue;
		if (!ft_traceable(d->ks, ks->name))
			h->notrace++;
		else if (h->n < room)
			h->idx[h->n++] = i;
		else
			h->overflow = true;
	}
}

/*
 * "glob" or "mod:glob" (-f 'vfs_*', -f 'fibdrv:bn_mul*'): every traceable
 * text symbol of /proc/kallsyms it matches, in that module or vmlinux
 * ("vmlinux:" or "kernel:") only when one is named, each then added as a
 * name. Matching nothing traceable is exit 5; more than the slots left is
 * exit 2 (never a silent cut).
 */
static int add_glob(const struct ft_disc *d, struct ft_targets *tg, char *spec, bool force_kprobe,
		    struct ft_run *run)
{
	char *colon = strchr(spec, ':'), one[256];
	const char *mod = NULL, *pat = spec;
	/* Two slots stay free for fibdrv's calibration functions. */
	size_t k, room = tg->count + 2 < FT_MAX_SLOTS ? FT_MAX_SLOTS - 2 - tg->count : 0;
	struct glob_hits h = {};
	int err = 0;

	if (colon) {
		*colon = 0;
		mod = spec;
		pat = colon + 1;
		if (!strcmp(mod, "vmlinux") || !strcmp(mod, "kernel"))
			mod = "";
	}
	h.idx = calloc(room + 1, sizeof(*h.idx));
	if (!h.idx)
		return -FT_EXIT_ERROR;
	glob_match(d, tg, mod, pat, room, &h);
	if (h.overflow) {
		fprintf(stderr,
			"fibtrace: -f '%s%s%s' matches %zu functions: more than the %zu slots left "
			"(%d of %d in use; --no-discover frees the default set's): narrow it\n",
			colon ? spec : "", colon ? ":" : "", pat, h.matched, room, tg->count,
			FT_MAX_SLOTS);
		err = -FT_EXIT_USAGE;
	} else if (!h.n && !h.matched) {
		fprintf(stderr, "fibtrace: -f '%s%s%s' matches no function in /proc/kallsyms%s\n",
			colon ? spec : "", colon ? ":" : "", pat,
			mod && *mod ? " (is the module loaded?)" : "");
		err = -FT_EXIT_UNKNOWN_FUNC;
	} else if (!h.n && h.notrace) {
		fprintf(stderr,
			"fibtrace: -f '%s%s%s': its %zu matches are not traceable (notrace: not in "
			"available_filter_functions)\n",
			colon ? spec : "", colon ? ":" : "", pat, h.notrace);
		err = -FT_EXIT_UNKNOWN_FUNC;
	}
	for (k = 0; k < h.n && !err; k++) {
		const struct ksym *ks = ft_ksyms_at(d->ks, h.idx[k]);

		snprintf(one, sizeof(one), "%s:%s", *ks->module ? ks->module : "vmlinux", ks->name);
		err = add_extra(d, tg, one, force_kprobe, run);
	}
	if (!err && h.notrace)
		ft_warn(run, "-f '%s': %zu of its matches are notrace: not traced", pat, h.notrace);
	free(h.idx);
	return err;
}

/* -f: each comma-separated name or glob. */
int ft_add_func_list(const struct ft_disc *d, struct ft_targets *tg, const char *extra,
		     bool force_kprobe, struct ft_run *run)
{
	char *copy = strdup(extra), *save = NULL, *tok;
	int err = 0;

	if (!copy)
		return -FT_EXIT_ERROR;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		err = is_glob(tok) ? add_glob(d, tg, tok, force_kprobe, run)
				   : add_extra(d, tg, tok, force_kprobe, run);
		if (err)
			break;
	}
	free(copy);
	return err;
}
