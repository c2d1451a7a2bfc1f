// SPDX-License-Identifier: GPL-2.0
/* The call tree linked from BPF's paths: see tree.h and docs/views.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tree.h"

__u64 ft_tnode_total(const struct ft_run *run, const struct ft_tnode *n)
{
	return run->overhead.on ? n->v.comp_total_ns : n->v.total_ns;
}

__u64 ft_tnode_self(const struct ft_run *run, const struct ft_tnode *n)
{
	return run->overhead.on ? n->v.comp_self_ns : n->v.self_ns;
}

/* ---------- linking ---------- */

static int cmp_path(const void *a, const void *b)
{
	const struct ft_tnode *x = a, *y = b;

	return x->key.path < y->key.path ? -1 : x->key.path > y->key.path;
}

static const struct ft_run *sort_run; /* qsort has no context argument */

static int cmp_hotter(const void *a, const void *b)
{
	const struct ft_tnode *x = &sort_run->tree[*(const int *)a];
	const struct ft_tnode *y = &sort_run->tree[*(const int *)b];
	__u64 tx = ft_tnode_total(sort_run, x), ty = ft_tnode_total(sort_run, y);

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return cmp_path(x, y); /* a stable order between equals */
}

/* Keeps the reported functions' paths (not the calibration's), each named by its target. */
static void keep_reported(struct ft_run *run)
{
	const struct ft_targets *tg = run->targets;
	int by_slot[FT_MAX_SLOTS], i;
	size_t k, m = 0;

	for (i = 0; i < FT_MAX_SLOTS; i++)
		by_slot[i] = -1;
	for (i = 0; i < tg->count; i++)
		if (tg->t[i].slot >= 0 && tg->t[i].slot < FT_MAX_SLOTS)
			by_slot[tg->t[i].slot] = i;
	for (k = 0; k < run->ntree; k++) {
		struct ft_tnode *n = &run->tree[k];

		if (n->key.slot >= FT_MAX_SLOTS || by_slot[n->key.slot] < 0 || !n->v.count)
			continue;
		n->target = by_slot[n->key.slot];
		run->tree[m++] = *n;
	}
	run->ntree = m;
}

/* Parent by path; children and roots chained hottest first. */
static int link_nodes(struct ft_run *run)
{
	int *order = malloc((run->ntree + 1) * sizeof(*order)), *tail;
	int last_root = -1;
	size_t k;

	tail = malloc((run->ntree + 1) * sizeof(*tail));
	if (!order || !tail) {
		free(order);
		free(tail);
		return -ENOMEM;
	}
	for (k = 0; k < run->ntree; k++) {
		struct ft_tnode *n = &run->tree[k], key = {.key.path = n->key.parent}, *p = NULL;

		if (n->key.parent)
			p = bsearch(&key, run->tree, run->ntree, sizeof(key), cmp_path);
		n->parent = p && p != n ? (int)(p - run->tree) : -1;
		n->child = n->next = -1;
		order[k] = k;
		tail[k] = -1;
	}
	sort_run = run;
	qsort(order, run->ntree, sizeof(*order), cmp_hotter);
	run->tree_root = -1;
	for (k = 0; k < run->ntree; k++) {
		int i = order[k], p = run->tree[i].parent;

		if (p < 0) {
			if (last_root < 0)
				run->tree_root = i;
			else
				run->tree[last_root].next = i;
			last_root = i;
		} else {
			if (tail[p] < 0)
				run->tree[p].child = i;
			else
				run->tree[tail[p]].next = i;
			tail[p] = i;
		}
	}
	free(order);
	free(tail);
	return 0;
}

int ft_tree_link(struct ft_run *run)
{
	size_t k;
	int err;

	run->tree_root = -1;
	if (!run->ntree)
		return 0;
	keep_reported(run);
	qsort(run->tree, run->ntree, sizeof(*run->tree), cmp_path);
	err = link_nodes(run);
	for (k = 0; !err && k < run->ntree; k++) {
		int d = 0, p = run->tree[k].parent;

		for (; p >= 0 && d < FT_STACK_DEPTH; d++)
			p = run->tree[p].parent;
		run->tree[k].depth = d;
	}
	return err;
}
