// SPDX-License-Identifier: GPL-2.0
/*
 * The builds a run traces (builds.h): the loaded fibdrv, or the module
 * files of --compare builds, loaded side by side and each traced by its own
 * tracer, so that their reads can alternate read by read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "builds.h"
#include "discover/discover.h"
#include "discover/plan.h"
#include "tracer/multi.h"

/* The module name in @ko's .modinfo ("name=..."), read with libelf: 0 or -(exit status). */
static int ko_module_name(const char *ko, char *name, size_t size)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), err = -FT_EXIT_USAGE;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf;

	if (fd < 0) {
		fprintf(stderr, "fibtrace: %s: %s\n", ko, strerror(errno));
		return err;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && !elf_getshdrstrndx(elf, &shstrndx)) {
		while (err && (scn = elf_nextscn(elf, scn))) {
			const char *sec, *p, *end;
			Elf_Data *d;
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh) ||
			    !(sec = elf_strptr(elf, shstrndx, sh.sh_name)) ||
			    strcmp(sec, ".modinfo") || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
				continue;
			for (p = d->d_buf, end = p + d->d_size; p < end;
			     p += strnlen(p, end - p) + 1)
				if (!strncmp(p, "name=", 5) &&
				    strnlen(p, end - p) < (size_t)(end - p)) {
					snprintf(name, size, "%s", p + 5);
					err = 0;
					break;
				}
		}
	}
	if (err)
		fprintf(stderr,
			"fibtrace: %s: no module name (.modinfo name=): not a kernel module?\n",
			ko);
	elf_end(elf);
	close(fd);
	return err;
}

int ft_load_ko(const char *path, const char *who)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;

	if (fd >= 0 && !syscall(SYS_finit_module, fd, "", 0)) {
		close(fd);
		return 0;
	}
	e = errno;
	fprintf(stderr, "%s %s: %s\n", who, path, strerror(e));
	if (fd >= 0)
		close(fd);
	return e == EPERM ? -FT_EXIT_PERM : -FT_EXIT_NO_FIBDRV;
}

static int load_ko(struct ft_build *b)
{
	char path[128];
	int i, err;

	snprintf(path, sizeof(path), "/sys/module/%s", b->module);
	if (!access(path, F_OK)) {
		fprintf(stderr,
			"fibtrace: module %s (%s) is loaded already: unload it (rmmod %s) so that "
			"what is measured is the file named\n",
			b->module, b->ko, b->module);
		return -FT_EXIT_USAGE;
	}
	err = ft_load_ko(b->ko, "fibtrace: cannot load");
	if (err)
		return err;
	b->loaded = true;
	/* devtmpfs creates the node right after misc_register; wait up to 2 s. */
	for (i = 0; i < 200 && access(b->device, F_OK); i++)
		usleep(10000);
	if (access(b->device, F_OK)) {
		fprintf(stderr,
			"fibtrace: %s loaded but %s did not appear (built with "
			"module name %s?)\n",
			b->ko, b->device, b->module);
		return -FT_EXIT_NO_FIBDRV;
	}
	return 0;
}

static void set_device(struct ft_build *b)
{
	if (!strcmp(b->module, "fibdrv"))
		snprintf(b->device, sizeof(b->device), "%s", FIBDRV_DEVICE_PATH);
	else
		snprintf(b->device, sizeof(b->device), "/dev/%s", b->module);
}

/* --compare builds: names, labels, distinct modules; then each file loaded. */
static int open_kos(struct ft_builds *bs, const struct ft_builds_opts *o)
{
	const char *lab = o->labels;
	int i, j, err;

	for (i = 0; i < o->nko; i++) {
		struct ft_build *b = &bs->b[i];
		size_t len;

		b->ko = o->kos[i];
		err = ko_module_name(b->ko, b->module, sizeof(b->module));
		if (err)
			return err;
		for (j = 0; j < i; j++)
			if (!strcmp(bs->b[j].module, b->module)) {
				fprintf(stderr,
					"fibtrace: %s and %s are both module %s: two builds load "
					"side by side only under different names "
					"(a build named NAME registers /dev/NAME: fibtrace(8))\n",
					bs->b[j].ko, b->ko, b->module);
				return -FT_EXIT_USAGE;
			}
		set_device(b);
		len = lab ? strcspn(lab, ",") : strlen(b->module);
		snprintf(b->label, sizeof(b->label), "%.*s", (int)len, lab ? lab : b->module);
		if (lab)
			lab = lab[len] ? lab + len + 1 : NULL;
		else if (o->labels)
			break;
	}
	if (o->labels && (lab || i < o->nko)) {
		fprintf(stderr, "fibtrace: --labels names %s builds than the %d given\n",
			lab ? "more" : "fewer", o->nko);
		return -FT_EXIT_USAGE;
	}
	bs->n = o->nko;
	for (i = 0; i < bs->n; i++) {
		err = load_ko(&bs->b[i]);
		if (err)
			return err;
	}
	return 0;
}

/* A build's run: the settings of @proto, nothing measured yet. */
static int new_run(struct ft_build *b, const struct ft_run *proto)
{
	b->targets = calloc(1, sizeof(*b->targets));
	b->run = malloc(sizeof(*b->run));
	if (!b->targets || !b->run)
		return -FT_EXIT_ERROR;
	*b->run = *proto;
	b->run->targets = b->targets;
	b->run->recs = NULL;
	b->run->rec_self = NULL;
	b->run->nrecs = b->run->caprecs = 0;
	b->run->pern = NULL;
	b->run->npern = 0;
	b->run->pern_valid = false;
	b->run->nwarnings = 0;
	b->run->timeline = NULL;
	b->run->tree = NULL;
	b->run->ntree = b->run->captree = 0;
	b->run->tree_root = -1;
	return 0;
}

int ft_builds_open(struct ft_builds *bs, const struct ft_builds_opts *o, struct ft_run *run)
{
	bool bench = o->benchmark, asks_multi = ft_plan_asks_multi(o->attach, bench);
	struct ft_discovery *dv;
	int i, err, req;

	memset(bs, 0, sizeof(*bs));
	for (i = 0; i < FT_CMP_MAX_VARIANTS; i++)
		bs->b[i].calib.fd = -1;
	bs->n = 1;
	snprintf(bs->b[0].module, sizeof(bs->b[0].module), "fibdrv");
	snprintf(bs->b[0].device, sizeof(bs->b[0].device), "%s", o->device);
	if (o->nko && (err = open_kos(bs, o)))
		return err;
	/* The kprobe.multi probe (auto's first question) runs while the tables load. */
	if (asks_multi)
		ft_multi_probe_start();
	err = ft_discover_open(&dv, o->symbol_cache);
	for (i = 0; !err && i < bs->n; i++) {
		struct ft_build *b = &bs->b[i];

		if (!i)
			b->run = run;
		else if ((err = new_run(b, run)))
			break;
		/* The plan first: it decides whether discovery puts every function on kprobes. */
		req = ft_plan_choose(o->attach, bench, asks_multi && ft_multi_available(), b->run);
		err = req < 0 ? req
			      : ft_discover(dv, b->run->targets, b->module, o->funcs,
					    req == FT_ATTACH_KPROBE, o->discover, o->compensate,
					    b->run);
		if (!err && o->attach == FT_ATTACH_AUTO)
			req = ft_plan_weigh(b->run->targets, o->reads, req, b->run);
		if (!err)
			err = ft_plan_apply(b->run->targets, req, b->run);
		if (!err)
			fibdev_list_algos(b->device, &b->run->algos);
	}
	ft_multi_probe_join();
	ft_discover_close(dv);
	return err;
}

void ft_builds_share(struct ft_builds *bs)
{
	const struct ft_run *run = bs->b[0].run;
	int i;

	for (i = 1; i < bs->n; i++) {
		struct ft_run *r = bs->b[i].run;

		r->filter_pid = run->filter_pid;
		r->counters = run->counters;
		if (run->sweep)
			ft_run_set_sweep(r, run->first, run->last, run->step, run->repeat);
	}
}

void ft_builds_pool_costs(struct ft_builds *bs)
{
	struct ft_tracer *trs[FT_CMP_MAX_VARIANTS];
	struct ft_run *runs[FT_CMP_MAX_VARIANTS];
	int i;

	for (i = 0; i < bs->n; i++) {
		trs[i] = bs->b[i].tr;
		runs[i] = bs->b[i].run;
	}
	ft_calibrate_pool(trs, runs, bs->n);
}

int ft_builds_consume(void *builds)
{
	struct ft_builds *bs = builds;
	int i, n, total = 0;

	for (i = 0; i < bs->n; i++) {
		n = ft_tracer_consume(bs->b[i].tr);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

/* The first build's run says @w already (the same kernel gives the same warnings). */
static bool has_warning(const struct ft_run *run, const char *w)
{
	int k;

	for (k = 0; k < run->nwarnings; k++)
		if (!strcmp(run->warnings[k], w))
			return true;
	return false;
}

void ft_builds_collect(struct ft_builds *bs)
{
	struct ft_run *run = bs->b[0].run;
	int i, k, w;

	for (i = 0; i < bs->n; i++) {
		const struct ft_run *r = bs->b[i].run;

		ft_tracer_collect(bs->b[i].tr);
		if (!i)
			continue;
		for (k = 0; k < FT_LOST_NR; k++)
			run->lost[k] += r->lost[k];
		run->recursion_misses += r->recursion_misses;
		for (w = 0; w < r->nwarnings; w++)
			if (!has_warning(run, r->warnings[w]) &&
			    run->nwarnings <
				    (int)(sizeof(run->warnings) / sizeof(run->warnings[0])))
				snprintf(run->warnings[run->nwarnings++], sizeof(run->warnings[0]),
					 "%s: %s", bs->b[i].label, r->warnings[w]);
	}
}

/*
 * delete_module, waiting up to 2 s while the module is still referenced: a
 * destroyed BPF link releases its program (and the program its module
 * reference) after an RCU grace period. 0, or -1 with errno.
 */
static int unload_ko(const char *module)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!syscall(SYS_delete_module, module, O_NONBLOCK))
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EBUSY)
			return -1;
		usleep(20000);
	}
	return -1;
}

void ft_builds_close(struct ft_builds *bs)
{
	int i;

	for (i = bs->n - 1; i >= 0; i--) {
		struct ft_build *b = &bs->b[i];

		ft_tracer_free(b->tr);
		b->tr = NULL;
		ft_calibrate_close(&b->calib);
		if (b->run && b->run->targets) {
			free(b->run->targets->core_btf);
			b->run->targets->core_btf = NULL;
		}
		if (i) {
			if (b->run)
				ft_run_free(b->run);
			free(b->run);
			free(b->targets);
		}
		if (b->loaded && unload_ko(b->module))
			fprintf(stderr, "fibtrace: cannot unload %s: %s\n", b->module,
				strerror(errno));
	}
}
