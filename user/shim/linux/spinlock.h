/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Spinlocks: the userspace programs are single-threaded, so a lock is a
 * flag, and taking one that is held is the self-deadlock it would be in
 * the kernel: an assertion fails.
 */
#ifndef _NFHP_SHIM_SPINLOCK_H
#define _NFHP_SHIM_SPINLOCK_H

#include "../shim.h"

typedef struct {
	int locked;
} spinlock_t;

#define spin_lock_init(l)	((l)->locked = 0)

static inline void spin_lock(spinlock_t *l)
{
	assert(!l->locked);
	l->locked = 1;
}

static inline void spin_unlock(spinlock_t *l)
{
	assert(l->locked);
	l->locked = 0;
}

#define spin_lock_bh(l)		spin_lock(l)
#define spin_unlock_bh(l)	spin_unlock(l)
#define lockdep_assert_held_spin(l)	assert((l)->locked)

#endif /* _NFHP_SHIM_SPINLOCK_H */
