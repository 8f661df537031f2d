// SPDX-License-Identifier: MIT
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>

int aw_samples_add(struct aw_samples *s, uint64_t v)
{
	if (s->n == s->cap) {
		uint64_t cap = s->cap ? s->cap * 2 : 1024;
		uint64_t *p = realloc(s->v, cap * sizeof(*p));

		if (!p) {
			fprintf(stderr, "atomicw: out of memory for %llu samples\n",
				(unsigned long long)cap);
			return -1;
		}
		s->v = p;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile. */
uint64_t aw_samples_pct(struct aw_samples *s, double p)
{
	uint64_t rank;

	if (!s->n)
		return 0;
	qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	rank = (uint64_t)(p / 100.0 * (double)s->n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > s->n)
		rank = s->n;
	return s->v[rank - 1];
}

void aw_samples_free(struct aw_samples *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}
