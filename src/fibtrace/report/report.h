/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fibtrace's reports of one run: text (funclatency-style histograms, the
 * function table, the per-n table), one JSON document
 * (docs/fibtrace.schema.json) and CSV; the plot (plot.c). Numbers come from
 * aggregate.h; each report only lays them out.
 */
#ifndef FIBTRACE_REPORT_H
#define FIBTRACE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "cachesim/cachesim.h"
#include "model/run.h"

enum ft_output { FT_OUT_TEXT, FT_OUT_JSON, FT_OUT_CSV };

/* Text histograms: none (--no-hist), fib_read's (default), every function's (--hist). */
enum ft_hists { FT_HISTS_NONE, FT_HISTS_READ, FT_HISTS_ALL };

/*
 * The report of a run in the chosen output. Text fits about a screen unless
 * run->all: the read path, the hottest functions, the call tree's paths of
 * 5% and more, the per-n table sampled, the losses that are not 0.
 */
void ft_report(FILE *f, struct ft_run *run, enum ft_output out, enum ft_hists hists);
int ft_report_save(struct ft_run *run, const char *path, enum ft_output out, enum ft_hists hists);
void ft_report_text(FILE *f, struct ft_run *run, enum ft_hists hists);
int ft_report_flushed(void); /* stdout flushed: 0, or -FT_EXIT_ERROR with a message */
/*
 * The JSON document. With @section, ",\n" then section(f, ctx), which
 * prints more top-level members (--compare's), then the closing brace.
 */
void ft_report_json(FILE *f, struct ft_run *run, void (*section)(FILE *f, void *ctx), void *ctx);
void ft_report_csv(FILE *f, struct ft_run *run);
/*
 * --trace-out: the timeline's reads (model/timeline.c) written as a Chrome
 * trace (timeline_write.c): one complete event per call (fib_read's with
 * algorithm, n, bytes, return value from its read record), -e counters as
 * counter events, non-zero loss counters as instant events. Prints the
 * reads, events and size on stderr. 0 or -1.
 */
int ft_timeline_write(const struct ft_run *run);
/* tree_views.c, the call tree (model/tree.h) as text, JSON, folded stacks, flame graph. */
/* Text: every root's tree; without run->tree_full, paths under 5% of their root summarised (all
 * with run->all). */
void ft_tree_text(FILE *f, const struct ft_run *run);
/* JSON: ",\n  \"call_tree\": [nodes in depth-first order]". */
void ft_tree_json(FILE *f, const struct ft_run *run);
/* Folded stacks, "root;...;leaf SELF_NS" per path (merged across algorithms): 0 or -errno. */
int ft_tree_folded(const struct ft_run *run, const char *path);
/* --flamegraph FILE.svg: the folded stacks rendered by inferno-flamegraph: 0 or -1. */
int ft_tree_flamegraph(const struct ft_run *run, const char *path);

/*
 * The one file writer: @path opened, filled by @fill(f, ctx) (0, or -1 when
 * it could not write everything), every byte checked to have reached it
 * (ferror, fclose). 0, or -1 after saying why.
 */
int ft_write_file(const char *path, int (*fill)(FILE *f, void *ctx), void *ctx);
/* The same into @f, already open on @path (NULL: errno says why not); closes @f. */
int ft_write_stream(FILE *f, const char *path, int (*fill)(FILE *f, void *ctx), void *ctx);
/* --plot FILE.svg|png: latency versus n and the breakdown; 0 or -1. */
int ft_plot(struct ft_run *run, const char *path);

/* report_counters.c: the counter parts of each report; nothing without -e. */
void ft_counters_text(FILE *f, struct ft_run *run);
void ft_counters_text_pern(FILE *f, struct ft_run *run); /* recs sorted by (algo, n) */
void ft_counters_json_meta(FILE *f, const struct ft_run *run);
void ft_counters_json_func(FILE *f, const struct ft_run *run, const struct ft_target *t);
void ft_counters_json_pern(FILE *f, const struct ft_run *run, unsigned int algo, __u64 n);
void ft_counters_json_rec(FILE *f, const struct ft_run *run, const struct ft_read_rec *x);
void ft_counters_csv_func_head(FILE *f, const struct ft_run *run);
void ft_counters_csv_func(FILE *f, const struct ft_run *run, const struct ft_target *t);
void ft_counters_csv_pern_head(FILE *f, const struct ft_run *run);
void ft_counters_csv_pern(FILE *f, const struct ft_run *run, unsigned int algo, __u64 n);

/* report_cachesim.c: --cachesim alone (text, JSON, CSV); plot.c: --plot. */
void ft_sim_report(FILE *f, const struct ft_sim *sim, int output, bool all);
int ft_sim_plot(const struct ft_sim *sim, const char *path);
/* Beside a kernel trace of the same reads: a section of the text report, JSON fields, CSV. */
void ft_sim_text_join(FILE *f, const struct ft_run *run);
void ft_sim_json_meta(FILE *f, const struct ft_sim *sim);
void ft_sim_json_func(FILE *f, const struct ft_sim *sim, const char *name);
void ft_sim_json_pern(FILE *f, const struct ft_sim *sim, const char *algo, __u64 n);
void ft_sim_csv_head(FILE *f, const struct ft_sim *sim, bool funcs);
void ft_sim_csv_func(FILE *f, const struct ft_sim *sim, const char *name);
void ft_sim_csv_pern(FILE *f, const struct ft_sim *sim, const char *algo, __u64 n);
/* The header every simulated report starts with; a count in four significant digits. */
void ft_sim_text_header(FILE *f, const struct ft_sim *sim);
const char *ft_sim_count(char *buf, size_t len, double v);

#endif
