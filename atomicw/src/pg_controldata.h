/* SPDX-License-Identifier: MIT */
/* The page size of a PostgreSQL cluster, from its own version's pg_controldata. */
#ifndef AW_PG_CONTROLDATA_H
#define AW_PG_CONTROLDATA_H

#include <stddef.h>
#include <stdint.h>

/*
 * "Database block size" of the cluster in dir, read by the pg_controldata
 * of the major version in dir/PG_VERSION (Debian's and the PGDG RPMs'
 * layouts, then PATH).  Returns it with the tool's path in source, or 0
 * with the reason in source (no PG_VERSION, no such tool, a warning from
 * it such as a control file CRC mismatch, an exit status).
 */
uint64_t aw_pg_block_size(const char *dir, char *source, size_t slen);

#endif
