// SPDX-License-Identifier: GPL-2.0
/* Durations, the progress bar and JSON values: see fmt.h. */
#include <inttypes.h>
#include <math.h>

#include "fmt.h"

static void fmt_ns_coarse(char *buf, size_t size, double ns)
{
	if (ns < 10000)
		snprintf(buf, size, "%" PRIu64 "ns", (uint64_t)ns);
	else if (ns < 10000000)
		snprintf(buf, size, "%.1fus", ns / 1e3);
	else if (ns < 10000000000.0)
		snprintf(buf, size, "%.1fms", ns / 1e6);
	else
		snprintf(buf, size, "%.2fs", ns / 1e9);
}

static void fmt_ns_sig4(char *buf, size_t size, double ns)
{
	static const char *const unit[] = {"ns", "us", "ms", "s"};
	int u = 0;

	while (u < 3 && fabs(ns) >= 999.95) {
		ns /= 1000;
		u++;
	}
	if (u == 0 && ns == floor(ns))
		snprintf(buf, size, "%.0f%s", ns, unit[u]);
	else if (fabs(ns) >= 99.995)
		snprintf(buf, size, "%.1f%s", ns, unit[u]);
	else if (fabs(ns) >= 9.9995)
		snprintf(buf, size, "%.2f%s", ns, unit[u]);
	else
		snprintf(buf, size, "%.3f%s", ns, unit[u]);
}

void fmt_ns(char *buf, size_t size, double ns, enum fmt_ns_style style)
{
	if (isnan(ns))
		snprintf(buf, size, "?");
	else if (style == FMT_NS_COARSE)
		fmt_ns_coarse(buf, size, ns);
	else
		fmt_ns_sig4(buf, size, ns);
}

void progress_init(struct progress *p, bool enabled)
{
	p->enabled = enabled;
	p->last_pct = -1;
}

void progress_update(struct progress *p, uint64_t done, uint64_t total)
{
	int pct = total ? (int)(done * 100 / total) : 100;

	if (!p->enabled || pct == p->last_pct)
		return;
	p->last_pct = pct;
	fprintf(stderr, "\r[%-50.*s] %3d%% %" PRIu64 "/%" PRIu64, pct / 2,
		"##################################################", pct, done, total);
	if (done == total)
		fputc('\n', stderr);
}

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void json_num(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.9g", x);
	else
		fprintf(f, "null");
}

void json_field(FILE *f, const char *key, double x)
{
	fprintf(f, ", \"%s\": ", key);
	json_num(f, x);
}
