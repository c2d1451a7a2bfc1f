/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FIBTRACE_BTF_INDEX_H
#define FIBTRACE_BTF_INDEX_H

#include <stddef.h>

#include <bpf/btf.h>

/*
 * Sorted FUNC names of one BTF (own types only for split BTF): libbpf's
 * btf__find_by_name_kind() scans every type, which costs half a second per
 * lookup in vmlinux under software emulation.
 */
struct func_index {
	const struct btf *btf;
	struct func_ent {
		const char *name;
		__u32 id;
	} * ents;
	size_t n;
};

/* Indexes @btf's own FUNCs (after @base's types for split BTF; @btf NULL: empty). */
void ft_func_index_build(struct func_index *ix, const struct btf *btf, const struct btf *base);
/* The FUNC named @name, or NULL. */
const struct func_ent *ft_func_index_find(const struct func_index *ix, const char *name);
void ft_func_index_free(struct func_index *ix);

#endif
