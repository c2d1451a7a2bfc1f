/* SPDX-License-Identifier: GPL-2.0 */
/* Inside report/: what the text views share. report.h is the interface. */
#ifndef FIBTRACE_REPORT_INT_H
#define FIBTRACE_REPORT_INT_H

#include <linux/types.h>
#include <stdio.h>

#include "model/run.h"

/*
 * The non-empty buckets of @hist as funclatency prints them: "lo -> hi :
 * count |****|", the stars scaled to the largest bucket, a non-empty bucket
 * never blank (text_hist.c).
 */
void ft_text_hist(FILE *f, const struct ft_hist_cfg *cfg, const __u64 *hist);

#endif
