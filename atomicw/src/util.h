/* SPDX-License-Identifier: MIT */
/* Small helpers: number parsing, random numbers, clocks, aligned buffers. */
#ifndef AW_UTIL_H
#define AW_UTIL_H

#include <stdint.h>
#include <stdio.h>

/*
 * Parse a byte count with an optional k/m/g suffix (powers of 1024) into
 * *out.  Returns 0, or -1 for anything that is not a whole number that fits.
 */
int aw_parse_size(const char *s, uint64_t *out);

/* Parse a plain unsigned decimal number. */
int aw_parse_u64(const char *s, uint64_t *out);

/* Parse seconds with an optional s/m/h suffix. */
int aw_parse_duration(const char *s, uint64_t *seconds);

static inline int aw_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* xorshift64*: fast, seeded, reproducible. */
struct aw_rng {
	uint64_t s;
};

void aw_rng_seed(struct aw_rng *r, uint64_t seed);
uint64_t aw_rng_next(struct aw_rng *r);
uint64_t aw_rng_below(struct aw_rng *r, uint64_t n);

/*
 * A run's identity, never 0 (AW_RUN_ANY).  reproducible: a function of the
 * rng's state and gen only (the same --seed and --gen-base write the same
 * bytes); otherwise the time and the process id are mixed in as well.
 */
uint64_t aw_new_run_id(struct aw_rng *r, uint64_t gen, int reproducible);

uint64_t aw_now_ns(void);

/* Page-aligned zeroed buffer for O_DIRECT; prints an error and returns NULL. */
void *aw_alloc_aligned(uint64_t len);

/* Format a message into err (len bytes) and return -1, for error paths. */
int aw_errf(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write s to f as a JSON string, quotes included, escaping what JSON needs. */
void aw_json_str(FILE *f, const char *s);

#endif
