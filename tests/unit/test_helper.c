// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of src/lib/helper.c: a helper program is never found through
 * a relative PATH entry, and under sudo a child drops to the user who ran
 * sudo (checked in a forked child; skipped, saying why, when not root).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"

static int failures;

static void check(const char *name, int ok)
{
	printf("%s helper.%s\n", ok ? "PASS" : "FAIL", name);
	if (!ok)
		failures++;
}

static void test_find(void)
{
	char dir[] = "/tmp/ft-helper-XXXXXX", tool[64], got[256], cwd[4096];
	FILE *f;

	if (!mkdtemp(dir) || !getcwd(cwd, sizeof(cwd))) {
		check("find.setup", 0);
		return;
	}
	snprintf(tool, sizeof(tool), "%s/ft-helper-tool", dir);
	f = fopen(tool, "w");
	if (f) {
		fputs("#!/bin/sh\n", f);
		fclose(f);
	}
	chmod(tool, 0755);
	if (chdir(dir)) {
		check("find.chdir", 0);
		return;
	}
	setenv("PATH", ".", 1);
	check("find.dot_skipped", !helper_find("ft-helper-tool", got, sizeof(got)));
	setenv("PATH", "::bin:./:.", 1);
	check("find.relative_skipped", !helper_find("ft-helper-tool", got, sizeof(got)));
	snprintf(got, sizeof(got), ".:/nonexistent:%s", dir);
	setenv("PATH", got, 1);
	check("find.absolute",
	      helper_find("ft-helper-tool", got, sizeof(got)) && !strcmp(got, tool));
	check("find.too_long", !helper_find("ft-helper-tool", got, 8));
	if (chdir(cwd))
		check("find.chdir_back", 0);
	unlink(tool);
	rmdir(dir);
}

/* In a child: SUDO_UID/SUDO_GID 65534 -> uid and gid 65534, no way back to root. */
static void test_drop(void)
{
	int status;
	pid_t pid;

	if (getuid() != 0) {
		printf("SKIP helper.drop: not root (the drop is root's only)\n");
		check("drop.not_root_noop", setenv("SUDO_UID", "65534", 1) == 0 &&
						    setenv("SUDO_GID", "65534", 1) == 0 &&
						    helper_drop_to_invoker() == 0);
		return;
	}
	pid = fork();
	if (pid == 0) {
		setenv("SUDO_UID", "65534", 1);
		setenv("SUDO_GID", "65534", 1);
		_exit(helper_drop_to_invoker() || getuid() != 65534 || geteuid() != 65534 ||
		      getgid() != 65534 || !setuid(0));
	}
	check("drop.to_invoker", pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
					 WEXITSTATUS(status) == 0);
	pid = fork();
	if (pid == 0) {
		setenv("SUDO_UID", "0", 1); /* root is not a user to drop to */
		setenv("SUDO_GID", "0", 1);
		_exit(helper_drop_to_invoker() == -1 ? 0 : 1);
	}
	check("drop.refuses_root", pid > 0 && waitpid(pid, &status, 0) == pid &&
					   WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	test_find();
	test_drop();
	return failures ? 1 : 0;
}
