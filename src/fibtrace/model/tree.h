/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call tree (docs/views.md): the paths BPF aggregated (map "tree",
 * bpf/fibtrace.h) linked into one tree per root, hottest child first, and
 * its views: the text tree, JSON "call_tree", folded stacks (--folded) and
 * the flame graph rendered from them (--flamegraph, by inferno).
 */
#ifndef FIBTRACE_TREE_H
#define FIBTRACE_TREE_H

#include <stdio.h>

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

/* Text: every root's tree; without run->tree_full, paths under 5% of their root summarised (all
 * with run->all). */
void ft_tree_text(FILE *f, const struct ft_run *run);
/* JSON: ",\n  \"call_tree\": [nodes in depth-first order]". */
void ft_tree_json(FILE *f, const struct ft_run *run);
/* Folded stacks, "root;...;leaf SELF_NS" per path (merged across algorithms): 0 or -errno. */
int ft_tree_folded(const struct ft_run *run, const char *path);
/* --flamegraph FILE.svg: the folded stacks rendered by inferno-flamegraph: 0 or -1. */
int ft_tree_flamegraph(const struct ft_run *run, const char *path);

#endif
