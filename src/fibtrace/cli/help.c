// SPDX-License-Identifier: GPL-2.0
/*
 * fibtrace -h / --help: one page of the options people use, examples first,
 * grouped under headings, laid out by hand so nothing re-wraps an example.
 * --help-all is argp's list of every option; fibtrace(8) documents each.
 * tests/host/test_help.py keeps this page under its line budget and checks
 * that every option it names exists.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static const char page[] =
	"Usage: fibtrace [OPTION...] [-- CMD ARGS...]\n"
	"  or:  fibtrace [OPTION...] --compare builds A.ko B.ko [C.ko...]\n"
	"Where the fibdrv kernel module spends its time, call by call (eBPF).\n"
	"\n"
	"Examples:\n"
	"  sudo fibtrace --sweep 0:1000:10             read F(0..1000), then report\n"
	"  sudo fibtrace -- ./client                   trace while a command runs\n"
	"  sudo fibtrace -d 10 -i 2                    any reader, 10 s, 2-s reports\n"
	"  sudo fibtrace --sweep 0:1000:10 --plot t.png --flamegraph f.svg\n"
	"  sudo fibtrace --compare algos --algo bn-iter,bn-fdouble \\\n"
	"                --sweep 1000:9000:1000 --repeat 20     which algorithm, where\n"
	"  sudo fibtrace --compare builds base.ko head.ko --sweep 100:100100:20000 \\\n"
	"                --repeat 20 --fail-on-regression 1     a CI gate\n"
	"\n"
	"Reads:\n"
	"  -s, --sweep=A:B[:STEP]     read every n from A to B (else: others' reads)\n"
	"  -a, --algo=A[,B...]        algorithms to sweep (default: the device's)\n"
	"      --repeat=R             rounds of the sweep (default 1)\n"
	"  -d, --duration=SECONDS     stop after SECONDS\n"
	"  -i, --interval=SECONDS     a report every SECONDS\n"
	"\n"
	"What is traced:\n"
	"  -f, --func=LIST            also these functions (name, mod:name, 'glob*')\n"
	"      --no-discover          the read path (and -f) only\n"
	"      --attach=PLAN          fentry, multi, kprobe, or auto (default)\n"
	"  -e, --events=LIST          perf counters per call (cycles, instructions...)\n"
	"  -p, --pid=PID              this process only\n"
	"      --no-compensate        raw figures: fibtrace's own cost left in\n"
	"\n"
	"Output:\n"
	"      --format=FORMAT        text (default), json, csv; benchfmt (--compare)\n"
	"  -H, --hist                 every function's histogram\n"
	"      --all                  every section in full\n"
	"      --tree                 the whole call tree\n"
	"      --plot=FILE            time per read versus n, per algorithm (.png, .svg)\n"
	"      --flamegraph=FILE.svg  the call tree as a flame graph\n"
	"      --trace-out=FILE.json  single reads, call by call (Perfetto)\n"
	"\n"
	"Comparing (statistics, or exact under the instruction clock):\n"
	"      --compare=KIND         algos, formats or builds, against a baseline\n"
	"      --baseline=NAME        the baseline (default: the first)\n"
	"      --metric=M             total (default), compute, format, copy, oncpu...\n"
	"      --fail-on-regression=PCT  exit 8 when slower by more than PCT%\n"
	"\n"
	"      --user=USER            CMD, helpers and files as USER; root keeps root\n"
	"\n"
	"  -h, --help                 this page\n"
	"      --help-all             every option\n"
	"  -V, --version              the version\n"
	"\n";

void ft_cli_help(FILE *f)
{
	char *exits = ft_exit_help(""); /* the manual is named below */

	fputs(page, f);
	if (exits) {
		/* The exit statuses, from model/run.c's one list, wrapped at 79 columns. */
		const char *p = exits;
		int col = 0;

		while (*p) {
			int w = 0;

			while (p[w] && p[w] != ' ')
				w++;
			if (col && col + 1 + w > 79) {
				fputc('\n', f);
				col = 0;
			} else if (col) {
				fputc(' ', f);
				col++;
			}
			fprintf(f, "%.*s", w, p);
			col += w;
			p += w;
			while (*p == ' ')
				p++;
		}
		fputc('\n', f);
		free(exits);
	}
	fputs("Every option, the outputs and the JSON schema: fibtrace(8).\n", f);
}
