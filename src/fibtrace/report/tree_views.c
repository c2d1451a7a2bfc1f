// SPDX-License-Identifier: GPL-2.0
/*
 * The call tree's views (model/tree.c links it): the text tree, JSON
 * "call_tree", folded stacks (--folded) and the flame graph inferno draws
 * from them (--flamegraph). See report.h and docs/views.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fmt.h"
#include "helper.h"
#include "model/tree.h"
#include "report.h"

#define TREE_MIN_SHARE 0.05 /* the default text tree hides paths under 5% of their root */

/* ---------- shared by the views ---------- */

static const char *tnode_name(const struct ft_run *run, const struct ft_tnode *n)
{
	return run->targets->t[n->target].name;
}

static const struct ft_tnode *tnode_root(const struct ft_run *run, const struct ft_tnode *n)
{
	int d;

	for (d = 0; n->parent >= 0 && d < FT_STACK_DEPTH; d++)
		n = &run->tree[n->parent];
	return n;
}

/* Calls that are not folded recursion: the ones whose durations make the total. */
static __u64 outer_calls(const struct ft_tnode *n)
{
	return n->v.count - n->v.folded;
}

/* The path of @n, root first, into @idx (room for FT_STACK_DEPTH + 1): its length. */
static int tnode_path(const struct ft_run *run, int i, int *idx)
{
	int len = 0, k;

	for (; i >= 0 && len <= FT_STACK_DEPTH; i = run->tree[i].parent)
		idx[len++] = i;
	for (k = 0; k < len / 2; k++) {
		int t = idx[k];

		idx[k] = idx[len - 1 - k];
		idx[len - 1 - k] = t;
	}
	return len;
}

/* ---------- text ---------- */

struct tree_text {
	FILE *f;
	const struct ft_run *run;
	__u64 root_total; /* raw: what the 5% rule compares with */
	char prefix[4 * FT_STACK_DEPTH + 8];
};

static void text_row(struct tree_text *tt, __u64 total, __u64 self, __u64 avg, __u64 calls,
		     __u64 folded, double share, const char *branch, const char *name)
{
	char a[32], b[32], c[32], d[32], e[32];

	fmt_ns(a, sizeof(a), (double)total, FMT_NS_COARSE);
	fmt_ns(b, sizeof(b), (double)self, FMT_NS_COARSE);
	strcpy(c, "-");
	if (calls)
		fmt_ns(c, sizeof(c), (double)avg, FMT_NS_COARSE);
	snprintf(d, sizeof(d), "%" PRIu64, (uint64_t)folded);
	snprintf(e, sizeof(e), "%" PRIu64, (uint64_t)calls);
	fprintf(tt->f, "%9s %9s %9s %9s %9s %6.1f%%  %s%s%s\n", a, b, c, calls ? e : "",
		folded ? d : "", 100 * share, tt->prefix, branch, name);
}

static bool text_shown(const struct tree_text *tt, const struct ft_tnode *n)
{
	return tt->run->tree_full || tt->run->all ||
	       n->v.total_ns >= TREE_MIN_SHARE * tt->root_total;
}

static void text_node(struct tree_text *tt, int i, const char *branch, const char *below);

/*
 * @i's children, then one line for those under 5% of the root when together
 * they reach 5% (smaller remainders are left to the header's note).
 */
static void text_children(struct tree_text *tt, int i)
{
	const struct ft_run *run = tt->run;
	__u64 hid_total = 0, hid_self = 0, hid_raw = 0, root;
	int c, last = -1, hidden = 0;
	bool summary;

	for (c = run->tree[i].child; c >= 0; c = run->tree[c].next) {
		if (text_shown(tt, &run->tree[c])) {
			last = c;
			continue;
		}
		hidden++;
		hid_total += ft_tnode_total(run, &run->tree[c]);
		hid_self += ft_tnode_self(run, &run->tree[c]);
		hid_raw += run->tree[c].v.total_ns;
	}
	summary = hidden && hid_raw >= TREE_MIN_SHARE * tt->root_total;
	for (c = run->tree[i].child; c >= 0; c = run->tree[c].next)
		if (text_shown(tt, &run->tree[c]))
			text_node(tt, c, c == last && !summary ? "└─ " : "├─ ",
				  c == last && !summary ? "   " : "│  ");
	if (summary) {
		char what[64];

		root = ft_tnode_total(run, tnode_root(run, &run->tree[i]));
		snprintf(what, sizeof(what), "(%d more path%s under 5%% each)", hidden,
			 hidden > 1 ? "s" : "");
		text_row(tt, hid_total, hid_self, 0, 0, 0, root ? (double)hid_total / root : 0,
			 "└─ ", what);
	}
}

static void text_node(struct tree_text *tt, int i, const char *branch, const char *below)
{
	const struct ft_run *run = tt->run;
	const struct ft_tnode *n = &run->tree[i];
	__u64 total = ft_tnode_total(run, n), root = ft_tnode_total(run, tnode_root(run, n));
	size_t len = strlen(tt->prefix);

	text_row(tt, total, ft_tnode_self(run, n), outer_calls(n) ? total / outer_calls(n) : 0,
		 n->v.count, n->v.folded, root ? (double)total / root : 0, branch,
		 tnode_name(run, n));
	if (len + strlen(below) < sizeof(tt->prefix) - 1)
		strcat(tt->prefix, below);
	text_children(tt, i);
	tt->prefix[len] = 0;
}

void ft_tree_text(FILE *f, const struct ft_run *run)
{
	struct tree_text tt = {.f = f, .run = run};
	__u64 all = 0;
	int r, hidden = 0;
	const char *mark = run->overhead.on ? "*" : "";

	if (!run->tree_on || !run->ntree || run->tree_root < 0)
		return;
	for (r = run->tree_root; r >= 0; r = run->tree[r].next)
		all += run->tree[r].v.total_ns;
	fprintf(f,
		"\ncall tree%s: by call path, hottest first; recursion folded into the outer "
		"call (\"recursive\" calls; their time is in its total)%s\n",
		run->tree_n != FT_TREE_ALL_N ? " of the reads of F(--tree-n)" : "",
		run->tree_full || run->all
			? ""
			: "; paths under 5% of their root hidden or summarised (--tree: all)");
	if (run->tree_n != FT_TREE_ALL_N)
		fprintf(f, "(reads of F(%" PRIu64 ") only)\n", (uint64_t)run->tree_n);
	fprintf(f, "%8s%s %8s%s %8s%s %9s %9s %7s  %s\n", "total", mark, "self", mark, "avg", mark,
		"calls", "recursive", "root", "function");
	for (r = run->tree_root; r >= 0; r = run->tree[r].next) {
		const struct ft_tnode *n = &run->tree[r];

		if (!run->tree_full && !run->all && n->v.total_ns < TREE_MIN_SHARE * all) {
			hidden++;
			continue;
		}
		tt.root_total = n->v.total_ns;
		tt.prefix[0] = 0;
		if (n->key.algo != FT_ALGO_NONE)
			fprintf(f, "[%s]\n", ft_algo_name(run, n->key.algo));
		else
			fprintf(f, "[outside fib_read]\n");
		text_node(&tt, r, "", "");
	}
	if (hidden)
		fprintf(f, "(%d more root%s under 5%% of all roots' time: --tree shows them)\n",
			hidden, hidden > 1 ? "s" : "");
}

/* ---------- JSON ---------- */

static void json_node(FILE *f, const struct ft_run *run, int i)
{
	const struct ft_tnode *n = &run->tree[i], *root = tnode_root(run, n);
	int idx[FT_STACK_DEPTH + 1], len = tnode_path(run, i, idx), k;
	__u64 outer = outer_calls(n);

	fprintf(f, "    {\"path\": [");
	for (k = 0; k < len; k++) {
		fprintf(f, "%s", k ? ", " : "");
		json_str(f, tnode_name(run, &run->tree[idx[k]]));
	}
	fprintf(f, "], \"algo\": ");
	if (n->key.algo == FT_ALGO_NONE)
		fprintf(f, "null");
	else
		json_str(f, ft_algo_name(run, n->key.algo));
	fprintf(f,
		", \"count\": %" PRIu64 ", \"recursive\": %" PRIu64 ", \"total_ns\": %" PRIu64
		", \"self_ns\": %" PRIu64 ", \"avg_ns\": %" PRIu64,
		(uint64_t)n->v.count, (uint64_t)n->v.folded, (uint64_t)n->v.total_ns,
		(uint64_t)n->v.self_ns, (uint64_t)(outer ? n->v.total_ns / outer : 0));
	json_field(f, "root_share",
		   root->v.total_ns ? (double)n->v.total_ns / root->v.total_ns : 0);
	if (run->overhead.on)
		fprintf(f,
			", \"compensated\": {\"total_ns\": %" PRIu64 ", \"self_ns\": %" PRIu64
			", \"avg_ns\": %" PRIu64 "}",
			(uint64_t)n->v.comp_total_ns, (uint64_t)n->v.comp_self_ns,
			(uint64_t)(outer ? n->v.comp_total_ns / outer : 0));
	fprintf(f, "}");
}

/* Depth first from @i: @first says whether a comma goes before the next node. */
static void json_subtree(FILE *f, const struct ft_run *run, int i, bool *first)
{
	int c;

	fprintf(f, "%s", *first ? "\n" : ",\n");
	*first = false;
	json_node(f, run, i);
	for (c = run->tree[i].child; c >= 0; c = run->tree[c].next)
		json_subtree(f, run, c, first);
}

void ft_tree_json(FILE *f, const struct ft_run *run)
{
	bool first = true;
	int r;

	fprintf(f, ",\n  \"call_tree\": [");
	for (r = run->tree_on && run->ntree ? run->tree_root : -1; r >= 0; r = run->tree[r].next)
		json_subtree(f, run, r, &first);
	fprintf(f, "%s]", first ? "" : "\n  ");
}

/* ---------- folded stacks, flame graph ---------- */

struct folded_line {
	char *stack;
	__u64 value;
};

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->stack,
		      ((const struct folded_line *)b)->stack);
}

/* Every path's stack and self time; equal stacks (other algorithms) merged. */
static size_t folded_lines(const struct ft_run *run, struct folded_line *out)
{
	size_t k, m = 0, j;

	for (k = 0; k < run->ntree; k++) {
		int idx[FT_STACK_DEPTH + 1], len = tnode_path(run, k, idx), i;
		char *s = calloc(1, (size_t)len * (sizeof(run->targets->t[0].name) + 1) + 1);

		if (!s)
			break;
		for (i = 0; i < len; i++) {
			strcat(s, i ? ";" : "");
			strcat(s, tnode_name(run, &run->tree[idx[i]]));
		}
		out[m].stack = s;
		out[m++].value = ft_tnode_self(run, &run->tree[k]);
	}
	qsort(out, m, sizeof(*out), cmp_folded);
	for (k = 0, j = 0; k < m; k++) {
		if (j && !strcmp(out[j - 1].stack, out[k].stack)) {
			out[j - 1].value += out[k].value;
			free(out[k].stack);
		} else {
			out[j++] = out[k];
		}
	}
	return j;
}

/* The folded lines into @f; @ctx the run. */
static int fill_folded(FILE *f, void *ctx)
{
	const struct ft_run *run = ctx;
	struct folded_line *lines = calloc(run->ntree + 1, sizeof(*lines));
	size_t n, k;

	if (!lines)
		return -1;
	n = folded_lines(run, lines);
	for (k = 0; k < n; k++) {
		if (lines[k].value)
			fprintf(f, "%s %" PRIu64 "\n", lines[k].stack, (uint64_t)lines[k].value);
		free(lines[k].stack);
	}
	free(lines);
	return 0;
}

int ft_tree_folded(const struct ft_run *run, const char *path)
{
	return ft_write_file(path, fill_folded, (void *)run);
}

static int run_inferno(const struct ft_run *run, const char *folded, const char *svg)
{
	char prog[PATH_MAX];
	char title[160];
	pid_t pid;
	int status;

	snprintf(title, sizeof(title), "fibtrace: %s time by call path (self ns%s), Linux %s",
		 run->tree_n != FT_TREE_ALL_N ? "F(--tree-n)" : "kernel",
		 run->overhead.on ? ", compensated" : "", run->kernel);
	if (!helper_find("inferno-flamegraph", prog, sizeof(prog)))
		return 127;
	fflush(NULL); /* or the child's freopen() writes the report a second time */
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* inferno runs as the sudo user, and the SVG is created as that user: theirs. */
		if (helper_drop_to_invoker() || !freopen(svg, "w", stdout))
			_exit(126);
		execl(prog, "inferno-flamegraph", "--title", title, "--countname", "ns", "--hash",
		      folded, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int ft_tree_flamegraph(const struct ft_run *run, const char *path)
{
	const char *tmp = getenv("TMPDIR");
	char folded[PATH_MAX];
	int fd, st;
	FILE *f;

	/*
	 * Written through mkstemp's descriptor: the name is never opened again
	 * by us. Created as the sudo user (helper_fs_enter), whose inferno reads it.
	 */
	snprintf(folded, sizeof(folded), "%s/fibtrace-folded-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (helper_fs_enter()) /* said why */
		return -1;
	fd = mkstemp(folded);
	helper_fs_leave();
	if (fd < 0) {
		fprintf(stderr, "fibtrace: --flamegraph: %s: %s\n", folded, strerror(errno));
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	st = ft_write_stream(f, folded, fill_folded, (void *)run) ? -1
								  : run_inferno(run, folded, path);
	unlink(folded);
	if (st == 127)
		fprintf(stderr, "fibtrace: --flamegraph needs inferno-flamegraph in PATH "
				"(cargo install inferno)\n");
	else if (st)
		fprintf(stderr, "fibtrace: inferno-flamegraph could not write %s (status %d)\n",
			path, st);
	return st ? -1 : 0;
}
