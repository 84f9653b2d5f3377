/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the table of flow keys that both algorithms of the flow
 * type keep their entries in (set_flow_hash.c), and what "lpm" adds to
 * it (set_flow_lpm.c).
 */
#ifndef _NFHP_SET_FLOW_H
#define _NFHP_SET_FLOW_H

#include <linux/types.h>

#include "set_algo.h"

/**
 * struct nfhp_flow_fkey - a flow key as a table slot holds it
 * @hi: the top 64 bits of the address (0 for IPv4)
 * @lo: the bottom 64 bits
 * @meta: the prefix length << 24 | protocol << 16 | port
 */
struct nfhp_flow_fkey {
	u64 hi;
	u64 lo;
	u32 meta;
};

/**
 * struct nfhp_flow_slot - one entry of a flow table
 * @hi: &nfhp_flow_fkey.hi
 * @lo: &nfhp_flow_fkey.lo
 * @meta: &nfhp_flow_fkey.meta
 * @value: the entry's value
 * @state: &enum nfhp_flow_state, published last
 */
struct nfhp_flow_slot {
	u64 hi;
	u64 lo;
	u32 meta;
	u32 value;
	u32 state;
};

/**
 * struct nfhp_flow_array - the slots lookups read
 * @nslots: the slots, as nfhp_hash_slots() sizes them
 * @pad: unused
 * @seed: what the hash mixes in, chosen at each rehash
 * @slot: the slots
 */
struct nfhp_flow_array {
	u32 nslots;
	u32 pad;
	u64 seed;
	struct nfhp_flow_slot slot[];
};

/**
 * struct nfhp_flow_table - the flow keys of one set
 * @array: the slots, replaced at each rehash
 * @count: the keys
 * @used: the slots that are not empty: keys and tombstones
 */
struct nfhp_flow_table {
	struct nfhp_flow_array __rcu *array;
	u32 count;
	u32 used;
};

/**
 * struct nfhp_flow_set - what both algorithms of flow sets start with
 * @t: the keys
 * @family: %NFHP_FAMILY_IPV4 or %NFHP_FAMILY_IPV6
 * @hosts: the algorithm takes hosts only ("hash")
 * @size: the bytes of the algorithm's instance, this included
 */
struct nfhp_flow_set {
	struct nfhp_flow_table t;
	u8 family;
	bool hosts;
	u32 size;
};

/**
 * nfhp_flow_width() - the bits of a family's addresses
 * @family: %NFHP_FAMILY_IPV4 or %NFHP_FAMILY_IPV6
 *
 * Return: 32 or 128.
 */
static inline unsigned int nfhp_flow_width(u8 family)
{
	return family == NFHP_FAMILY_IPV6 ? 128 : 32;
}

/**
 * nfhp_flow_prefix() - an address cut to a prefix
 * @addr: the address, an IPv4 one in the low 32 bits
 * @width: the family's width
 * @plen: the prefix length, 1 to @width
 *
 * Return: @addr with the bits below the prefix cleared.
 */
static inline nfhp_u128 nfhp_flow_prefix(nfhp_u128 addr, unsigned int width,
					 unsigned int plen)
{
	return addr & ~((((nfhp_u128)1 << (width - plen)) - 1));
}

/**
 * nfhp_flow_fkey_of() - a table's key for a set's key
 * @key: the set's key: its address, protocol and port
 * @addr: the address to use, @key's cut to @plen
 * @plen: the prefix length
 *
 * Return: the table's key.
 */
static inline struct nfhp_flow_fkey
nfhp_flow_fkey_of(const struct nfhp_set_key *key, nfhp_u128 addr, u8 plen)
{
	return (struct nfhp_flow_fkey){
		.hi = (u64)(addr >> 64),
		.lo = (u64)addr,
		.meta = (u32)plen << 24 | (u32)key->proto << 16 | key->port,
	};
}

bool nfhp_flow_fkey_ok(const struct nfhp_flow_set *fs,
		       const struct nfhp_set_key *key,
		       struct nfhp_flow_fkey *k);
void *nfhp_flow_set_new(struct nfhp_set_ctx *ctx, u8 family, u32 hint,
			u32 size, bool hosts);
void nfhp_flow_set_destroy(struct nfhp_set_ctx *ctx, void *priv);
int nfhp_flow_set_walk(const void *priv, u64 *cursor,
		       int (*fn)(void *arg, const struct nfhp_set_key *key,
				 u32 value),
		       void *arg);
u32 nfhp_flow_set_count(const void *priv);
bool nfhp_flow_set_find(const void *priv, const struct nfhp_set_key *key,
			u32 *value);
int nfhp_flow_table_init(struct nfhp_set_ctx *ctx, struct nfhp_flow_table *t,
			 u32 hint);
void nfhp_flow_table_free(struct nfhp_set_ctx *ctx, struct nfhp_flow_table *t);
bool nfhp_flow_table_get(const struct nfhp_flow_array *a,
			 const struct nfhp_flow_fkey *k, u32 *value);
int nfhp_flow_table_add(struct nfhp_set_ctx *ctx, struct nfhp_flow_table *t,
			const struct nfhp_flow_fkey *k, u32 value, bool update);
int nfhp_flow_table_del(struct nfhp_set_ctx *ctx, struct nfhp_flow_table *t,
			const struct nfhp_flow_fkey *k);
int nfhp_flow_table_walk(const struct nfhp_flow_table *t, u64 *cursor,
			 int (*fn)(void *arg, const struct nfhp_set_key *key,
				   u32 value),
			 void *arg);

#endif /* _NFHP_SET_FLOW_H */
