// SPDX-License-Identifier: GPL-2.0
/*
 * A traced function joins the set here: found or added in its slot, and
 * given its BTF id, argument count and mode (fentry where the kernel allows
 * it, else kprobe), for the default set (discover.c) and -f (funcspec.c).
 */
#include <stdio.h>
#include <string.h>

#include "discover_int.h"
#include "plan.h"

struct ft_target *ft_find_target(struct ft_targets *tg, const char *name, const char *module)
{
	int i;

	for (i = 0; i < tg->count; i++)
		if (!strcmp(tg->t[i].name, name) && !strcmp(tg->t[i].module, module))
			return &tg->t[i];
	return NULL;
}

/* @btf's index when it has one: the kernel's or the traced module's. */
static const struct func_index *index_of(const struct ft_disc *d, const struct btf *btf)
{
	if (d->ivm && btf == d->ivm->btf)
		return d->ivm;
	if (d->imod && btf == d->imod->btf)
		return d->imod;
	return NULL;
}

bool ft_btf_has_func(const struct ft_disc *d, const struct btf *btf, const char *name)
{
	const struct func_index *idx = index_of(d, btf);

	if (!btf)
		return false;
	if (idx)
		return ft_func_index_find(idx, name) != NULL;
	return btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) > 0;
}

static void set_btf_id(const struct ft_disc *d, struct ft_target *t, const struct btf *btf)
{
	const struct func_index *idx = index_of(d, btf);
	const struct btf_type *fn, *proto;
	const struct func_ent *e = NULL;
	__s32 id = -1;

	if (idx)
		e = ft_func_index_find(idx, t->name);
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

void ft_set_mode(const struct ft_disc *d, struct ft_target *t, const struct btf *mod_btf,
		 bool force_kprobe)
{
	if (t->module[0]) {
		t->in_btf = ft_btf_has_func(d, mod_btf, t->name);
		/* A kprobe by name would find the vmlinux function first. */
		t->shadowed = ft_btf_has_func(d, d->vmlinux, t->name);
		if (t->in_btf)
			set_btf_id(d, t, mod_btf);
	} else {
		t->in_btf = ft_btf_has_func(d, d->vmlinux, t->name);
		if (t->in_btf)
			set_btf_id(d, t, d->vmlinux);
	}
	t->ambiguous = !force_kprobe && t->module[0] && ft_fentry_by_bare_name() &&
		       ft_ksym_elsewhere(d->ks, t->name, t->module);
	t->mode = (force_kprobe || !t->btf_id || t->nargs > ft_max_fentry_args() || t->ambiguous)
			  ? FT_MODE_KPROBE
			  : FT_MODE_FENTRY;
}
