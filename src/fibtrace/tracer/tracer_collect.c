// SPDX-License-Identifier: GPL-2.0
/*
 * The tracer's collect half (tracer.h): per-function stats summed over
 * CPUs, losses, recursion misses, the call tree, counters, memory use.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "counters.h"
#include "kretprobe.h"
#include "model/tree.h"
#include "multi.h"
#include "tracer_int.h"

/* Sums the per-CPU stats of one slot into *s. */
static void sum_stats(const void *buf, int ncpus, size_t vsz, struct ft_func_stats *s)
{
	int c, h;

	memset(s, 0, sizeof(*s));
	for (c = 0; c < ncpus; c++) {
		const struct ft_func_stats *p = (const void *)((const char *)buf + c * vsz);

		s->count += p->count;
		s->total_ns += p->total_ns;
		s->self_ns += p->self_ns;
		s->comp_total_ns += p->comp_total_ns;
		s->comp_self_ns += p->comp_self_ns;
		s->comp_clamped += p->comp_clamped;
		s->comp_err_ns += p->comp_err_ns;
		s->off_ns += p->off_ns;
		s->off_calls += p->off_calls;
		s->root_entered += p->root_entered;
		s->root_returned += p->root_returned;
		s->root_dropped += p->root_dropped;
		s->tail_calls += p->tail_calls;
		s->probe_ns += p->probe_ns;
		if (p->min_ns && (!s->min_ns || p->min_ns < s->min_ns))
			s->min_ns = p->min_ns;
		if (p->max_ns > s->max_ns)
			s->max_ns = p->max_ns;
		for (h = 0; h < FT_HIST_SLOTS; h++) {
			s->hist[h] += p->hist[h];
			s->comp_hist[h] += p->comp_hist[h];
		}
	}
}

/* A loaded program's runs skipped by the kernel's recursion guard; 0 if not loaded. */
static __u64 prog_recursion_misses(struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_program__fd(prog) < 0 || bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.recursion_misses;
}

static __u64 recursion_misses(struct ft_tracer *tr, const struct ft_target *t)
{
	__u64 n = 0;
	int e;

	for (e = 0; e < 2 && t->attached; e++)
		n += prog_recursion_misses(slot_prog(tr->skel, t->mode, t->slot, e));
	return n;
}

static void collect_lost(struct ft_tracer *tr, int ncpus)
{
	int fd = bpf_map__fd(tr->skel->maps.lost), i, c;
	__u64 *lost = calloc(ncpus, sizeof(*lost)); /* one per possible CPU, however many */

	for (i = 0; i < FT_LOST_NR; i++) {
		__u32 key = i;

		tr->run->lost[i] = 0;
		if (!lost || bpf_map_lookup_elem(fd, &key, lost))
			continue;
		for (c = 0; c < ncpus; c++)
			tr->run->lost[i] += lost[c];
	}
	if (!lost)
		ft_warn(tr->run, "out of memory: the loss counters could not be read");
	free(lost);
}

int ft_tracer_slot_stats(struct ft_tracer *tr, int slot, struct ft_func_stats *st)
{
	int ncpus = libbpf_num_possible_cpus();
	size_t vsz = (sizeof(struct ft_func_stats) + 7) & ~7UL;
	__u32 key = slot;

	if (ncpus <= 0)
		return -EINVAL;
	if (!tr->stats_buf)
		tr->stats_buf = calloc(ncpus, vsz);
	if (!tr->stats_buf)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(tr->skel->maps.stats), &key, tr->stats_buf))
		return -errno;
	sum_stats(tr->stats_buf, ncpus, vsz, st);
	return 0;
}

/* Zeroes entries 0..@n-1 of per-CPU array @map (values of @size bytes): 0 or -errno. */
static int zero_percpu(const struct bpf_map *map, __u32 n, size_t size)
{
	int ncpus = libbpf_num_possible_cpus(), fd = bpf_map__fd(map), err = 0;
	void *zero;
	__u32 k;

	if (ncpus <= 0)
		return -EINVAL;
	if (n > bpf_map__max_entries(map))
		n = bpf_map__max_entries(map);
	zero = calloc(ncpus, (size + 7) & ~7UL);
	if (!zero)
		return -ENOMEM;
	for (k = 0; k < n && !err; k++)
		if (bpf_map_update_elem(fd, &k, zero, BPF_ANY))
			err = -errno;
	free(zero);
	return err;
}

int ft_tracer_clear(struct ft_tracer *tr)
{
	int fd = bpf_map__fd(tr->skel->maps.tree), err;
	__u64 key;

	err = zero_percpu(tr->skel->maps.stats, tr->tg->count, sizeof(struct ft_func_stats));
	if (!err)
		err = zero_percpu(tr->skel->maps.cstats, tr->tg->count,
				  sizeof(struct ft_cnt_stats));
	while (!err && !bpf_map_get_next_key(fd, NULL, &key))
		if (bpf_map_delete_elem(fd, &key))
			err = -errno;
	tr->skel->bss->max_depth = 0;
	return err;
}

/*
 * One path's CPU copies (@vals, @vsz apart) summed into @n, its identity
 * from the copies that counted calls; -EPROTO when two disagree (two paths
 * with one 64-bit hash: bpf/fibtrace.h), n->v.count then the calls seen so
 * far.
 */
static int sum_tree_node(struct ft_tnode *n, __u64 path, const void *vals, size_t vsz, int ncpus)
{
	bool known = false;
	int c;

	memset(n, 0, sizeof(*n));
	n->key.path = path;
	for (c = 0; c < ncpus; c++) {
		const struct ft_tree_node *v = (const void *)((const char *)vals + c * vsz);

		if (!v->count)
			continue; /* a CPU that never ran a call of this path */
		if (known && (v->parent != n->key.parent || v->slot != n->key.slot ||
			      v->algo != n->key.algo)) {
			n->v.count += v->count;
			return -EPROTO;
		}
		n->key.parent = v->parent;
		n->key.slot = v->slot;
		n->key.algo = v->algo;
		known = true;
		n->v.count += v->count;
		n->v.folded += v->folded;
		n->v.total_ns += v->total_ns;
		n->v.self_ns += v->self_ns;
		n->v.comp_total_ns += v->comp_total_ns;
		n->v.comp_self_ns += v->comp_self_ns;
	}
	return 0;
}

/* The call tree's paths, summed over CPUs, into run->tree (tree.c links them). */
static int collect_tree(struct ft_tracer *tr, int ncpus)
{
	int fd = bpf_map__fd(tr->skel->maps.tree), err = 0;
	size_t vsz = (sizeof(struct ft_tree_node) + 7) & ~7UL;
	__u64 key, *prev = NULL;
	struct ft_run *run = tr->run;
	void *vals = calloc(ncpus, vsz);

	run->ntree = 0;
	while (vals && run->tree_on && !bpf_map_get_next_key(fd, prev, &key)) {
		struct ft_tnode *n;

		prev = &key;
		if (run->ntree == run->captree) {
			size_t cap = run->captree ? 2 * run->captree : 256;

			n = realloc(run->tree, cap * sizeof(*n));
			if (!n) {
				err = -ENOMEM;
				break;
			}
			run->tree = n;
			run->captree = cap;
		}
		if (bpf_map_lookup_elem(fd, &key, vals))
			continue; /* deleted meanwhile: never, nothing deletes */
		if (sum_tree_node(&run->tree[run->ntree], key, vals, vsz, ncpus)) {
			/* Its calls are left out of the tree, counted as lost.tree. */
			run->lost[FT_LOST_TREE] += run->tree[run->ntree].v.count;
			continue;
		}
		run->ntree++;
	}
	if (!vals)
		err = -ENOMEM;
	free(vals);
	return err ? err : ft_tree_link(run);
}

/*
 * fibtrace's own heap in use (bytes malloc handed out and not freed, mmapped
 * blocks included): what a leak grows, unlike RSS, which also moves with
 * how the allocator keeps freed memory. -1 where the C library cannot say.
 */
static long long heap_bytes(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	struct mallinfo2 mi = mallinfo2();

	return (long long)(mi.uordblks + mi.hblkhd);
#else
	return -1;
#endif
}

int ft_tracer_collect(struct ft_tracer *tr)
{
	int ncpus = libbpf_num_possible_cpus(), i;

	if (ncpus <= 0)
		return -EINVAL;
	tr->run->recursion_misses = 0;
	for (i = 0; i < tr->tg->count; i++) {
		struct ft_target *t = &tr->tg->t[i];

		if (ft_tracer_slot_stats(tr, t->slot, &t->st))
			memset(&t->st, 0, sizeof(t->st));
		/* The kprobe programs are shared by every function: counted once, below. */
		t->recursion_misses = t->mode == FT_MODE_FENTRY ? recursion_misses(tr, t) : 0;
		tr->run->recursion_misses += t->recursion_misses;
	}
	collect_lost(tr, ncpus);
	if (collect_tree(tr, ncpus))
		ft_warn(tr->run, "the call tree could not be read: out of memory");
	ft_kretprobe_collect(tr->krp, tr->links);
	ft_multi_collect(tr->run, tr->multi);
	/* The shared programs (0 when not loaded): counted once, not per function. */
	tr->run->recursion_misses += prog_recursion_misses(tr->skel->progs.ft_multi_entry) +
				     prog_recursion_misses(tr->skel->progs.ft_multi_exit) +
				     prog_recursion_misses(tr->skel->progs.ft_kp_entry) +
				     prog_recursion_misses(tr->skel->progs.ft_kp_exit);
	tr->run->max_depth = tr->skel->bss->max_depth;
	tr->run->heap_bytes = heap_bytes();
	return ft_counters_collect(tr->skel, tr->run);
}

void ft_tracer_print_memory(const struct ft_tracer *tr)
{
	struct bpf_map *map;
	unsigned long long total = 0;
	char line[256], path[64];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6) || !strncmp(line, "VmHWM:", 6))
			fprintf(stderr, "fibtrace: %s", line);
	if (f)
		fclose(f);
	bpf_object__for_each_map(map, tr->skel->obj)
	{
		unsigned long long memlock = 0;

		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", bpf_map__fd(map));
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			sscanf(line, "memlock: %llu", &memlock);
		if (f)
			fclose(f);
		/* Kernels before 6.4 report no memlock for ring buffers. */
		if (!memlock && bpf_map__type(map) == BPF_MAP_TYPE_RINGBUF)
			memlock = bpf_map__max_entries(map) + 2 * getpagesize();
		fprintf(stderr, "fibtrace: map %-16s %10llu bytes (max_entries %u)\n",
			bpf_map__name(map), memlock, bpf_map__max_entries(map));
		total += memlock;
	}
	fprintf(stderr,
		"fibtrace: BPF maps total %llu KiB (task storage grows with traced tasks)\n",
		total / 1024);
}
