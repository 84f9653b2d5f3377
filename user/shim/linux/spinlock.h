/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Spinlocks: the userspace programs are single-threaded, so a lock is a
 * flag, and taking one that is held is the self-deadlock it would be in
 * the kernel: an assertion fails.  The threaded tests (NFHP_SHIM_THREADS)
 * take mutexes.
 */
#ifndef _NFHP_SHIM_SPINLOCK_H
#define _NFHP_SHIM_SPINLOCK_H

#include "../shim.h"

#ifdef NFHP_SHIM_THREADS
#include <pthread.h>

typedef pthread_mutex_t spinlock_t;

#define spin_lock_init(l)	pthread_mutex_init((l), NULL)
#define spin_lock(l)		pthread_mutex_lock(l)
#define spin_unlock(l)		pthread_mutex_unlock(l)
#else
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
#endif

#define spin_lock_bh(l)		spin_lock(l)
#define spin_unlock_bh(l)	spin_unlock(l)

#endif /* _NFHP_SHIM_SPINLOCK_H */
