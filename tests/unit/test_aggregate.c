// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of fibtrace's aggregation and reports (src/fibtrace/model/aggregate.c,
 * run.c, report_*.c), linked without libbpf: histogram bounds and
 * percentiles, the per-(algo, n) table (type-7 quantiles, worked out by hand
 * below), the breakdown, copy rows, counter sums and medians, interval
 * deltas, the JSON/text layout, the --algo parser and the exit-status help.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/aggregate.h"
#include "model/tree.h"
#include "report/report.h"

static int failures;

static void check(const char *name, int ok)
{
	printf("%s aggregate.%s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

static struct ft_targets targets;

static void add_rec(struct ft_run *run, unsigned int algo, __u64 n, __u64 total, __u64 compute,
		    __u64 format, __u64 copy, __u64 bytes, __s64 ret)
{
	struct ft_read_rec r = {
		.n = n, .total_ns = total, .algo = algo, .ret = ret, .copy_bytes = bytes};

	r.stage_ns[0] = compute;
	r.stage_ns[1] = format;
	r.stage_ns[2] = copy;
	ft_run_add_rec(run, &r, FT_READ_REC_SIZE_NO_COUNTERS);
}

static void test_hist_bounds(void)
{
	struct ft_hist_cfg cfg = {};
	__u64 lo, hi, plo, phi;
	unsigned int bits, i;
	int contiguous = 1;

	ft_hist_bounds(&cfg, 3, &lo, &hi);
	check("hist.log2.bucket3", lo == 4 && hi == 7);
	cfg.bits = 2;
	ft_hist_bounds(&cfg, 8, &lo, &hi);
	check("hist.sub2.bucket8", lo == 8 && hi == 9);
	for (bits = 0; bits <= FT_HIST_MAX_BITS; bits++) {
		cfg.bits = bits;
		ft_hist_bounds(&cfg, 0, &plo, &phi);
		for (i = 1; i < (60u << bits); i++) {
			ft_hist_bounds(&cfg, i, &lo, &hi);
			if (lo != phi + 1 || hi < lo)
				contiguous = 0;
			phi = hi;
		}
	}
	check("hist.log2.contiguous", contiguous);
	cfg = (struct ft_hist_cfg){
		.linear = true, .lin_min = 100, .lin_max = 200, .lin_step = 10, .lin_buckets = 10};
	ft_hist_bounds(&cfg, 0, &lo, &hi);
	check("hist.linear.below", lo == 0 && hi == 99);
	ft_hist_bounds(&cfg, 1, &lo, &hi);
	check("hist.linear.first", lo == 100 && hi == 109);
	ft_hist_bounds(&cfg, 11, &lo, &hi);
	check("hist.linear.above", lo == 200 && hi == UINT64_MAX);
	check("hist.linear.nbuckets", ft_hist_nbuckets(&cfg) == 12);
}

static void test_hist_percentile(void)
{
	static struct ft_func_stats st;
	struct ft_hist_cfg cfg = {};

	check("pct.empty", ft_hist_percentile(&cfg, &st, 0.5) == 0);
	/* 50 calls in [4, 7], 50 in [8, 15]; min 4, max 15. */
	st.count = 100;
	st.min_ns = 4;
	st.max_ns = 15;
	st.hist[3] = 50;
	st.hist[4] = 50;
	check("pct.p50", ft_hist_percentile(&cfg, &st, 0.5) == 7);   /* 4 + 3 * 50/50 */
	check("pct.p90", ft_hist_percentile(&cfg, &st, 0.9) == 13);  /* 8 + 7 * 40/50 */
	check("pct.p99", ft_hist_percentile(&cfg, &st, 0.99) == 14); /* 8 + 7 * 49/50 */
	st.max_ns = 9; /* the last bucket is clipped to the maximum */
	check("pct.clipped", ft_hist_percentile(&cfg, &st, 0.99) == 8);
}

static void test_pern(struct ft_run *run)
{
	const struct ft_pern *rows, *again;
	size_t n;

	/* Out of order on purpose: the build sorts by (algo, n). */
	add_rec(run, 1, 5, 1000, 100, 100, 100, 8, 8);
	add_rec(run, 0, 10, 400, 40, 4, 4, 100, 3);
	add_rec(run, 0, 10, 100, 10, 1, 1, 100, 3);
	add_rec(run, 0, 10, 300, 30, 3, 30, 50, 3);
	add_rec(run, 0, 10, 200, 200, 50, 0, 0, -22);
	n = ft_pern_rows(run, &rows);
	check("pern.built-once", ft_pern_rows(run, &again) == n && again == rows);
	check("pern.rows", n == 2 && rows[0].algo == 0 && rows[0].n == 10 && rows[1].algo == 1);
	/* Totals 100 200 300 400, type 7: median 250, p90 370, p99 397. */
	check("pern.median", n && rows[0].raw.median == 250);
	check("pern.p90", n && rows[0].raw.p90 == 370);
	check("pern.p99", n && rows[0].raw.p99 == 397);
	check("pern.minmax", n && rows[0].min == 100 && rows[0].max == 400);
	check("pern.count", n && rows[0].count == 4 && rows[0].errors == 1);
	/* compute 10 30 40 200 -> 35; format 1 3 4 50 -> 3.5 -> 4; copy 0 1 4 30 -> 2.5 -> 3 */
	check("pern.breakdown",
	      n && rows[0].raw.compute == 35 && rows[0].raw.format == 4 && rows[0].raw.copy == 3);
	/* rest: 100-12=88, 400-48=352, 300-63=237, 200-250 -> 0: median of 0 88 237 352 */
	check("pern.rest", n && rows[0].raw.rest == 163);
	check("pern.parts_over_total", n && rows[0].parts_over_total == 1);
	check("pern.single", n == 2 && rows[1].raw.median == 1000 && rows[1].raw.p99 == 1000);
}

/* The model is built once per set of records: rebuilt after a record, emptied with them. */
static void test_pern_model(void)
{
	struct ft_run run = {.targets = &targets, .kernel = "test", .run_mode = "sweep", .cpu = -1};
	const struct ft_pern *rows;

	add_rec(&run, 0, 10, 400, 40, 4, 4, 100, 3);
	check("pern.model.first", ft_pern_rows(&run, &rows) == 1 && rows[0].n == 10);
	add_rec(&run, 2, 7, 500, 50, 5, 5, 10, 3);
	check("pern.model.rebuilt", ft_pern_rows(&run, &rows) == 2 && rows[1].algo == 2);
	ft_run_clear_recs(&run);
	check("pern.model.cleared", ft_pern_rows(&run, &rows) == 0 && !run.nrecs);
	ft_run_free(&run);
	check("pern.model.freed", !run.recs && !run.pern && !run.npern);
}

static void test_copy(const struct ft_run *run)
{
	struct ft_copy_row *rows;
	size_t n = ft_copy_build(run, &rows);

	/* Reads with a copy: 100 bytes twice (4 + 1 ns), 50 bytes (30), 8 bytes (100). */
	check("copy.rows",
	      n == 3 && rows[0].bytes == 8 && rows[1].bytes == 50 && rows[2].bytes == 100);
	check("copy.sum", n == 3 && rows[2].count == 2 && rows[2].ns == 5);
	free(rows);
}

static void test_counters(void)
{
	static struct ft_counters c;
	struct ft_run run = {.targets = &targets, .counters = &c};
	struct ft_cnt_delta d = {.value = 10, .enabled = 200, .running = 100};
	struct ft_read_rec r = {.n = 7, .cnt_status = FT_CNT_OK};
	static const __u64 vals[] = {3, 1, 2};
	struct ft_pern_cnt p;
	const struct ft_pern *rows;
	unsigned int i;

	check("cnt.scaled", ft_cnt_scaled(&d) == 20 && ft_cnt_is_scaled(&d));
	check("cnt.running_pct", ft_cnt_running_pct(&d) == 50);
	c.nev = 1;
	for (i = 0; i < 3; i++) {
		r.cnt[0] = (struct ft_cnt_delta){.value = vals[i], .enabled = 5, .running = 5};
		ft_run_add_rec(&run, &r, sizeof(r));
	}
	r.cnt_status = FT_CNT_SWITCHED;
	ft_run_add_rec(&run, &r, sizeof(r));
	ft_pern_rows(&run, &rows); /* sorts the records */
	ft_pern_counters(&run, 0, 7, &p);
	check("cnt.pern.kept", p.kept == 3 && p.discarded == 1);
	check("cnt.pern.sum", p.sum[0].value == 6 && p.sum[0].enabled == 15);
	check("cnt.pern.median", p.median[0] == 2);
	ft_run_free(&run);
}

static void test_interval(void)
{
	struct ft_run run = {.targets = &targets};
	struct ft_interval_prev prev[1] = {};
	__u64 prev_lost[FT_LOST_NR] = {};

	memset(&targets, 0, sizeof(targets));
	targets.count = 1;
	targets.t[0].st.count = 10;
	targets.t[0].st.hist[3] = 10;
	targets.t[0].cnt.kept = 4;
	run.lost[FT_LOST_RINGBUF] = 2;
	ft_interval_delta(&run, prev, prev_lost);
	check("interval.first", targets.t[0].st.count == 10 && run.lost[FT_LOST_RINGBUF] == 2);
	targets.t[0].st.count = 25;
	targets.t[0].st.hist[3] = 25;
	targets.t[0].cnt.kept = 9;
	run.lost[FT_LOST_RINGBUF] = 3;
	ft_interval_delta(&run, prev, prev_lost);
	check("interval.delta", targets.t[0].st.count == 15 && targets.t[0].st.hist[3] == 15 &&
					targets.t[0].cnt.kept == 5 &&
					run.lost[FT_LOST_RINGBUF] == 1);
}

static void extra_section(FILE *f, void *ctx)
{
	(void)ctx;
	fprintf(f, "  \"extra\": 1");
}

static char *render(struct ft_run *run, int kind)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (kind == 0)
		ft_report_json(f, run, NULL, NULL);
	else if (kind == 1)
		ft_report_json(f, run, extra_section, NULL);
	else if (kind == 3)
		ft_report_text(f, run, FT_HISTS_READ);
	else
		ft_report_text(f, run, FT_HISTS_ALL);
	fclose(f);
	return text;
}

static size_t text_lines(const char *t)
{
	size_t n = 0;

	for (; *t; t++)
		n += *t == '\n';
	return n;
}

/* The widest line, in characters (the ± sign counts once). */
static size_t text_width(const char *t)
{
	size_t w = 0, max = 0;

	for (; *t; t++) {
		if (*t == '\n') {
			max = w > max ? w : max;
			w = 0;
		} else if (((unsigned char)*t & 0xc0) != 0x80) {
			w++;
		}
	}
	return max;
}

static void test_reports(struct ft_run *run)
{
	char *j = render(run, 0), *s = render(run, 1), *t = render(run, 2);
	size_t ls = strlen(s);

	check("json.shape", !strncmp(j, "{\n  \"meta\": {", 13) && strstr(j, "\n}\n") &&
				    !strcmp(j + strlen(j) - 3, "\n}\n"));
	check("json.median",
	      strstr(j, "\"n\": 10, \"count\": 4, \"errors\": 1, \"median_ns\": 250,") != NULL);
	check("json.section", ls > 18 && !strcmp(s + ls - 18, "},\n  \"extra\": 1\n}\n"));
	check("text.pern",
	      strstr(t, "fib_read per n (exact, from 5 read records") && strstr(t, "250ns"));
	check("text.lost",
	      strstr(t, "\nlost: nothing (every loss counter 0) recursion_misses 0") != NULL);
	free(t);
	t = render(run, 3);
	check("text.default.budget", text_lines(t) <= 50 && text_width(t) <= 100);
	check("text.default.header",
	      !strncmp(t, "fibtrace: kernel test, clock ", 29) && strstr(t, "\nthe read path:\n"));
	run->all = true;
	free(t);
	t = render(run, 2);
	run->all = false;
	check("text.lost_all", strstr(t, "\nlost: unmatched_exit 0 unwound 0") != NULL);
	check("text.all_functions", strstr(t, "every traced function:") != NULL);
	check("lost_names", ({
		      int k, ok = 1;
		      for (k = 0; k < FT_LOST_NR; k++)
			      ok &= ft_lost_names[k] != NULL;
		      ok;
	      }));
	free(j);
	free(s);
	free(t);
}

/* One tree node: path ids are made up (BPF hashes them); slot = target index here. */
static void add_tnode(struct ft_run *run, __u64 path, __u64 parent, __u32 slot, __u64 count,
		      __u64 folded, __u64 total, __u64 self)
{
	struct ft_tnode *n = &run->tree[run->ntree++];

	memset(n, 0, sizeof(*n));
	n->key = (struct ft_tree_key){.path = path, .parent = parent, .slot = slot, .algo = 0};
	n->v = (struct ft_tree_node){
		.count = count, .folded = folded, .total_ns = total, .self_ns = self};
}

/*
 * fib_read (1000) -> compute (900) -> mul (850, 10 calls, 4 folded) -> tiny (5)
 *                 -> format (90): self 10 + 50 + 845 + 5 + 90 = 1000; a
 * calibration path (slot 9 >= targets.count) and a node of 0 calls dropped.
 */
static void test_tree(struct ft_run *run)
{
	static const char *const names[] = {"fib_read", "fibdrv_compute", "fibdrv_format", "bn_mul",
					    "bn_tiny"};
	char *text = NULL, *json = NULL, line[256];
	size_t len = 0, i;
	char path[] = "/tmp/test_tree_XXXXXX";
	FILE *f;
	long sum = 0;
	int fd;

	for (i = 0; i < 5; i++) {
		snprintf(targets.t[i].name, sizeof(targets.t[i].name), "%s", names[i]);
		targets.t[i].slot = i;
	}
	targets.count = 5;
	run->tree = calloc(8, sizeof(*run->tree));
	run->tree_on = true;
	run->tree_n = FT_TREE_ALL_N;
	add_tnode(run, 50, 40, 4, 3, 0, 5, 5);
	add_tnode(run, 10, 0, 0, 2, 0, 1000, 10);
	add_tnode(run, 30, 10, 2, 2, 0, 90, 90);
	add_tnode(run, 20, 10, 1, 2, 0, 900, 50);
	add_tnode(run, 40, 20, 3, 10, 4, 850, 845);
	add_tnode(run, 60, 0, 9, 5, 0, 100, 100);
	add_tnode(run, 70, 10, 3, 0, 0, 0, 0);
	check("tree.link", !ft_tree_link(run) && run->ntree == 5);
	check("tree.root", run->tree_root >= 0 && run->tree[run->tree_root].key.path == 10 &&
				   run->tree[run->tree_root].next < 0);
	check("tree.hottest_first",
	      run->tree[run->tree[run->tree_root].child].key.path == 20 &&
		      run->tree[run->tree[run->tree[run->tree_root].child].next].key.path == 30);
	f = open_memstream(&text, &len);
	ft_tree_text(f, run);
	fclose(f);
	check("tree.text", strstr(text, "  fib_read\n") && strstr(text, "├─ fibdrv_compute\n") &&
				   strstr(text, "│  └─ bn_mul\n") &&
				   strstr(text, "└─ fibdrv_format\n") &&
				   !strstr(text, "more path") && !strstr(text, "bn_tiny"));
	free(text);
	run->tree_full = true;
	f = open_memstream(&text, &len);
	ft_tree_text(f, run);
	fclose(f);
	run->tree_full = false;
	check("tree.text_full", strstr(text, "│     └─ bn_tiny\n") != NULL);
	f = open_memstream(&json, &len);
	ft_tree_json(f, run);
	fclose(f);
	check("tree.json",
	      strstr(json, "{\"path\": [\"fib_read\", \"fibdrv_compute\", \"bn_mul\", "
			   "\"bn_tiny\"], \"algo\": ") &&
		      strstr(json, "\"count\": 10, \"recursive\": 4, \"total_ns\": 850, "
				   "\"self_ns\": 845, \"avg_ns\": 141"));
	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	check("tree.folded_written", fd >= 0 && !ft_tree_folded(run, path));
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *sp = strrchr(line, ' ');

		sum += sp && !strncmp(line, "fib_read", 8) ? atol(sp + 1) : 0;
	}
	if (f)
		fclose(f);
	unlink(path);
	check("tree.folded_adds_up", sum == 1000);
	free(text);
	free(json);
	free(run->tree);
	run->tree = NULL;
	run->ntree = 0;
	targets.count = 0;
}

static void test_algo_list(struct ft_run *run)
{
	int ids[4];

	run->algos.count = 2;
	strcpy(run->algos.name[0], "a");
	run->algos.max_n[0] = 100;
	strcpy(run->algos.name[1], "b");
	run->algos.max_n[1] = 50;
	check("algos.ok", ft_algo_list_parse(run, "b,a", 40, ids, 4, "--algo") == 2 &&
				  ids[0] == 1 && ids[1] == 0);
	check("algos.unknown",
	      ft_algo_list_parse(run, "a,c", 40, ids, 4, "--algo") == -FT_EXIT_USAGE);
	check("algos.max_n", ft_algo_list_parse(run, "b", 60, ids, 4, "--algo") == -FT_EXIT_USAGE);
	check("algos.too_many",
	      ft_algo_list_parse(run, "a,a,a", 1, ids, 2, "--algo") == -FT_EXIT_USAGE);
}

/* --max-records: records past the bound are counted, warned once, and not kept. */
static void test_record_cap(void)
{
	struct ft_run run = {.targets = &targets, .kernel = "test", .max_recs = 2};
	int i;

	for (i = 0; i < 5; i++)
		add_rec(&run, 0, i, 100, 10, 20, 30, 8, 8);
	check("records.cap",
	      run.nrecs == 2 && run.caprecs == 2 && run.recs_dropped == 3 && run.recs[1].n == 1);
	check("records.warned_once",
	      run.nwarnings == 1 && strstr(run.warnings[0], "--max-records"));
	free(run.recs);
}

int main(void)
{
	struct ft_run run = {.targets = &targets, .kernel = "test", .run_mode = "sweep", .cpu = -1};
	char *help = ft_exit_help(" See fibtrace(8).");

	test_hist_bounds();
	test_hist_percentile();
	test_pern(&run);
	test_pern_model();
	test_copy(&run);
	test_counters();
	test_reports(&run);
	test_algo_list(&run);
	test_tree(&run);
	test_interval();
	test_record_cap();
	check("exit_status.ok", ft_exit_status(0) == FT_EXIT_OK);
	check("exit_status.usage", ft_exit_status(-FT_EXIT_USAGE) == 2);
	check("exit_status.regression", ft_exit_status(-FT_EXIT_REGRESSION) == 8);
	check("exit_status.errno", ft_exit_status(-4095) == FT_EXIT_ERROR);
	check("exit_status.positive", ft_exit_status(3) == FT_EXIT_ERROR);
	check("exit_help", help && strstr(help, "8 --fail-on-regression found a regression, 9 "));
	free(help);
	ft_run_free(&run);
	return failures ? 1 : 0;
}
