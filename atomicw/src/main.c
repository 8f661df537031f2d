// SPDX-License-Identifier: MIT
#include <stdio.h>

#include "args.h"
#include "cmds.h"

int main(int argc, char **argv)
{
	struct aw_opts o;
	char err[256];

	if (aw_parse_args(argc, argv, &o, err, sizeof(err))) {
		const char *name = aw_cmd_name(o.cmd);

		fprintf(stderr, "atomicw: %s (see 'atomicw %s%s--help')\n", err, name ? name : "",
			name ? " " : "");
		return 1;
	}
	if (o.help) {
		aw_usage(o.cmd);
		return 0;
	}
	if (o.version) {
		aw_print_version();
		return 0;
	}
	switch (o.cmd) {
	case AW_CMD_INFO:
		return aw_cmd_info(&o);
	case AW_CMD_WRITE:
		return aw_cmd_write(&o);
	case AW_CMD_VERIFY:
		return aw_cmd_verify(&o);
	case AW_CMD_BENCH:
		return aw_cmd_bench(&o);
	case AW_CMD_PROBE:
		return aw_cmd_probe(&o);
	case AW_CMD_RACE:
		return aw_cmd_race(&o);
	case AW_CMD_ADVISE:
		return aw_cmd_advise(&o);
	case AW_CMD_NONE:
		break;
	}
	aw_usage(AW_CMD_NONE);
	return 1;
}
