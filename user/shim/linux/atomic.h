/* SPDX-License-Identifier: GPL-2.0 */
/* The few atomics of <linux/atomic.h> the core uses, on the C builtins. */
#ifndef _NFHP_SHIM_ATOMIC_H
#define _NFHP_SHIM_ATOMIC_H

#include "../shim.h"

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	long counter;
} atomic_long_t;

typedef struct {
	s64 counter;
} atomic64_t;

#define ATOMIC_INIT(i)		{ (i) }
#define atomic_read(v)		__atomic_load_n(&(v)->counter, __ATOMIC_RELAXED)
#define atomic_set(v, i)	__atomic_store_n(&(v)->counter, (i), \
						 __ATOMIC_RELAXED)
#define atomic_inc(v)		((void)__atomic_add_fetch(&(v)->counter, 1, \
							  __ATOMIC_SEQ_CST))
#define atomic_dec(v)		((void)__atomic_sub_fetch(&(v)->counter, 1, \
							  __ATOMIC_SEQ_CST))
#define atomic_inc_return(v)	__atomic_add_fetch(&(v)->counter, 1, \
						   __ATOMIC_SEQ_CST)
#define atomic_long_read(v)	atomic_read(v)
#define atomic_long_set(v, i)	atomic_set(v, i)
#define atomic_long_inc(v)	atomic_inc(v)
#define atomic_long_add(i, v)	((void)__atomic_add_fetch(&(v)->counter, (i), \
							  __ATOMIC_SEQ_CST))

#define atomic64_read(v)	atomic_read(v)
#define atomic64_set(v, i)	atomic_set(v, i)
#define atomic64_inc(v)		atomic_inc(v)
#define atomic64_add(i, v)	atomic_long_add(i, v)
#define atomic64_inc_return(v)	atomic_inc_return(v)
#define atomic64_add_return(i, v) __atomic_add_fetch(&(v)->counter, (i), \
						     __ATOMIC_SEQ_CST)

/*
 * atomic_add_unless(): add @a unless the counter is @u; true if it added.
 */
static inline bool atomic_add_unless(atomic_t *v, int a, int u)
{
	int c = atomic_read(v);

	do {
		if (c == u)
			return false;
	} while (!__atomic_compare_exchange_n(&v->counter, &c, c + a, false,
					      __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	return true;
}

/* cmpxchg(): the old value; @n stored if it was @o. */
#define cmpxchg(p, o, n) ({						\
	__typeof__(*(p)) __o = (o);					\
	__atomic_compare_exchange_n((p), &__o, (n), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	__o;								\
})

#endif /* _NFHP_SHIM_ATOMIC_H */
