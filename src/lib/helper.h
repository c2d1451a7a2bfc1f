/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The programs fibtrace runs on a user's behalf (the traced command,
 * gnuplot, inferno-flamegraph, valgrind, fibcalc): how they are found and
 * as whom they run (--user, else the user who ran sudo), and as whom the
 * files written for the user are created. fibtrace needs root for BPF;
 * they do not.
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
 * --user: fibtrace, as root, acts for @spec, a user name or a decimal uid
 * (all digits: a uid, at most 2^32 - 2) with a passwd entry: its uid, its
 * primary group, its supplementary groups (initgroups), its HOME. It takes
 * precedence over SUDO_UID and SUDO_GID; root (or 0) keeps root for
 * everything. NULL forgets it. 0, or -1 after saying why (not root, no
 * such user, a uid without a passwd entry, a number past 2^32 - 2).
 */
int helper_set_user(const char *spec);

/*
 * The user fibtrace acts for, in *@uid and *@gid, 1: --user's
 * (helper_set_user), else, when root under sudo, the user who ran sudo
 * (SUDO_UID, SUDO_GID; decimal, not root). 0 when there is none (not root,
 * root neither under sudo nor given --user, --user root); -1 after saying
 * why when the variables name no user.
 */
int helper_invoker(uid_t *uid, gid_t *gid);

/*
 * In a child about to exec: when helper_invoker names a user (--user's, or
 * the one who ran sudo), become that user, with their groups, HOME, USER
 * and LOGNAME.
 * Nothing to do otherwise. 0, or -1 after saying why (the child must not
 * exec then).
 */
int helper_drop_to_invoker(void);

/*
 * Between helper_fs_enter() and helper_fs_leave(), this thread's file
 * accesses are the invoker's (setfsuid/setfsgid, when helper_invoker names
 * one): what it creates is theirs, what it opens is checked against their
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
 * process group of its own (ended as one), as helper_invoker's user
 * unless @as_root, killed by the kernel if fibtrace dies first (PR_SET_PDEATHSIG,
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
