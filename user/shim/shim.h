/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The userspace shim: just enough of the kernel API for the classifier core
 * (kernel/{match,tree,ruleset,mem,stats}.c) to compile unmodified, as the
 * kernel's tools/testing/radix-tree does.  Every linux/ header of this
 * directory includes this one, but errno.h (see there).
 *
 * Allocation failures can be injected: nfhp_shim_fail_countdown > 0 makes
 * the allocation after that many succeed fail, once.  RCU is a no-op: the
 * userspace programs are single-threaded, so a grace period is "now".
 */
#ifndef _NFHP_SHIM_H
#define _NFHP_SHIM_H

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int32_t __s32;
typedef int64_t __s64;
/*
 * The rest of the uapi <linux/types.h>, which this directory shadows for
 * the system's headers too: the netfilter uapi headers want them.
 */
typedef __u16 __le16;
typedef __u32 __le32;
typedef __u64 __le64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u64 __be64;
typedef __u16 __sum16;
typedef __u32 __wsum;
typedef unsigned int gfp_t;

#define __aligned(x)	__attribute__((aligned(x)))
#define __rcu
#define __percpu
#define __must_check	__attribute__((warn_unused_result))
#define likely(x)	__builtin_expect(!!(x), 1)
#define noinline_for_stack	__attribute__((noinline))
#define unlikely(x)	__builtin_expect(!!(x), 0)
#ifdef NFHP_SHIM_THREADS
/* As the kernel's on word-sized data: relaxed atomics, for TSan too. */
#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#else
#define READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#endif
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)

#define BITS_PER_LONG	64
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define ALIGN(x, a)	(((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define div64_u64(a, b)	((u64)(a) / (u64)(b))
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define DECLARE_FLEX_ARRAY(T, name) \
	struct { struct { } __empty_##name; T name[]; }
#define struct_size(p, member, n) \
	(sizeof(*(p)) + (n) * sizeof(*(p)->member))
#define swap(a, b) \
	do { __typeof__(a) __t = (a); (a) = (b); (b) = __t; } while (0)
#define MAX_ERRNO	4095
#define ERR_PTR(e)	((void *)(long)(e))
#define PTR_ERR(p)	((long)(p))
#define IS_ERR(p)	((unsigned long)(p) >= (unsigned long)-MAX_ERRNO)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
#define U64_MAX		((u64)~0ull)
#define U16_MAX		((u16)~0u)
#define U32_MAX		((u32)~0u)
/* Last set bit, 1-based; 0 for 0, as in the kernel. */
#define fls(x)		((x) ? 32 - __builtin_clz((unsigned int)(x)) : 0)
#define fls64(x)	((x) ? 64 - __builtin_clzll((unsigned long long)(x)) : 0)
#define hweight64(x)	((unsigned int)__builtin_popcountll(x))
#define ilog2(n)	(63 - __builtin_clzll((unsigned long long)(n)))
#define is_power_of_2(n)	((n) != 0 && ((n) & ((n) - 1)) == 0)
#define roundup_pow_of_two(n) \
	((n) <= 1 ? 1ul : 1ul << (64 - __builtin_clzl((unsigned long)(n) - 1)))
#define BUILD_BUG_ON(c)	_Static_assert(!(c), #c)
#define WARN_ON(c)	({ int __w = !!(c); assert(!__w); __w; })
#define WARN_ON_ONCE(c)	WARN_ON(c)
#define BUG_ON(c)	assert(!(c))
#define pr_debug(...)	do { } while (0)
#define pr_err(...)	fprintf(stderr, __VA_ARGS__)

#define GFP_KERNEL	0u
#define GFP_ATOMIC	0u
#define __GFP_NOWARN	0u
#define __GFP_ZERO	1u

extern long nfhp_shim_fail_countdown;
extern unsigned long nfhp_shim_allocs;
/* The stack's base as task_stack_page() gives it, see linux/sched/task_stack.h. */
extern unsigned long nfhp_shim_stack_base;

static inline bool nfhp_shim_should_fail(void)
{
#ifdef NFHP_SHIM_THREADS
	__atomic_add_fetch(&nfhp_shim_allocs, 1, __ATOMIC_RELAXED);
#else
	nfhp_shim_allocs++;
#endif
	if (nfhp_shim_fail_countdown > 0 && --nfhp_shim_fail_countdown == 0)
		return true;
	return false;
}

/*
 * Like the kernel's kmalloc caches, small blocks come from power-of-two
 * sizes aligned to their size, so a 64-byte node sits in one cache line
 * here as it does in the module.
 */
static inline void *kmalloc(size_t size, gfp_t gfp)
{
	size_t slab = 8;
	void *p;

	if (nfhp_shim_should_fail())
		return NULL;
	while (slab < size && slab < 4096)
		slab <<= 1;
	if (size > 4096)
		slab = size;
	p = size > 4096 ? malloc(size) : aligned_alloc(slab, slab);
	if (p && (gfp & __GFP_ZERO))
		memset(p, 0, size);
	return p;
}

static inline void *kzalloc(size_t size, gfp_t gfp)
{
	return kmalloc(size, gfp | __GFP_ZERO);
}

static inline void *kmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return kmalloc(n * size, gfp);
}

static inline void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	return kmalloc_array(n, size, gfp | __GFP_ZERO);
}

#define kvmalloc(s, g)		kmalloc(s, g)
#define kvzalloc(s, g)		kzalloc(s, g)
#define kvmalloc_array(n, s, g)	kmalloc_array(n, s, g)
#define kvcalloc(n, s, g)	kcalloc(n, s, g)
#define kvfree(p)		free(p)
#define kfree(p)		free(p)

/* What kmalloc() above really hands out for @size bytes. */
static inline size_t kmalloc_size_roundup(size_t size)
{
	size_t slab = 8;

	if (size > 4096)
		return size;
	while (slab < size)
		slab <<= 1;
	return slab;
}

#include <malloc.h>
#define PAGE_SIZE		4096ul
#define PAGE_ALIGN(x)		(((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))
#define is_vmalloc_addr(p)	((void)(p), false)
#define ksize(p)		malloc_usable_size((void *)(p))

/* RCU: single-threaded, so publishing is a store and a grace period is now. */
#ifdef NFHP_SHIM_THREADS
/*
 * The threaded tests (test_state_threads): readers run beside writers,
 * so publishing is a release and reading an acquire.
 */
#define rcu_assign_pointer(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define rcu_dereference(p)		__atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rcu_dereference_check(p, c)	((void)sizeof(c), rcu_dereference(p))
#else
#define rcu_assign_pointer(p, v)	((p) = (v))
#define rcu_dereference(p)		(p)
#define rcu_dereference_check(p, c)	((void)sizeof(c), (p))
#endif
#define RCU_INIT_POINTER(p, v)		((p) = (v))
/* The lockdep conditions compile, so they name what exists; not checked. */
#define rcu_dereference_protected(p, c)	((void)sizeof(c), (p))
#define rcu_read_lock_held()		1
#define rcu_access_pointer(p)		READ_ONCE(p)
#define rcu_read_lock()			do { } while (0)
#define rcu_read_unlock()		do { } while (0)
/*
 * Grace periods: there are no readers, so one passes when the code asks
 * for it (synchronize_rcu()); tests see the polled state API honour it.
 */
extern unsigned long nfhp_shim_rcu_gp;
static inline void synchronize_rcu(void)
{
	nfhp_shim_rcu_gp++;
}

static inline unsigned long get_state_synchronize_rcu(void)
{
	return nfhp_shim_rcu_gp + 1;
}

static inline bool poll_state_synchronize_rcu(unsigned long cookie)
{
	return nfhp_shim_rcu_gp >= cookie;
}

static inline void cond_synchronize_rcu(unsigned long cookie)
{
	if (!poll_state_synchronize_rcu(cookie))
		synchronize_rcu();
}

/* No reader can hold what is freed after a grace period: free it now. */
struct rcu_head {
	void *next;
	void (*func)(struct rcu_head *head);
};
#ifdef NFHP_SHIM_THREADS
/*
 * With threads, a reader may still hold it: what is freed after a grace
 * period waits until nfhp_shim_rcu_drain(), when the threads are gone.
 */
void nfhp_shim_rcu_defer(struct rcu_head *head, void *p);
void nfhp_shim_rcu_drain(void);
#define kfree_rcu(p, field)	nfhp_shim_rcu_defer(&(p)->field, (p))
#else
#define kfree_rcu(p, field)	kfree(p)
#endif

/* Per-CPU data: one CPU. */
#define alloc_percpu(type)	((type *)kzalloc(sizeof(type), GFP_KERNEL))
#define __alloc_percpu(size, align)	kzalloc(size, GFP_KERNEL)
#define free_percpu(p)		free(p)
#define per_cpu_ptr(p, cpu)	((void)(cpu), (p))
#define this_cpu_ptr(p)		(p)
#define this_cpu_add(var, v)	((var) += (v))
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < 1; (cpu)++)
#define num_possible_cpus()	1U

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/*
 * Work items run at once, in the caller: a tree build's helper
 * (tree.c, "Two builders") builds its half before the caller builds its
 * own, deterministically, so injected failures stay reproducible.
 */
struct work_struct {
	void (*func)(struct work_struct *work);
};
struct workqueue_struct;
#define system_unbound_wq	((struct workqueue_struct *)NULL)
#define INIT_WORK(w, f)		((w)->func = (f))
static inline bool queue_work(struct workqueue_struct *wq,
			      struct work_struct *work)
{
	(void)wq;
	work->func(work);
	return true;
}
static inline bool flush_work(struct work_struct *work)
{
	(void)work;
	return true;
}

/* Mutexes: the callers serialize; keep the type for struct layouts. */
struct mutex {
	int locked;
};
#define mutex_init(m)		((m)->locked = 0)
#define mutex_lock(m)		((m)->locked = 1)
#define mutex_unlock(m)		((m)->locked = 0)
#define mutex_destroy(m)	do { } while (0)
#define lockdep_is_held(m)	((void)sizeof(m), 1)
#define lockdep_assert_held(m)	do { } while (0)

static inline void sort(void *base, size_t num, size_t size,
			int (*cmp)(const void *, const void *),
			void (*swap)(void *, void *, int))
{
	(void)swap;
	/* The kernel's sort() takes an empty array at NULL; qsort() not. */
	if (num)
		qsort(base, num, size, cmp);
}

static inline size_t strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(src, size);

	if (!size)
		return -E2BIG;
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = 0;
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return len;
}

static inline void cond_resched(void)
{
}

#endif /* _NFHP_SHIM_H */
