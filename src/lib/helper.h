/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The programs fibtrace runs on a user's behalf (the traced command,
 * gnuplot, inferno-flamegraph, valgrind, fibcalc): how they are found and
 * as whom they run. fibtrace needs root for BPF; they do not.
 */
#ifndef FIBTRACE_LIB_HELPER_H
#define FIBTRACE_LIB_HELPER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * @name's path in @out: the first executable in PATH's absolute entries
 * (an empty or relative entry, such as ".", is skipped: it would run what
 * the current directory holds); /usr/bin:/bin without PATH. As root (euid
 * 0), a root process runs nothing another user could have put in place or
 * changed: an entry is skipped, saying so on stderr when @name is there,
 * unless the entry and the file, symbolic links resolved, are root's and
 * writable by no one else (not group, not others), below directories that
 * are root's and writable by no one else either (or sticky, as /tmp). false
 * when none.
 */
bool helper_find(const char *name, char *out, size_t len);

/*
 * The user fibtrace acts for: when root under sudo, the user who ran sudo
 * (SUDO_UID, SUDO_GID; decimal, not root) in *@uid and *@gid, 1. 0 when not
 * root under sudo; -1 after saying why when the variables name no user.
 */
int helper_invoker(uid_t *uid, gid_t *gid);

/*
 * In a child about to exec: when root under sudo (helper_invoker), become
 * the user who ran sudo, with their groups, HOME, USER and LOGNAME.
 * Nothing to do otherwise. 0, or -1 after saying why (the child must not
 * exec then).
 */
int helper_drop_to_invoker(void);

/*
 * Between helper_fs_enter() and helper_fs_leave(), this thread's file
 * accesses are the invoker's (setfsuid/setfsgid, when root under sudo):
 * what it creates is theirs, what it opens is checked against their
 * permissions (fibtrace's own supplementary groups stay). enter: 0, or -1
 * after saying why (then nothing is to be written; leave needs no call).
 * leave keeps errno.
 */
int helper_fs_enter(void);
void helper_fs_leave(void);
/* fopen(@path, @mode) between helper_fs_enter and helper_fs_leave; NULL (errno) either failing. */
FILE *helper_fs_fopen(const char *path, const char *mode);
/* After a file access refused with @err: what to do when it was the invoker's, else "". */
const char *helper_fs_hint(int err);

/*
 * The traced command (-- CMD): @argv found as execvp finds it, started in a
 * process group of its own (ended as one), as the user who ran sudo unless
 * @as_root, killed by the kernel if fibtrace dies first (PR_SET_PDEATHSIG,
 * set after the drop, which clears it). Its pid, or -1 after saying why.
 * The child exits 126 when it cannot drop, 127 when it cannot exec.
 */
pid_t helper_command_start(char *const argv[], bool as_root);

enum helper_command_state { HELPER_CMD_RUNS, HELPER_CMD_ENDED, HELPER_CMD_STOPPED_TTY };
/*
 * The command's state, without waiting: ENDED with its wait status in
 * *@status (left unreaped, so its process group's id stays its own until
 * helper_command_end), STOPPED_TTY when it stopped reading or writing the
 * terminal, which belongs to fibtrace's group, not its own.
 */
enum helper_command_state helper_command_poll(pid_t pid, int *status);

/*
 * Ends the command started by helper_command_start and reaps it, within
 * @grace seconds: SIGTERM (and SIGCONT) to its process group unless it has
 * ended, then, once it has ended, after @grace, or as soon as *@stop changes
 * (a second Ctrl-C), SIGKILL to what remains of the group.
 */
void helper_command_end(pid_t pid, double grace, volatile sig_atomic_t *stop);

#endif
