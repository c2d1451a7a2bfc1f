// SPDX-License-Identifier: GPL-2.0
/*
 * How fibtrace's options combine, checked once all are read (cli.c parses
 * each): a usage error names the flags that clash.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cachesim/cachesim.h"
#include "cli.h"
#include "model/timeline.h"
#include "tracer/kretprobe.h"

/*
 * A usage error: argp prints it and exits FT_EXIT_USAGE; only when the
 * caller asked argp not to exit (ARGP_NO_EXIT: the fuzzer) does it return,
 * and then parsing stops with EINVAL.
 */
int ft_cli_usage(struct argp_state *state, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	argp_error(state, "%s", msg);
	return EINVAL;
}

/* --compare builds A.ko B.ko: the files after the options are the builds. */
static error_t check_builds(struct ft_cli *cli, struct argp_state *state)
{
	if (cli->cmp.labels && cli->cmp.kind != FT_CMP_BUILDS)
		return ft_cli_usage(state, "--labels needs --compare builds");
	if (cli->cmp.kind != FT_CMP_BUILDS)
		return 0;
	if (cli->ncmd < 2)
		return ft_cli_usage(state, "--compare builds needs two or more module files: "
					   "--compare builds A.ko B.ko");
	if (cli->ncmd > FT_CMP_MAX_VARIANTS)
		return ft_cli_usage(state, "--compare builds: at most %d builds",
				    FT_CMP_MAX_VARIANTS);
	if (cli->load || strcmp(cli->device, FIBDRV_DEVICE_PATH))
		return ft_cli_usage(
			state, "--compare builds loads each build itself and finds its device: "
			       "no --load or --device");
	cli->kos = cli->cmd;
	cli->nko = cli->ncmd;
	cli->cmd = NULL;
	cli->ncmd = 0;
	return 0;
}

/* How the options combine, once all are read. */
/*
 * --cachesim (and --metric sim:EVENT) simulates in user space: no root, no
 * kernel, so nothing that traces. --cachesim=join traces the sweep as well.
 */
static int check_cachesim(struct ft_cli *cli, struct argp_state *state)
{
	if (cli->sim_cache && !cli->cachesim)
		return ft_cli_usage(state, "--cache-geometry needs --cachesim");
	if (!cli->cachesim)
		return 0;
	if (!cli->sweep)
		return ft_cli_usage(state, "--cachesim needs --sweep A:B[:STEP]");
	if (cli->cachesim == FT_SIM_JOIN) {
		if (cli->cmp.kind)
			return ft_cli_usage(state,
					    "--cachesim=join does not combine with --compare "
					    "(--compare algos --metric sim:EVENT simulates)");
		return 0;
	}
	if (cli->cmp.kind && (cli->cmp.kind != FT_CMP_ALGOS || cli->sim_metric < 0))
		return ft_cli_usage(state, "--cachesim compares only algorithms, on a simulated "
					   "event: --compare algos --metric sim:EVENT");
	if (cli->counters.nreq || cli->funcs || cli->pid || cli->duration || cli->interval ||
	    cli->load || cli->trace_out || cli->folded || cli->flamegraph || cli->tree_full ||
	    cli->off_cpu || cli->cpu >= 0 || cli->raw || cli->cmp.attribute)
		return ft_cli_usage(
			state, "--cachesim simulates in user space and traces nothing: it takes "
			       "--sweep, --algo, --repeat, --cache-geometry, --json, --csv, --plot, "
			       "--all (--cachesim=join also traces the reads in the kernel)");
	return 0;
}

int ft_cli_check(struct ft_cli *cli, struct argp_state *state)
{
	error_t err;

	if (cli->sim_metric >= 0) { /* --metric sim:EVENT: the comparison is simulated */
		if (!cli->cmp.kind)
			return ft_cli_usage(state, "--metric needs --compare");
		if (cli->cachesim == FT_SIM_JOIN)
			return ft_cli_usage(state, "--metric sim:EVENT and --cachesim=join are "
						   "exclusive");
		cli->cachesim = FT_SIM_ONLY;
	}
	err = check_cachesim(cli, state);
	if (err)
		return err;

	if (cli->cmp.output_set && cli->cmp.output == FT_CMP_JSON)
		cli->json = true;
	if ((cli->cmp.baseline || cli->cmp.strict || cli->cmp.fail_pct >= 0 ||
	     cli->cmp.output == FT_CMP_BENCHFMT || cli->cmp.outliers || cli->cmp.metric ||
	     cli->cmp.max_rows != FT_CMP_DEFAULT_ROWS || cli->cmp.save_benchfmt ||
	     cli->cmp.attribute) &&
	    !cli->cmp.kind)
		return ft_cli_usage(state, "--baseline, --outliers, --metric, --rows, --strict, "
					   "--fail-on-regression, --save-benchfmt, --attribute "
					   "and --format benchfmt need --compare");
	if ((cli->cmp.save_json || cli->save_csv) &&
	    (cli->interval || cli->cachesim == FT_SIM_ONLY))
		return ft_cli_usage(state, "--save-json and --save-csv keep the final report of a "
					   "trace or comparison: not with -i or --cachesim alone");
	if (cli->save_csv && cli->cmp.kind)
		return ft_cli_usage(state, "--save-csv: a comparison has no CSV (--save-json, "
					   "--save-benchfmt)");
	err = check_builds(cli, state);
	if (err)
		return err;
	if (cli->cmp.kind) {
		if (!cli->sweep)
			return ft_cli_usage(state, "--compare needs --sweep A:B[:STEP]");
		if (cli->csv || cli->interval || cli->duration || cli->pid)
			return ft_cli_usage(state,
					    "--compare does not combine with --csv, -i, -d or -p");
		if (cli->json && cli->cmp.output == FT_CMP_BENCHFMT)
			return ft_cli_usage(state, "--json and --format benchfmt are exclusive");
		if (cli->json)
			cli->cmp.output = FT_CMP_JSON;
		cli->cmp.plot = cli->plot;
		/* The read path (and -f) is all it needs, unless asked which functions changed. */
		if (!cli->cmp.attribute)
			cli->discover = false;
	}
	if (cli->json && cli->csv)
		return ft_cli_usage(state, "--json and --csv are exclusive");
	if (cli->sweep && cli->ncmd)
		return ft_cli_usage(state, "--sweep and a command are exclusive");
	if ((cli->algo_list || cli->cpu >= 0 || cli->repeat > 1) && !cli->sweep)
		return ft_cli_usage(state, "--algo, --cpu and --repeat need --sweep");
	if (cli->interval && (cli->sweep || cli->plot))
		return ft_cli_usage(state, "--interval does not combine with --sweep or --plot");
	if ((cli->tree_full || cli->folded || cli->flamegraph || cli->tree_n != FT_TREE_ALL_N) &&
	    (!cli->tree || cli->interval || cli->cmp.kind))
		return ft_cli_usage(
			state, "--tree, --tree-n, --folded and --flamegraph need the call tree "
			       "(not --no-tree) and do not combine with -i or --compare");
	if (cli->trace_reads && !cli->trace_out)
		return ft_cli_usage(state, "--trace-reads needs --trace-out");
	if (cli->trace_out && (cli->interval || cli->cmp.kind))
		return ft_cli_usage(state, "--trace-out does not combine with -i or --compare");
	if (!cli->trace_reads)
		cli->trace_reads = FT_TRACE_READS_DEFAULT;
	if (cli->counters.require && !cli->counters.nreq)
		return ft_cli_usage(state, "--require-counters needs -e");
	/* fibtrace's own reads come from one task; other modes trace any number (kretprobe.h). */
	if (!cli->maxactive)
		cli->maxactive = cli->sweep || cli->cmp.kind ? FT_MAXACTIVE_OWN_READS
							     : FT_MAXACTIVE_ANY_READER;
	return 0;
}
