/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzzers' one assertion: a property that does not hold prints itself
 * and traps, so libFuzzer keeps the input as a crash (ASan/UBSan report
 * their own findings the same way).
 */
#ifndef FIBTRACE_FUZZ_CHECK_H
#define FIBTRACE_FUZZ_CHECK_H

#include <stdio.h>

#define CHECK(cond)                                                                               \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "%s: %s failed at line %d\n", __FILE__, #cond, __LINE__); \
			__builtin_trap();                                                         \
		}                                                                                 \
	} while (0)

#endif
