/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside discover/: what one build's discovery reads (struct ft_disc), and
 * the steps discover.c, funcspec.c (-f) and targets.c share. discover.h is
 * the interface.
 */
#ifndef FIBTRACE_DISCOVER_INT_H
#define FIBTRACE_DISCOVER_INT_H

#include <stdbool.h>

#include <bpf/btf.h>

#include "model/run.h"
#include "symbols/btf_index.h"
#include "symbols/ksyms.h"

/* One build's discovery: the kernel's tables and the BTF every step reads. */
struct ft_disc {
	const struct ft_ksyms *ks;
	const struct btf *vmlinux;	     /* the kernel's BTF */
	const struct btf *mod;		     /* the traced module's, NULL without */
	const struct func_index *ivm, *imod; /* their FUNCs by name */
	const char *module; /* the module traced: fibdrv, or a build of --compare builds */
};

/* targets.c: the target (@module, @name) already in @tg, or NULL. */
struct ft_target *ft_find_target(struct ft_targets *tg, const char *name, const char *module);
/* A new target at @slot (-1: the next free one; NULL and counted as dropped when full). */
struct ft_target *ft_add_target(struct ft_targets *tg, int slot, const char *name,
				const char *module);
/* Has @btf (indexed when it is the kernel's or the module's) a FUNC @name? */
bool ft_btf_has_func(const struct ft_disc *d, const struct btf *btf, const char *name);
/*
 * @t's BTF id and argument count (from @mod_btf for a module function: the
 * traced module's, or another's), and its mode: fentry where it can be,
 * else kprobe.
 */
void ft_set_mode(const struct ft_disc *d, struct ft_target *t, const struct btf *mod_btf,
		 bool force_kprobe);

/* funcspec.c, -f: each comma-separated name or glob; 0 or -(exit status). */
int ft_add_func_list(const struct ft_disc *d, struct ft_targets *tg, const char *extra,
		     bool force_kprobe, struct ft_run *run);

#endif
