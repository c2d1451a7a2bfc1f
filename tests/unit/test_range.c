// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the command-line number parsing shared by the tools. */
#include <stdio.h>
#include <string.h>

#include "range.h"

static int failures;

static void check(const char *name, int ok)
{
	printf("%s range.%s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

static int range_is(const char *text, uint64_t first, uint64_t last, uint64_t step)
{
	struct u64_range r;

	return !parse_u64_range(text, &r) && r.first == first && r.last == last && r.step == step;
}

int main(void)
{
	struct u64_range r;
	uint64_t v;

	check("u64.plain", !parse_u64("93", &v) && v == 93);
	check("u64.max", !parse_u64("18446744073709551615", &v) && v == UINT64_MAX);
	check("u64.overflow", parse_u64("18446744073709551616", &v) != 0);
	check("u64.rejects-sign-space-junk", parse_u64("-1", &v) && parse_u64(" 1", &v) &&
						     parse_u64("1x", &v) && parse_u64("", &v));
	check("range.a-b", range_is("0:92", 0, 92, 1));
	check("range.a-b-step", range_is("10:1000:10", 10, 1000, 10));
	check("range.single", range_is("5:5", 5, 5, 1));
	check("range.rejects-reversed", parse_u64_range("9:1", &r) != 0);
	check("range.rejects-zero-step", parse_u64_range("0:9:0", &r) != 0);
	check("range.rejects-malformed", parse_u64_range("9", &r) && parse_u64_range(":9", &r) &&
						 parse_u64_range("1:", &r) && parse_u64_range("1:2:3:4", &r));
	r = (struct u64_range){ 0, 92, 1 };
	check("count.0-92", u64_range_count(&r) == 93);
	r = (struct u64_range){ 10, 1000, 10 };
	check("count.step", u64_range_count(&r) == 100);
	r = (struct u64_range){ 0, 10, 3 };
	check("count.uneven", u64_range_count(&r) == 4);
	return failures ? 1 : 0;
}
