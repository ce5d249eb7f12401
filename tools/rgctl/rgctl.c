// SPDX-License-Identifier: GPL-2.0
/*
 * rgctl: the command-line tool for Resource Groups. One subcommand per
 * file group: cmd_tree.c (ls, create, set, rm, exec, move), cmd_stats.c,
 * cmd_config.c (dump, apply), cmd_classify.c. Usage: docs/res_groups.rst,
 * section "rgctl", or rgctl --help.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/res_groups_version.h"
#include "rgctl.h"

static const char help[] =
"usage: rgctl COMMAND [ARGS...]\n"
"\n"
"  ls [-r] [GROUP]              GROUP (default /) and its children (-r: the\n"
"                               whole subtree) with tasks and shares\n"
"  create GROUP [RES:KEY=VALUE[,KEY=VALUE]...]...\n"
"                               make GROUP and missing parents, set shares\n"
"  set GROUP RES:KEY=VALUE[,KEY=VALUE]...\n"
"                               set shares (all or nothing)\n"
"  rm [-r] GROUP                remove GROUP (-r: its children first)\n"
"  exec GROUP -- COMMAND [ARGS...]\n"
"                               run COMMAND in GROUP\n"
"  move [-t] GROUP PID...       move whole processes (-t: single threads)\n"
"  stats [-w SECONDS] [GROUP]   statistics of GROUP's subtree, a table per\n"
"                               controller (-w: redraw until interrupted)\n"
"  dump                         the tree as a config file\n"
"  apply [--prune] [-n] FILE    make the tree match FILE ('-': stdin);\n"
"                               --prune removes groups FILE does not list,\n"
"                               -n prints the changes without making them\n"
"  classify [--scan] [-v] RULES move processes by user, group, exe or\n"
"                               command as they start (daemon; SIGTERM\n"
"                               stops it)\n"
"  --version                    rgctl's version and the loaded modules'\n"
"\n"
"GROUP is a path from the root: /, web, /web/static. KEY: min_shares (min),\n"
"max_shares (max), child_shares_divisor (divisor); VALUE: an int >= 0 or\n"
"dont_care. Exit status: 0 ok, 1 error, 2 bad usage.\n"
"Environment: RGCTL_ROOT (default /sys/kernel/config/res_groups),\n"
"RGCTL_SYS_MODULE (default /sys/module).\n"
"Details: docs/res_groups.rst, section \"rgctl\".\n";

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} cmds[] = {
	{ "ls", cmd_ls }, { "create", cmd_create }, { "set", cmd_set },
	{ "rm", cmd_rm }, { "exec", cmd_exec }, { "move", cmd_move },
	{ "stats", cmd_stats }, { "dump", cmd_dump }, { "apply", cmd_apply },
	{ "classify", cmd_classify },
};

/*
 * The loaded res_groups module's version into buf: its MODULE_VERSION, ""
 * for one from before 0.3.0 (none), or NULL if it is not loaded.
 * RGCTL_SYS_MODULE: another /sys/module (the tests').
 */
static const char *module_version(char *buf, size_t len)
{
	const char *sys = getenv("RGCTL_SYS_MODULE");
	char path[PATH_MAX], *v;

	if (!sys || !*sys)
		sys = "/sys/module";
	snprintf(path, sizeof(path), "%s/res_groups", sys);
	if (access(path, F_OK))
		return NULL;
	snprintf(path, sizeof(path), "%s/res_groups/version", sys);
	v = read_file(path, NULL);
	snprintf(buf, len, "%s", v ? v : "");
	free(v);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/*
 * rgctl and the modules come from one package, but an upgrade leaves the
 * old modules loaded until the next boot. The configfs interface has not
 * changed since 0.1, so rgctl works on: it says so once, on stderr.
 */
static void check_version(void)
{
	char buf[64];
	const char *v = module_version(buf, sizeof(buf));

	if (v && strcmp(v, RES_GROUPS_VERSION))
		fprintf(stderr, "%s: warning: rgctl %s, but res_groups %s is loaded (reboot, or unload and load the modules, to run %s's modules)\n",
			prog, RES_GROUPS_VERSION, *v ? v : "from before 0.3.0",
			RES_GROUPS_VERSION);
}

int main(int argc, char **argv)
{
	const char *root = getenv("RGCTL_ROOT");
	char buf[64];
	size_t i;

	if (root && *root)
		rg_root = root;
	if (argc < 2)
		return usage_error("no command");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		fputs(help, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		const char *v = module_version(buf, sizeof(buf));

		printf("rgctl %s; res_groups module: %s\n", RES_GROUPS_VERSION,
		       !v ? "not loaded" : *v ? v : "from before 0.3.0");
		return EXIT_OK;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name)) {
			optind = 1;
			check_version();
			return cmds[i].fn(argc - 1, argv + 1);
		}
	return usage_error("unknown command '%s'", argv[1]);
}
