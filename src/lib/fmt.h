/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text output shared by every fibtrace tool: durations, the progress bar,
 * the JSON value writers. One definition of each; callers pick a style.
 */
#ifndef FIBTRACE_LIB_FMT_H
#define FIBTRACE_LIB_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * How fmt_ns() writes a duration:
 *  FMT_NS_COARSE  integer ns below 10 us, then one decimal in us, ms (below
 *                 10 s) and two in s: "9999ns", "12.3us", "45.6ms", "12.34s"
 *                 (the report tables).
 *  FMT_NS_SIG4    about 4 significant digits, the unit changing at 1000:
 *                 "123ns", "4.567us", "12.35ms", "1.234s"; "?" for NaN
 *                 (--compare).
 */
enum fmt_ns_style { FMT_NS_COARSE, FMT_NS_SIG4 };

void fmt_ns(char *buf, size_t size, double ns, enum fmt_ns_style style);

/*
 * A one-line progress bar on stderr, redrawn when the percentage changes;
 * a newline once done == total. Silent unless enabled (a terminal).
 */
struct progress {
	bool enabled;
	int last_pct;
};

void progress_init(struct progress *p, bool enabled);
void progress_update(struct progress *p, uint64_t done, uint64_t total);

/*
 * JSON: a string, escaped (control bytes as \u00XX, a byte that is not
 * well-formed UTF-8 as \ufffd: the output is always valid JSON text); a
 * number ("null" when not finite).
 */
void json_str(FILE *f, const char *s);
void json_num(FILE *f, double x);
/* ", \"key\": <json_num(x)>" */
void json_field(FILE *f, const char *key, double x);

/* CSV (RFC 4180): a field, quoted with "" doubled when it holds , " CR or LF. */
void csv_str(FILE *f, const char *s);

#endif
