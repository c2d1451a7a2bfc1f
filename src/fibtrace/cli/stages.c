// SPDX-License-Identifier: GPL-2.0
/*
 * The options turned into what each stage is given (cli.h): session/ and
 * below never see struct ft_cli.
 */
#include "cli.h"

void ft_cli_watch_opts(const struct ft_cli *cli, struct ft_watch_opts *o)
{
	*o = (struct ft_watch_opts){
		.cmd = cli->ncmd ? cli->cmd : NULL,
		.duration = cli->duration,
		.interval = cli->interval,
		.out = ft_cli_output(cli),
		.hists = cli->hists,
		.as_root = cli->as_root,
	};
}

__u64 ft_cli_sweep_reads(const struct ft_cli *cli)
{
	__u64 algos = 1;
	const char *c;

	if (!cli->sweep)
		return 0;
	for (c = cli->algo_list; c && *c; c++)
		algos += *c == ',';
	return u64_mul_sat(u64_mul_sat(u64_range_count(&cli->range), cli->repeat ? cli->repeat : 1),
			   algos);
}

void ft_cli_builds_opts(const struct ft_cli *cli, struct ft_builds_opts *o)
{
	*o = (struct ft_builds_opts){
		.device = cli->device,
		.kos = cli->kos,
		.nko = cli->nko,
		.labels = cli->cmp.labels,
		.attach = cli->attach,
		.benchmark = cli->cmp.kind != 0,
		.reads = ft_cli_sweep_reads(cli),
		.funcs = cli->funcs,
		.discover = cli->discover,
		.compensate = cli->compensate,
		.symbol_cache = cli->symbol_cache,
	};
}
