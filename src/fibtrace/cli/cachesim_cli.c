// SPDX-License-Identifier: GPL-2.0
/*
 * --cachesim from the command line: the sweep's reads simulated
 * (cachesim_run.c), reported alone or by --compare --metric sim:EVENT
 * (ft_sim_cli_only), or kept for the traced run's report (ft_sim_cli_join).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cachesim/cachesim.h"
#include "cli.h"
#include "fibdev.h"
#include "report/report.h"

/* The sweep's reads under callgrind (cachesim.c); @algos NULL: the library's default. */
static int simulate(const struct ft_cli *cli, const char *algos, struct ft_sim *sim)
{
	struct ft_sim_opts o = {
		.geometry = cli->sim_cache,
		.algos = algos,
		.rounds = cli->repeat,
		.verbose = cli->verbose,
	};
	uint64_t count = u64_range_count(&cli->range), v = cli->range.first;
	__u64 *n;
	int err;

	if (count > FT_SIM_MAX_N) {
		fprintf(stderr,
			"fibtrace: --cachesim simulates at most %d distinct n; --sweep holds "
			"%" PRIu64 " (a larger STEP)\n",
			FT_SIM_MAX_N, count);
		return -FT_EXIT_USAGE;
	}
	n = malloc(count * sizeof(*n));
	if (!n)
		return -FT_EXIT_ERROR;
	for (o.nn = 0; o.nn < count; o.nn++, v += cli->range.step)
		n[o.nn] = v;
	o.n = n;
	err = ft_sim_run(sim, &o);
	free(n);
	return err;
}

/* --cachesim alone, or --compare algos --metric sim:EVENT: no kernel, no root. */
int ft_sim_cli_only(const struct ft_cli *cli)
{
	struct ft_sim sim = {};
	int err = simulate(cli, cli->algo_list, &sim);

	if (!err && cli->sim_metric >= 0)
		err = ft_sim_compare_report(stdout, &sim, cli->sim_metric, cli->cmp.baseline,
					    ft_cli_output(cli));
	else if (!err)
		ft_sim_report(stdout, &sim, ft_cli_output(cli), cli->all);
	if (!err)
		err = ft_report_flushed();
	if (!err && cli->plot && ft_sim_plot(&sim, cli->plot))
		err = -FT_EXIT_ERROR;
	ft_sim_free(&sim);
	return err;
}

/* --cachesim=join: the traced sweep's algorithms (or the device's default) simulated. */
int ft_sim_cli_join(const struct ft_cli *cli, struct ft_run *run, struct ft_sim *sim)
{
	char name[FIBDRV_ALGO_NAME_MAX];
	int fd, err;

	if (!cli->algo_list) {
		fd = fibdev_open(cli->device, NULL, -1, "fibtrace");
		err = fd < 0 || fibdev_get_algo(fd, name, sizeof(name));
		if (fd >= 0)
			close(fd);
		if (err)
			return -FT_EXIT_ERROR;
	}
	err = simulate(cli, cli->algo_list ? cli->algo_list : name, sim);
	if (!err)
		run->sim = sim;
	return err;
}
