// SPDX-License-Identifier: MIT
#include "compat.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int aw_statx(int dirfd, const char *path, int flags, unsigned int mask,
	     struct aw_statx *stx)
{
	memset(stx, 0, sizeof(*stx));
	return (int)syscall(SYS_statx, dirfd, path, flags, mask, stx);
}
