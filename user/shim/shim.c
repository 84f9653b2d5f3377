// SPDX-License-Identifier: GPL-2.0
/* Globals of the userspace shim, see shim.h. */
#include "shim.h"

long nfhp_shim_fail_countdown;
unsigned long nfhp_shim_allocs;
unsigned long nfhp_shim_stack_base;
long nfhp_shim_signal_countdown;
unsigned long nfhp_shim_rcu_gp;
u64 nfhp_shim_random_state = 0x9e3779b97f4a7c15ull;
