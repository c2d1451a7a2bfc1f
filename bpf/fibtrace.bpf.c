// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace BPF side: time every call of the traced fibdrv functions.
 *
 * One entry and one exit program per traced function ("slot"; see
 * src/fibtrace.h). Each comes in two flavours, fentry/fexit and
 * kprobe/kretprobe; user space loads one flavour per slot and leaves the
 * other programs unloaded. The fentry/fexit programs are in the custom
 * sections "ftfentry"/"ftfexit": fibtrace registers a libbpf handler for them
 * that sets each program's target BTF id itself (see src/fibtrace.c).
 * Per-task state (task-local storage) holds the
 * current read's n and algorithm and a small call stack, so nested and
 * recursive calls pair up and each call gets its total and self time.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "fibtrace.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by user space before load. */
const volatile __u32 filter_tgid; /* 0: every process */
/*
 * fibtrace's pid namespace, when it is not the initial one (st_dev, st_ino
 * of /proc/self/ns/pid; 0 in the initial one): filter_tgid's and calib_tgid's.
 */
const volatile __u64 pidns_dev;
const volatile __u64 pidns_ino;
const volatile __u32 hist_bits; /* log2 sub-bucket bits, 0..3 */
const volatile __u64 lin_min; /* linear histogram when lin_step != 0 */
const volatile __u64 lin_step;
const volatile __u64 lin_buckets; /* buckets between min and max */
const volatile __u64 ringbuf_wakeup_bytes = 1; /* wake user space from this fill */
const volatile __u32 nr_events; /* counters (-e): 0 prunes the counter path */
const volatile __u32 nr_cpus; /* cnt_events index = event * nr_cpus + cpu */
/* The call tree (bpf/fibtrace.h): kept unless 0; only reads of F(tree_n) unless FT_TREE_ALL_N. */
const volatile __u32 tree_on = 1;
const volatile __u64 tree_n = FT_TREE_ALL_N;
/* The timeline (--trace-out): enum ft_trace_mode. */
const volatile __u32 trace_mode;
/* --attribute: every read's self time per function goes with its record. */
const volatile __u32 read_funcs;
/* The pool's stacks: max_entries of stacks, set by user space with it. */
const volatile __u32 nr_stacks = FT_STACK_POOL;
/* Slots from here on time fibdrv's calibration functions (never reported). */
const volatile __u32 calib_first_slot = FT_MAX_SLOTS;
/* Some reported function returns through rethook (tail_in): 0 prunes the tail-call path. */
const volatile __u32 tails_shared;

/*
 * enum ft_enabled, set by user space: FT_ON once every program is attached,
 * so no call is half seen while the programs go live one by one (a call
 * already running then is counted as lost); FT_CALIBRATING before that.
 */
__u32 enabled;
/* FT_CALIB_CONTEXT: fibtrace's own process, as its pid namespace numbers it. */
__u32 calib_tgid;
/*
 * Per slot, what one traced call costs its caller (full) and the part of it
 * inside the call's own interval (in), in ns: written by user space after
 * calibration, 0 without (bpf/fibtrace.h: struct ft_func_stats).
 */
__u32 cost_full[FT_MAX_SLOTS];
__u32 cost_in[FT_MAX_SLOTS];
/* Their error bounds (the spread of the calibration): summed like the costs. */
__u32 err_full[FT_MAX_SLOTS];
__u32 err_in[FT_MAX_SLOTS];
/*
 * A call whose last traced callee was a tail call (the callee entered with
 * the caller's stack pointer, so the two calls return together: with
 * kprobes and kprobe.multi one pass of the kernel's return trampoline,
 * rethook, runs both exits) costs less than the two costs above: its own
 * interval tail_in less, its caller tail_out less. Calibrated on
 * fibdrv_calib2; 0 where nothing is shared (fentry, whose ids never match).
 */
__s32 tail_in[FT_MAX_SLOTS];
__s32 tail_out[FT_MAX_SLOTS];
/* FT_TRACE_FIRST: reads still to put on the timeline (below 1: none). */
__s32 trace_left;
/* The deepest stack of traced calls seen (a report figure; racy between CPUs). */
__u32 max_depth;

/* fibdrv's per-open state, relocated against the module's BTF. */
struct fibdrv_file {
	__u32 algo_id;
	__u32 format;
} __attribute__((preserve_access_index));

struct ft_frame {
	__u64 start;
	__u64 child_ns;
	__u64 id; /* the call's stack address (FENTRY_ID, KPROBE_ID) */
	__u64 desc_ns; /* tracing cost of the traced calls beneath it (calibrated) */
	__u64 comp_child_ns; /* its children's compensated durations */
	__u64 desc_err; /* error bound of desc_ns */
	__u64 path; /* call tree: this call's path, its parent's (bpf/fibtrace.h) */
	__u64 parent;
	__u64 off_at; /* the task's off_ns at entry */
	__u64 child_out; /* --attribute: its children's tracing cost outside their intervals */
	__u64 probe_at; /* the task's probe_ns once its entry program ended */
	__u32 probe_pre; /* its entry program's own time, self-timed */
	__u32 slot;
	__u16 tree; /* 0: not in the tree; 1: in it; 2: folded into an outer call */
	__u16 tailed; /* its last traced callee was a tail call (tail_in, tail_out) */
};

/* One call's figures, raw and compensated. */
struct ft_durs {
	__u64 start, dur, self, comp, comp_self;
	__u64 err; /* compensation error bound of comp */
	__u64 off; /* switched out inside it */
	__u64 probe; /* its traced descendants' programs, self-timed (ft_task.probe_ns) */
	__s64 tail; /* tail_in when its last traced callee was a tail call, else 0 */
	bool tailed; /* its last traced callee was a tail call */
	bool clamped;
};

/* Counter values at a call's entry, beside its ft_frame. */
struct ft_cnt_frame {
	__u64 csw; /* the task's nvcsw + nivcsw */
	__u32 cpu;
	__u32 ok; /* every read succeeded */
	struct bpf_perf_event_value v[FT_MAX_EVENTS];
};

struct ft_task {
	__u64 n;
	__u32 algo;
	__u32 depth; /* may exceed FT_STACK_DEPTH: the excess is not recorded */
	__u32 in_read;
	__u32 copy_calls;
	__u64 stage_ns[FT_STAGES];
	__u64 copy_bytes;
	__u64 copy_ns;
	__u64 comp_stage_ns[FT_STAGES];
	__u64 comp_copy_ns;
	__u32 calls; /* traced calls in this read */
	__u32 tracing; /* this read's calls go on the timeline */
	/* Off-CPU (sched_switch): time switched out while a frame was open. */
	__u64 off_ns;	     /* cumulative */
	__u64 off_since;     /* when it was switched out; 0 while on a CPU */
	__u32 switches;	     /* cumulative */
	__u32 read_switches; /* switches at fib_read's entry */
	/*
	 * The time its entry and exit programs took, each timed from its first
	 * instruction to its last clock read (cumulative): what a frame's
	 * traced descendants cost outside their intervals beyond the constant
	 * calibrated for them (struct ft_frame.probe_at).
	 */
	__u64 probe_ns;
	__u32 sk;	     /* its stack in stacks, while sk_held */
	__u32 sk_held;	     /* holds stacks[sk]: from its outermost entry to that call's exit */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ft_task);
} tasks SEC(".maps");

/*
 * A task's open calls, while it has some: a stack from a pool allocated
 * with the map (user space sizes it: ft_stack_pool(), tracer.c), held from
 * the task's outermost traced entry to that call's exit, or to the task's
 * end (ft_task_exit). So a task that ever entered a traced function keeps
 * only its struct ft_task (its read's figures) in task storage, allocated
 * from the probe; the 7.6 KB below are the pool's, allocated at load and
 * charged to fibtrace. A task that finds no free stack is not traced and
 * is counted (lost.task_storage).
 */
struct ft_stack {
	struct ft_frame frame[FT_STACK_DEPTH];
	/* --attribute: this read's self time less tracing, per slot so far (bpf/fibtrace.h). */
	struct ft_read_funcs read_self;
	/* The call tree: 1 + the stack index of each slot's outermost open frame (tree.bpf.h). */
	__u8 tree_owner[FT_MAX_SLOTS];
	__u64 owner; /* the holder's pid_tgid with bit 63 set; 0: free */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FT_STACK_POOL);
	__type(key, __u32);
	__type(value, struct ft_stack);
} stacks SEC(".maps");

/*
 * Counters (-e): entry values per frame, fib_read's deltas. Apart from
 * struct ft_task, and created only when counting (counters.bpf.h): 13 KB a
 * task that a run without -e never allocates.
 */
struct ft_task_cnt {
	struct ft_cnt_frame cnt[FT_STACK_DEPTH];
	__u32 read_cnt_status;
	__u32 read_cnt_pad;
	struct ft_cnt_delta read_cnt[FT_MAX_EVENTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ft_task_cnt);
} task_cnts SEC(".maps");

/* Indexed by slot; user space sizes it to the slots in use. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FT_MAX_SLOTS);
	__type(key, __u32);
	__type(value, struct ft_func_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FT_LOST_NR);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* Per-read records; user space sizes it from the sweep. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} reads SEC(".maps");

static __always_inline void count_lost_n(__u32 what, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&lost, &what);

	if (v)
		__sync_fetch_and_add(v, n);
}

static __always_inline void count_lost(__u32 what)
{
	count_lost_n(what, 1);
}

/*
 * A call with no traced call open below it began (@dropped 0) or was dropped
 * for a lost exit (1): ft_func_stats.root_*. Not while calibrating: roots
 * pay this outside their interval, where only their untraced caller sees
 * it, so the calibrated calls, roots too, must not.
 */
static __always_inline void count_root(__u32 slot, int dropped)
{
	struct ft_func_stats *fs;

	if (enabled != FT_ON)
		return;
	fs = bpf_map_lookup_elem(&stats, &slot);
	if (!fs)
		return;
	if (dropped)
		fs->root_dropped++;
	else
		fs->root_entered++;
}

/* Counters (-e): the per-CPU perf events read at entry and exit. */
#include "counters.bpf.h"

#include "hist.bpf.h"

/* The call tree (--tree): its map, tree_enter() and tree_account(). */
#include "tree.bpf.h"

/* The timeline (--trace-out): its maps, trace_chosen() and emit_call(). */
#include "timeline.bpf.h"

/* The task's stack of open calls: drop_stale() and find_frame(). */
#include "stack.bpf.h"

/*
 * @root: the call had no traced call open below it (ft_func_stats.root_entered).
 * Its figures, or NULL for a slot past the map's end.
 */
static __always_inline struct ft_func_stats *account(__u32 slot, const struct ft_durs *c, bool root)
{
	struct ft_func_stats *fs = bpf_map_lookup_elem(&stats, &slot);
	__u64 dur = c->dur;

	if (!fs)
		return NULL;
	/*
	 * Per-CPU values and programs that run with migration disabled: plain
	 * adds suffice; a locked add costs more than the rest of the update.
	 */
	fs->count++;
	fs->total_ns += dur;
	fs->self_ns += c->self;
	fs->hist[hist_index(dur) & (FT_HIST_SLOTS - 1)]++;
	if (!fs->min_ns || dur < fs->min_ns)
		fs->min_ns = dur ? dur : 1; /* 0 means unset */
	if (dur > fs->max_ns)
		fs->max_ns = dur;
	fs->comp_total_ns += c->comp;
	fs->comp_self_ns += c->comp_self;
	fs->comp_clamped += c->clamped;
	fs->comp_err_ns += c->err;
	fs->comp_hist[hist_index(c->comp) & (FT_HIST_SLOTS - 1)]++;
	fs->off_ns += c->off;
	fs->off_calls += c->off != 0;
	fs->root_returned += root;
	if (tails_shared)
		fs->tail_calls += c->tailed;
	return fs;
}

/* Whether the current task belongs to process @tgid, as fibtrace's pid namespace numbers it. */
static __always_inline bool is_process(__u32 tgid)
{
	struct bpf_pidns_info ns;

	/* The initial namespace's pids are the global ones: no helper call per event. */
	if (!pidns_ino)
		return (bpf_get_current_pid_tgid() >> 32) == tgid;
	if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)))
		return false; /* a task outside that namespace is not the one */
	return ns.tgid == tgid;
}

/* -p, --sweep: only the process filter_tgid. */
static __always_inline bool filtered(void)
{
	return filter_tgid && !is_process(filter_tgid);
}

/*
 * Whether this call goes unrecorded. While fibtrace calibrates, only its
 * calibration slots record, and they pay the filter as every traced call
 * does (its result is ignored: the calibrating process is fibtrace). In
 * context, every slot records for fibtrace's process, which pays that test
 * in the filter's place.
 */
static __always_inline bool skip(__u32 slot)
{
	__u32 e = enabled;

	if (e == FT_ON)
		return filtered();
	if (e == FT_CALIB_CONTEXT)
		return !is_process(calib_tgid);
	if (e != FT_CALIBRATING || slot < calib_first_slot)
		return true;
	filtered();
	return false;
}

/* fibdrv_compute, fibdrv_format, fibdrv_copy: called only inside fib_read. */
static __always_inline bool is_stage(__u32 slot)
{
	return slot == FT_SLOT_COMPUTE || slot == FT_SLOT_FORMAT || slot == FT_SLOT_COPY;
}

/* read_begin(), read_stage(): the per-read record */
#include "read.bpf.h"

/*
 * Entry of any slot; @slot_algo is the slot, and for fib_read the read's
 * algorithm in its upper 32 bits (a BPF function takes five arguments); @id
 * identifies the call (its stack address: the trampoline frame for fentry,
 * the stack pointer for kprobes). @arg is fibdrv_copy's length argument; for
 * fib_read, @n is the read's. @t0: the clock at the program's first
 * instruction. Only fib_read and the module's functions create task state:
 * _copy_to_user counts only inside a read.
 */
static __noinline int on_entry(__u64 slot_algo, __u64 n, __u64 arg, __u64 id, __u64 t0)
{
	__u32 slot = (__u32)slot_algo, d;
	struct ft_stack *sk;
	struct ft_task *st;
	__u64 t;

	if (skip(slot))
		return 0;
	st = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0,
				  slot == FT_SLOT_COPY_TO_USER ? 0 : BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st) {
		if (slot != FT_SLOT_COPY_TO_USER)
			count_lost(FT_LOST_TASK_STORAGE);
		return 0;
	}
	/* Held while it has open calls (none yet: taken below, after the checks). */
	sk = stack_get(st, false);
	if (sk)
		drop_stale(st, sk, id, slot);
	if (slot == FT_SLOT_COPY_TO_USER && !st->in_read)
		goto idle;
	if (is_stage(slot) && !st->in_read) {
		/* Its read began before tracing did: the read is lost, not half seen. */
		count_lost(FT_LOST_OUTSIDE_READ);
		goto idle;
	}
	if (!sk) {
		sk = stack_get(st, true);
		if (!sk) {
			count_lost(FT_LOST_TASK_STORAGE);
			return 0;
		}
	}
	if (slot == FT_SLOT_COPY && st->in_read)
		st->copy_bytes += arg;
	else if (slot == FT_SLOT_READ)
		read_begin(st, sk, n, slot_algo >> 32);
	d = st->depth;
	if (d >= FT_STACK_DEPTH) {
		st->depth = d + 1;
		count_lost(FT_LOST_STACK_OVERFLOW);
		return 0;
	}
	if (d + 1 > max_depth)
		max_depth = d + 1; /* racy between CPUs: a report figure, not a limit */
	if (d == 0)
		count_root(slot, 0);
	sk->frame[d].slot = slot;
	sk->frame[d].id = id;
	sk->frame[d].child_ns = 0;
	sk->frame[d].desc_ns = 0;
	sk->frame[d].comp_child_ns = 0;
	sk->frame[d].desc_err = 0;
	sk->frame[d].off_at = st->off_ns;
	if (tails_shared) {
		sk->frame[d].tailed = 0;
		/* Its caller jumped here (same stack pointer): the two return together. */
		if (d > 0 && sk->frame[(d - 1) & (FT_STACK_DEPTH - 1)].id == id)
			sk->frame[(d - 1) & (FT_STACK_DEPTH - 1)].tailed = 1;
	}
	if (read_funcs)
		sk->frame[d].child_out = 0;
	tree_enter(st, sk, d, slot);
	st->depth = d + 1;
	if (nr_events)
		counters_on_entry(d);
	/*
	 * Last: the time spent above is not charged to the call, and is
	 * measured, not calibrated: its parent subtracts it (probe_at).
	 */
	t = bpf_ktime_get_ns();
	sk->frame[d].start = t;
	sk->frame[d].probe_pre = t - t0;
	st->probe_ns += t - t0;
	sk->frame[d].probe_at = st->probe_ns;
	return 0;
idle:
	/* Stale frames dropped and nothing pushed: the stack goes back. */
	if (sk && !st->depth)
		stack_put(st, sk);
	return 0;
}

/*
 * Frame @i of @slot ended after @dur ns: its figures, raw and compensated
 * (bpf/fibtrace.h, struct ft_func_stats), and what its parent inherits.
 * What its traced descendants' programs timed of themselves (@probe) is
 * subtracted as measured, their calibrated costs (desc_ns) beside it.
 */
static __always_inline void frame_end(struct ft_task *st, struct ft_stack *sk, __u32 i, __u32 slot,
				      __u64 dur, struct ft_durs *c)
{
	struct ft_frame *f = &sk->frame[i & (FT_STACK_DEPTH - 1)], *parent;
	__u32 s = slot & (FT_MAX_SLOTS - 1);
	__u64 probe = st->probe_ns - f->probe_at;
	bool tailed = tails_shared && f->tailed;
	__s64 tail = tailed ? tail_in[s] : 0;
	__s64 comp = (__s64)dur - (__s64)cost_in[s] - (__s64)f->desc_ns - (__s64)probe + tail;

	c->start = f->start;
	c->probe = probe;
	c->tailed = tailed;
	c->tail = tail;
	c->dur = dur;
	c->self = dur > f->child_ns ? dur - f->child_ns : 0;
	c->comp = comp < 0 ? 0 : comp;
	c->comp_self = c->comp > f->comp_child_ns ? c->comp - f->comp_child_ns : 0;
	/* Either clamp counts: a self time clamped at 0 makes the compensated
	 * self times add up to more than the root's total (seen in CI). */
	c->clamped = comp < 0 || c->comp < f->comp_child_ns;
	c->err = f->desc_err + err_in[s];
	c->off = st->off_ns - f->off_at;
	if (i == 0)
		return;
	parent = &sk->frame[(i - 1) & (FT_STACK_DEPTH - 1)];
	parent->child_ns += dur;
	parent->desc_ns += f->desc_ns + cost_full[s] - (tailed ? tail_out[s] : 0);
	parent->desc_err += f->desc_err + err_full[s];
	parent->comp_child_ns += c->comp;
	/* Its own programs' time joins the parent's at its exit (on_exit); its descendants'
	 * are the parent's descendants' too, not its direct children's. */
	if (read_funcs) /* without --attribute the verifier drops this */
		parent->child_out += cost_full[s] - cost_in[s] - probe -
				     (tailed ? tail_out[s] - tail : 0);
}

/*
 * Exit of any slot; @id as at entry (so frames pair by identity, not by
 * slot); @now: the clock at the program's first instruction, the call's end.
 */
static __noinline int on_exit(__u32 slot, __s64 ret, __u64 id, __u64 now)
{
	struct ft_func_stats *fs;
	struct ft_stack *sk;
	struct ft_task *st;
	struct ft_durs c;
	__u32 d, found;
	__u64 t;

	if (skip(slot))
		return 0;
	st = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);
	/* Entries outside a read were not recorded (or already counted). */
	if ((slot == FT_SLOT_COPY_TO_USER || is_stage(slot)) && (!st || !st->in_read))
		return 0;
	if (!st || st->depth == 0) {
		count_lost(FT_LOST_UNMATCHED_EXIT);
		return 0;
	}
	d = st->depth;
	if (d > FT_STACK_DEPTH) {
		st->depth = d - 1; /* an overflowed frame: already counted */
		return 0;
	}
	sk = stack_get(st, false); /* held: the task has open calls */
	if (!sk)
		return 0;
	found = find_frame(sk, d, slot, id);
	if (found >= FT_STACK_DEPTH) {
		count_lost(FT_LOST_UNMATCHED_EXIT);
		return 0;
	}
	/* Frames above it lost their exit. */
	if (found + 1 < d)
		count_lost_n(FT_LOST_UNWOUND, d - 1 - found);
	/* Bounded above, but 6.12's verifier also wants a lower bound for the index. */
	asm volatile("" : "+r"(found));
	found &= FT_STACK_DEPTH - 1;
	st->depth = found;
	frame_end(st, sk, found, slot, now - sk->frame[found].start, &c);
	fs = account(slot, &c, found == 0);
	if (fs)
		fs->probe_ns += sk->frame[found].probe_pre;
	if (sk->frame[found].tree)
		tree_account(st, sk, found, &c);
	/* Its raw self time less the tracing inside it, not clamped (bpf/fibtrace.h). */
	if (read_funcs && st->in_read)
		sk->read_self.self_ns[slot & (FT_MAX_SLOTS - 1)] +=
			(__s64)c.self - cost_in[slot & (FT_MAX_SLOTS - 1)] -
			sk->frame[found].child_out - c.probe + c.tail;
	if (trace_mode && st->in_read && st->tracing)
		emit_call(slot, found, &c);
	if (nr_events)
		counters_on_exit(found, slot);
	if (st->in_read)
		read_stage(st, sk, slot, &c, ret);
	if (!found)
		stack_put(st, sk);
	/*
	 * Last, the same few instructions for every call: the time this program
	 * took, for the parent to subtract as measured (a traced call's cost
	 * varies with its function, depth, maps and figures: all of that is in
	 * here), and for the calibration, whose constant is the rest.
	 */
	t = bpf_ktime_get_ns() - now;
	st->probe_ns += t;
	if (fs)
		fs->probe_ns += t;
	return 0;
}

/*
 * Off-CPU time: a task with an open traced call that is switched out starts
 * a wait; when it runs again, the wait adds to its off_ns, which every open
 * frame subtracts from at its exit (ft_frame.off_at). Tasks without task
 * storage (never traced) cost a lookup.
 */
SEC("tp_btf/sched_switch")
int BPF_PROG(ft_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	__u64 now = bpf_ktime_get_ns();
	struct ft_task *st;

	if (enabled != FT_ON)
		return 0;
	st = bpf_task_storage_get(&tasks, prev, 0, 0);
	if (st && st->depth)
		st->off_since = now;
	st = bpf_task_storage_get(&tasks, next, 0, 0);
	if (st && st->off_since) {
		st->off_ns += now - st->off_since;
		st->switches++;
		st->off_since = 0;
	}
	return 0;
}

/*
 * A task ends holding a stack (an exit it never saw: a kretprobe instance
 * missing, the recursion guard): the stack goes back to the pool.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(ft_task_exit)
{
	struct ft_task *st = bpf_task_storage_get(&tasks, bpf_get_current_task_btf(), 0, 0);
	struct ft_stack *sk;

	if (!st || !st->sk_held)
		return 0;
	sk = bpf_map_lookup_elem(&stacks, &st->sk);
	if (sk)
		stack_put(st, sk);
	return 0;
}

/* Expand FT_PROG() (bpf/fibtrace.h) before libbpf's macros paste the name. */
#define FT_TRACING(name, args...) BPF_PROG(name, ##args)

/*
 * A call's identity, the same at its entry and its exit: fentry and fexit
 * programs of one call get the same ctx, the arguments saved in that call's
 * trampoline frame; a kprobe sees the stack pointer at the function's entry
 * (pointing at the return address), a kretprobe the stack pointer after the
 * return popped it.
 */
#define FENTRY_ID ((__u64)ctx)
#define KPROBE_ID ((__u64)PT_REGS_SP(ctx))
#define KRETPROBE_ID ((__u64)PT_REGS_SP(ctx) - sizeof(long))

static __always_inline int read_entry(struct file *file, loff_t *ppos, __u64 id, __u64 t0)
{
	struct fibdrv_file *ff;
	__u64 n = 0;

	/*
	 * Without fibdrv's BTF (not loaded: -f functions only) the relocation
	 * fails; the kprobe.multi program, which serves every slot, must
	 * still load, so this path is then pruned as dead.
	 */
	if (!bpf_core_type_exists(struct fibdrv_file))
		return 0;
	ff = BPF_CORE_READ(file, private_data);
	bpf_probe_read_kernel(&n, sizeof(n), ppos);
	return on_entry(FT_SLOT_READ | (__u64)BPF_CORE_READ(ff, algo_id) << 32, n, 0, id, t0);
}

/* The fixed slots with arguments or roles: fib_read, fibdrv_copy, _copy_to_user. */
SEC("ftfentry")
int FT_TRACING(FT_PROG(fe, 0), struct file *file, char *buf, size_t size, loff_t *ppos)
{
	__u64 t0 = bpf_ktime_get_ns();

	return read_entry(file, ppos, FENTRY_ID, t0);
}

SEC("ftfexit")
int FT_TRACING(FT_PROG(fx, 0), struct file *file, char *buf, size_t size, loff_t *ppos,
	     ssize_t ret)
{
	__u64 t0 = bpf_ktime_get_ns();

	return on_exit(FT_SLOT_READ, ret, FENTRY_ID, t0);
}

SEC("ftfentry")
int FT_TRACING(FT_PROG(fe, 3), char *ubuf, const char *kbuf, size_t len)
{
	__u64 t0 = bpf_ktime_get_ns();

	return on_entry(FT_SLOT_COPY, 0, len, FENTRY_ID, t0);
}

SEC("ftfexit")
int FT_TRACING(FT_PROG(fx, 3))
{
	__u64 t0 = bpf_ktime_get_ns();

	return on_exit(FT_SLOT_COPY, 0, FENTRY_ID, t0);
}

/*
 * Generic slots: no arguments needed (fentry/fexit; kprobes share
 * ft_kp_entry/exit). Every program reads the clock first: what it does
 * after that is timed (on_entry, on_exit).
 */
#define SLOT(i)                                                   \
	SEC("ftfentry") int FT_TRACING(FT_PROG(fe, i))            \
	{                                                         \
		__u64 t0 = bpf_ktime_get_ns();                    \
		return on_entry(i, 0, 0, FENTRY_ID, t0);          \
	}                                                         \
	SEC("ftfexit") int FT_TRACING(FT_PROG(fx, i))             \
	{                                                         \
		__u64 t0 = bpf_ktime_get_ns();                    \
		return on_exit(i, 0, FENTRY_ID, t0);              \
	}

/* slot 4 is _copy_to_user (FT_SLOT_COPY_TO_USER): on_entry keeps it to fib_read */
SLOT(1)
SLOT(2) SLOT(4) SLOT(5) SLOT(6) SLOT(7) SLOT(8) SLOT(9) SLOT(10) SLOT(11) SLOT(12) SLOT(13) SLOT(
	14) SLOT(15) SLOT(16) SLOT(17) SLOT(18) SLOT(19) SLOT(20) SLOT(21) SLOT(22) SLOT(23)
	SLOT(24) SLOT(25) SLOT(26) SLOT(27) SLOT(28) SLOT(29) SLOT(30) SLOT(31) SLOT(32) SLOT(
		33) SLOT(34) SLOT(35) SLOT(36) SLOT(37) SLOT(38) SLOT(39) SLOT(40) SLOT(41) SLOT(42)
		SLOT(43) SLOT(44) SLOT(45) SLOT(46) SLOT(47) SLOT(48) SLOT(49) SLOT(50) SLOT(
			51) SLOT(52) SLOT(53) SLOT(54) SLOT(55) SLOT(56) SLOT(57) SLOT(58) SLOT(59)
			SLOT(60) SLOT(61) SLOT(62) SLOT(63) SLOT(64) SLOT(65) SLOT(66) SLOT(
				67) SLOT(68) SLOT(69) SLOT(70) SLOT(71) SLOT(72) SLOT(73) SLOT(74)
				SLOT(75) SLOT(76) SLOT(77) SLOT(78) SLOT(79) SLOT(80) SLOT(81) SLOT(
					82) SLOT(83) SLOT(84) SLOT(85) SLOT(86) SLOT(87) SLOT(88)
					SLOT(89) SLOT(90) SLOT(91) SLOT(92) SLOT(93) SLOT(94) SLOT(
						95) SLOT(96) SLOT(97) SLOT(98) SLOT(99) SLOT(100)
						SLOT(101) SLOT(102) SLOT(103) SLOT(104) SLOT(
							105) SLOT(106) SLOT(107) SLOT(108) SLOT(109)
							SLOT(110) SLOT(111) SLOT(112) SLOT(
								113) SLOT(114) SLOT(115) SLOT(116)
								SLOT(117) SLOT(118) SLOT(119) SLOT(
									120) SLOT(121) SLOT(122)
									SLOT(123) SLOT(124)
										SLOT(125) SLOT(126)
											SLOT(127)

/*
 * The kprobe plans: one entry and one exit program serve every function
 * traced by kprobes, the slot in the link's BPF cookie. kprobe.multi (Linux
 * 5.18+ with CONFIG_FPROBE) attaches them by address in one link each;
 * elsewhere each function gets a kprobe and a kretprobe perf-event link
 * carrying its slot (cookies on perf-event links: Linux 5.15+). Verified
 * once instead of once per function (src/fibtrace/discover/plan.h).
 */
static __always_inline int cookie_entry(struct pt_regs *ctx)
{
	/* First: finding the cookie (kprobe.multi: a binary search) is timed. */
	__u64 t0 = bpf_ktime_get_ns();
	__u32 slot = bpf_get_attach_cookie(ctx);

	if (slot == FT_SLOT_READ)
		return read_entry((struct file *)PT_REGS_PARM1(ctx), (loff_t *)PT_REGS_PARM4(ctx),
				  KPROBE_ID, t0);
	return on_entry(slot, 0, slot == FT_SLOT_COPY ? PT_REGS_PARM3(ctx) : 0, KPROBE_ID, t0);
}

static __always_inline int cookie_exit(struct pt_regs *ctx, long ret)
{
	__u64 t0 = bpf_ktime_get_ns();

	return on_exit(bpf_get_attach_cookie(ctx), ret, KRETPROBE_ID, t0);
}

SEC("kprobe.multi")
int BPF_KPROBE(ft_multi_entry)
{
	return cookie_entry(ctx);
}

SEC("kretprobe.multi")
int BPF_KRETPROBE(ft_multi_exit, long ret)
{
	return cookie_exit(ctx, ret);
}

SEC("kprobe")
int BPF_KPROBE(ft_kp_entry)
{
	return cookie_entry(ctx);
}

SEC("kretprobe")
int BPF_KRETPROBE(ft_kp_exit, long ret)
{
	return cookie_exit(ctx, ret);
}
