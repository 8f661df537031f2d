/* SPDX-License-Identifier: MIT */
/*
 * Can a database turn off its torn-page protection (PostgreSQL's
 * full_page_writes, InnoDB's doublewrite buffer) on the storage under a
 * directory?  The facts are gathered elsewhere (cmd_advise.c); here they
 * are judged, one check at a time, into SAFE, UNSAFE or UNKNOWN.
 */
#ifndef AW_ADVISE_H
#define AW_ADVISE_H

#include <limits.h>
#include <stdint.h>

#include "blkstack.h"
#include "compat.h"
#include "dmtable.h"

enum aw_db { AW_DB_POSTGRES, AW_DB_INNODB };

/* What the filesystem and the kernel say about the directory. */
struct aw_fs_facts {
	char fstype[32];
	uint64_t fs_block;	  /* statfs f_bsize */
	char probe[PATH_MAX];	  /* the file statx was asked about ("" if none):
				   * of several, the first without atomic writes */
	int probes;		  /* how many files statx was asked about */
	int statx_err;		  /* errno of a failed statx (0: it answered) */
	int statx_atomic;	  /* statx reported atomic write limits for it */
	uint64_t stx_awu_min, stx_awu_max;
	char elsewhere[512];	  /* parts of the directory on other filesystems */
	int64_t untorn_buffered;  /* /sys/fs/xfs/DEV/untorn_buffered_bytes, -1 absent */
	int64_t untorn_metadata;  /* /sys/fs/xfs/DEV/untorn_metadata_bytes, -1 absent */
	char fs_sysfs[256];	  /* that file's path */
	int nountorn;		  /* mounted with nountorn (untorn writes off) */
};

struct aw_advise_in {
	enum aw_db db;
	uint64_t page;	/* database page size, 0 unknown */
	char page_source[160];	/* where it came from, or why it is unknown */
	uint64_t page_other;	/* pg_controldata's page size when --page-size differs */
	int buffered;	/* the database writes its data through the page cache */
	struct aw_fs_facts fs;
	struct aw_stack stack;
	struct aw_dm_table dm[AW_STACK_MAX];	/* per layer of stack: dm tables */
};

enum aw_result { AW_PASS, AW_FAIL, AW_UNKNOWN, AW_NOTE };
enum aw_verdict_adv { AW_ADV_SAFE, AW_ADV_UNSAFE, AW_ADV_UNKNOWN };

#define AW_CHECKS_MAX 32

struct aw_check {
	const char *id;
	enum aw_result res;
	char found[320]; /* what was found */
	char why[320];	 /* why it matters */
};

struct aw_advice {
	struct aw_check c[AW_CHECKS_MAX];
	int n;
	int lost_fail, lost_unknown;	/* checks beyond AW_CHECKS_MAX, by result */
	enum aw_verdict_adv verdict;
	char setting[200]; /* what to change, or to keep */
};

/* Fill fs's atomic fields from a statx answer. */
void aw_fs_from_statx(struct aw_fs_facts *fs, const struct aw_statx *stx);

void aw_advise(const struct aw_advise_in *in, struct aw_advice *out);

const char *aw_result_name(enum aw_result r);
const char *aw_verdict_adv_name(enum aw_verdict_adv v);

#endif
