// SPDX-License-Identifier: MIT
/*
 * InnoDB keeps its page size in the tablespace flags of every tablespace's
 * first page: the FSP header starts after the 38-byte FIL header and its
 * flags are the big-endian 32-bit word at offset 16 in it (byte 54 of the
 * file).  Two layouts:
 *   - MySQL and MariaDB before full_crc32: PAGE_SSIZE in bits 6..9, where 0
 *     means the original 16k;
 *   - MariaDB's full_crc32 format (marker bit 4 set): PAGE_SSIZE in bits
 *     0..3.
 * A PAGE_SSIZE s stands for 512 << s bytes (3 = 4k ... 7 = 64k).  The
 * system tablespace is never compressed, so bit 4 is not part of a
 * compressed page size there and marks full_crc32 only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "innodb_page.h"

#define FSP_FLAGS_OFFSET (38 + 16)
#define FCRC32_MARKER (1u << 4)

uint64_t aw_innodb_page_from_header(const unsigned char *hdr, size_t len)
{
	uint32_t flags, ssize;

	if (len < FSP_FLAGS_OFFSET + 4)
		return 0;
	flags = (uint32_t)hdr[FSP_FLAGS_OFFSET] << 24 | (uint32_t)hdr[FSP_FLAGS_OFFSET + 1] << 16 |
		(uint32_t)hdr[FSP_FLAGS_OFFSET + 2] << 8 | hdr[FSP_FLAGS_OFFSET + 3];
	if (flags & FCRC32_MARKER) {
		ssize = flags & 15;
	} else {
		ssize = (flags >> 6) & 15;
		if (!ssize)
			return 16384;
	}
	if (ssize < 3 || ssize > 7)
		return 0;
	return 512ull << ssize;
}

uint64_t aw_innodb_page_size(const char *dir, char *source, size_t slen)
{
	unsigned char hdr[FSP_FLAGS_OFFSET + 4];
	char path[4096];
	uint64_t page;
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/ibdata1", dir) >= sizeof(path)) {
		snprintf(source, slen, "the path of ibdata1 is too long");
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(source, slen, "%s: %s", path, strerror(errno));
		return 0;
	}
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n < 0)
		snprintf(source, slen, "reading %s: %s", path, strerror(errno));
	close(fd);
	if (n < 0)
		return 0;
	page = aw_innodb_page_from_header(hdr, (size_t)n);
	if (!page)
		snprintf(source, slen, "%s: no valid page size in its tablespace flags", path);
	else
		snprintf(source, slen, "%s", path);
	return page;
}
