// SPDX-License-Identifier: GPL-2.0
/*
 * --cachesim: the reads of the sweep, simulated by Valgrind's callgrind
 * (cache and branch simulators) on the user-space build of fibdrv's
 * library, parsed per function and per read. See cachesim.h.
 *
 * The harness, build/fibcalc --reads R --algo A,B N..., loops over the
 * algorithms, then the rounds, then the n, and ends each read with a
 * callgrind dump labelled "read": the k-th such part is read k of that
 * order. Each part holds every function's self (exclusive) cost, so the
 * sum over functions is the part's total, which the parser checks against
 * callgrind's own "totals:" line.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cachesim.h"
#include "model/run.h"
#include "stats.h"

const char *const ft_sim_event_name[FT_SIM_NEV] = {
	"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim",
};

int ft_sim_event_find(const char *name)
{
	int i;

	for (i = 0; i < FT_SIM_NEV; i++)
		if (!strcasecmp(name, ft_sim_event_name[i]))
			return i;
	return -1;
}

/* ---------- the parsed model ---------- */

static unsigned int name_hash(const char *s)
{
	unsigned int h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void hash_insert(struct ft_sim *sim, struct ft_sim_func *fn)
{
	unsigned int i = name_hash(fn->name) & (sim->hash_cap - 1);

	while (sim->hash[i])
		i = (i + 1) & (sim->hash_cap - 1);
	sim->hash[i] = fn;
}

/* fibdrv/bn_mul.c or /abs/path/fibdrv/bn_aors_tmpl.h: the library's sources */
static bool library_file(const char *file)
{
	return !strncmp(file, "fibdrv/", 7) || strstr(file, "/fibdrv/");
}

const struct ft_sim_func *ft_sim_func_find(const struct ft_sim *sim, const char *name)
{
	unsigned int i;

	if (!sim->hash_cap)
		return NULL;
	for (i = name_hash(name) & (sim->hash_cap - 1); sim->hash[i];
	     i = (i + 1) & (sim->hash_cap - 1))
		if (!strcmp(sim->hash[i]->name, name))
			return sim->hash[i];
	return NULL;
}

/* The function @name (in source file @file), added on first sight. */
static struct ft_sim_func *func_get(struct ft_sim *sim, const char *name, const char *file)
{
	struct ft_sim_func *fn = (struct ft_sim_func *)ft_sim_func_find(sim, name);
	unsigned int i;

	if (fn && !fn->file[0] && file[0]) { /* first seen as a callee (cfn=), now defined */
		char *f = strdup(file);

		if (!f)
			return NULL;
		free(fn->file);
		fn->file = f;
		fn->library = library_file(file);
	}
	if (fn)
		return fn;
	if (sim->nfn * 2 >= sim->hash_cap) { /* grow: load factor at most 1/2 */
		unsigned int cap = sim->hash_cap ? sim->hash_cap * 2 : 256;
		struct ft_sim_func **h = calloc(cap, sizeof(*h));

		if (!h)
			return NULL;
		free(sim->hash);
		sim->hash = h;
		sim->hash_cap = cap;
		for (i = 0; i < sim->nfn; i++)
			hash_insert(sim, sim->fn[i]);
	}
	if (sim->nfn == sim->fn_cap) {
		unsigned int cap = sim->fn_cap ? sim->fn_cap * 2 : 128;
		struct ft_sim_func **a = realloc(sim->fn, cap * sizeof(*a));

		if (!a)
			return NULL;
		sim->fn = a;
		sim->fn_cap = cap;
	}
	fn = calloc(1, sizeof(*fn));
	if (!fn)
		return NULL;
	fn->name = strdup(name);
	fn->file = strdup(file);
	fn->ev = calloc((size_t)sim->nalgo * FT_SIM_NEV, sizeof(*fn->ev));
	fn->calls = calloc(sim->nalgo, sizeof(*fn->calls));
	if (!fn->name || !fn->file || !fn->ev || !fn->calls) {
		free(fn->name), free(fn->file), free(fn->ev), free(fn->calls), free(fn);
		return NULL;
	}
	fn->library = library_file(file);
	sim->fn[sim->nfn++] = fn;
	hash_insert(sim, fn);
	return fn;
}

int ft_sim_prepare(struct ft_sim *sim, unsigned int nalgo, const __u64 *n, unsigned int nn,
		   unsigned int rounds)
{
	sim->nalgo = nalgo;
	sim->nn = nn;
	sim->rounds = rounds;
	sim->reads = nalgo * nn * rounds;
	sim->n = malloc(nn * sizeof(*sim->n));
	sim->cell = calloc((size_t)nalgo * nn, sizeof(*sim->cell));
	sim->read_ev = calloc((size_t)sim->reads * 2 * FT_SIM_NEV, sizeof(*sim->read_ev));
	if (!sim->n || !sim->cell || !sim->read_ev)
		return -1;
	memcpy(sim->n, n, nn * sizeof(*n));
	return 0;
}

void ft_sim_free(struct ft_sim *sim)
{
	unsigned int i;

	for (i = 0; i < sim->nfn; i++) {
		free(sim->fn[i]->name);
		free(sim->fn[i]->file);
		free(sim->fn[i]->ev);
		free(sim->fn[i]->calls);
		free(sim->fn[i]);
	}
	free(sim->fn);
	free(sim->hash);
	free(sim->n);
	free(sim->cell);
	free(sim->read_ev);
	memset(sim, 0, sizeof(*sim));
}

int ft_sim_algo_index(const struct ft_sim *sim, const char *name)
{
	unsigned int i;

	for (i = 0; i < sim->nalgo; i++)
		if (!strcmp(sim->algo[i], name))
			return i;
	return -1;
}

const struct ft_sim_cell *ft_sim_cell_find(const struct ft_sim *sim, unsigned int a, __u64 n)
{
	unsigned int j;

	for (j = 0; j < sim->nn && a < sim->nalgo; j++)
		if (sim->n[j] == n)
			return &sim->cell[a * sim->nn + j];
	return NULL;
}

bool ft_sim_func_in_reads(const struct ft_sim *sim, const struct ft_sim_func *fn, int algo)
{
	for (unsigned int a = 0; a < sim->nalgo; a++)
		if ((algo < 0 || (int)a == algo) &&
		    (fn->calls[a] || fn->ev[a * FT_SIM_NEV + FT_SIM_IR]))
			return true;
	return false;
}

double ft_sim_func_sum(const struct ft_sim *sim, const struct ft_sim_func *fn,
		       double ev[FT_SIM_NEV])
{
	double calls = 0;
	unsigned int a;
	int e;

	for (e = 0; e < FT_SIM_NEV; e++)
		ev[e] = 0;
	for (a = 0; a < sim->nalgo; a++) {
		calls += fn->calls[a];
		for (e = 0; e < FT_SIM_NEV; e++)
			ev[e] += fn->ev[a * FT_SIM_NEV + e];
	}
	return calls;
}

bool ft_sim_exact(const struct ft_sim *sim, enum ft_sim_event ev)
{
	unsigned int c;

	for (c = 0; c < sim->nalgo * sim->nn; c++)
		if (sim->cell[c].lo[ev] != sim->cell[c].hi[ev])
			return false;
	return true;
}

/* ---------- callgrind's output format ---------- */

/* The parser's state over one file (callgrind's format, uncompressed names and positions). */
struct parse {
	struct ft_sim *sim;
	int col[FT_SIM_NEV + 8]; /* file column -> event, -1: not one of ours */
	int ncol, npos;
	char file[PATH_MAX];
	struct ft_sim_func *fn, *cfn;
	bool in_part, is_read, is_warmup, skip_next; /* skip_next: the cost line after calls= */
	__u64 part_total[FT_SIM_NEV], part_check[FT_SIM_NEV];
	bool have_check;
	struct ft_sim_func **touched;
	unsigned int ntouched, touched_cap;
};

static int fail(struct parse *p, const char *what, const char *line)
{
	snprintf(p->sim->error, sizeof(p->sim->error), "%s: '%.80s'", what, line);
	return -1;
}

/* "v1 v2 ..." into up to p->ncol event values (trailing zeros may be left out). */
static int read_costs(struct parse *p, const char *s, __u64 *ev, int skip)
{
	int c = 0;

	memset(ev, 0, FT_SIM_NEV * sizeof(*ev));
	while (*s) {
		char *end;
		unsigned long long v;

		while (*s == ' ')
			s++;
		if (!*s || *s == '\n')
			break;
		if (skip > 0) { /* a position: a number, +N, -N or * */
			s += strcspn(s, " \n");
			skip--;
			continue;
		}
		errno = 0;
		v = strtoull(s, &end, 10);
		if (end == s || errno || c >= p->ncol)
			return -1;
		if (p->col[c] >= 0)
			ev[p->col[c]] = v;
		c++;
		s = end;
	}
	return 0;
}

static int touch(struct parse *p, struct ft_sim_func *fn)
{
	if (fn->stamp == p->sim->stamp)
		return 0;
	if (p->ntouched == p->touched_cap) {
		unsigned int cap = p->touched_cap ? p->touched_cap * 2 : 256;
		struct ft_sim_func **a = realloc(p->touched, cap * sizeof(*a));

		if (!a)
			return -1;
		p->touched = a;
		p->touched_cap = cap;
	}
	fn->stamp = p->sim->stamp;
	memset(fn->part_ev, 0, sizeof(fn->part_ev));
	fn->part_calls = 0;
	p->touched[p->ntouched++] = fn;
	return 0;
}

/* A part ends: check its sum, and file a read's costs under its function and cell. */
static int end_part(struct parse *p)
{
	struct ft_sim *sim = p->sim;
	unsigned int i, k = sim->reads_seen, a;
	int e;

	if (!p->in_part)
		return 0;
	p->in_part = false;
	if (p->have_check && memcmp(p->part_total, p->part_check, sizeof(p->part_total)))
		return fail(p, "a part's costs do not add up to its totals line", "totals");
	for (e = 0; e < FT_SIM_NEV; e++) {
		sim->total[e] += p->part_total[e];
		sim->warmup[e] += p->is_warmup ? p->part_total[e] : 0;
	}
	if (!p->is_read)
		return 0;
	if (k >= sim->reads)
		return fail(p, "more reads than asked for", "read");
	a = k / (sim->rounds * sim->nn);
	for (i = 0; i < p->ntouched; i++) {
		struct ft_sim_func *fn = p->touched[i];
		__u64 *dst = &sim->read_ev[((size_t)k * 2 + !fn->library) * FT_SIM_NEV];

		for (e = 0; e < FT_SIM_NEV; e++) {
			fn->ev[a * FT_SIM_NEV + e] += fn->part_ev[e];
			dst[e] += fn->part_ev[e];
		}
		fn->calls[a] += fn->part_calls;
	}
	sim->reads_seen++;
	return 0;
}

static int begin_part(struct parse *p)
{
	if (end_part(p))
		return -1;
	p->in_part = true;
	p->is_read = p->is_warmup = false;
	p->have_check = false;
	p->fn = p->cfn = NULL;
	p->skip_next = false;
	p->ntouched = 0;
	p->sim->stamp++;
	memset(p->part_total, 0, sizeof(p->part_total));
	return 0;
}

/* "events: Ir Dr ...": which column is which event. */
static int read_events(struct parse *p, char *s)
{
	char *tok, *save;

	p->ncol = 0;
	for (tok = strtok_r(s, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		if (p->ncol == (int)(sizeof(p->col) / sizeof(p->col[0])))
			return -1;
		p->col[p->ncol++] = ft_sim_event_find(tok);
	}
	return 0;
}

/* "desc: I1 cache: 32768 B, 64 B, 8-way associative" and the trigger of a dump. */
static void read_desc(struct parse *p, const char *s)
{
	static const char *const lvl[3] = {"I1 cache:", "D1 cache:", "LL cache:"};
	int i;

	for (i = 0; i < 3; i++)
		if (!strncmp(s, lvl[i], strlen(lvl[i]))) {
			snprintf(p->sim->cache[i], sizeof(p->sim->cache[i]), "%s",
				 s + strlen(lvl[i]) + 1);
			p->sim->cache[i][strcspn(p->sim->cache[i], "\n")] = 0;
		}
	if (!strcmp(s, "Trigger: Client Request: read"))
		p->is_read = true;
	if (!strcmp(s, "Trigger: Client Request: warmup"))
		p->is_warmup = true;
}

static int cost_line(struct parse *p, const char *line)
{
	__u64 ev[FT_SIM_NEV];
	int e;

	if (read_costs(p, line, ev, p->npos))
		return fail(p, "bad cost line", line);
	if (p->skip_next) { /* a call's inclusive cost: its callee's lines hold it */
		p->skip_next = false;
		return 0;
	}
	if (!p->fn)
		return fail(p, "a cost before any fn=", line);
	for (e = 0; e < FT_SIM_NEV; e++) {
		p->fn->part_ev[e] += ev[e];
		p->part_total[e] += ev[e];
	}
	return 0;
}

static int parse_line(struct parse *p, char *line)
{
	if (isdigit((unsigned char)line[0]) || line[0] == '+' || line[0] == '-' || line[0] == '*')
		return cost_line(p, line);
	line[strcspn(line, "\n")] = 0;
	if (!strncmp(line, "part:", 5))
		return begin_part(p);
	if (!strncmp(line, "fl=", 3)) {
		snprintf(p->file, sizeof(p->file), "%s", line + 3);
	} else if (!strncmp(line, "fn=", 3)) {
		p->fn = func_get(p->sim, line + 3, p->file);
		if (!p->fn || touch(p, p->fn))
			return fail(p, "out of memory", line);
	} else if (!strncmp(line, "cfn=", 4)) {
		p->cfn = func_get(p->sim, line + 4, "");
		if (!p->cfn || touch(p, p->cfn))
			return fail(p, "out of memory", line);
	} else if (!strncmp(line, "calls=", 6)) {
		if (!p->cfn)
			return fail(p, "calls= without cfn=", line);
		p->cfn->part_calls += strtoull(line + 6, NULL, 10);
		p->skip_next = true;
	} else if (!strncmp(line, "events:", 7)) {
		return read_events(p, line + 7);
	} else if (!strncmp(line, "positions:", 10)) {
		p->npos = 0;
		for (char *s = line + 10; *s; s += strspn(s, " "))
			if (*s != ' ' && ++p->npos)
				s += strcspn(s, " ");
	} else if (!strncmp(line, "desc: ", 6)) {
		read_desc(p, line + 6);
	} else if (!strncmp(line, "creator: ", 9)) {
		snprintf(p->sim->tool, sizeof(p->sim->tool), "valgrind-%s callgrind",
			 line + 9 + (strncmp(line + 9, "callgrind-", 10) ? 0 : 10));
	} else if (!strncmp(line, "totals:", 7)) {
		if (read_costs(p, line + 7, p->part_check, 0))
			return fail(p, "bad totals line", line);
		p->have_check = true;
	}
	/* ob=, fi=, fe=, cob=, cfi=, jump=, summary:, ...: nothing to count */
	return 0;
}

/* Each (algorithm, n): its rounds' median (src/lib/stats.c's), min and max. */
static int fill_cells(struct ft_sim *sim)
{
	double *x = malloc(2 * sizeof(*x) * sim->rounds);
	unsigned int a, j, r, e;

	if (!x)
		return -1;
	for (a = 0; a < sim->nalgo; a++)
		for (j = 0; j < sim->nn; j++) {
			struct ft_sim_cell *c = &sim->cell[a * sim->nn + j];

			for (e = 0; e < FT_SIM_NEV; e++) {
				c->lo[e] = UINT64_MAX;
				c->hi[e] = 0;
				for (r = 0; r < sim->rounds; r++) {
					size_t k = ((size_t)a * sim->rounds + r) * sim->nn + j;
					const __u64 *ev = &sim->read_ev[k * 2 * FT_SIM_NEV];

					c->lo[e] = ev[e] < c->lo[e] ? ev[e] : c->lo[e];
					c->hi[e] = ev[e] > c->hi[e] ? ev[e] : c->hi[e];
					x[r] = ev[e];
					x[sim->rounds + r] = ev[FT_SIM_NEV + e];
				}
				c->lib[e] = stats_median(x, sim->rounds);
				c->out[e] = stats_median(x + sim->rounds, sim->rounds);
			}
		}
	free(x);
	return 0;
}

int ft_sim_parse(struct ft_sim *sim, FILE *f)
{
	struct parse p = {.sim = sim, .npos = 1};
	char *line = NULL;
	size_t cap = 0;
	int err = 0, e;

	while (!err && getline(&line, &cap, f) > 0)
		err = parse_line(&p, line);
	if (!err)
		err = end_part(&p);
	free(line);
	free(p.touched);
	if (!err && sim->reads_seen != sim->reads) {
		snprintf(sim->error, sizeof(sim->error), "%u reads in the output, %u asked for",
			 sim->reads_seen, sim->reads);
		err = -1;
	}
	if (err)
		return err;
	for (size_t k = 0; k < sim->reads; k++)
		for (e = 0; e < FT_SIM_NEV; e++) {
			sim->reads_lib[e] += sim->read_ev[(k * 2) * FT_SIM_NEV + e];
			sim->reads_out[e] += sim->read_ev[(k * 2 + 1) * FT_SIM_NEV + e];
		}
	if (fill_cells(sim)) {
		snprintf(sim->error, sizeof(sim->error), "out of memory");
		return -1;
	}
	return 0;
}
