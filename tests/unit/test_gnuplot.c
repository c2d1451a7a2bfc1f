// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of gnuplot_quote (src/lib/gnuplot.c): text from outside stays
 * a literal. The last check hands gnuplot itself a script whose title is a
 * hostile label and checks that its system() never ran (skipped, saying
 * why, without gnuplot).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gnuplot.h"

static int failures;

static void check(const char *name, int ok)
{
	printf("%s gnuplot.%s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

static void hostile_label_stays_text(void)
{
	static const char label[] = "x'; system('touch %s'); print '";
	char dir[] = "/tmp/ft-gnuplot-XXXXXX", marker[64], text[256], q[600], script[96], cmd[256];
	FILE *f;
	int st;

	if (system("command -v gnuplot >/dev/null 2>&1")) {
		printf("SKIP gnuplot.hostile_label: gnuplot not installed\n");
		return;
	}
	if (!mkdtemp(dir)) {
		check("hostile_label.tmpdir", 0);
		return;
	}
	snprintf(marker, sizeof(marker), "%s/ran", dir);
	snprintf(text, sizeof(text), label, marker);
	snprintf(script, sizeof(script), "%s/plot.gp", dir);
	f = fopen(script, "w");
	if (!f) {
		check("hostile_label.script", 0);
		return;
	}
	fprintf(f, "set terminal dumb\nset title %s\nplot x title %s\n",
		gnuplot_quote(q, sizeof(q), text), q);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gnuplot %s >/dev/null 2>&1", script);
	st = system(cmd);
	check("hostile_label.gnuplot_ran", st == 0);
	check("hostile_label.no_system", access(marker, F_OK) != 0);
	unlink(marker);
	unlink(script);
	rmdir(dir);
}

int main(void)
{
	char q[64], small[4];

	check("plain", !strcmp(gnuplot_quote(q, sizeof(q), "base"), "'base'"));
	check("quote_doubled", !strcmp(gnuplot_quote(q, sizeof(q), "a'b"), "'a''b'"));
	check("control_chars", !strcmp(gnuplot_quote(q, sizeof(q), "a\nb\tc"), "'a?b?c'"));
	check("empty", !strcmp(gnuplot_quote(q, sizeof(q), ""), "''"));
	check("truncated_closed",
	      !strcmp(gnuplot_quote(q, 8, "abcdefghij"), "'abcde'") && strlen(q) < 8);
	check("truncated_quote_not_split", !strcmp(gnuplot_quote(q, 7, "abc'd"), "'abc'"));
	check("too_small", !strcmp(gnuplot_quote(small, 2, "a"), ""));
	hostile_label_stays_text();
	return failures ? 1 : 0;
}
