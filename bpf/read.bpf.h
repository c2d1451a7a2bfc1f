/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The read path's record: a read's state at fib_read's entry, what each
 * traced call inside it adds (the compute/format/copy stages, the copy to
 * user space), and the ft_read_rec (bpf/fibtrace.h) submitted to the
 * `reads` ring buffer at its exit.  Included by fibtrace.bpf.c after its
 * task state, maps, count_lost() and counters.bpf.h.
 */
#ifndef FIBTRACE_READ_BPF_H
#define FIBTRACE_READ_BPF_H

/* Per-read state at fib_read's entry. */
static __always_inline void read_begin(struct ft_task *st, struct ft_stack *sk, __u64 n, __u64 algo)
{
	st->n = n;
	st->algo = algo;
	st->in_read = 1;
	st->copy_calls = 0;
	st->copy_bytes = 0;
	st->copy_ns = 0;
	st->calls = 0;
	st->read_switches = st->switches;
	/* Not the calibration's reads (calib_context.c): they would take the timeline's. */
	st->tracing = enabled == FT_ON && trace_chosen(n);
	st->comp_copy_ns = 0;
	__builtin_memset(st->stage_ns, 0, sizeof(st->stage_ns));
	__builtin_memset(st->comp_stage_ns, 0, sizeof(st->comp_stage_ns));
	if (read_funcs)
		__builtin_memset(&sk->read_self, 0, sizeof(sk->read_self));
}

static __always_inline void emit_read(struct ft_task *st, struct ft_stack *sk,
				      const struct ft_durs *c, __s64 ret)
{
	struct ft_read_rec *r;

	r = bpf_ringbuf_reserve(&reads, read_funcs ? FT_READ_REC_SIZE_FUNCS : counters_rec_size(),
				0);
	if (!r) {
		count_lost(FT_LOST_RINGBUF);
		return;
	}
	r->n = st->n;
	r->algo = st->algo;
	r->total_ns = c->dur;
	__builtin_memcpy(r->stage_ns, st->stage_ns, sizeof(r->stage_ns));
	r->copy_bytes = st->copy_bytes;
	r->copy_ns = st->copy_ns;
	r->copy_calls = st->copy_calls;
	r->calls = st->calls;
	r->comp_total_ns = c->comp;
	r->comp_err_ns = c->err;
	r->probe_ns = c->probe;
	r->start_ns = c->start;
	r->off_ns = c->off;
	r->switches = st->switches - st->read_switches;
	__builtin_memcpy(r->comp_stage_ns, st->comp_stage_ns, sizeof(r->comp_stage_ns));
	r->comp_copy_ns = st->comp_copy_ns;
	r->ret = ret;
	r->tid = (__u32)bpf_get_current_pid_tgid();
	r->cpu = bpf_get_smp_processor_id();
	counters_fill_rec(r);
	if (read_funcs) {
		if (!nr_events)
			__builtin_memset(r->cnt, 0, sizeof(r->cnt));
		__builtin_memcpy(r + 1, &sk->read_self, sizeof(sk->read_self));
	}
	/*
	 * A wakeup per record (an irq_work and a context switch to fibtrace)
	 * costs more than tracing the read: user space drains the ring on a
	 * timer and is woken only when it fills up.
	 */
	bpf_ringbuf_submit(r, bpf_ringbuf_query(&reads, BPF_RB_AVAIL_DATA) >= ringbuf_wakeup_bytes
				      ? BPF_RB_FORCE_WAKEUP
				      : BPF_RB_NO_WAKEUP);
}

/* A traced call inside a read, or the read itself, ended. */
static __always_inline void read_stage(struct ft_task *st, struct ft_stack *sk, __u32 slot,
				       const struct ft_durs *c, __s64 ret)
{
	__u32 s;

	switch (slot) {
	case FT_SLOT_READ:
		st->in_read = 0;
		emit_read(st, sk, c, ret);
		return;
	case FT_SLOT_COPY_TO_USER:
		st->copy_ns += c->dur;
		st->comp_copy_ns += c->comp;
		st->copy_calls++;
		break;
	case FT_SLOT_COMPUTE:
	case FT_SLOT_FORMAT:
	case FT_SLOT_COPY:
		s = (slot - FT_SLOT_COMPUTE) & 3;
		if (s < FT_STAGES) {
			st->stage_ns[s] += c->dur;
			st->comp_stage_ns[s] += c->comp;
		}
		break;
	}
	st->calls++;
}

#endif /* FIBTRACE_READ_BPF_H */
