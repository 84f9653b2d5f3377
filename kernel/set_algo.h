/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: named sets, the algorithms' side.
 *
 * A named set (ipfw calls them tables, ipset and nft sets) maps keys to a
 * u32 value.  Rules look a packet's field up in it; its entries change
 * without a commit of the rules, and so without a rebuild of any tree.
 * Each set has a type, fixed at create, and an algorithm of that type,
 * which holds the keys:
 *
 *   type   algorithm  keys                      lookup
 *   addr   hash       hosts (/32 or /128 only)  exact, one probe sequence
 *   addr   lpm        prefixes of any length    longest prefix
 *   number bitmap     numbers below 65536       one bit, one word
 *   number range      disjoint u32 ranges       binary search
 *   flow   hash       host, protocol, port      exact, one probe sequence
 *   flow   lpm        prefix, protocol, port    one probe per prefix length
 *   iface  hash       names and "eth+"          one probe a length present
 *   iface  lpm        names and "eth+"          longest prefix
 *
 * An "lpm" set of addresses or flows may hold nomatch entries (ipset's
 * "nomatch": the packets whose longest match is one are not in the set).
 * The algorithms hold no flag for it: set_entry.c keeps it beside the
 * slot an entry's value names (DOC: Counters), so their lookups stay as
 * they are.
 *
 * An algorithm is a &struct nfhp_set_algo.  Its writers are serialized by
 * the caller; its lookups run under rcu_read_lock() beside them, and see
 * each key either as it was or as it is, never half written.  What a
 * writer replaces goes onto the set's &struct nfhp_set_gc and is freed
 * once every lookup that could see it is over.
 *
 * This file and the algorithms are part of the pure core: no skb, no
 * netlink.  They compile unchanged against user/shim/ for the tests.
 */
#ifndef _NFHP_SET_ALGO_H
#define _NFHP_SET_ALGO_H

#include <linux/mutex.h>
#include <linux/types.h>

#include "key.h"
#include "mem.h"

/* enum nfhp_set_type and enum nfhp_set_result are the UAPI's. */

/**
 * struct nfhp_set_key - one key of a set
 * @addr: %NFHP_SET_ADDR: the address in host order, an IPv4 one in the
 *	low 32 bits; the bits below the prefix are zero.
 *	%NFHP_SET_NUMBER: the number, or the first of a range, in the low
 *	32 bits; the others are zero
 * @plen: %NFHP_SET_ADDR, %NFHP_SET_FLOW: the prefix length, 0 to the
 *	family's width
 * @proto: %NFHP_SET_FLOW: the transport protocol (IPPROTO_*)
 * @port: %NFHP_SET_FLOW: the port, or ICMP's type << 8 | code
 * @hi: %NFHP_SET_NUMBER: the last number of the range, at least the
 *	first; a lookup reads only @addr
 *
 * A lookup's key is a packet's address, with @plen the family's width,
 * a packet's port, or both with its protocol.  @proto, @port and @hi sit
 * in what was padding after @plen: the key is 24 bytes as it was, and an
 * address key costs what it did.
 */
struct nfhp_set_key {
	nfhp_u128 addr;
	u8 plen;
	u8 proto;
	u16 port;
	u32 hi;
};

/**
 * nfhp_set_key_num() - the number, or the first of the range, of a key
 * @key: a key of a number set
 *
 * Return: the low 32 bits of @key->addr.
 */
static inline u32 nfhp_set_key_num(const struct nfhp_set_key *key)
{
	return (u32)key->addr;
}

/**
 * nfhp_set_num_key_ok() - is @key a range of numbers?
 * @key: the key of an add, a delete or a find
 *
 * Return: true when it is: nothing above 32 bits, the first number no
 * greater than the last.
 */
static inline bool nfhp_set_num_key_ok(const struct nfhp_set_key *key)
{
	return !(key->addr >> 32) && nfhp_set_key_num(key) <= key->hi;
}

/**
 * struct nfhp_set_retired - the header of memory a writer replaced
 * @next: the next retired block, older first
 * @cookie: get_state_synchronize_rcu() when it was retired
 * @size: the bytes of the block, this header included
 *
 * Every block an algorithm publishes to lookups starts with one, so
 * that retiring it takes no allocation.  It takes 32 bytes, so that what
 * follows it keeps the alignment of the allocation up to 32.
 */
struct nfhp_set_retired {
	struct nfhp_set_retired *next;
	unsigned long cookie;
	size_t size;
} __aligned(32);

/**
 * struct nfhp_set_gc - the blocks a set's writers replaced, not yet freed
 * @head: the oldest
 * @tail: the newest, where nfhp_set_retire() appends
 * @bytes: what they hold
 */
struct nfhp_set_gc {
	struct nfhp_set_retired *head;
	struct nfhp_set_retired *tail;
	size_t bytes;
};

/**
 * struct nfhp_set_ctx - what a writer of a set's algorithm works with
 * @mem: the account its memory is charged to
 * @gc: where it retires what lookups may still read
 * @lock: the mutex that serializes the set's writers, for lockdep, or
 *	NULL where nothing else can reach the set (tests, a new set)
 */
struct nfhp_set_ctx {
	struct nfhp_mem *mem;
	struct nfhp_set_gc *gc;
	struct mutex *lock;
};

/**
 * nfhp_set_writing() - does the caller hold the set's writer lock?
 * @ctx: the writer's context
 *
 * Return: true when it does, or when the set needs none.
 */
static inline bool nfhp_set_writing(const struct nfhp_set_ctx *ctx)
{
	return !ctx->lock || lockdep_is_held(ctx->lock);
}

/**
 * struct nfhp_set_algo - one way of holding a type's keys
 * @name: as userspace names it ("hash", "lpm")
 * @type: the &enum nfhp_set_type of its keys
 * @nomatch: its entries may be nomatch ones (ipset's hash:net family):
 *	the longest prefix decides, so an entry inside another can except
 *	from it; the algorithm itself knows nothing of it (set_entry.c)
 * @create: an empty instance for @family's keys, sized for @hint of them;
 *	NULL when out of memory
 * @destroy: free an instance no lookup can see any more
 * @add: add @key with @value, or with @update set give an existing @key
 *	@value; the &enum nfhp_set_result, or -errno (the set unchanged)
 * @del: delete @key; %NFHP_SET_DELETED or %NFHP_SET_NOT_FOUND
 * @lookup: the packet path, under rcu_read_lock(): the value of the
 *	entry that holds @key (the longest prefix for "lpm"); false for none
 * @find: the entry whose key is @key itself, for "test" and the tests
 * @walk: call @fn for each entry from *@cursor on, until it returns
 *	non-zero, which is returned with *@cursor where to go on: after the
 *	entry when @fn returned more than 0 (it took the entry), at it when
 *	less (it did not: a full message); 0 at the end.  Entries do not
 *	move between calls unless a writer runs.
 * @count: the entries
 * @fresh: how many entries an add of @key would add, for the limit;
 *	NULL for one when find() does not find @key, else none
 */
struct nfhp_set_algo {
	const char *name;
	u8 type;
	bool nomatch;
	void *(*create)(struct nfhp_set_ctx *ctx, u8 family, u32 hint);
	void (*destroy)(struct nfhp_set_ctx *ctx, void *priv);
	int (*add)(struct nfhp_set_ctx *ctx, void *priv,
		   const struct nfhp_set_key *key, u32 value, bool update);
	int (*del)(struct nfhp_set_ctx *ctx, void *priv,
		   const struct nfhp_set_key *key);
	bool (*lookup)(const void *priv, const struct nfhp_set_key *key,
		       u32 *value);
	bool (*find)(const void *priv, const struct nfhp_set_key *key,
		     u32 *value);
	int (*walk)(const void *priv, u64 *cursor,
		    int (*fn)(void *arg, const struct nfhp_set_key *key,
			      u32 value),
		    void *arg);
	u32 (*count)(const void *priv);
	u32 (*fresh)(const void *priv, const struct nfhp_set_key *key);
};

extern const struct nfhp_set_algo nfhp_set_addr_hash;
extern const struct nfhp_set_algo nfhp_set_addr_lpm;
extern const struct nfhp_set_algo nfhp_set_num_bitmap;
extern const struct nfhp_set_algo nfhp_set_num_range;
extern const struct nfhp_set_algo nfhp_set_flow_hash;
extern const struct nfhp_set_algo nfhp_set_flow_lpm;
extern const struct nfhp_set_algo nfhp_set_iface_hash;
extern const struct nfhp_set_algo nfhp_set_iface_lpm;

/*
 * The address algorithms' operations, which the interface algorithms
 * call directly (set_iface.h): an interface name is a 128-bit key.  Each
 * is the &struct nfhp_set_algo member of its name.
 */
void *nfhp_hash_create(struct nfhp_set_ctx *ctx, u8 family, u32 hint);
void nfhp_hash_destroy(struct nfhp_set_ctx *ctx, void *priv);
int nfhp_hash_add(struct nfhp_set_ctx *ctx, void *priv,
		  const struct nfhp_set_key *key, u32 value, bool update);
int nfhp_hash_del(struct nfhp_set_ctx *ctx, void *priv,
		  const struct nfhp_set_key *key);
bool nfhp_hash_lookup(const void *priv, const struct nfhp_set_key *key,
		      u32 *value);
int nfhp_hash_walk(const void *priv, u64 *cursor,
		   int (*fn)(void *arg, const struct nfhp_set_key *key,
			     u32 value),
		   void *arg);
u32 nfhp_hash_count(const void *priv);

void *nfhp_lpm_create(struct nfhp_set_ctx *ctx, u8 family, u32 hint);
void nfhp_lpm_destroy(struct nfhp_set_ctx *ctx, void *priv);
int nfhp_lpm_add(struct nfhp_set_ctx *ctx, void *priv,
		 const struct nfhp_set_key *key, u32 value, bool update);
int nfhp_lpm_del(struct nfhp_set_ctx *ctx, void *priv,
		 const struct nfhp_set_key *key);
bool nfhp_lpm_lookup(const void *priv, const struct nfhp_set_key *key,
		     u32 *value);
bool nfhp_lpm_find(const void *priv, const struct nfhp_set_key *key,
		   u32 *value);
int nfhp_lpm_walk(const void *priv, u64 *cursor,
		  int (*fn)(void *arg, const struct nfhp_set_key *key,
			    u32 value),
		  void *arg);
u32 nfhp_lpm_count(const void *priv);

void *nfhp_set_block_alloc(struct nfhp_set_ctx *ctx, size_t size);
void nfhp_set_retire(struct nfhp_set_ctx *ctx, void *block);
void nfhp_set_block_free(struct nfhp_set_ctx *ctx, void *block);
void nfhp_set_gc_run(struct nfhp_set_ctx *ctx, bool wait);

#endif /* _NFHP_SET_ALGO_H */
