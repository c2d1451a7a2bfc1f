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

void ft_cli_builds_opts(const struct ft_cli *cli, struct ft_builds_opts *o)
{
	*o = (struct ft_builds_opts){
		.device = cli->device,
		.kos = cli->kos,
		.nko = cli->nko,
		.labels = cli->cmp.labels,
		.attach = cli->attach,
		.benchmark = cli->cmp.kind != 0,
		.funcs = cli->funcs,
		.discover = cli->discover,
		.compensate = cli->compensate,
		.symbol_cache = cli->symbol_cache,
	};
}
