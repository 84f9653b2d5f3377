/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The check() of every unit test: one TAP line per case, counted, so that
 * a test ends with tap_summary()'s "N passed, N failed" and its exit code.
 */
#ifndef _NFHP_TAP_H
#define _NFHP_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tests, failures;

static void __attribute__((format(printf, 2, 3)))
check(bool ok, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (!ok)
		failures++;
	printf("%sok %d - ", ok ? "" : "not ", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#endif /* _NFHP_TAP_H */
