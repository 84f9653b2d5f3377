/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The error numbers and nothing else, as in the kernel.  glibc's <errno.h>
 * takes its E* constants from <linux/errno.h> and finds this file first on
 * the shim's include path: were it the whole shim, a file that includes
 * <errno.h> before the shim would reach shim.h before any E* constant is
 * defined.  So <errno.h> and the shim's headers go in any order.
 */
#include <asm/errno.h>
