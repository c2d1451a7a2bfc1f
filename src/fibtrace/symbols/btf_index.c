// SPDX-License-Identifier: GPL-2.0
/* Sorted FUNC names of a BTF: see btf_index.h. */
#include <stdlib.h>
#include <string.h>

#include "btf_index.h"

static int cmp_ent(const void *a, const void *b)
{
	return strcmp(((const struct func_ent *)a)->name, ((const struct func_ent *)b)->name);
}

void ft_func_index_build(struct func_index *ix, const struct btf *btf, const struct btf *base)
{
	__u32 id = base ? btf__type_cnt(base) : 1, end;

	memset(ix, 0, sizeof(*ix));
	ix->btf = btf;
	if (!btf)
		return;
	end = btf__type_cnt(btf);
	ix->ents = calloc(end - id + 1, sizeof(*ix->ents));
	if (!ix->ents)
		return;
	for (; id < end; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!btf_is_func(t))
			continue;
		ix->ents[ix->n].name = btf__name_by_offset(btf, t->name_off);
		ix->ents[ix->n].id = id;
		ix->n++;
	}
	qsort(ix->ents, ix->n, sizeof(*ix->ents), cmp_ent);
}

const struct func_ent *ft_func_index_find(const struct func_index *ix, const char *name)
{
	struct func_ent key = {.name = name};

	if (!ix->n)
		return NULL;
	return bsearch(&key, ix->ents, ix->n, sizeof(key), cmp_ent);
}

void ft_func_index_free(struct func_index *ix)
{
	free(ix->ents);
	memset(ix, 0, sizeof(*ix));
}
