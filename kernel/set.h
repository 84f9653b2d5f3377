/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the named sets of a namespace (set.c).
 */
#ifndef _NFHP_SET_H
#define _NFHP_SET_H

#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "set_algo.h"

/**
 * struct nfhp_set_stats - what packets asked of a set, on one CPU
 * @lookups: lookups of set matches
 * @hits: of which found an entry
 */
struct nfhp_set_stats {
	u64 lookups;
	u64 hits;
};

/**
 * struct nfhp_set - one named set
 * @next: the next set of the namespace
 * @name: its name
 * @family: the family of its keys
 * @algo: its algorithm, fixed at create
 * @inst: the algorithm's instance: packets read it under RCU; a flush
 *	replaces it, a swap exchanges it with another set's
 * @limit: most entries, 0 for no limit
 * @locked: adds and removes fail
 * @refs: rules that refer to the set (set_match.c)
 * @mem: the account of @inst's memory, which moves with it
 * @gc: the blocks @inst's writers replaced, which move with it too
 * @stats: lookups and hits by packets, per CPU
 */
struct nfhp_set {
	struct nfhp_set *next;
	char name[NFHP_SET_MAXNAMELEN];
	u8 family;
	const struct nfhp_set_algo *algo;
	void __rcu *inst;
	u32 limit;
	bool locked;
	u32 refs;
	struct nfhp_mem mem;
	struct nfhp_set_gc gc;
	struct nfhp_set_stats __percpu *stats;
};

/**
 * struct nfhp_sets - the named sets of a namespace
 * @first: the newest set
 * @n: how many
 * @lock: the mutex every writer and reader but packets holds, for lockdep;
 *	NULL in the userspace tests
 * @mem_limit: the memory bound of each set
 */
struct nfhp_sets {
	struct nfhp_set *first;
	unsigned int n;
	struct mutex *lock;
	u64 mem_limit;
};

/**
 * nfhp_set_lookup() - the packet path: is an address in a set?
 * @set: the set
 * @key: the address, full width
 * @value: set to the value of the entry that holds it
 *
 * Call under rcu_read_lock().
 *
 * Return: true if an entry holds it.
 */
static inline bool nfhp_set_lookup(const struct nfhp_set *set,
				   const struct nfhp_set_key *key, u32 *value)
{
	bool hit = set->algo->lookup(rcu_dereference(set->inst), key, value);

	this_cpu_add(set->stats->lookups, 1);
	this_cpu_add(set->stats->hits, (u64)hit);
	return hit;
}

const struct nfhp_set_algo *nfhp_set_algo_find(u8 type, const char *name);
struct nfhp_set *nfhp_set_find(const struct nfhp_sets *sets, const char *name);
int nfhp_set_create(struct nfhp_sets *sets, const char *name, u8 family,
		    const struct nfhp_set_algo *algo, u32 limit, u32 flags,
		    const char **msg);
int nfhp_set_destroy(struct nfhp_sets *sets, const char *name,
		     const char **msg);
int nfhp_set_flush(struct nfhp_sets *sets, struct nfhp_set *set);
int nfhp_set_swap(struct nfhp_sets *sets, struct nfhp_set *a,
		  struct nfhp_set *b, const char **msg);
int nfhp_set_add(struct nfhp_sets *sets, struct nfhp_set *set,
		 const struct nfhp_set_key *key, u32 value, u32 flags);
int nfhp_set_remove(struct nfhp_sets *sets, struct nfhp_set *set,
		    const struct nfhp_set_key *key);
bool nfhp_set_test(const struct nfhp_sets *sets, const struct nfhp_set *set,
		   const struct nfhp_set_key *key, u32 *value);
u32 nfhp_set_count(const struct nfhp_sets *sets, const struct nfhp_set *set);
int nfhp_set_walk(const struct nfhp_sets *sets, const struct nfhp_set *set,
		  u64 *cursor,
		  int (*fn)(void *arg, const struct nfhp_set_key *key,
			    u32 value),
		  void *arg);
void nfhp_set_stats_sum(const struct nfhp_set *set,
			struct nfhp_set_stats *sum);
bool nfhp_sets_collect(struct nfhp_sets *sets);
void nfhp_sets_init(struct nfhp_sets *sets, struct mutex *lock,
		    u64 mem_limit);
void nfhp_sets_free(struct nfhp_sets *sets);

#endif /* _NFHP_SET_H */
