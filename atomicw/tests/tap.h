/* SPDX-License-Identifier: MIT */
/* A minimal test harness: CHECK records failures, tap_done reports them. */
#ifndef AW_TAP_H
#define AW_TAP_H

#include <stdio.h>

extern int tap_failures;
extern int tap_checks;

#define CHECK(cond)                                                             \
	do {                                                                    \
		tap_checks++;                                                   \
		if (!(cond)) {                                                  \
			tap_failures++;                                         \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,  \
				__LINE__, #cond);                               \
		}                                                               \
	} while (0)

/* Print the summary and return the exit status for main(). */
int tap_done(const char *name);

#endif
