/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracer: fibtrace's BPF side behind one opaque handle, in the manner of
 * retsnoop's mass_attacher. Lifecycle:
 *
 *   ft_tracer_new()     open the BPF object, register the fentry loader
 *   ft_tracer_load()    knobs and map sizes, one program pair per traced
 *                       function in the mode discover.c and the plan
 *                       (plan.h) chose (fentry or kprobe), or the two
 *                       kprobe.multi programs for all, load; if fentry
 *                       programs cannot load at all, every function falls
 *                       back to kprobes once
 *   ft_tracer_attach()  the kprobe.multi links (multi.h), then every pair; a
 *                       function whose fentry will not
 *                       attach is moved to kprobes (an optional one that
 *                       cannot be traced is left out), all of them in a
 *                       single reload; nothing records yet
 *   ft_tracer_set_state() FT_CALIBRATING (calibrate.c), then FT_ON: from
 *                       then on every call is recorded whole
 *   ft_tracer_poll() / ft_tracer_consume()   move per-read records into run
 *   ft_tracer_collect() per-function stats, losses, recursion misses, counters
 *   ft_tracer_detach()  every link destroyed (optional: ft_tracer_free does it)
 *   ft_tracer_free()
 *
 * Functions return 0 or -(exit status) (enum ft_exit) and print why.
 */
#ifndef FIBTRACE_TRACER_H
#define FIBTRACE_TRACER_H

#include <linux/types.h>
#include <stdbool.h>

#include "model/run.h"

struct ft_tracer;

struct ft_tracer_opts {
	bool force_kprobe;	/* --kprobe: no fentry fallback logic either */
	bool verbose;		/* load/attach times */
	__u32 ringbuf_bytes;	/* --ringbuf-size; 0: from sweep_reads */
	__u64 sweep_reads;	/* reads in one sweep round (0: not sweeping) */
	unsigned int maxactive; /* kretprobe instances per function (kretprobe.h) */
};

int ft_tracer_new(struct ft_tracer **out, const struct ft_tracer_opts *o, struct ft_run *run);
int ft_tracer_load(struct ft_tracer *tr);
int ft_tracer_attach(struct ft_tracer *tr);
void ft_tracer_set_state(struct ft_tracer *tr, enum ft_enabled state);
/* Calibrated costs of one traced call of @slot and their error bounds (bpf/fibtrace.h). */
void ft_tracer_set_cost(struct ft_tracer *tr, int slot, const struct ft_cost *c);
/* One slot's stats, summed over CPUs: 0 or -errno. */
int ft_tracer_slot_stats(struct ft_tracer *tr, int slot, struct ft_func_stats *st);
/*
 * Forgets what the reported slots recorded (their stats and counters, the
 * call tree, the deepest stack): after the calibration in context, before
 * FT_ON. 0 or -errno.
 */
int ft_tracer_clear(struct ft_tracer *tr);
/* Waits up to timeout_ms for records, then drains them: records, or -errno. */
int ft_tracer_poll(struct ft_tracer *tr, int timeout_ms);
/* Drains the ring buffer without waiting. */
int ft_tracer_consume(struct ft_tracer *tr);
/*
 * Drains the ring buffer into @fn (NULL: nowhere), not into the run: the
 * calibration's reads (calib_context.c).
 */
typedef int (*ft_rec_fn)(void *ctx, const void *data, size_t size);
void ft_tracer_drain(struct ft_tracer *tr, ft_rec_fn fn, void *ctx);
/* Cumulative values into run: targets' stats and counters, lost, recursion misses. */
int ft_tracer_collect(struct ft_tracer *tr);
/* -v: resident memory of fibtrace and kernel memory of each BPF map, on stderr. */
void ft_tracer_print_memory(const struct ft_tracer *tr);
/* Destroys every link (the run's detach, timed in run->startup): the maps stay readable. */
void ft_tracer_detach(struct ft_tracer *tr);
void ft_tracer_free(struct ft_tracer *tr);

/* libbpf's messages: warnings and errors on stderr with -v, none without (process-wide). */
void ft_tracer_log(bool verbose);

#endif
