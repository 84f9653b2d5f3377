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
#include "set_counter.h"

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
 * typedef nfhp_set_entry_fn - called for each entry of a walk
 * @arg: the walker's argument
 * @key: the entry's key
 * @value: its value
 * @counts: its counts, or NULL when its set does not count
 * @eflags: its %NFHP_SETE_F_* flags: %NFHP_SETE_F_NOMATCH
 *
 * Runs under rcu_read_lock(): it must not sleep.
 *
 * Return: 0 to go on; else the walk stops, as &struct nfhp_set_algo.walk
 * says: after the entry when more than 0, at it when less.
 */
typedef int (*nfhp_set_entry_fn)(void *arg, const struct nfhp_set_key *key,
				 u32 value,
				 const struct nfhp_set_counts *counts,
				 u32 eflags);

/*
 * An add's flag beside %NFHP_SET_F_UPDATE: the entry is a nomatch one.
 * Not a UAPI bit: NFHPA_SETE_FLAGS carries it for each entry.
 */
#define NFHP_SET_ADD_NOMATCH	(1U << 31)

/**
 * struct nfhp_set_body - the entries of a set: an instance and its memory
 * @inst: the algorithm's instance
 * @algo: its algorithm
 * @counting: its entries count packets
 * @slotted: the values @inst holds are the indexes of slots of
 *	@counters, with %NFHP_SET_SLOT_NOMATCH for a nomatch entry: while
 *	@counting, or once it took a nomatch entry (DOC: Counters)
 * @counters: the slots of the entries, while @slotted
 * @mem: the account of its memory
 * @gc: the blocks its writers replaced, not yet freed
 * @state: an &enum nfhp_set_body_state
 * @next: the next body on &nfhp_sets.dead
 * @cookie: get_state_synchronize_rcu() when it went there
 *
 * Entries move between sets as whole bodies (a swap) and a transaction
 * writes to a body of its own (set_txn.c); the memory account and the
 * retired blocks move with the body.
 */
struct nfhp_set_body {
	void *inst;
	const struct nfhp_set_algo *algo;
	bool counting;
	bool slotted;
	struct nfhp_set_counters counters;
	struct nfhp_mem mem;
	struct nfhp_set_gc gc;
	u8 state;
	struct nfhp_set_body *next;
	unsigned long cookie;
};

/**
 * enum nfhp_set_body_state - who can read a body
 * @NFHP_SET_BODY_STAGED: only the open transaction: free it at once
 * @NFHP_SET_BODY_LIVE: a set's packets, now
 * @NFHP_SET_BODY_LEAVING: packets until the commit under way, not after
 * @NFHP_SET_BODY_DEAD: on &nfhp_sets.dead, freed after a grace period
 */
enum nfhp_set_body_state {
	NFHP_SET_BODY_STAGED,
	NFHP_SET_BODY_LIVE,
	NFHP_SET_BODY_LEAVING,
	NFHP_SET_BODY_DEAD,
};

/**
 * struct nfhp_set_state - what a set holds, committed or staged
 * @body: its entries; NULL for the committed state of a set the open
 *	transaction created
 * @limit: most entries, 0 for no limit
 * @locked: adds and removes fail
 */
struct nfhp_set_state {
	struct nfhp_set_body *body;
	u32 limit;
	bool locked;
};

/**
 * struct nfhp_set_spec - what a set is made with, fixed at create but
 *	for the limit and the lock
 * @family: %NFHP_FAMILY_IPV4 or %NFHP_FAMILY_IPV6
 * @algo: its algorithm
 * @limit: most entries, 0 for no limit
 * @flags: %NFHP_SET_F_LOCKED, %NFHP_SET_F_COUNTERS; with
 *	%NFHP_SET_F_EXIST an existing set of the same spec is no error
 * @range_lo: the least number a number set's entries may hold
 * @range_hi: the greatest; 0 and U32_MAX for other types
 */
struct nfhp_set_spec {
	u8 family;
	const struct nfhp_set_algo *algo;
	u32 limit;
	u32 flags;
	u32 range_lo;
	u32 range_hi;
};

/**
 * struct nfhp_set - one named set
 * @next: the next set of the namespace
 * @name: its name
 * @family: the family of its keys
 * @algo: its algorithm, fixed at create
 * @range_lo: the least number a number set's entries may hold
 * @range_hi: the greatest (ipset's bitmap:port "range"), fixed at create
 * @counting: its entries count packets (%NFHP_SET_F_COUNTERS), for ever
 * @pkt_body: @live's body, which packets read under RCU
 * @live: the committed state: packets, listings and tests see it
 * @txn: the open transaction's state, valid while @staged
 * @staged: the open transaction changed the set
 * @created: the open transaction created it: only that transaction's
 *	rules and commands see it
 * @destroyed: the open transaction destroyed it: they no longer do
 * @refs: rules that refer to the set (set_match.c)
 * @stats: lookups and hits by packets, per CPU
 */
struct nfhp_set {
	struct nfhp_set *next;
	char name[NFHP_SET_MAXNAMELEN];
	u8 family;
	const struct nfhp_set_algo *algo;
	u32 range_lo;
	u32 range_hi;
	bool counting;
	struct nfhp_set_body __rcu *pkt_body;
	struct nfhp_set_state live;
	struct nfhp_set_state txn;
	bool staged;
	bool created;
	bool destroyed;
	u32 refs;
	struct nfhp_set_stats __percpu *stats;
};

/**
 * struct nfhp_sets - the named sets of a namespace
 * @first: the newest set
 * @n: how many, committed or not
 * @lock: the mutex every writer and reader but packets holds, for lockdep;
 *	NULL in the userspace tests
 * @mem_limit: the memory bound of each body
 * @txn: a transaction is open: writers stage their changes (set_txn.c)
 * @dead: bodies no set holds, oldest first, freed a grace period after
 *	they left
 * @dead_tail: the newest of them
 */
struct nfhp_sets {
	struct nfhp_set *first;
	unsigned int n;
	struct mutex *lock;
	u64 mem_limit;
	bool txn;
	struct nfhp_set_body *dead;
	struct nfhp_set_body *dead_tail;
};

/**
 * nfhp_set_probe() - the packet path: look a packet's key up in a set
 * @set: the set
 * @key: the key, an address full width
 * @body: set to the body it was looked up in
 * @found: set to what the algorithm holds for the entry that holds it:
 *	its value, or its slot in a slotted body (nfhp_set_hit_value())
 *
 * Call under rcu_read_lock(); @body stays valid until its unlock.
 * Counts the lookup and its hit in the set's statistics.
 *
 * Return: true if an entry holds it.
 */
static inline bool nfhp_set_probe(const struct nfhp_set *set,
				  const struct nfhp_set_key *key,
				  const struct nfhp_set_body **body, u32 *found)
{
	const struct nfhp_set_body *b = rcu_dereference(set->pkt_body);
	bool hit = b->algo->lookup(b->inst, key, found);

	this_cpu_add(set->stats->lookups, 1);
	this_cpu_add(set->stats->hits, (u64)hit);
	*body = b;
	return hit;
}

/**
 * nfhp_set_hit_value() - the value of the entry a probe found, and
 *	whether the packet is in the set
 * @body: the body nfhp_set_probe() looked the key up in
 * @found: what it found
 * @value: set to the entry's value
 *
 * Under the rcu_read_lock() of the probe.  Counts nothing.  A body
 * without slots costs one test of its @slotted.
 *
 * Return: false when the entry is a nomatch one: the packet is not in
 * the set.
 */
static inline bool nfhp_set_hit_value(const struct nfhp_set_body *body,
				      u32 found, u32 *value)
{
	*value = found;
	if (!body->slotted)
		return true;
	*value = nfhp_set_slot_value(&body->counters, found);
	return !(found & NFHP_SET_SLOT_NOMATCH);
}

/**
 * nfhp_set_lookup() - the packet path: is a packet's key in a set?
 * @set: the set
 * @key: the key, an address full width
 * @len: the packet's length, which a counting set counts
 * @value: set to the value of the entry that holds it
 *
 * Call under rcu_read_lock().
 *
 * Return: true if an entry holds it, the longest one not a nomatch entry.
 */
static inline bool nfhp_set_lookup(const struct nfhp_set *set,
				   const struct nfhp_set_key *key,
				   unsigned int len, u32 *value)
{
	const struct nfhp_set_body *body;
	bool hit = nfhp_set_probe(set, key, &body, value);

	if (hit && body->slotted)
		hit = nfhp_set_slot_hit(&body->counters, value, len,
					body->counting);
	return hit;
}

/* set.c: the registry and its writers */
const struct nfhp_set_algo *nfhp_set_algo_find(u8 type, const char *name);
struct nfhp_set *nfhp_set_find(const struct nfhp_sets *sets, const char *name);
struct nfhp_set *nfhp_set_find_committed(const struct nfhp_sets *sets,
					 const char *name);
void nfhp_set_spec_init(struct nfhp_set_spec *spec, u8 family,
			const struct nfhp_set_algo *algo);
int nfhp_set_create(struct nfhp_sets *sets, const char *name,
		    const struct nfhp_set_spec *spec, const char **msg);
int nfhp_set_destroy(struct nfhp_sets *sets, const char *name,
		     const char **msg);
int nfhp_set_flush(struct nfhp_sets *sets, struct nfhp_set *set);
int nfhp_set_swap(struct nfhp_sets *sets, struct nfhp_set *a,
		  struct nfhp_set *b, const char **msg);
void nfhp_set_modify(struct nfhp_sets *sets, struct nfhp_set *set,
		     const u32 *limit, const bool *locked);
int nfhp_set_add(struct nfhp_sets *sets, struct nfhp_set *set,
		 const struct nfhp_set_key *key, u32 value,
		 const struct nfhp_set_counts *counts, u32 flags);
int nfhp_set_remove(struct nfhp_sets *sets, struct nfhp_set *set,
		    const struct nfhp_set_key *key);
bool nfhp_set_test(const struct nfhp_sets *sets, const struct nfhp_set *set,
		   const struct nfhp_set_key *key, u32 *value,
		   struct nfhp_set_counts *counts, bool nomatch);
u32 nfhp_set_count(const struct nfhp_sets *sets, const struct nfhp_set *set);
int nfhp_set_walk(const struct nfhp_sets *sets, const struct nfhp_set *set,
		  u64 *cursor, nfhp_set_entry_fn fn, void *arg);
void nfhp_set_stats_sum(const struct nfhp_set *set,
			struct nfhp_set_stats *sum);
bool nfhp_sets_collect(struct nfhp_sets *sets);
void nfhp_sets_init(struct nfhp_sets *sets, struct mutex *lock,
		    u64 mem_limit);
void nfhp_sets_free(struct nfhp_sets *sets);

/* set_body.c: the entries of sets, as they move and go */
struct nfhp_set_ctx nfhp_set_body_ctx(const struct nfhp_sets *sets,
				      struct nfhp_set_body *body);
struct nfhp_set_body *nfhp_set_body_new(const struct nfhp_sets *sets,
					const struct nfhp_set_algo *algo,
					u8 family, u32 hint, bool counting,
					bool slotted);
struct nfhp_set_body *nfhp_set_body_copy(const struct nfhp_sets *sets,
					 const struct nfhp_set_body *from,
					 u8 family, bool slotted);
void nfhp_set_body_free(const struct nfhp_sets *sets,
			struct nfhp_set_body *body);
void nfhp_set_body_retire(struct nfhp_sets *sets, struct nfhp_set_body *body);
bool nfhp_set_bodies_collect(struct nfhp_sets *sets, bool wait);

/* set_entry.c: the entries of a body, with their counts */
int nfhp_set_body_add(struct nfhp_set_ctx *ctx, struct nfhp_set_body *body,
		      const struct nfhp_set_key *key, u32 value,
		      const struct nfhp_set_counts *counts, u32 flags);
int nfhp_set_body_del(struct nfhp_set_ctx *ctx, struct nfhp_set_body *body,
		      const struct nfhp_set_key *key);
bool nfhp_set_body_find(const struct nfhp_set_body *body,
			const struct nfhp_set_key *key, bool lookup,
			u32 *value, struct nfhp_set_counts *counts,
			u32 *eflags);
int nfhp_set_body_walk(const struct nfhp_set_body *body, u64 *cursor,
		       nfhp_set_entry_fn fn, void *arg);

/* set_txn.c: the sets' part of a transaction */
struct nfhp_set_state *nfhp_set_state_write(struct nfhp_sets *sets,
					    struct nfhp_set *set);
int nfhp_set_body_write(struct nfhp_sets *sets, struct nfhp_set *set,
			struct nfhp_set_body **body);
void nfhp_sets_begin(struct nfhp_sets *sets);
void nfhp_sets_commit(struct nfhp_sets *sets);
void nfhp_sets_abort(struct nfhp_sets *sets);

#endif /* _NFHP_SET_H */
