// SPDX-License-Identifier: GPL-2.0
/* The CSV report: the function table, a blank line, the per-n table. */
#include <inttypes.h>
#include <stdlib.h>

#include "aggregate.h"
#include "report.h"

void ft_report_csv(FILE *f, struct ft_run *run)
{
	struct ft_targets *tg = run->targets;
	struct ft_pern *rows;
	size_t nrows, i;
	int k;

	fprintf(f,
		"function,module,attach,count,total_ns,self_ns,min_ns,max_ns,p50_ns,p90_ns,p99_ns");
	ft_counters_csv_func_head(f, run);
	fputc('\n', f);
	for (k = 0; k < tg->count; k++) {
		struct ft_target *t = &tg->t[k];

		if (!t->attached && !t->unavailable)
			continue;
		fprintf(f,
			"%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
			t->name, t->module[0] ? t->module : "vmlinux", ft_attach_name(t),
			(uint64_t)t->st.count, (uint64_t)t->st.total_ns, (uint64_t)t->st.self_ns,
			(uint64_t)t->st.min_ns, (uint64_t)t->st.max_ns,
			(uint64_t)ft_hist_percentile(&run->hist, &t->st, 0.5),
			(uint64_t)ft_hist_percentile(&run->hist, &t->st, 0.9),
			(uint64_t)ft_hist_percentile(&run->hist, &t->st, 0.99));
		ft_counters_csv_func(f, run, t);
		fputc('\n', f);
	}
	nrows = ft_pern_build(run, &rows);
	if (nrows) {
		fprintf(f, "\nalgo,n,count,median_ns,p90_ns,p99_ns,compute_ns,format_ns,copy_ns,"
			   "rest_ns");
		ft_counters_csv_pern_head(f, run);
		fputc('\n', f);
		for (i = 0; i < nrows; i++) {
			fprintf(f,
				"%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
				ft_algo_name(run, rows[i].algo), (uint64_t)rows[i].n,
				(uint64_t)rows[i].count, (uint64_t)rows[i].median,
				(uint64_t)rows[i].p90, (uint64_t)rows[i].p99,
				(uint64_t)rows[i].compute, (uint64_t)rows[i].format,
				(uint64_t)rows[i].copy, (uint64_t)rows[i].rest);
			ft_counters_csv_pern(f, run, rows[i].algo, rows[i].n);
			fputc('\n', f);
		}
	}
	free(rows);
}
