/* SPDX-License-Identifier: MIT */
/* A thin layer over liburing for the write and bench commands. */
#ifndef AW_RING_H
#define AW_RING_H

#include <liburing.h>
#include <stdint.h>

struct aw_ring {
	struct io_uring ring;
	unsigned int qd;
	unsigned int inflight;
};

int aw_ring_init(struct aw_ring *r, unsigned int qd);
void aw_ring_exit(struct aw_ring *r);

/* Queue a write (rw_flags: 0 or RWF_ATOMIC) or an fsync; submit separately. */
int aw_ring_write(struct aw_ring *r, int fd, const void *buf, uint32_t len,
		  uint64_t off, int rw_flags, uint64_t tag);
/* The same from an iovec array (IORING_OP_WRITEV). */
int aw_ring_writev(struct aw_ring *r, int fd, const struct iovec *iov,
		   unsigned int nr, uint64_t off, int rw_flags, uint64_t tag);
int aw_ring_fsync(struct aw_ring *r, int fd, uint64_t tag);
int aw_ring_submit(struct aw_ring *r);

/* Wait for one completion: its tag and result (bytes or -errno). */
int aw_ring_reap(struct aw_ring *r, uint64_t *tag, int *res);

#endif
