// SPDX-License-Identifier: GPL-2.0
/*
 * The CSV report: the function table, a blank line, the per-n table. The
 * comp_ columns are the compensated figures (equal to the raw ones with
 * --no-compensate); the sim_ columns (--cachesim=join) simulated events.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "cachesim/cachesim.h"
#include "fmt.h"
#include "model/aggregate.h"
#include "report.h"

static void csv_pern_fig(FILE *f, const struct ft_pern_fig *x)
{
	fprintf(f,
		",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
		(uint64_t)x->median, (uint64_t)x->p90, (uint64_t)x->p99, (uint64_t)x->compute,
		(uint64_t)x->format, (uint64_t)x->copy, (uint64_t)x->rest);
}

void ft_report_csv(FILE *f, struct ft_run *run)
{
	struct ft_targets *tg = run->targets;
	const struct ft_pern *rows;
	size_t nrows, i;
	int k;

	fprintf(f,
		"function,module,attach,count,total_ns,self_ns,min_ns,max_ns,p50_ns,p90_ns,p99_ns,"
		"comp_total_ns,comp_self_ns,comp_p50_ns,comp_p90_ns,comp_p99_ns");
	ft_counters_csv_func_head(f, run);
	ft_sim_csv_head(f, run->sim, true);
	fputc('\n', f);
	for (k = 0; k < tg->count; k++) {
		struct ft_target *t = &tg->t[k];
		struct ft_func_fig r, c;

		if (!t->attached && !t->unavailable)
			continue;
		ft_func_figures(&run->hist, &t->st, false, &r);
		ft_func_figures(&run->hist, &t->st, true, &c);
		csv_str(f, t->name);
		fputc(',', f);
		csv_str(f, t->module[0] ? t->module : "vmlinux");
		fprintf(f,
			",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64,
			ft_attach_name(t), (uint64_t)t->st.count, (uint64_t)r.total,
			(uint64_t)r.self, (uint64_t)t->st.min_ns, (uint64_t)t->st.max_ns,
			(uint64_t)r.p50, (uint64_t)r.p90, (uint64_t)r.p99, (uint64_t)c.total,
			(uint64_t)c.self, (uint64_t)c.p50, (uint64_t)c.p90, (uint64_t)c.p99);
		ft_counters_csv_func(f, run, t);
		ft_sim_csv_func(f, run->sim, t->name);
		fputc('\n', f);
	}
	nrows = ft_pern_rows(run, &rows);
	if (nrows) {
		fprintf(f, "\nalgo,n,count,median_ns,p90_ns,p99_ns,compute_ns,format_ns,copy_ns,"
			   "rest_ns,comp_median_ns,comp_p90_ns,comp_p99_ns,comp_compute_ns,"
			   "comp_format_ns,comp_copy_ns,comp_rest_ns");
		ft_counters_csv_pern_head(f, run);
		ft_sim_csv_head(f, run->sim, false);
		fputc('\n', f);
		for (i = 0; i < nrows; i++) {
			csv_str(f, ft_algo_name(run, rows[i].algo));
			fprintf(f, ",%" PRIu64 ",%" PRIu64, (uint64_t)rows[i].n,
				(uint64_t)rows[i].count);
			csv_pern_fig(f, &rows[i].raw);
			csv_pern_fig(f, &rows[i].comp);
			ft_counters_csv_pern(f, run, rows[i].algo, rows[i].n);
			ft_sim_csv_pern(f, run->sim, ft_algo_name(run, rows[i].algo), rows[i].n);
			fputc('\n', f);
		}
	}
}
