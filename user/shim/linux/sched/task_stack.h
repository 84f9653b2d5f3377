/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The task's stack, for the core's check of how much is left
 * (nfhp_stack_low() in tree_priv.h), and its signals.  Userspace has megabytes of it: the base
 * is 0, so the check never fires, unless a test moves the base up to a
 * few kilobytes below its own frame (nfhp_shim_stack_base).
 */
#ifndef _NFHP_SHIM_TASK_STACK_H
#define _NFHP_SHIM_TASK_STACK_H

#include "../../shim.h"

struct task_struct;

#define current	((struct task_struct *)NULL)

static inline void *task_stack_page(const struct task_struct *task)
{
	(void)task;
	return (void *)nfhp_shim_stack_base;
}

/*
 * A pending signal, for the core's interruptible commits: none, unless a
 * test sets nfhp_shim_signal_countdown > 0, which makes the check after
 * that many answer true, once.
 */
extern long nfhp_shim_signal_countdown;

static inline bool signal_pending(const struct task_struct *task)
{
	(void)task;
	return nfhp_shim_signal_countdown > 0 &&
	       --nfhp_shim_signal_countdown == 0;
}

#endif
