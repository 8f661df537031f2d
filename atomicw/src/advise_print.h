/* SPDX-License-Identifier: MIT */
/* atomicw advise's output, as text or as JSON (one object). */
#ifndef AW_ADVISE_PRINT_H
#define AW_ADVISE_PRINT_H

#include <stdio.h>

#include "advise.h"

/* One line per check (and why, if it did not pass), the device stack, the verdict. */
void aw_advise_print_text(FILE *f, const char *path, const struct aw_advise_in *in,
			  const struct aw_advice *a);

/* The same as one JSON object on one line. */
void aw_advise_print_json(FILE *f, const char *path, const struct aw_advise_in *in,
			  const struct aw_advice *a);

#endif
