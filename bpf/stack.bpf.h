/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-task stack of open calls (bpf/fibtrace.bpf.c: struct ft_task, its
 * depth; struct ft_stack, its frames): a stack taken from the pool and given
 * back, frames whose exit can no longer come, and the frame an exit pairs
 * with. Included by fibtrace.bpf.c after its task state, count_lost() and
 * count_root().
 */
#ifndef FIBTRACE_STACK_BPF_H
#define FIBTRACE_STACK_BPF_H

/* One bpf_loop() step of stack_claim(): a free stack, from cc->start on. */
struct claim_ctx {
	__u64 owner;
	__u32 start, got;
};

static int claim_one(__u32 k, void *data)
{
	struct claim_ctx *cc = data;
	__u32 i = cc->start + k;
	struct ft_stack *sk;

	if (i >= nr_stacks)
		i -= nr_stacks;
	sk = bpf_map_lookup_elem(&stacks, &i);
	if (!sk)
		return 1;
	if (__sync_val_compare_and_swap(&sk->owner, 0, cc->owner))
		return 0; /* held */
	cc->got = i;
	return 1;
}

/* The task's stack: the one it holds, or (@claim) a free one now; NULL when none. */
static __always_inline struct ft_stack *stack_get(struct ft_task *st, bool claim)
{
	struct claim_ctx cc;

	if (!st->sk_held) {
		if (!claim)
			return NULL;
		cc.owner = bpf_get_current_pid_tgid() | (1ULL << 63);
		cc.start = bpf_get_smp_processor_id() % nr_stacks;
		cc.got = nr_stacks;
		bpf_loop(nr_stacks, claim_one, &cc, 0);
		if (cc.got >= nr_stacks)
			return NULL;
		st->sk = cc.got;
		st->sk_held = 1;
	}
	return bpf_map_lookup_elem(&stacks, &st->sk);
}

/* The task has no open call left: its stack goes back to the pool. */
static __always_inline void stack_put(struct ft_task *st, struct ft_stack *sk)
{
	st->sk_held = 0;
	__sync_lock_test_and_set(&sk->owner, 0); /* after the frames' last writes */
}

/*
 * Frames whose exit can no longer come. The top frame is stale when a new
 * entry of this task sits above its stack position (@id is the entry's
 * stack address; the kernel stack grows down, so a live caller's frame is
 * at or above its callees': at, for a tail call, whose kprobe sees the
 * caller's return address slot), or at the same position for the same
 * function. And a new fib_read finds its task in no read (fib_read does not
 * nest): an open fib_read frame, and every frame above it, is stale,
 * wherever the new read enters (a read loop's next fib_read enters where
 * the last one did, or deeper through another system call). Without these
 * a fib_read whose exit was lost would stay under every later read of its
 * task, uncounted. Their exits were lost (a kretprobe instance missing,
 * fexit skipped by the recursion guard or by a trampoline rebuilt while the
 * call ran): dropped and counted, so they neither shrink the stack nor
 * pair with a later exit. A lost exit at exactly the position of a new
 * entry of another function is not caught here; the caller's exit counts
 * it as unwound.
 */
struct stale_ctx {
	struct ft_task *st;
	struct ft_stack *sk;
	__u64 id;
	__u32 slot;
	__u32 floor; /* frames at this index and above are stale whatever their id */
};

static __always_inline bool is_stale(const struct ft_frame *f, __u64 id, __u32 slot)
{
	return f->id < id || (f->id == id && f->slot == slot);
}

/* One bpf_loop() step of drop_stale(): 1 ends the loop. */
static int drop_one(__u32 k, void *data)
{
	struct stale_ctx *sc = data;
	struct ft_task *st = sc->st;
	struct ft_frame *f;
	__u32 d = st->depth;

	if (d == 0 || d > FT_STACK_DEPTH)
		return 1;
	f = &sc->sk->frame[(d - 1) & (FT_STACK_DEPTH - 1)];
	if (d - 1 < sc->floor && !is_stale(f, sc->id, sc->slot))
		return 1;
	if (f->slot == FT_SLOT_READ)
		st->in_read = 0;
	st->depth = d - 1;
	count_lost(FT_LOST_NO_RETURN);
	if (d == 1)
		count_root(f->slot, 1);
	return 0;
}

/* One bpf_loop() step of drop_stale()'s search for the task's fib_read frame, from the top down. */
static int find_read(__u32 k, void *data)
{
	struct stale_ctx *sc = data;
	__u32 d = sc->st->depth, i;

	if (k >= d || d > FT_STACK_DEPTH)
		return 1;
	i = (d - 1 - k) & (FT_STACK_DEPTH - 1);
	if (sc->sk->frame[i].slot != FT_SLOT_READ)
		return 0;
	sc->floor = i;
	return 1;
}

/*
 * The loops over the stack go through bpf_loop(), which the verifier checks
 * once and inlines: an open-coded loop of FT_STACK_DEPTH steps is verified
 * step by step in every one of the hundreds of programs fibtrace loads
 * (most of their load time). Their common case is tested inline first; a
 * fib_read entry searches the stack only when its task is still in a read.
 */
static __always_inline void drop_stale(struct ft_task *st, struct ft_stack *sk, __u64 id,
				       __u32 slot)
{
	struct stale_ctx sc = {.st = st, .sk = sk, .id = id, .slot = slot, .floor = FT_STACK_DEPTH};
	__u32 d = st->depth;

	if (d == 0 || d > FT_STACK_DEPTH)
		return;
	if (slot == FT_SLOT_READ && st->in_read)
		bpf_loop(FT_STACK_DEPTH, find_read, &sc, 0);
	if (sc.floor >= FT_STACK_DEPTH &&
	    !is_stale(&sk->frame[(d - 1) & (FT_STACK_DEPTH - 1)], id, slot))
		return;
	bpf_loop(FT_STACK_DEPTH, drop_one, &sc, 0);
}

/*
 * The frame of this exit: the one with its identity (@id) and slot, nearly
 * always the top one. FT_STACK_DEPTH when there is none.
 */
struct find_ctx {
	struct ft_stack *sk;
	__u64 id;
	__u32 d, slot, found;
};

/* One bpf_loop() step of find_frame(), from frame d - 1 - k down. */
static int find_one(__u32 k, void *data)
{
	struct find_ctx *fc = data;
	__u32 i;

	if (k >= fc->d)
		return 1;
	i = (fc->d - 1 - k) & (FT_STACK_DEPTH - 1);
	if (fc->sk->frame[i].id == fc->id && fc->sk->frame[i].slot == fc->slot) {
		fc->found = i;
		return 1;
	}
	return 0;
}

static __always_inline __u32 find_frame(struct ft_stack *sk, __u32 d, __u32 slot, __u64 id)
{
	struct find_ctx fc = {.sk = sk, .id = id, .d = d, .slot = slot, .found = FT_STACK_DEPTH};
	__u32 i = d - 1;

	/* Keep the mask: the verifier needs it even where d <= FT_STACK_DEPTH is known. */
	asm volatile("" : "+r"(i));
	i &= FT_STACK_DEPTH - 1;
	if (sk->frame[i].id == id && sk->frame[i].slot == slot)
		return i;
	bpf_loop(FT_STACK_DEPTH, find_one, &fc, 0);
	return fc.found;
}

#endif /* FIBTRACE_STACK_BPF_H */
