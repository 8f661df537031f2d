/* SPDX-License-Identifier: MIT */
/*
 * The table of a device-mapper device: which range of it each target maps,
 * and for linear and striped targets, to which offsets of which devices.
 * sysfs does not show it; the kernel answers DM_TABLE_STATUS (root only).
 */
#ifndef AW_DMTABLE_H
#define AW_DMTABLE_H

#include <stddef.h>
#include <stdint.h>

#define AW_DM_TARGETS 16
#define AW_DM_DEVS 8

struct aw_dm_target {
	uint64_t start, len;		/* sectors of the dm device */
	char type[16];			/* linear, striped, or another type */
	uint64_t chunk;			/* striped: chunk size, sectors */
	int ndev;			/* linear 1, striped the stripes (read) */
	char dev[AW_DM_DEVS][32];	/* as the table names them (maj:min) */
	uint64_t off[AW_DM_DEVS];	/* their start offsets, sectors */
	int partial;			/* more stripes than AW_DM_DEVS */
};

struct aw_dm_table {
	int state;	/* 1 read, 0 not asked (not a dm layer), -1 unreadable */
	char why[128];	/* state -1: why */
	int n;		/* targets read */
	int more;	/* the table has more targets than were read */
	struct aw_dm_target t[AW_DM_TARGETS];
};

/*
 * One target of the table: TYPE with the kernel's PARAMS text for it
 * ("8:16 2048" for linear, "2 128 8:16 0 8:32 0" for striped).  Linear and
 * striped params are parsed; other types keep their type only.  Returns 0,
 * or -1 with a message in err for params that do not parse.
 */
int aw_dm_parse_target(const char *type, uint64_t start, uint64_t len, const char *params,
		       struct aw_dm_target *t, char *err, size_t errlen);

/* The table of dm device maj:min from the kernel into tab (state 1 or -1). */
void aw_dm_read_table(unsigned int maj, unsigned int min, struct aw_dm_table *tab);

#endif
