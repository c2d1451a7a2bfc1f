/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by bpf/fibtrace.bpf.c and the fibtrace user-space tool.
 *
 * Every traced function occupies one "slot": a pair of entry/exit programs
 * compiled into the BPF object (fentry/fexit and kprobe/kretprobe variants),
 * attached at run time to that function with bpf_program__set_attach_target()
 * or bpf_program__attach_kprobe(). The slot number is a compile-time constant
 * of each program, so BPF needs no ip -> function lookup. Slots 0..4 have
 * fixed roles (the read path); the others are assigned by user space.
 */
#ifndef FIBTRACE_H
#define FIBTRACE_H

/* Program slots in the object; the first FT_FIXED_SLOTS have fixed roles. */
#define FT_MAX_SLOTS 128
#define FT_SLOT_READ 0 /* fib_read */
#define FT_SLOT_COMPUTE 1 /* fibdrv_compute */
#define FT_SLOT_FORMAT 2 /* fibdrv_format */
#define FT_SLOT_COPY 3 /* fibdrv_copy */
#define FT_SLOT_COPY_TO_USER 4 /* _copy_to_user, counted inside fib_read only */
#define FT_FIXED_SLOTS 5
#define FT_STAGES 3 /* compute, format, copy */

/*
 * A slot's fentry and fexit programs are named <prefix>_<slot>: fe_7, fx_7.
 * BPF declares them with FT_PROG(); user space builds the names with
 * FT_PROG_PREFIXES and reads a slot back from a name (src/fibtrace/tracer/tracer.c).
 * Functions traced by kprobes share two programs (ft_kp_entry/ft_kp_exit,
 * or the kprobe.multi pair), the slot in each link's BPF cookie.
 */
#define FT_PROG(prefix, slot) prefix##_##slot
#define FT_PROG_PREFIXES { "fe", "fx" } /* [exit] */

/*
 * Per-task call stack depth (a power of two); deeper calls are counted as
 * overflows. The deepest stack of traced calls at every algorithm's largest
 * n is about 30 (docs/measurement.md): 64 keeps every frame.
 */
#define FT_STACK_DEPTH 64
/*
 * Stacks in the pool (bpf/fibtrace.bpf.c, struct ft_stack): tasks inside
 * traced calls at once. User space sets it from the CPUs (ft_stack_pool()).
 */
#define FT_STACK_POOL 64

/*
 * Histogram: log2 buckets split into 2^hist_bits linear sub-buckets
 * (hist_bits 0..3, like bpftrace's hist(v, k)), or linear buckets when
 * lin_step != 0: bucket 0 below lin_min, 1 + (v - lin_min) / lin_step,
 * capped at the last bucket.
 */
#define FT_HIST_MAX_BITS 3
#define FT_HIST_SLOTS (64 << FT_HIST_MAX_BITS)

/*
 * The BPF global "enabled": nothing is recorded until every program is
 * attached; while fibtrace calibrates, only its calibration slots (from
 * calib_first_slot on) record, for every process; while it calibrates in
 * context, every slot records, for fibtrace's own process (calib_tgid)
 * only, and user space clears what they recorded afterwards.
 */
enum ft_enabled { FT_OFF, FT_ON, FT_CALIBRATING, FT_CALIB_CONTEXT };

/*
 * Overhead compensation (docs/measurement.md): every entry and exit program
 * times itself, from its first instruction to its last clock read (probe_ns:
 * what its maps, stack, tree and figures cost this call), and user space
 * calibrates, per slot, the rest of what a traced call costs its caller
 * (full: the trampoline or kprobe, running the program) and what part of
 * that falls inside the call's own measured interval (in). A call's
 * compensated duration is its measured one minus its own in-interval part
 * and minus, for every traced call beneath it, its programs' measured time
 * and the calibrated full cost; its compensated self time is
 * that minus its children's compensated durations. Both are clamped at 0
 * (counted in comp_clamped). With no calibration the costs are 0 and the
 * compensated figures equal the raw ones.
 */
struct ft_func_stats {
	__u64 count; /* completed calls (entry and exit paired) */
	__u64 total_ns; /* sum of call durations */
	__u64 self_ns; /* sum of durations minus traced children */
	__u64 min_ns; /* valid when count != 0 */
	__u64 max_ns;
	__u64 comp_total_ns; /* compensated sums */
	__u64 comp_self_ns;
	__u64 comp_clamped; /* calls whose compensated duration or self time came out below 0 */
	__u64 comp_err_ns; /* error bound of comp_total_ns (calibration spread) */
	__u64 off_ns; /* sum of the time the calls spent switched out (sched_switch) */
	__u64 off_calls; /* calls switched out at least once */
	/*
	 * Calls entered with no traced call open below them on their task (a
	 * read's fib_read, nearly always), and how each ended: paired with its
	 * exit, or dropped when a later entry of the task showed its exit was
	 * lost. The rest are open: running, or their exit lost on a task that
	 * never entered a traced function again (nothing else counts those).
	 * Cumulative: user space does not take interval deltas of these.
	 */
	__u64 root_entered;
	__u64 root_returned;
	__u64 root_dropped;
	/*
	 * The calls' entry and exit programs, each timed from its first
	 * instruction to its last clock read: what compensation subtracts as
	 * measured; the calibrated cost (cost_full) is the rest, constant.
	 */
	__u64 probe_ns;
	/*
	 * Calls whose last traced callee was a tail call, returning with them
	 * in one pass of the kernel's return trampoline (kprobes,
	 * kprobe.multi): compensated with the tail costs (fibdrv_calib2).
	 */
	__u64 tail_calls;
	__u64 hist[FT_HIST_SLOTS]; /* call durations (total time) */
	__u64 comp_hist[FT_HIST_SLOTS]; /* compensated call durations */
};

/* Loss counters: every event BPF could not account for. */
enum ft_lost {
	FT_LOST_UNMATCHED_EXIT, /* exit without a matching entry on the stack */
	FT_LOST_UNWOUND, /* frames dropped because an exit skipped them */
	FT_LOST_STACK_OVERFLOW, /* entries deeper than FT_STACK_DEPTH */
	FT_LOST_TASK_STORAGE, /* no task storage (busy or ENOMEM), or no free call stack in the pool */
	FT_LOST_RINGBUF, /* per-read records dropped: ring buffer full */
	FT_LOST_COUNTERS, /* calls left out of the counter totals (see below) */
	FT_LOST_NO_RETURN, /* frames dropped: a later entry sat above them */
	FT_LOST_OUTSIDE_READ, /* read stages whose fib_read began before tracing */
	FT_LOST_KRETPROBE_MISSED, /* returns the kernel did not probe: no free kretprobe
				     instance (user space fills it; BPF never sees them) */
	FT_LOST_KPROBE_MISSED, /* entries the kernel did not probe: its kprobe handler was
				  busy on that CPU (user space fills it, Linux 6.7+) */
	FT_LOST_TREE, /* calls left out of the call tree: its map was full, or two paths shared a hash */
	FT_LOST_TIMELINE, /* --trace-out: call events dropped, their ring buffer full */
	FT_LOST_NR,
};

/*
 * Counters (-e, docs/counters.md): perf events read at entry and exit of
 * every traced call. Event e on CPU c is at index e * nr_cpus + c of the
 * PERF_EVENT_ARRAY "cnt_events". A call's deltas are kept only when entry
 * and exit ran on one CPU, every read succeeded and the task was not
 * switched out meanwhile (per-CPU counters would then include other tasks).
 */
#define FT_MAX_EVENTS 8

enum ft_cnt_status {
	FT_CNT_NONE, /* no counters in this run */
	FT_CNT_OK, /* deltas kept */
	FT_CNT_MIGRATED, /* discarded: entry and exit on different CPUs */
	FT_CNT_READ_FAILED, /* discarded: bpf_perf_event_read_value failed */
	FT_CNT_SWITCHED, /* discarded: the task was switched out in the call */
	FT_CNT_STATUS_NR,
};

/* One event's delta over a call, or a sum of such deltas. */
struct ft_cnt_delta {
	__u64 value;
	__u64 enabled; /* ns the event was enabled */
	__u64 running; /* ns it was counting (< enabled when multiplexed) */
};

/* Per function, per CPU (summed in user space): map "cstats", by slot. */
struct ft_cnt_stats {
	__u64 kept; /* calls whose deltas are in sum[] */
	__u64 discarded[FT_CNT_STATUS_NR]; /* by reason (FT_CNT_MIGRATED...) */
	struct ft_cnt_delta sum[FT_MAX_EVENTS];
};

/*
 * The call tree (docs/views.md): calls aggregated by call path, in the hash
 * map "tree". A path is a hash of its parent's path and its last function's
 * slot; a root's parent is 0 and its hash starts from its algorithm, so
 * every algorithm has its own tree. Recursion is folded: a call of a
 * function already on the task's stack takes the path of that outer call
 * (it adds its count, folded count and self time there, not its total,
 * which the outer call's total already holds), so every path names each
 * function at most once.
 *
 * The map is keyed by the path's 64-bit hash alone (an 8-byte key hashes
 * and compares in a third of the instructions of the 24-byte identity:
 * make bench-parts); the identity below is in each CPU's copy of the value,
 * written at every call. Two of the map's at most --tree-nodes paths would
 * have to share a hash to merge (for 4,096 paths, about 5e-13 per run);
 * user space checks that the CPUs' copies agree (ft_tree_key: the path's
 * identity as user space keeps it).
 */
#define FT_TREE_NODES 4096 /* default map size (--tree-nodes) */
#define FT_TREE_ALL_N (~0ULL) /* tree_n: every read */
#define FT_ALGO_NONE 0xffffffffu /* a root outside fib_read */

struct ft_tree_key {
	__u64 path;
	__u64 parent; /* 0 for a root */
	__u32 slot;
	__u32 algo; /* the read's algorithm, FT_ALGO_NONE outside reads */
};

struct ft_tree_node {
	__u64 parent; /* the identity, as in ft_tree_key (the map's key is its path) */
	__u32 slot;
	__u32 algo;
	__u64 count; /* calls on this path, folded ones included */
	__u64 folded; /* recursive calls folded into this path */
	__u64 total_ns; /* durations of the outermost calls (not folded ones) */
	__u64 self_ns;
	__u64 comp_total_ns; /* compensated, as in ft_func_stats */
	__u64 comp_self_ns;
};

/*
 * The timeline (--trace-out, docs/views.md): every traced call of the
 * chosen reads, one event each through the ring buffer "calls". Reads are
 * chosen by n (map trace_sel: n -> reads of that n still to trace) when
 * fibtrace drives them, else the first trace_left reads.
 */
enum ft_trace_mode { FT_TRACE_OFF, FT_TRACE_BY_N, FT_TRACE_FIRST };

struct ft_call_ev {
	__u64 start_ns; /* bpf_ktime_get_ns() at entry, as the call's duration starts */
	__u64 dur_ns;
	__u32 tid;
	__u16 slot;
	__u16 depth; /* 0: fib_read */
};

/* One record per completed fib_read, through the ring buffer. */
struct ft_read_rec {
	__u64 n; /* *ppos at entry */
	__u64 total_ns; /* fib_read duration */
	__u64 stage_ns[FT_STAGES]; /* compute, format, copy inside this read */
	__u64 copy_bytes; /* fibdrv_copy's len argument */
	__u64 copy_ns; /* _copy_to_user time inside this read (if traceable) */
	/* The same compensated for the traced calls' cost (ft_func_stats). */
	__u64 comp_total_ns;
	__u64 comp_stage_ns[FT_STAGES];
	__u64 comp_copy_ns;
	__u64 comp_err_ns; /* error bound of comp_total_ns */
	__u64 probe_ns; /* the traced calls' programs inside it, self-timed (ft_func_stats) */
	__u64 start_ns; /* fib_read's start (bpf_ktime_get_ns) */
	__u64 off_ns; /* time the reading task spent switched out inside fib_read */
	__s64 ret; /* fib_read return value */
	__u32 algo; /* fibdrv_file.algo_id */
	__u32 tid;
	__u32 cpu;
	__u32 copy_calls; /* _copy_to_user calls inside this read (if traceable) */
	__u32 calls; /* traced calls inside this read, fib_read excluded */
	__u32 switches; /* times the task was switched out inside fib_read */
	/* Counters (-e): fib_read's deltas, valid when cnt_status == FT_CNT_OK. */
	__u32 cnt_status; /* enum ft_cnt_status */
	__u32 cnt_pad;
	struct ft_cnt_delta cnt[FT_MAX_EVENTS]; /* index = event's BPF index */
};

/* Without counters BPF reserves and sends records without cnt[]. */
#define FT_READ_REC_SIZE_NO_COUNTERS __builtin_offsetof(struct ft_read_rec, cnt)

/*
 * --compare --attribute: a read's record goes on with, per slot, the self
 * time of that function's calls inside the read (fib_read's own included),
 * less the tracing cost inside them: per call, its raw self time minus its
 * own in-interval cost and its direct children's costs outside their
 * intervals (cost_in, cost_full - cost_in). Not clamped at 0, unlike
 * ft_func_stats.comp_self_ns, so it may be negative where the calibrated
 * cost exceeds the true one; summed over calls it stays linear, and between
 * two builds with the same calls the calibration cancels out. cnt[] is then
 * always sent (zero without counters).
 */
struct ft_read_funcs {
	__s64 self_ns[FT_MAX_SLOTS];
};

#define FT_READ_REC_SIZE_FUNCS (sizeof(struct ft_read_rec) + sizeof(struct ft_read_funcs))

#endif /* FIBTRACE_H */
