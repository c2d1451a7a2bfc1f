// SPDX-License-Identifier: GPL-2.0
/*
 * The one file writer of report/ (and --compare's --save-*): every
 * --save-*, --folded, --flamegraph and --trace-out file is opened, filled
 * and checked here, as the user who ran sudo. See report.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "helper.h"
#include "report.h"

/* Created as the user who ran sudo (helper_fs_fopen): theirs, where they may write. */
int ft_write_file(const char *path, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	return ft_write_stream(helper_fs_fopen(path, "w"), path, fill, ctx);
}

int ft_write_stream(FILE *f, const char *path, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	int bad;

	if (!f) {
		fprintf(stderr, "fibtrace: cannot write %s: %s%s\n", path, strerror(errno),
			helper_fs_hint(errno));
		return -1;
	}
	bad = fill(f, ctx);
	bad |= ferror(f);
	if (fclose(f) || bad) {
		fprintf(stderr, "fibtrace: writing %s failed\n", path);
		return -1;
	}
	return 0;
}
