// SPDX-License-Identifier: MIT
#include "check.h"

/*
 * A valid stamp names its block and generation, so it can only come from
 * our own write of that generation to that block.  What matters is whether
 * it is at least as new as the last durable write.
 */
enum aw_verdict aw_judge(const struct aw_block_class *c, const struct aw_expect *e,
			 int *lost)
{
	static const enum aw_verdict no_journal[] = {
		[AW_BLK_ZERO] = AW_V_UNWRITTEN, [AW_BLK_INTACT] = AW_V_INTACT_NEW,
		[AW_BLK_TORN] = AW_V_TORN, [AW_BLK_CORRUPT] = AW_V_CORRUPT,
	};

	*lost = 0;
	if (!e)
		return no_journal[c->state];
	switch (c->state) {
	case AW_BLK_CORRUPT:
		*lost = e->durable != 0;
		return AW_V_CORRUPT;
	case AW_BLK_TORN:
		*lost = c->gen_min < e->durable;
		return AW_V_TORN;
	case AW_BLK_ZERO:
		*lost = e->durable != 0;
		return *lost ? AW_V_LOST : AW_V_UNWRITTEN;
	case AW_BLK_INTACT:
		break;
	}
	if (c->gen_max > e->submitted)
		return AW_V_CORRUPT; /* a stamp from another run: journal mismatch */
	if (c->gen_max < e->durable) {
		*lost = 1;
		return AW_V_LOST;
	}
	return c->gen_max == e->submitted ? AW_V_INTACT_NEW : AW_V_INTACT_OLD;
}

const char *aw_verdict_name(enum aw_verdict v)
{
	static const char *const names[AW_V_NR] = {
		[AW_V_UNWRITTEN] = "unwritten", [AW_V_INTACT_NEW] = "intact-new",
		[AW_V_INTACT_OLD] = "intact-old", [AW_V_TORN] = "torn",
		[AW_V_CORRUPT] = "corrupt", [AW_V_LOST] = "lost",
	};

	return v < AW_V_NR ? names[v] : "?";
}
