/* SPDX-License-Identifier: MIT */
/* The subcommands; each returns the process exit status. */
#ifndef AW_CMDS_H
#define AW_CMDS_H

#include "args.h"

int aw_cmd_info(const struct aw_opts *o);
int aw_cmd_write(const struct aw_opts *o);
int aw_cmd_verify(const struct aw_opts *o);
int aw_cmd_bench(const struct aw_opts *o);
int aw_cmd_probe(const struct aw_opts *o);
int aw_cmd_race(const struct aw_opts *o);
int aw_cmd_advise(const struct aw_opts *o);

#endif
