// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: fibtrace's command line (src/fibtrace/cli/cli.c, and the
 * value parsers it calls: ranges, seconds, -e, --attach, --compare's
 * options). The input is argv: NUL-separated words after "fibtrace". argp
 * is told not to exit (ARGP_NO_EXIT), so a usage error returns.
 *
 * Beyond ASan/UBSan, a parse that succeeds must hold what docs/fibtrace.md
 * promises of each value; a violation traps and libFuzzer keeps the input.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "fuzz_check.h"
#include "model/timeline.h"
#include "tracer/kretprobe.h"

#define MAX_WORDS 24

/* Each -f entry: one or two names around at most one colon, no space, quote or control byte. */
static int entries_ok(const char *list)
{
	char *copy = strdup(list), *save = NULL, *e;
	int ok = copy && list[0] && list[strlen(list) - 1] != ',' && !strstr(list, ",,");

	for (e = copy ? strtok_r(copy, ",", &save) : NULL; ok && e;
	     e = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(e, ':');
		size_t i;

		ok = e[0] != ':' && (!colon || (colon[1] && !strchr(colon + 1, ':')));
		for (i = 0; e[i]; i++)
			ok &= e[i] > ' ' && e[i] < 0x7f && !strchr("\"'`\\,;|&<>(){}", e[i]);
	}
	free(copy);
	return ok;
}

static void check_parsed(const struct ft_cli *c)
{
	CHECK(!c->sweep || (c->range.first <= c->range.last && c->range.step > 0));
	CHECK(!c->sweep || u64_range_count(&c->range) != 0); /* a count that never wrapped */
	CHECK(c->repeat >= 1 && c->repeat <= 1000000);
	CHECK(c->cpu >= -1 && c->cpu < CPU_SETSIZE);
	CHECK(c->hist_cfg.bits <= FT_HIST_MAX_BITS);
	CHECK(!c->hist_cfg.linear ||
	      (c->hist_cfg.lin_min < c->hist_cfg.lin_max && c->hist_cfg.lin_step > 0 &&
	       c->hist_cfg.lin_buckets <= FT_HIST_SLOTS - 2));
	CHECK(c->maxactive >= 1 && c->maxactive <= FT_MAXACTIVE_MAX);
	CHECK(c->pid <= INT32_MAX);
	CHECK(c->duration == 0 ||
	      (isfinite(c->duration) && c->duration > 0 && c->duration <= FT_SECONDS_MAX));
	CHECK(c->interval == 0 ||
	      (isfinite(c->interval) && c->interval > 0 && c->interval <= FT_SECONDS_MAX));
	CHECK(c->trace_reads >= 1 && c->trace_reads <= FT_TRACE_READS_MAX);
	CHECK(!c->ringbuf_bytes || !(c->ringbuf_bytes & (c->ringbuf_bytes - 1)));
	CHECK(!c->funcs || entries_ok(c->funcs));
	CHECK(!(c->json && c->csv));
	CHECK(!(c->sweep && c->ncmd));
	CHECK(!c->cmp.kind || c->sweep);
	CHECK(c->cmp.kind != FT_CMP_BUILDS || (c->nko >= 2 && c->nko <= FT_CMP_MAX_VARIANTS));
	CHECK(c->cmp.fail_pct < 0 || isfinite(c->cmp.fail_pct));
	CHECK(c->counters.nreq <= FT_MAX_EVENTS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *words[MAX_WORDS + 2], *buf = malloc(size + 1);
	struct ft_cli cli;
	int argc = 1;
	size_t i = 0;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	words[0] = (char *)"fibtrace";
	while (i < size && argc <= MAX_WORDS) { /* "a\0b\0" -> "a", "b"; a trailing word too */
		words[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	words[argc] = NULL;
	if (!ft_cli_parse(&cli, argc, words, ARGP_NO_EXIT | ARGP_NO_ERRS | ARGP_NO_HELP))
		check_parsed(&cli);
	ft_cli_free(&cli); /* also after a refusal: a repeated -f may have been joined */
	free(buf);
	return 0;
}
