// SPDX-License-Identifier: MIT
#include "tap.h"

int tap_failures;
int tap_checks;

int tap_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, tap_checks, tap_failures);
	return tap_failures ? 1 : 0;
}
