/* SPDX-License-Identifier: MIT */
/* Latency samples and percentiles. */
#ifndef AW_STATS_H
#define AW_STATS_H

#include <stdint.h>

struct aw_samples {
	uint64_t *v;
	uint64_t n, cap;
};

int aw_samples_add(struct aw_samples *s, uint64_t v);
/* p in [0, 100]; sorts the samples; 0 when there are none. */
uint64_t aw_samples_pct(struct aw_samples *s, double p);
void aw_samples_free(struct aw_samples *s);

#endif
