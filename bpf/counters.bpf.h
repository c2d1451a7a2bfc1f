/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fibtrace's counters (-e) on the BPF side, included by fibtrace.bpf.c after
 * the task state and the loss counters: the per-CPU perf events are read at
 * a call's entry and exit, and the deltas kept only when the pairing holds
 * (docs/counters.md). Only reached when nr_events != 0.
 */
#ifndef FIBTRACE_COUNTERS_BPF_H
#define FIBTRACE_COUNTERS_BPF_H

/* User space sizes both: nr_events * nr_cpus perf event fds, slots in use. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cnt_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FT_MAX_SLOTS);
	__type(key, __u32);
	__type(value, struct ft_cnt_stats);
} cstats SEC(".maps");

/* Context switches of the current task so far: a change means it slept or was preempted. */
static __always_inline __u64 task_switches(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return task->nvcsw + task->nivcsw; /* BTF pointer: no probe-read helper calls */
}

/* Reads every event on this CPU into @v; false when a read failed. */
static __always_inline bool counters_read(__u32 cpu, struct bpf_perf_event_value *v)
{
	bool ok = true;
	__u32 e;

	for (e = 0; e < FT_MAX_EVENTS; e++) {
		if (e >= nr_events)
			break;
		if (bpf_perf_event_read_value(&cnt_events, e * nr_cpus + cpu, &v[e], sizeof(v[e])))
			ok = false;
	}
	return ok;
}

/* Entry of frame @d: last before the entry timestamp. */
/* This task's counter state; created at a call's entry only (zeroed: ok 0 until written). */
static __always_inline struct ft_task_cnt *task_cnt(bool create)
{
	return bpf_task_storage_get(&task_cnts, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

static __always_inline void counters_on_entry(__u32 d)
{
	struct ft_task_cnt *tc = task_cnt(true);
	struct ft_cnt_frame *cf;

	if (!tc)
		return; /* its exit finds no entry values: counted there */
	cf = &tc->cnt[d & (FT_STACK_DEPTH - 1)];

	cf->csw = task_switches();
	cf->cpu = bpf_get_smp_processor_id();
	cf->ok = counters_read(cf->cpu, cf->v);
}

/*
 * Exit of frame @i of @slot: the deltas go to the function's totals only when
 * the pairing holds (see fibtrace.h); otherwise the call is counted by reason
 * and as FT_LOST_COUNTERS. fib_read's deltas also go to its read record.
 */
/* A call whose counter deltas are not kept: counted by @status (fibtrace.h). */
static __always_inline void counters_discard(struct ft_cnt_stats *cs, __u32 status)
{
	count_lost(FT_LOST_COUNTERS);
	if (cs && status < FT_CNT_STATUS_NR)
		cs->discarded[status]++;
}

static __always_inline void counters_on_exit(__u32 i, __u32 slot)
{
	struct ft_task_cnt *tc = task_cnt(false);
	struct bpf_perf_event_value now[FT_MAX_EVENTS];
	__u32 cpu = bpf_get_smp_processor_id(), status = FT_CNT_OK, e;
	struct ft_cnt_stats *cs = bpf_map_lookup_elem(&cstats, &slot);
	struct ft_cnt_frame *cf;

	/* No counter state: its entry's allocation failed. */
	if (!tc) {
		counters_discard(cs, FT_CNT_READ_FAILED);
		return;
	}
	/*
	 * A frame whose entry found no counter state has ok 0: the state is
	 * created zeroed, and only this frame's entry writes its depth while it
	 * is open.
	 */
	cf = &tc->cnt[i & (FT_STACK_DEPTH - 1)];
	if (cf->cpu != cpu)
		status = FT_CNT_MIGRATED;
	else if (!counters_read(cpu, now) || !cf->ok)
		status = FT_CNT_READ_FAILED;
	else if (task_switches() != cf->csw)
		status = FT_CNT_SWITCHED;
	if (slot == FT_SLOT_READ)
		tc->read_cnt_status = status;
	if (status != FT_CNT_OK) {
		counters_discard(cs, status);
		return;
	}
	if (cs)
		cs->kept++;
	for (e = 0; e < FT_MAX_EVENTS; e++) {
		__u64 dv, de, dr;

		if (e >= nr_events)
			break;
		dv = now[e].counter - cf->v[e].counter;
		de = now[e].enabled - cf->v[e].enabled;
		dr = now[e].running - cf->v[e].running;
		if (cs) {
			cs->sum[e].value += dv;
			cs->sum[e].enabled += de;
			cs->sum[e].running += dr;
		}
		if (slot == FT_SLOT_READ) {
			tc->read_cnt[e].value = dv;
			tc->read_cnt[e].enabled = de;
			tc->read_cnt[e].running = dr;
		}
	}
}

/* A read record's size: cnt[] only when counting (a constant to the verifier). */
static __always_inline __u64 counters_rec_size(void)
{
	return nr_events ? sizeof(struct ft_read_rec) : FT_READ_REC_SIZE_NO_COUNTERS;
}

/* A reserved record holds whatever earlier records left there: write it all. */
static __always_inline void counters_fill_rec(struct ft_read_rec *r)
{
	struct ft_task_cnt *tc;
	__u32 e;

	r->cnt_pad = 0;
	r->cnt_status = FT_CNT_NONE;
	if (!nr_events)
		return; /* a short record: no cnt[] */
	tc = task_cnt(false);
	r->cnt_status = tc ? tc->read_cnt_status : FT_CNT_READ_FAILED;
	__builtin_memset(r->cnt, 0, sizeof(r->cnt));
	if (!tc || tc->read_cnt_status != FT_CNT_OK)
		return;
	for (e = 0; e < FT_MAX_EVENTS; e++) {
		if (e >= nr_events)
			break;
		r->cnt[e] = tc->read_cnt[e];
	}
}

#endif /* FIBTRACE_COUNTERS_BPF_H */
