/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timeline in BPF (--trace-out, docs/views.md, bpf/fibtrace.h): which
 * reads are chosen, and one event per call of a chosen read. Included by
 * fibtrace.bpf.c after count_lost() and the trace_mode/trace_left globals.
 */
#ifndef FIBTRACE_TIMELINE_BPF_H
#define FIBTRACE_TIMELINE_BPF_H

/* The timeline's reads by n, and their call events (user space sizes both). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __s32);
} trace_sel SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} calls SEC(".maps");

/* Whether the read of F(@n) starting now goes on the timeline. */
static __always_inline __u32 trace_chosen(__u64 n)
{
	/*
	 * Not atomic (clang 14 has no BPF fetch-and-sub): readers racing on one
	 * count can each take the last read; the timeline says how many it has.
	 */
	if (trace_mode) {
		__s32 *left = trace_mode == FT_TRACE_BY_N ? bpf_map_lookup_elem(&trace_sel, &n)
							  : &trace_left;

		if (left && *left > 0) {
			*left -= 1;
			return 1;
		}
	}
	return 0;
}

/* One call of a read on the timeline (FT_LOST_TIMELINE when the ring is full). */
static __always_inline void emit_call(__u32 slot, __u32 depth, const struct ft_durs *c)
{
	struct ft_call_ev *e = bpf_ringbuf_reserve(&calls, sizeof(*e), 0);

	if (!e) {
		count_lost(FT_LOST_TIMELINE);
		return;
	}
	e->start_ns = c->start;
	e->dur_ns = c->dur;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->slot = slot;
	e->depth = depth;
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

#endif /* FIBTRACE_TIMELINE_BPF_H */
