// SPDX-License-Identifier: GPL-2.0
/* The CO-RE types of this kernel in a small BTF: see core_btf.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "core_btf.h"

/*
 * Every struct the BPF object (bpf/) relocates, and the members it reads;
 * one per line, as `make check-core` (scripts/check-core.py) reads them.
 */
struct core_need {
	const char *type;
	const char *members; /* space-separated */
	bool module;	     /* in fibdrv's BTF, not the kernel's */
};

static const struct core_need needs[] = {
	{"pt_regs", "ax cx dx di sp", false},	/* PT_REGS_*() in the kprobe programs */
	{"file", "private_data", false},	/* fib_read's file */
	{"task_struct", "nvcsw nivcsw", false}, /* -e cs: counters.bpf.h */
	{"bpf_perf_event_value", "counter enabled running", false},
	{"bpf_pidns_info", "tgid", false},
	{"fibdrv_file", "algo_id", true}, /* the read's algorithm */
};

/* @id's type with typedefs and modifiers skipped. */
static const struct btf_type *resolved(const struct btf *btf, __u32 id)
{
	return btf__type_by_id(btf, btf__resolve_type(btf, id));
}

/* A type for member @m of @src in @dst: an integer of its size, or a pointer. */
static int member_type(struct btf *dst, const struct btf *src, const struct btf_member *m)
{
	const struct btf_type *t = resolved(src, m->type);
	__s64 size;

	if (!t)
		return -ENOENT;
	if (btf_is_ptr(t))
		return btf__add_ptr(dst, 0);
	size = btf__resolve_size(src, m->type);
	if (size <= 0 || !(btf_is_int(t) || btf_is_enum(t)))
		return -EINVAL; /* CO-RE here reads integers and pointers only */
	return btf__add_int(dst, btf__name_by_offset(src, t->name_off), size, 0);
}

/* Is @name one of the space-separated words of @list? */
static bool named(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = list; len && (p = strstr(p, name)); p += len)
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
			return true;
	return false;
}

/*
 * Struct @id of @src (0: this kernel has none) with the members @n names,
 * those @src has.
 */
static int copy_struct(struct btf *dst, const struct btf *src, int id, const struct core_need *n)
{
	const struct btf_type *t = id > 0 ? btf__type_by_id(src, id) : NULL;
	int k, idx[16], tid[16], nwant = 0, err;
	const struct btf_member *m;

	if (!t)
		return 0; /* not in this kernel: relocations against it fail as before */
	for (k = 0, m = btf_members(t); k < btf_vlen(t) && nwant < 16; k++, m++)
		if (named(n->members, btf__name_by_offset(src, m->name_off)))
			idx[nwant++] = k;
	/* The member types first: a struct's fields follow it directly. */
	for (k = 0; k < nwant; k++) {
		tid[k] = member_type(dst, src, btf_members(t) + idx[k]);
		if (tid[k] < 0)
			return tid[k];
	}
	err = btf__add_struct(dst, n->type, t->size);
	for (k = 0; k < nwant && err >= 0; k++) {
		m = btf_members(t) + idx[k];
		err = btf__add_field(dst, btf__name_by_offset(src, m->name_off), tid[k],
				     btf_member_bit_offset(t, idx[k]),
				     btf_member_bitfield_size(t, idx[k]));
	}
	return err < 0 ? err : 0;
}

#define NNEEDS (sizeof(needs) / sizeof(needs[0]))

/*
 * The ids of the table's structs in @src's own types (from @first: after
 * the base's for split BTF), in one pass: btf__find_by_name_kind() scans
 * every type per name, ~0.05 s each for the kernel's under emulation.
 */
static void find_structs(const struct btf *src, __u32 first, bool module, int ids[NNEEDS])
{
	__u32 id, end = btf__type_cnt(src);
	size_t k;

	for (id = first; id < end; id++) {
		const struct btf_type *t = btf__type_by_id(src, id);

		if (!btf_is_struct(t) || !t->name_off)
			continue;
		for (k = 0; k < NNEEDS; k++)
			if (needs[k].module == module && !ids[k] &&
			    !strcmp(btf__name_by_offset(src, t->name_off), needs[k].type))
				ids[k] = id;
	}
}

void *ft_core_btf_build(const struct btf *vmlinux, const struct btf *module, __u32 *size)
{
	struct btf *dst = btf__new_empty();
	int ids[NNEEDS] = {}, err = dst ? 0 : -ENOMEM;
	const void *raw = NULL;
	void *copy = NULL;
	size_t k;

	find_structs(vmlinux, 1, false, ids);
	if (module)
		find_structs(module, btf__type_cnt(vmlinux), true, ids);
	for (k = 0; k < NNEEDS && !err; k++)
		err = copy_struct(dst, needs[k].module ? module : vmlinux, ids[k], &needs[k]);
	if (!err)
		raw = btf__raw_data(dst, size);
	if (raw && (copy = malloc(*size)))
		memcpy(copy, raw, *size);
	btf__free(dst);
	return copy;
}

int ft_core_btf_open(const void *raw, __u32 size)
{
	int fd = memfd_create("fibtrace-core-btf", MFD_CLOEXEC);

	if (fd >= 0 && write(fd, raw, size) != (ssize_t)size) {
		close(fd);
		fd = -1;
	}
	return fd;
}
