/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call tree (docs/views.md): the paths BPF aggregated (map "tree",
 * bpf/fibtrace.h) linked into one tree per root, hottest child first. Its
 * views are report/tree_views.c's (report.h).
 */
#ifndef FIBTRACE_TREE_H
#define FIBTRACE_TREE_H

#include "run.h"

/*
 * Links run->tree[0 .. ntree): drops the calibration functions' paths,
 * names each node's function, sets parent, child, next, depth and
 * run->tree_root. A node whose caller's path was not recorded (its exit
 * never came) becomes a root. 0, or -ENOMEM.
 */
int ft_tree_link(struct ft_run *run);

/* The duration sums a report shows: compensated when run->overhead.on. */
__u64 ft_tnode_total(const struct ft_run *run, const struct ft_tnode *n);
__u64 ft_tnode_self(const struct ft_run *run, const struct ft_tnode *n);

#endif
