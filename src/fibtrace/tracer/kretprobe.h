/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kretprobes with an explicit maxactive, and their misses.
 *
 * A kretprobe takes one "instance" from a per-probe pool at the function's
 * entry and gives it back at the return; with none free the return is not
 * probed and the kernel counts a miss. libbpf 1.1 attaches kretprobes
 * through the perf kprobe PMU, which always uses the kernel's default pool,
 * max(10, 2 x possible CPUs): with 16 readers inside fib_read, or one read
 * 30 calls deep, returns were missed. The pool is only sized through
 * tracefs, so this module creates the kprobe event itself:
 *
 *   "r<maxactive>:fibtrace_<pid>/ft<pid>_<seq> [fibdrv:]<sym>" >> kprobe_events
 *   perf_event_open(PERF_TYPE_TRACEPOINT, events/<group>/<event>/id)
 *   bpf_program__attach_perf_event_opts(), the function's slot as BPF cookie
 *
 * and removes it ("-:<group>/<event>") in ft_kretprobe_detach(), the one
 * cleanup path, right after destroying its link (several tracers may live
 * at once: each detaches only its own). Events of a fibtrace that
 * died without cleaning up (SIGKILL, a crash) are removed by the next
 * fibtrace's first attach. Misses are read from kprobe_profile (every
 * kernel with tracefs). Without tracefs (not mounted), the kretprobe is
 * attached by libbpf with the default pool and a warning; its misses are
 * then read from the link on 6.7+ (bpf_link_info.perf_event.kprobe.missed).
 */
#ifndef FIBTRACE_KRETPROBE_H
#define FIBTRACE_KRETPROBE_H

#include <linux/types.h>

#include "model/run.h"

struct bpf_link;
struct bpf_program;

/* The kernel's KRETPROBE_MAXACTIVE_MAX. */
#define FT_MAXACTIVE_MAX 4096
/*
 * Default maxactive: the instances a function can hold at once are its
 * activations over every task, at most (tasks inside a read) x (depth of
 * its recursion), and the deepest stack of traced calls any read makes is
 * 30 (docs/measurement.md). --sweep and --compare read from one task:
 * FT_STACK_DEPTH (64) covers every frame BPF can keep. Other modes trace
 * whoever reads: 32 tasks 32 calls deep (16 concurrent readers use at most
 * 16 x 30). Memory, allocated at attach and freed at detach: about 64 bytes
 * per instance (measured in the guests: kmalloc on 6.1, an objpool in
 * vmalloc on 6.12), so for the default ~90 functions 64 costs 0.4 MiB, 1024
 * 6 MiB, 4096 23 MiB. --maxactive sets it. The kernel's own default is
 * max(10, 2 x possible CPUs).
 */
#define FT_MAXACTIVE_OWN_READS FT_STACK_DEPTH
#define FT_MAXACTIVE_ANY_READER 1024

/*
 * One tracer's kprobe events (a handle: --compare builds has a tracer, so a
 * handle, per build). @run takes the warnings and, at collect, the misses.
 * Freeing it does not detach: ft_kretprobe_detach() each link first.
 */
struct ft_kretprobes;
struct ft_kretprobes *ft_kretprobes_new(struct ft_run *run);
void ft_kretprobes_free(struct ft_kretprobes *k);

/*
 * Attaches @prog as a kretprobe on @sym ("fn" or "mod:fn") with @maxactive
 * instances and @cookie as the link's BPF cookie (the program is shared by
 * every function: the cookie names the slot). The link is destroyed, and
 * its kprobe event removed, by ft_kretprobe_detach(). NULL with errno set
 * on failure (nothing left behind).
 */
struct bpf_link *ft_kretprobe_attach(struct ft_kretprobes *k, const struct bpf_program *prog,
				     const char *sym, unsigned int maxactive, __u64 cookie);

/* Destroys @link (NULL: nothing) and removes its kprobe event, if it has one. */
void ft_kretprobe_detach(struct ft_kretprobes *k, struct bpf_link *link);

/*
 * Misses of every kprobe-mode link in @links (indexed like run->targets):
 * returns into each target's kretprobe_missed, entries (Linux 6.7+) into
 * its kprobe_missed, and their sums into run->lost[FT_LOST_KRETPROBE_MISSED]
 * and run->lost[FT_LOST_KPROBE_MISSED] (of the handle's run).
 */
void ft_kretprobe_collect(struct ft_kretprobes *k, struct bpf_link *links[][2]);

#endif
