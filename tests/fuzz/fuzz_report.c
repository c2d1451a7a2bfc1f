// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: fibtrace's JSON and CSV writers (src/fibtrace/report_
 * json.c, report_csv.c, src/lib/fmt.c) on names no kernel would give but a
 * module, a device or a user can: function and module names, algorithm
 * names, the kernel release, the clocksource, the attach plan, warnings,
 * with quotes, backslashes, commas, control bytes and invalid UTF-8.
 *
 * The input is NUL-separated strings taken in turn by those fields. Checks:
 * the JSON parses (jansson, which rejects invalid UTF-8) and gives back
 * every name as written (or, for bytes that are not UTF-8, with U+FFFD);
 * every CSV row has the header's number of fields (RFC 4180) and its first
 * field gives back the name.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "report/report.h"

#define NFUNCS 4
#define NALGOS 3

struct words {
	const char *p, *end;
};

/* The next NUL-terminated string of the input ("" once it is used up), copied into @dst. */
static void next(struct words *w, char *dst, size_t size)
{
	size_t len = strnlen(w->p, w->end - w->p);

	snprintf(dst, size, "%.*s", (int)len, w->p);
	w->p += len < (size_t)(w->end - w->p) ? len + 1 : len;
}

/* @got is @want when @want is UTF-8; otherwise it holds U+FFFD. */
static int same_text(const char *got, const char *want)
{
	json_t *s = json_string(want); /* NULL: not valid UTF-8 */
	int ok = s ? !strcmp(got, want) : strstr(got, "\xef\xbf\xbd") != NULL;

	json_decref(s);
	return ok;
}

static void check_json(const char *text, size_t len, const struct ft_run *run)
{
	json_error_t err;
	json_t *doc = json_loadb(text, len, 0, &err), *funcs;
	size_t i;

	if (!doc)
		fprintf(stderr, "fuzz_report: JSON: %s at line %d col %d\n", err.text, err.line,
			err.column);
	CHECK(doc);
	funcs = json_object_get(doc, "functions");
	CHECK(json_array_size(funcs) == (size_t)run->targets->count);
	for (i = 0; i < json_array_size(funcs); i++) {
		const struct ft_target *t = &run->targets->t[i];
		json_t *fn = json_array_get(funcs, i);

		CHECK(same_text(json_string_value(json_object_get(fn, "name")), t->name));
		CHECK(!t->module[0] ||
		      same_text(json_string_value(json_object_get(fn, "module")), t->module));
	}
	CHECK(same_text(json_string_value(json_object_get(json_object_get(doc, "meta"), "kernel")),
			run->kernel));
	json_decref(doc);
}

/* RFC 4180: the fields of the record at *@p (advanced past it); the first one into @first. */
static int csv_record(const char **p, char *first, size_t size)
{
	const char *s = *p;
	size_t flen = 0;
	int fields = 1;

	while (*s && *s != '\n') {
		if (*s == '"') {
			for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
				s += *s == '"'; /* "" is one quote */
				if (fields == 1 && flen + 1 < size)
					first[flen++] = *s;
			}
			CHECK(*s == '"');
			s++;
			CHECK(*s == ',' || *s == '\n' || !*s);
		} else if (*s == ',') {
			fields++;
			s++;
		} else {
			CHECK(*s != '"' && *s != '\r');
			if (fields == 1 && flen + 1 < size)
				first[flen++] = *s;
			s++;
		}
	}
	first[flen] = '\0';
	*p = *s ? s + 1 : s;
	return fields;
}

static void check_csv(const char *text, const struct ft_run *run)
{
	char first[256];
	const char *p = text;
	int head = csv_record(&p, first, sizeof(first)), k;

	for (k = 0; k < run->targets->count; k++) {
		CHECK(csv_record(&p, first, sizeof(first)) == head);
		CHECK(!strcmp(first, run->targets->t[k].name));
	}
	CHECK(*p == '\n'); /* the blank line before the per-n table */
	p++;
	head = csv_record(&p, first, sizeof(first));
	while (*p) {
		CHECK(csv_record(&p, first, sizeof(first)) == head);
		CHECK(fibdev_algo_index(&run->algos, first) >= 0);
	}
}

static char *render(struct ft_run *run, int csv, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	CHECK(f);
	if (csv)
		ft_report_csv(f, run);
	else
		ft_report_json(f, run, NULL, NULL);
	CHECK(!fclose(f));
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ft_targets tg;
	static struct ft_run run;
	struct words w = {(const char *)data, (const char *)data + size};
	char kernel[128], plan[64], reason[256], *text;
	size_t len;
	int k;

	memset(&tg, 0, sizeof(tg));
	memset(&run, 0, sizeof(run));
	run = (struct ft_run){.targets = &tg, .kernel = kernel, .run_mode = "sweep", .cpu = -1};
	next(&w, kernel, sizeof(kernel));
	next(&w, run.clocksource, sizeof(run.clocksource));
	next(&w, plan, sizeof(plan));
	next(&w, reason, sizeof(reason));
	run.startup.plan = plan;
	run.startup.reason = reason;
	for (k = 0; k < NFUNCS; k++) {
		next(&w, tg.t[k].name, sizeof(tg.t[k].name));
		next(&w, tg.t[k].module, sizeof(tg.t[k].module));
		tg.t[k].attached = true;
		tg.t[k].st.count = k;
	}
	tg.count = NFUNCS;
	for (k = 0; k < NALGOS; k++) {
		struct ft_read_rec r = {.n = k, .total_ns = 100 + k, .algo = k, .copy_bytes = 1};

		next(&w, run.algos.name[k], sizeof(run.algos.name[k]));
		run.algos.max_n[k] = 100;
		ft_run_add_rec(&run, &r, FT_READ_REC_SIZE_NO_COUNTERS);
	}
	run.algos.count = NALGOS;
	for (k = 0; k < 3; k++)
		next(&w, run.warnings[run.nwarnings++], sizeof(run.warnings[0]));

	text = render(&run, 0, &len);
	check_json(text, len, &run);
	free(text);
	text = render(&run, 1, &len);
	check_csv(text, &run);
	free(text);
	ft_run_free(&run); /* the records and the per-n rows built from them */
	return 0;
}
