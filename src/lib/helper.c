// SPDX-License-Identifier: GPL-2.0
/* The programs fibtrace runs on a user's behalf: see helper.h. */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

/* Writable by group or others, and not sticky (where only an entry's owner may rename it). */
static bool open_to_others(const struct stat *st, bool sticky_ok)
{
	return (st->st_mode & (S_IWGRP | S_IWOTH)) && !(sticky_ok && (st->st_mode & S_ISVTX));
}

/*
 * @path, symbolic links resolved: root's and no one else's to write (a
 * directory or a file), and each directory above it root's too, closed to
 * others or sticky.
 */
static bool root_only(const char *path)
{
	char real[PATH_MAX], *slash;
	struct stat st;

	if (!realpath(path, real) || stat(real, &st) || st.st_uid || open_to_others(&st, false))
		return false;
	while ((slash = strrchr(real, '/')) && (slash != real || real[1])) {
		slash[slash == real] = '\0'; /* "/usr/bin" up to "/" */
		if (stat(real, &st) || st.st_uid || open_to_others(&st, true))
			return false;
	}
	return true;
}

bool helper_find(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p;
	char dir[PATH_MAX];

	for (p = path ? path : "/usr/bin:/bin"; *p; p += *p == ':') {
		size_t n = strcspn(p, ":");

		if (*p == '/' && n < sizeof(dir) &&
		    (size_t)snprintf(out, len, "%.*s/%s", (int)n, p, name) < len &&
		    !access(out, X_OK)) {
			snprintf(dir, sizeof(dir), "%.*s", (int)n, p);
			/* the entry (where the file is put), and the file where it lives */
			if (geteuid() != 0 || (root_only(dir) && root_only(out)))
				return true;
			fprintf(stderr,
				"fibtrace: not running %s as root: a user other than root can "
				"change it or a directory above it\n",
				out);
		}
		p += n;
	}
	return false;
}

/* --user (helper_set_user): whom fibtrace acts for, over SUDO_UID and SUDO_GID. */
static struct {
	bool set;
	uid_t uid;
	gid_t gid;
	char name[256];
	char hint[320]; /* helper_fs_hint's */
} user;

/* @s, all digits, in *@v: 0; -1 when @s is not all digits, -2 past 2^32 - 2. */
static int parse_uid(const char *s, uid_t *v)
{
	unsigned long long n = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		n = n * 10 + (unsigned int)(*s - '0'); /* n <= 2^32 - 2 before: no wrap */
		if (n > 0xfffffffeULL)
			return -2;
	}
	*v = (uid_t)n;
	return 0;
}

int helper_set_user(const char *spec)
{
	struct passwd *pw;
	uid_t uid;
	int num;

	user.set = false;
	if (!spec)
		return 0;
	if (getuid() != 0 || geteuid() != 0) {
		fprintf(stderr, "fibtrace: --user needs root: only root can run programs as "
				"another user\n");
		return -1;
	}
	num = parse_uid(spec, &uid);
	if (num == -2 || !*spec) {
		fprintf(stderr, "fibtrace: --user '%s': want a user name or a uid (0..%u)\n", spec,
			0xfffffffeU);
		return -1;
	}
	pw = num ? getpwnam(spec) : getpwuid(uid);
	if (!pw || strlen(pw->pw_name) >= sizeof(user.name)) {
		if (num)
			fprintf(stderr, "fibtrace: --user '%s': no such user\n", spec);
		else
			fprintf(stderr,
				"fibtrace: --user '%s': uid %u has no passwd entry (no name, "
				"group or home to run programs with: add the user, or name one)\n",
				spec, (unsigned int)uid);
		return -1;
	}
	user.uid = pw->pw_uid;
	user.gid = pw->pw_gid;
	snprintf(user.name, sizeof(user.name), "%s", pw->pw_name);
	snprintf(user.hint, sizeof(user.hint), " (as --user %s: choose a place they may write)",
		 user.name);
	user.set = true;
	return 0;
}

int helper_invoker(uid_t *uid, gid_t *gid)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	char *end_u = NULL, *end_g = NULL;
	unsigned long u, g;

	if (user.set && !user.uid) /* --user root: nobody to act for but root */
		return 0;
	if (user.set) {
		*uid = user.uid;
		*gid = user.gid;
		return 1;
	}
	if (getuid() != 0 || !su || !sg)
		return 0;
	u = strtoul(su, &end_u, 10);
	g = strtoul(sg, &end_g, 10);
	if (*su < '0' || *su > '9' || *end_u || *sg < '0' || *sg > '9' || *end_g || !u ||
	    u > 0xfffffffeUL || g > 0xfffffffeUL) {
		fprintf(stderr,
			"fibtrace: SUDO_UID '%s' / SUDO_GID '%s': not a user to run programs or "
			"write files as (unset both to keep root)\n",
			su, sg);
		return -1;
	}
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return 1;
}

int helper_drop_to_invoker(void)
{
	struct passwd *pw;
	uid_t uid;
	gid_t gid;
	int who = helper_invoker(&uid, &gid);

	if (who <= 0)
		return who;
	pw = user.set ? getpwnam(user.name) : getpwuid(uid);
	if (pw && pw->pw_uid != uid) /* --user's entry changed since: its groups are not uid's */
		pw = NULL;
	if ((pw ? initgroups(pw->pw_name, gid) : setgroups(0, NULL)) || setgid(gid) ||
	    setuid(uid) || !setuid(0)) {
		fprintf(stderr, "fibtrace: cannot become uid %u to run a program: %s\n",
			(unsigned int)uid, strerror(errno ? errno : EPERM));
		return -1;
	}
	if (pw) {
		setenv("HOME", pw->pw_dir, 1);
		setenv("USER", pw->pw_name, 1);
		setenv("LOGNAME", pw->pw_name, 1);
	}
	return 0;
}

/* This thread's file system identity: @uid and @gid; true when both took. */
static bool fs_identity(uid_t uid, gid_t gid)
{
	setfsgid(gid);
	setfsuid(uid);
	return (uid_t)setfsuid((uid_t)-1) == uid && (gid_t)setfsgid((gid_t)-1) == gid;
}

int helper_fs_enter(void)
{
	uid_t uid;
	gid_t gid;
	int who = helper_invoker(&uid, &gid);

	if (who <= 0)
		return who;
	if (!fs_identity(uid, gid)) {
		fs_identity(geteuid(), getegid());
		fprintf(stderr, "fibtrace: cannot write files as uid %u (setfsuid refused)\n",
			(unsigned int)uid);
		return -1;
	}
	return 0;
}

FILE *helper_fs_fopen(const char *path, const char *mode)
{
	FILE *f;

	if (helper_fs_enter())
		return NULL;
	f = fopen(path, mode);
	helper_fs_leave();
	return f;
}

const char *helper_fs_hint(int err)
{
	const char *su = getenv("SUDO_UID");

	if (user.set)
		return (err == EACCES || err == EPERM) && user.uid ? user.hint : "";
	return (err == EACCES || err == EPERM) && getuid() == 0 && su
		       ? " (as the user who ran sudo, SUDO_UID: choose a place they may write)"
		       : "";
}

void helper_fs_leave(void)
{
	int err = errno;

	fs_identity(geteuid(), getegid());
	errno = err;
}

pid_t helper_command_start(char *const argv[], bool as_root)
{
	pid_t parent = getpid(), pid = fork();

	if (pid < 0) {
		fprintf(stderr, "fibtrace: cannot start %s: fork: %s\n", argv[0], strerror(errno));
		return -1;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		setpgid(0, 0);
		if (!as_root && helper_drop_to_invoker())
			_exit(126);
		/*
		 * fibtrace gone before the death signal was set: no such process.
		 * kill(, 0), not getppid(): a traced getppid would count one call
		 * more than the command makes.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || (kill(parent, 0) && errno == ESRCH))
			_exit(126);
		execvp(argv[0], argv);
		fprintf(stderr, "fibtrace: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); /* as the child does: whichever runs first */
	return pid;
}

enum helper_command_state helper_command_poll(pid_t pid, int *status)
{
	siginfo_t si = {};

	if (waitid(P_PID, pid, &si, WEXITED | WSTOPPED | WNOHANG | WNOWAIT) || si.si_pid != pid)
		return HELPER_CMD_RUNS;
	if (si.si_code == CLD_STOPPED)
		return si.si_status == SIGTTIN || si.si_status == SIGTTOU ? HELPER_CMD_STOPPED_TTY
									  : HELPER_CMD_RUNS;
	*status = si.si_code == CLD_EXITED ? W_EXITCODE(si.si_status, 0) : si.si_status;
	return HELPER_CMD_ENDED;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Until @pid has ended (true), @end passes or *@stop moves from @seen (false). */
static bool ended_by(pid_t pid, double end, volatile sig_atomic_t *stop, sig_atomic_t seen)
{
	int status;

	while (helper_command_poll(pid, &status) != HELPER_CMD_ENDED) {
		if (now_s() >= end || (stop && *stop != seen))
			return false;
		usleep(20000);
	}
	return true;
}

void helper_command_end(pid_t pid, double grace, volatile sig_atomic_t *stop)
{
	sig_atomic_t seen = stop ? *stop : 0;
	int status;

	if (pid <= 0)
		return;
	if (helper_command_poll(pid, &status) != HELPER_CMD_ENDED) {
		killpg(pid, SIGTERM);
		killpg(pid, SIGCONT); /* a stopped command cannot act on SIGTERM */
		bool ended = ended_by(pid, now_s() + grace, stop, seen);

		if (!ended && stop && *stop != seen)
			fprintf(stderr, "fibtrace: interrupted again: SIGKILL to the command\n");
		else if (!ended)
			fprintf(stderr,
				"fibtrace: the command ignored SIGTERM for %.0f s: SIGKILL\n",
				grace);
	}
	/* The leader, not yet reaped, keeps the group's id from reuse until here. */
	killpg(pid, SIGKILL);
	ended_by(pid, now_s() + grace, stop, stop ? *stop : 0);
	while (waitpid(pid, &status, WNOHANG) < 0 && errno == EINTR)
		;
}
