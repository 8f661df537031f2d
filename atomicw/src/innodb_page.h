/* SPDX-License-Identifier: MIT */
/* The page size of an InnoDB data directory, from its system tablespace. */
#ifndef AW_INNODB_PAGE_H
#define AW_INNODB_PAGE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The page size encoded in the tablespace flags of a first page (hdr, at
 * least 58 bytes of page 0 of ibdata1): 4096..65536, or 0 if the flags
 * hold no valid page size.
 */
uint64_t aw_innodb_page_from_header(const unsigned char *hdr, size_t len);

/* innodb_page_size of the data directory dir (dir/ibdata1), or 0 with the
 * reason in source; the file it came from in source otherwise. */
uint64_t aw_innodb_page_size(const char *dir, char *source, size_t slen);

#endif
