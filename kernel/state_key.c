// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: dynamic states, the flow key.
 *
 * A packet from A:a to B:b and its reply from B:b to A:a must find the
 * same state.  The key puts the two ends in a fixed order, the lower
 * (address, port) first, and the packet remembers whether it went the
 * other way (&struct nfhp_state_pkt.reverse).  A state remembers the
 * same of the packet that made it, so each later packet knows whether
 * it goes the creator's way ("forward") or back ("reverse").
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "state.h"

/**
 * nfhp_state_end_cmp() - order two ends of a flow
 * @a: an end's address
 * @ap: its port
 * @b: the other end's address
 * @bp: its port
 *
 * Return: less than, equal to or more than 0 as @a:@ap is lower than,
 * equal to or higher than @b:@bp, the address first.
 */
static int nfhp_state_end_cmp(const u32 *a, u16 ap, const u32 *b, u16 bp)
{
	unsigned int i;

	for (i = 0; i < 4; i++) {
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	}
	return ap == bp ? 0 : ap < bp ? -1 : 1;
}

/**
 * nfhp_state_pkt_init() - the key of a packet's flow
 * @pkt: the packet, whose @tcp_flags, @ack and @len the caller fills
 * @tuple: its flow as it came; the unused words of IPv4 addresses zero
 *
 * A flow whose two ends are equal is forward both ways.
 */
void nfhp_state_pkt_init(struct nfhp_state_pkt *pkt,
			 const struct nfhp_state_tuple *tuple)
{
	struct nfhp_state_key *k = &pkt->key;
	bool rev;

	memset(k, 0, sizeof(*k));
	pkt->tuple = *tuple;
	rev = nfhp_state_end_cmp(tuple->src, tuple->sport, tuple->dst,
				 tuple->dport) > 0;
	memcpy(k->addr[rev], tuple->src, sizeof(tuple->src));
	memcpy(k->addr[!rev], tuple->dst, sizeof(tuple->dst));
	k->port[rev] = tuple->sport;
	k->port[!rev] = tuple->dport;
	k->family = tuple->family;
	k->proto = tuple->proto;
	pkt->reverse = rev;
}

/**
 * nfhp_state_hash() - the hash of a flow in a table
 * @t: the table, whose seed it mixes in
 * @key: the flow
 *
 * The low bits choose the bucket and the lock, so every bit of the key
 * reaches them.
 *
 * Return: the hash.
 */
u32 nfhp_state_hash(const struct nfhp_state_table *t,
		    const struct nfhp_state_key *key)
{
	u32 w[sizeof(*key) / sizeof(u32)];
	u64 h = t->seed;
	unsigned int i;

	BUILD_BUG_ON(sizeof(*key) % sizeof(u32));
	memcpy(w, key, sizeof(w));
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	h *= 0xc2b2ae3d27d4eb4full;
	return (u32)(h >> 32);
}

/**
 * nfhp_state_key_equal() - are two keys one flow?
 * @a: a key
 * @b: another
 *
 * Return: true if they are.
 */
bool nfhp_state_key_equal(const struct nfhp_state_key *a,
			  const struct nfhp_state_key *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/**
 * nfhp_state_tuple_mask() - a flow cut down to a limit's fields
 * @out: the result
 * @in: the creating packet's flow
 * @mask: %NFHP_STATE_LIMIT_* fields to keep; the family and the
 *	protocol are always kept
 */
void nfhp_state_tuple_mask(struct nfhp_state_tuple *out,
			   const struct nfhp_state_tuple *in, u8 mask)
{
	memset(out, 0, sizeof(*out));
	out->family = in->family;
	out->proto = in->proto;
	if (mask & NFHP_STATE_LIMIT_SRC_ADDR)
		memcpy(out->src, in->src, sizeof(in->src));
	if (mask & NFHP_STATE_LIMIT_DST_ADDR)
		memcpy(out->dst, in->dst, sizeof(in->dst));
	if (mask & NFHP_STATE_LIMIT_SRC_PORT)
		out->sport = in->sport;
	if (mask & NFHP_STATE_LIMIT_DST_PORT)
		out->dport = in->dport;
}

/**
 * nfhp_state_addr_set() - an address in a tuple's words
 * @w: the tuple's @src or @dst, filled in
 * @family: %NFHP_FAMILY_IPV4 or %NFHP_FAMILY_IPV6
 * @v: the address, as a key holds it (key.h)
 *
 * IPv4 goes to @w[0], the rest zero; IPv6 most significant word first.
 * The packet path, the listings and the states added by hand all spell
 * addresses so, and so find each other's states.
 */
void nfhp_state_addr_set(u32 *w, u8 family, nfhp_u128 v)
{
	memset(w, 0, 4 * sizeof(*w));
	if (family != NFHP_FAMILY_IPV6) {
		w[0] = (u32)v;
		return;
	}
	w[0] = (u32)(v >> 96);
	w[1] = (u32)(v >> 64);
	w[2] = (u32)(v >> 32);
	w[3] = (u32)v;
}

/**
 * nfhp_state_addr_get() - the address of a tuple's words
 * @w: the tuple's @src or @dst
 * @family: %NFHP_FAMILY_IPV4 or %NFHP_FAMILY_IPV6
 *
 * Return: the address as a key holds it; see nfhp_state_addr_set().
 */
nfhp_u128 nfhp_state_addr_get(const u32 *w, u8 family)
{
	if (family != NFHP_FAMILY_IPV6)
		return w[0];
	return (nfhp_u128)w[0] << 96 | (nfhp_u128)w[1] << 64 |
	       (nfhp_u128)w[2] << 32 | w[3];
}
