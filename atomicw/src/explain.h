/* SPDX-License-Identifier: MIT */
/* Turning the kernel's errno for a failed write into a useful message. */
#ifndef AW_EXPLAIN_H
#define AW_EXPLAIN_H

#include <stdint.h>

#include "target.h"

/* How a write is issued, for messages: "O_DIRECT", "RWF_ATOMIC",
 * "buffered" or "buffered RWF_ATOMIC". */
const char *aw_write_kind(int atomic, int buffered);

/* Print one line naming the failed write and, for the atomic write errnos,
 * what the kernel objects to given this target's limits. */
void aw_explain_write_error(const struct aw_target *t, int err, uint64_t off,
			    uint32_t len, int atomic);

#endif
