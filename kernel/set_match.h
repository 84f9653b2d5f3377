/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the set matches of rules (set_match.c).
 */
#ifndef _NFHP_SET_MATCH_H
#define _NFHP_SET_MATCH_H

#include <linux/skbuff.h>

#include "set.h"
#include "spec.h"

struct nfhp_xt_pkt;

/*
 * The resolved directions of a flow set's address and of an interface
 * set's device (the input and the output one), past the UAPI's: a packet
 * path that tests "dir >= NFHP_SETM_SPORT" first costs an address set
 * nothing more.
 */
#define NFHP_SETM_FLOW_SRC	(NFHP_SETM_DPORT + 1)
#define NFHP_SETM_FLOW_DST	(NFHP_SETM_DPORT + 2)
#define NFHP_SETM_IN		(NFHP_SETM_DPORT + 3)
#define NFHP_SETM_OUT		(NFHP_SETM_DPORT + 4)

/**
 * struct nfhp_setm - a set match of a rule, its set resolved
 * @set: the set, referenced (&struct nfhp_set.refs)
 * @dir: &enum nfhp_setm_dir of the field looked up, resolved: the
 *	ports are %NFHP_SETM_SPORT and %NFHP_SETM_DPORT; a flow set's
 *	address %NFHP_SETM_FLOW_SRC or %NFHP_SETM_FLOW_DST; an interface
 *	set's device %NFHP_SETM_IN or %NFHP_SETM_OUT
 * @dir2: a flow set's port, %NFHP_SETM_SPORT or %NFHP_SETM_DPORT
 * @invert: the match holds when the field is not in the set
 * @has_value: the entry must also have a value in [@value_min, @value_max]
 * @value_min: the least value
 * @value_max: the greatest
 * @no_count: its lookups do not count in a set with counters
 * @packets_cmp: &enum nfhp_setm_cmp of the entry's packets with @packets,
 *	in a set with counters
 * @bytes_cmp: the same of its bytes with @bytes
 * @packets: the number of packets compared with
 * @bytes: the number of bytes
 */
struct nfhp_setm {
	struct nfhp_set *set;
	u8 dir;
	u8 dir2;
	bool invert;
	bool has_value;
	u32 value_min;
	u32 value_max;
	bool no_count;
	u8 packets_cmp;
	u8 bytes_cmp;
	u64 packets;
	u64 bytes;
};

/* Lookups a packet keeps for its later rules (struct nfhp_setm_cache). */
#define NFHP_SETM_CACHE_SIZE	2

/**
 * struct nfhp_setm_memo - one set lookup of a packet
 * @set: the set looked up, NULL for an unused memo
 * @body: the body it was looked up in
 * @dir: &struct nfhp_setm.dir of the lookup
 * @dir2: &struct nfhp_setm.dir2
 * @hit: an entry held the key
 * @in: the packet is in the set: @hit, by an entry not a nomatch one
 * @found: what nfhp_set_probe() found: the value, or a slotted body's
 *	slot
 * @value: the entry's value, as the lookup read it
 */
struct nfhp_setm_memo {
	const struct nfhp_set *set;
	const struct nfhp_set_body *body;
	u8 dir;
	u8 dir2;
	bool hit;
	bool in;
	u32 found;
	u32 value;
};

/**
 * struct nfhp_setm_cache - the set lookups of one packet, at one hook
 * @memo: the latest lookups
 * @next: the memo the next lookup replaces
 */
struct nfhp_setm_cache {
	struct nfhp_setm_memo memo[NFHP_SETM_CACHE_SIZE];
	u8 next;
};

int nfhp_setm_get(struct net *net, u8 family,
		  const struct nfhp_rule_spec *spec, struct nfhp_setm *out,
		  const char **msg);
void nfhp_setm_put(struct nfhp_setm *m, unsigned int n);
bool nfhp_setm_match(const struct nfhp_setm *m, unsigned int n, u8 family,
		     struct nfhp_xt_pkt *p);

#endif /* _NFHP_SET_MATCH_H */
