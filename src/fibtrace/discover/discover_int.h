/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by discover.c and funcspec.c (-f): targets and how each is traced. */
#ifndef FIBTRACE_DISCOVER_INT_H
#define FIBTRACE_DISCOVER_INT_H

#include <stdbool.h>

#include <bpf/btf.h>

#include "model/run.h"

/* The module traced: fibdrv, or a build loaded under another name (--compare builds). */
extern const char *ft_fibmod;

/* The target (@module, @name) already in @tg, or NULL. */
struct ft_target *ft_find_target(struct ft_targets *tg, const char *name, const char *module);
/* A new target at @slot (-1: the next free one; NULL and counted as dropped when full). */
struct ft_target *ft_add_target(struct ft_targets *tg, int slot, const char *name,
				const char *module);
/* Has @btf (indexed when it is the kernel's or the module's) a FUNC @name? */
bool ft_btf_has_func(const struct btf *btf, const char *name);
/* @t's BTF id and argument count, and its mode: fentry where it can be, else kprobe. */
void ft_set_mode(struct ft_target *t, const struct btf *vmlinux, const struct btf *mod_btf,
		 bool force_kprobe);

/* -f: each comma-separated name or glob (funcspec.c); 0 or -(exit status). */
int ft_add_func_list(struct ft_targets *tg, const char *extra, const struct btf *vmlinux,
		     const struct btf *fib_btf, bool force_kprobe, struct ft_run *run);

#endif
