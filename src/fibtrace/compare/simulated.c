// SPDX-License-Identifier: GPL-2.0
/*
 * --compare algos --metric sim:EVENT: each algorithm's simulated events per
 * read (cachesim.h) at each n, and the ratio to the baseline's. A count
 * that is the same in every round is exact and the table says so: no
 * interval or test is needed; one that varies (misses, mispredictions) is
 * the median of the rounds and the table says that too.
 */
#include <inttypes.h>
#include <math.h>

#include "cachesim/cachesim.h"
#include "fmt.h"
#include "model/run.h"
#include "report/report.h"

static void compare_text(FILE *f, const struct ft_sim *sim, enum ft_sim_event ev, int base)
{
	bool exact = ft_sim_exact(sim, ev);
	unsigned int a, j;
	char b[32];

	ft_sim_text_header(f, sim);
	fprintf(f, "\ncompare algos on sim:%s per read (the library's functions), baseline %s\n",
		ft_sim_event_name[ev], sim->algo[base]);
	if (sim->rounds < 2)
		fprintf(f, "exactness unchecked: one round (--repeat 2 or more compares them)\n");
	else if (exact)
		fprintf(f,
			"exact: every read gave the same count in all %u round%s, so each value "
			"and ratio is exact: no confidence interval or test is needed\n",
			sim->rounds, sim->rounds > 1 ? "s" : "");
	else
		fprintf(f,
			"not exact: the count varies across rounds (the cache state a read "
			"starts from): medians of %u rounds, min and max in --json\n",
			sim->rounds);
	fprintf(f, "%10s", "n");
	for (a = 0; a < sim->nalgo; a++)
		fprintf(f, " %22.22s%s", sim->algo[a], (int)a == base ? "" : "        ");
	fputc('\n', f);
	for (j = 0; j < sim->nn; j++) {
		double bv = sim->cell[base * sim->nn + j].lib[ev];

		fprintf(f, "%10" PRIu64, (uint64_t)sim->n[j]);
		for (a = 0; a < sim->nalgo; a++) {
			double v = sim->cell[a * sim->nn + j].lib[ev];

			fprintf(f, " %22s", ft_sim_count(b, sizeof(b), v));
			if ((int)a != base)
				fprintf(f, " %6.3fx", bv > 0 ? v / bv : 0);
		}
		fputc('\n', f);
	}
}

static void compare_json(FILE *f, const struct ft_sim *sim, enum ft_sim_event ev, int base)
{
	unsigned int a, j;

	fprintf(f, "{\n  \"meta\": {\"tool\": \"fibtrace 0.2\", \"mode\": \"compare-cachesim\",\n  "
		   "  ");
	ft_sim_json_meta(f, sim);
	fprintf(f, "},\n  \"compare\": {\"metric\": \"sim:%s\", \"baseline\": ",
		ft_sim_event_name[ev]);
	json_str(f, sim->algo[base]);
	fprintf(f, ", \"exact\": %s, \"rows\": [", ft_sim_exact(sim, ev) ? "true" : "false");
	for (j = 0; j < sim->nn; j++) {
		double bv = sim->cell[base * sim->nn + j].lib[ev];

		fprintf(f, "%s\n    {\"n\": %" PRIu64 ", \"variants\": [", j ? "," : "",
			(uint64_t)sim->n[j]);
		for (a = 0; a < sim->nalgo; a++) {
			const struct ft_sim_cell *c = &sim->cell[a * sim->nn + j];

			fprintf(f, "%s{\"name\": ", a ? ", " : "");
			json_str(f, sim->algo[a]);
			fprintf(f, ", \"value\": %.1f, \"min\": %" PRIu64 ", \"max\": %" PRIu64,
				c->lib[ev], (uint64_t)c->lo[ev], (uint64_t)c->hi[ev]);
			json_field(f, "ratio", bv > 0 ? c->lib[ev] / bv : NAN);
			fputc('}', f);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "\n  ]}\n}\n");
}

int ft_sim_compare_report(FILE *f, const struct ft_sim *sim, enum ft_sim_event ev,
			  const char *baseline, int output)
{
	int base = baseline ? ft_sim_algo_index(sim, baseline) : 0;

	if (base < 0) {
		fprintf(stderr, "fibtrace: --baseline %s is not one of the compared algorithms\n",
			baseline);
		return -FT_EXIT_USAGE;
	}
	if (output == FT_OUT_JSON)
		compare_json(f, sim, ev, base);
	else
		compare_text(f, sim, ev, base);
	return 0;
}
