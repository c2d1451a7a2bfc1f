// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace --compare: what is compared. The variants are algorithms (the
 * --algo list, or every algorithm valid over the whole sweep) or the two
 * output formats of one algorithm; one of them is the baseline. Then the
 * per-read storage, the hygiene checks and the run's sweep fields.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare_int.h"

static int add_variant(struct ft_compare *c, int algo_id, const char *algo_name, int format,
		       const char *label, const char *device, struct ft_run *run)
{
	struct variant *v;
	int i, dup = 1;

	if (c->nv == FT_CMP_MAX_VARIANTS) {
		fprintf(stderr, "fibtrace: --compare: at most %d variants\n", FT_CMP_MAX_VARIANTS);
		return -FT_EXIT_USAGE;
	}
	v = &c->var[c->nv];
	memset(v, 0, sizeof(*v));
	v->algo_id = algo_id;
	v->format = format;
	v->fd = -1;
	v->device = device;
	v->run = run;
	for (i = 0; i < c->nv && !label; i++)
		if (c->var[i].algo_id == algo_id && c->var[i].format == format)
			dup++;
	/* Naming one algorithm twice (an A/A run) gives it distinct labels. */
	if (dup > 1)
		snprintf(v->label, sizeof(v->label), "%s#%d", label ? label : algo_name, dup);
	else
		snprintf(v->label, sizeof(v->label), "%s", label ? label : algo_name);
	c->nv++;
	return 0;
}

/* Algorithm id's max_n covers the sweep: 0, or -FT_EXIT_USAGE with a message. */
static int check_max_n(const struct ft_run *run, int id, uint64_t last)
{
	if (last <= run->algos.max_n[id])
		return 0;
	fprintf(stderr, "fibtrace: --sweep up to %" PRIu64 " exceeds %s's max_n %" PRIu64 "\n",
		last, run->algos.name[id], run->algos.max_n[id]);
	return -FT_EXIT_USAGE;
}

static int device_default_algo(const char *device, const struct ft_run *run)
{
	char name[FIBDRV_ALGO_NAME_MAX];
	int fd = fibdev_open(device, NULL, -1, "fibtrace"), id = -1;

	if (fd < 0)
		return -FT_EXIT_ERROR;
	if (!fibdev_get_algo(fd, name, sizeof(name)))
		id = fibdev_algo_index(&run->algos, name);
	close(fd);
	if (id < 0) {
		fprintf(stderr, "fibtrace: cannot tell %s's default algorithm\n", device);
		return -FT_EXIT_ERROR;
	}
	return id;
}

/* --compare formats: dec and bin of the one --algo, or of the device's default. */
static int resolve_formats(struct ft_compare *c, struct ft_run *run, const int *ids, int nid,
			   uint64_t last)
{
	int id, err;

	if (nid > 1) {
		fprintf(stderr, "fibtrace: --compare formats takes one --algo\n");
		return -FT_EXIT_USAGE;
	}
	id = nid ? ids[0] : device_default_algo(c->device, run);
	if (id < 0)
		return id;
	err = check_max_n(run, id, last);
	if (!err)
		err = add_variant(c, id, run->algos.name[id], FIBDRV_FORMAT_DEC, "dec", c->device,
				  run);
	if (!err)
		err = add_variant(c, id, run->algos.name[id], FIBDRV_FORMAT_BIN, "bin", c->device,
				  run);
	return err;
}

/*
 * --compare builds: one variant per build, all with one algorithm: the
 * --algo named, or every build's default, which must then agree by name.
 */
static int resolve_builds(struct ft_compare *c, const char *algo_list, uint64_t last,
			  const struct ft_cmp_build *builds, int nb)
{
	int i, id, err;

	for (i = 0; i < nb; i++) {
		struct ft_run *r = builds[i].run;

		if (algo_list) {
			if (ft_algo_list_parse(r, algo_list, last, &id, 1,
					       "--compare builds (one --algo)") < 0)
				return -FT_EXIT_USAGE;
		} else {
			id = device_default_algo(builds[i].device, r);
			if (id < 0)
				return id;
		}
		if (i && strcmp(r->algos.name[id], var_algo(&c->var[0]))) {
			fprintf(stderr,
				"fibtrace: %s reads with %s by default, %s with %s: name one with "
				"--algo\n",
				builds[0].label, var_algo(&c->var[0]), builds[i].label,
				r->algos.name[id]);
			return -FT_EXIT_USAGE;
		}
		err = check_max_n(r, id, last);
		if (!err)
			err = add_variant(c, id, r->algos.name[id], FIBDRV_FORMAT_DEC,
					  builds[i].label, builds[i].device, r);
		if (err)
			return err;
	}
	return 0;
}

static int resolve_variants(struct ft_compare *c, struct ft_run *run, const char *algo_list,
			    uint64_t last, const struct ft_cmp_build *builds, int nb)
{
	int ids[FT_CMP_MAX_VARIANTS], nid = 0, i, err;

	if (c->o.kind == FT_CMP_BUILDS)
		return resolve_builds(c, algo_list, last, builds, nb);
	if (algo_list) {
		nid = ft_algo_list_parse(run, algo_list, last, ids, FT_CMP_MAX_VARIANTS,
					 "--compare");
		if (nid < 0)
			return nid;
	}
	if (c->o.kind == FT_CMP_FORMATS)
		return resolve_formats(c, run, ids, nid, last);
	if (!nid) {
		/* Every algorithm valid over the whole sweep, in registry order. */
		for (i = 0; i < run->algos.count && nid < FT_CMP_MAX_VARIANTS; i++)
			if (run->algos.max_n[i] >= last)
				ids[nid++] = i;
	}
	if (nid < 2) {
		fprintf(stderr,
			"fibtrace: --compare algos needs two algorithms valid up to n = %" PRIu64
			" (%d found); name one twice (--algo A,A) for an A/A run\n",
			last, nid);
		return -FT_EXIT_USAGE;
	}
	for (i = 0; i < nid; i++) {
		err = add_variant(c, ids[i], run->algos.name[ids[i]], FIBDRV_FORMAT_DEC, NULL,
				  c->device, run);
		if (err)
			return err;
	}
	return 0;
}

static int resolve_baseline(struct ft_compare *c)
{
	int i;

	c->base = 0;
	if (!c->o.baseline)
		return 0;
	for (i = 0; i < c->nv; i++)
		if (!strcmp(c->var[i].label, c->o.baseline)) {
			c->base = i;
			return 0;
		}
	fprintf(stderr,
		"fibtrace: --baseline '%s' is not one of the compared variants:", c->o.baseline);
	for (i = 0; i < c->nv; i++)
		fprintf(stderr, " %s", c->var[i].label);
	fputc('\n', stderr);
	return -FT_EXIT_USAGE;
}

/* Room for every round's values of every (variant, n). */
static int alloc_raw(struct ft_compare *c)
{
	size_t i, m;

	c->raw = calloc((size_t)c->nv * c->nn, sizeof(*c->raw));
	if (!c->raw)
		return -FT_EXIT_ERROR;
	for (i = 0; i < (size_t)c->nv * c->nn; i++)
		for (m = 0; m < FT_METRIC_NR; m++) {
			c->raw[i].v[m] = malloc(c->repeat * sizeof(double));
			if (!c->raw[i].v[m])
				return -FT_EXIT_ERROR;
		}
	return 0;
}

int ft_compare_prepare(struct ft_compare **out, const struct ft_cmp_opts *o, struct ft_run *run,
		       const char *algo_list, const char *device, uint64_t first, uint64_t last,
		       uint64_t step, unsigned int repeat, int cpu,
		       const struct ft_cmp_build *builds, int nbuilds)
{
	struct ft_compare *c = calloc(1, sizeof(*c));
	int err;

	*out = c;
	if (!c)
		return -FT_EXIT_ERROR;
	c->o = *o;
	c->device = device;
	c->first = first;
	c->step = step;
	c->nn = (last - first) / step + 1;
	c->repeat = repeat;
	c->cpu = cpu;
	if (c->nn > 1000000) {
		fprintf(stderr, "fibtrace: --compare: at most 1000000 values of n\n");
		return -FT_EXIT_USAGE;
	}
	err = resolve_variants(c, run, algo_list, last, builds, nbuilds);
	if (!err)
		err = resolve_baseline(c);
	if (!err)
		err = alloc_raw(c);
	if (!err && c->o.attribute)
		err = cmp_attr_prepare(c);
	if (err)
		return err;
	cmp_check_hygiene(c);
	err = cmp_hygiene_verdict(c, run);
	if (err)
		return err;
	ft_run_set_sweep(run, first, nth(c, c->nn - 1), step, repeat);
	return 0;
}

void ft_compare_free(struct ft_compare *c)
{
	size_t i;
	int m;

	if (!c)
		return;
	if (c->raw)
		for (i = 0; i < (size_t)c->nv * c->nn; i++)
			for (m = 0; m < FT_METRIC_NR; m++)
				free(c->raw[i].v[m]);
	if (c->cell)
		for (i = 0; i < (size_t)c->nv * c->nn; i++)
			ft_cmp_cell_free(&c->cell[i]);
	cmp_attr_free(c->attr);
	free(c->raw);
	free(c->cell);
	free(c->pair);
	free(c);
}
