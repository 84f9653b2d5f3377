/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac-sim: packet lines ("hook=forward src=10.0.0.1 proto=tcp ...")
 * to classifier keys.
 */
#ifndef _NFHP_SIM_PKT_H
#define _NFHP_SIM_PKT_H

#include "spec.h"
#include "ruleset.h"
#include "state.h"
#include <stddef.h>

/* Ticks of the packets' clock (time=) a second, as the states count them. */
#define NFHP_SIM_HZ	1000

/**
 * struct nfhp_sim_pkt - one packet of a packet file
 * @hook: &enum nfhp_hook
 * @len: the IP total length, also given to nfhp_classify() for counters
 * @key: the classifier key
 * @hash: a hash of @key, from which the opaque extensions' model
 *	(opaque.h) draws its answers
 * @flow: its flow as the dynamic states key it (states.h), as the
 *	module reads it from the skb (kernel/state_rule.c): addresses and
 *	ports, for ICMP echo the identifier in both ports; @flow.family
 *	is the rule set's, set by the states' evaluator
 * @tcp_flags: TCP: its flags, for the states' lifetimes
 * @ack: TCP: its acknowledgment number
 * @time: when it comes, in ticks of %NFHP_SIM_HZ; the time of the line
 *	before when it gives none (nfhp_sim_parse_packet())
 * @timed: its line gave time=
 */
struct nfhp_sim_pkt {
	u8 hook;
	unsigned int len;
	struct nfhp_key key;
	u64 hash;
	struct nfhp_state_tuple flow;
	u8 tcp_flags;
	u32 ack;
	u64 time;
	bool timed;
};

/* splitmix64's finaliser: every bit of @x moves every bit of the result. */
static inline u64 nfhp_sim_mix64(u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * Parse one packet line.  Fields: hook= src= dst= proto= sport= dport= in=
 * out= state= ttl= len= frag= l4len= flags= icmp= mark= id= ack= time=;
 * the defaults are hook=forward, addresses 0.0.0.0, proto 0, ports 0, no
 * interfaces, state=new, ttl=64, len=64, frag=0, a whole transport
 * header, no flags, no icmp, mark 0, id 0, ack 0, no time.  Ports are only kept for protocols that have them (tcp
 * udp sctp dccp udplite) and frag=0, flags only for tcp, icmp only for
 * icmp.  frag= is the fragment offset in units of 8 bytes (any non-zero
 * value is a later fragment; 1 is the one iptables' tcp match drops),
 * l4len= the bytes of transport header the packet holds (short ones are
 * dropped by iptables' transport matches, key.h).  id= is the
 * identifier of an ICMP or ICMPv6 echo request or reply (icmp=8, 0, 128
 * or 129), which the states take for both ports; ack= a TCP packet's
 * acknowledgment number; time= the seconds, with up to three decimals,
 * at which the packet comes, for the states' clock (@time, @timed).
 * Returns 0 for a packet, 1 for a blank or '#' line, -1 on error (err says
 * why).
 */
int nfhp_sim_parse_packet(const char *line, struct nfhp_sim_pkt *p,
			  char *err, size_t errlen);

const struct nfhp_state_tuple *nfhp_sim_pkt_flow(const void *pkt,
						 u8 *tcp_flags, u32 *ack,
						 u32 *len);

/* The interface name behind an IIF/OIF key value ("" for none). */
void nfhp_sim_key_ifname(nfhp_u128 v, char name[NFHP_IFNAME_LEN + 1]);

#endif /* _NFHP_SIM_PKT_H */
