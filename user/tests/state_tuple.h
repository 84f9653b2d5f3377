/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flows of the states' tests (test_state.c, test_state_threads.c).
 */
#ifndef _NFHP_TEST_STATE_TUPLE_H
#define _NFHP_TEST_STATE_TUPLE_H

#include <string.h>

#include "key.h"
#include "state.h"

/**
 * v4_tuple() - an IPv4 flow as a packet carries it
 * @t: filled in
 * @proto: IPPROTO_*
 * @src: the source address, host order
 * @sport: the source port (or ICMP echo id)
 * @dst: the destination address, host order
 * @dport: the destination port (or ICMP echo id)
 */
static inline void v4_tuple(struct nfhp_state_tuple *t, u8 proto, u32 src,
			    u16 sport, u32 dst, u16 dport)
{
	memset(t, 0, sizeof(*t));
	t->family = NFHP_FAMILY_IPV4;
	t->proto = proto;
	t->src[0] = src;
	t->dst[0] = dst;
	t->sport = sport;
	t->dport = dport;
}

#endif /* _NFHP_TEST_STATE_TUPLE_H */
