// SPDX-License-Identifier: MIT
#include "ring.h"

#include <stdio.h>
#include <string.h>

int aw_ring_init(struct aw_ring *r, unsigned int qd)
{
	int ret = io_uring_queue_init(qd, &r->ring, 0);

	r->qd = qd;
	r->inflight = 0;
	if (ret < 0) {
		fprintf(stderr, "atomicw: io_uring_queue_init(%u): %s\n", qd, strerror(-ret));
		return -1;
	}
	return 0;
}

void aw_ring_exit(struct aw_ring *r)
{
	io_uring_queue_exit(&r->ring);
}

static struct io_uring_sqe *get_sqe(struct aw_ring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (!sqe)
		fprintf(stderr, "atomicw: io_uring submission queue full\n");
	return sqe;
}

int aw_ring_write(struct aw_ring *r, int fd, const void *buf, uint32_t len,
		  uint64_t off, int rw_flags, uint64_t tag)
{
	struct io_uring_sqe *sqe = get_sqe(r);

	if (!sqe)
		return -1;
	io_uring_prep_write(sqe, fd, buf, len, off);
	sqe->rw_flags = rw_flags;
	io_uring_sqe_set_data64(sqe, tag);
	r->inflight++;
	return 0;
}

int aw_ring_writev(struct aw_ring *r, int fd, const struct iovec *iov,
		   unsigned int nr, uint64_t off, int rw_flags, uint64_t tag)
{
	struct io_uring_sqe *sqe = get_sqe(r);

	if (!sqe)
		return -1;
	io_uring_prep_writev(sqe, fd, iov, nr, off);
	sqe->rw_flags = rw_flags;
	io_uring_sqe_set_data64(sqe, tag);
	r->inflight++;
	return 0;
}

int aw_ring_fsync(struct aw_ring *r, int fd, uint64_t tag)
{
	struct io_uring_sqe *sqe = get_sqe(r);

	if (!sqe)
		return -1;
	io_uring_prep_fsync(sqe, fd, 0);
	io_uring_sqe_set_data64(sqe, tag);
	r->inflight++;
	return 0;
}

int aw_ring_submit(struct aw_ring *r)
{
	int ret = io_uring_submit(&r->ring);

	if (ret < 0) {
		fprintf(stderr, "atomicw: io_uring_submit: %s\n", strerror(-ret));
		return -1;
	}
	return 0;
}

int aw_ring_reap(struct aw_ring *r, uint64_t *tag, int *res)
{
	struct io_uring_cqe *cqe;
	int ret = io_uring_wait_cqe(&r->ring, &cqe);

	if (ret < 0) {
		fprintf(stderr, "atomicw: io_uring_wait_cqe: %s\n", strerror(-ret));
		return -1;
	}
	*tag = io_uring_cqe_get_data64(cqe);
	*res = cqe->res;
	io_uring_cqe_seen(&r->ring, cqe);
	r->inflight--;
	return 0;
}
