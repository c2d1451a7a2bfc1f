/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call tree in BPF (docs/views.md, bpf/fibtrace.h): each frame's path,
 * and at its exit the sums of its path's node. Included by fibtrace.bpf.c
 * after its task state, count_lost() and the tree_on/tree_n knobs.
 */
#ifndef FIBTRACE_TREE_BPF_H
#define FIBTRACE_TREE_BPF_H

/* The call tree by path (FT_TREE_NODES paths). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, FT_TREE_NODES);
	__type(key, __u64); /* the path (bpf/fibtrace.h) */
	__type(value, struct ft_tree_node);
} tree SEC(".maps");

/* A path's hash from its parent's and its function's slot (64-bit mix). */
static __always_inline __u64 path_hash(__u64 parent, __u32 slot)
{
	__u64 h = (parent ^ ((__u64)slot + 1)) * 0x9e3779b97f4a7c15ULL;

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return (h ^ (h >> 29)) | 1; /* never 0: 0 is a root's parent */
}

/*
 * Frame @d's place in the call tree: under the frame below it, or a root
 * (of the read's algorithm); a recursive call takes its outer call's path.
 * The outer call is found in O(1): sk->tree_owner[slot] is 1 + the stack
 * index of the outermost open frame of @slot in the tree, checked before
 * use (an index left by a frame that ended is caught: the frame there now
 * is not an open in-tree frame of @slot below @d, and then there is none).
 */
static __always_inline void tree_enter(struct ft_task *st, struct ft_stack *sk, __u32 d, __u32 slot)
{
	struct ft_frame *f = &sk->frame[d & (FT_STACK_DEPTH - 1)], *p;
	__u32 s = slot & (FT_MAX_SLOTS - 1), k;

	f->tree = tree_on && (tree_n == FT_TREE_ALL_N || (st->in_read && st->n == tree_n));
	if (!f->tree)
		return;
	k = sk->tree_owner[s];
	if (k && k - 1 < d) {
		p = &sk->frame[(k - 1) & (FT_STACK_DEPTH - 1)];
		if (p->slot == slot && p->tree == 1) {
			f->path = p->path;
			f->parent = p->parent;
			f->tree = 2;
			return;
		}
	}
	sk->tree_owner[s] = d + 1;
	if (d == 0) {
		f->parent = 0;
		f->path =
			path_hash(slot == FT_SLOT_READ ? (__u64)st->algo << 8 : FT_ALGO_NONE, slot);
		return;
	}
	p = &sk->frame[(d - 1) & (FT_STACK_DEPTH - 1)];
	f->parent = p->path;
	f->path = path_hash(p->path, slot);
}

/* A call on a tree path ended: its node's sums (created at its first call). */
static __always_inline void tree_account(struct ft_task *st, struct ft_stack *sk, __u32 i,
					 const struct ft_durs *c)
{
	struct ft_frame *f = &sk->frame[i & (FT_STACK_DEPTH - 1)];
	struct ft_tree_node *node, zero = {};
	bool outer = f->tree == 1;
	__u64 key = f->path;

	node = bpf_map_lookup_elem(&tree, &key);
	if (!node) {
		/* Failing with -EEXIST (another CPU created it meanwhile) is fine. */
		bpf_map_update_elem(&tree, &key, &zero, BPF_NOEXIST);
		node = bpf_map_lookup_elem(&tree, &key);
		if (!node) {
			count_lost(FT_LOST_TREE);
			return;
		}
	}
	/* This CPU's copy says whose path it is (another CPU's may be unused). */
	node->parent = f->parent;
	node->slot = f->slot;
	node->algo = st->in_read ? st->algo : FT_ALGO_NONE;
	node->count++;
	node->folded += !outer;
	node->self_ns += c->self;
	node->comp_self_ns += c->comp_self;
	if (outer) {
		node->total_ns += c->dur;
		node->comp_total_ns += c->comp;
	}
}

#endif /* FIBTRACE_TREE_BPF_H */
