/* SPDX-License-Identifier: GPL-2.0 */
#include "../shim.h"
#define prefetch(x)	__builtin_prefetch(x)
#define prefetchw(x)	__builtin_prefetch(x, 1)
