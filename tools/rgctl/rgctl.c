// SPDX-License-Identifier: GPL-2.0
/*
 * rgctl: the command-line tool for Resource Groups. One subcommand per
 * file group: cmd_tree.c (ls, create, set, rm, exec, move), cmd_stats.c,
 * cmd_config.c (dump, apply), cmd_classify.c. Usage: docs/res_groups.rst,
 * section "rgctl", or rgctl --help.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
"  classify [--scan] [-v] RULES move processes by user, group or command as\n"
"                               they start (daemon; SIGTERM stops it)\n"
"\n"
"GROUP is a path from the root: /, web, /web/static. KEY: min_shares (min),\n"
"max_shares (max), child_shares_divisor (divisor); VALUE: an int >= 0 or\n"
"dont_care. Exit status: 0 ok, 1 error, 2 bad usage.\n"
"Environment: RGCTL_ROOT (default /sys/kernel/config/res_groups).\n"
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

int main(int argc, char **argv)
{
	const char *root = getenv("RGCTL_ROOT");
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
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name)) {
			optind = 1;
			return cmds[i].fn(argc - 1, argv + 1);
		}
	return usage_error("unknown command '%s'", argv[1]);
}
