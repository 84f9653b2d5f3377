/* SPDX-License-Identifier: GPL-2.0 */
#include "../shim.h"
#define L1_CACHE_BYTES	64
