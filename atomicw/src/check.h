/* SPDX-License-Identifier: MIT */
/*
 * Judging a block read back after a crash against what the journal says it
 * must hold.
 */
#ifndef AW_CHECK_H
#define AW_CHECK_H

#include "journal.h"
#include "stamp.h"

enum aw_verdict {
	AW_V_UNWRITTEN,	 /* zero and never acknowledged durable */
	AW_V_INTACT_NEW, /* holds the newest submitted write */
	AW_V_INTACT_OLD, /* holds an older write, none newer was durable */
	AW_V_TORN,	 /* sectors from different writes */
	AW_V_CORRUPT,	 /* a sector that no write of ours produced */
	AW_V_LOST,	 /* intact but older than a durable write */
	AW_V_NR,
};

struct aw_tally {
	uint64_t n[AW_V_NR];
	uint64_t lost; /* blocks missing durable data (LOST, plus torn/corrupt ones) */
};

/* e == NULL: no journal, judge the block by its stamps alone. */
enum aw_verdict aw_judge(const struct aw_block_class *c, const struct aw_expect *e,
			 int *lost);
const char *aw_verdict_name(enum aw_verdict v);

#endif
