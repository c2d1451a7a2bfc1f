// SPDX-License-Identifier: GPL-2.0
/* Durations, the progress bar and JSON values: see fmt.h. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

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

/*
 * Length of the well-formed UTF-8 sequence at @s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int n, k, cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (k = 1; k < n; k++) {
		if ((s[k] & 0xc0) != 0x80) /* also stops at the terminating NUL */
			return 0;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* Control bytes escaped; a byte that is not UTF-8 becomes U+FFFD. */
void json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	fputc('"', f);
	while (*p) {
		n = utf8_len(p);
		if (!n) {
			fputs("\\ufffd", f);
			n = 1;
		} else if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fwrite(p, 1, n, f);
		p += n;
	}
	fputc('"', f);
}

void csv_str(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
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
