/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The programs fibtrace runs on a user's behalf (the traced command,
 * gnuplot, inferno-flamegraph, valgrind, fibcalc): how they are found and
 * as whom they run. fibtrace needs root for BPF; they do not.
 */
#ifndef FIBTRACE_LIB_HELPER_H
#define FIBTRACE_LIB_HELPER_H

#include <stdbool.h>
#include <stddef.h>

/*
 * @name's path in @out: the first executable in PATH's absolute entries
 * (an empty or relative entry, such as ".", is skipped: it would run what
 * the current directory holds); /usr/bin:/bin without PATH. false when none.
 */
bool helper_find(const char *name, char *out, size_t len);

/*
 * In a child about to exec: when root under sudo (SUDO_UID, SUDO_GID),
 * become the user who ran sudo, with their groups, HOME, USER and LOGNAME.
 * Nothing to do otherwise. 0, or -1 after saying why (the child must not
 * exec then).
 */
int helper_drop_to_invoker(void);

#endif
