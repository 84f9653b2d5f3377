/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: dynamic states in words, for "nf-hipac state".
 *
 * What the tool needs without a kernel: a flow and a state added by hand
 * read from options ("-p tcp -s 10.0.0.1 -d 10.0.0.2 --sport 40000
 * --dport 80 --rule FORWARD:3 --timeout 300 --tcp-flags SYN,ACK SYN,ACK
 * --counters 3 180 2 120"), and a state printed as conntrack -L prints a
 * connection, or as the line of "nf-hipac state save" that restore reads
 * back.  lib/nl_state.c puts them on the wire.
 */
#ifndef _NFHP_STATE_PARSE_H
#define _NFHP_STATE_PARSE_H

#include "key.h"
#include <stdbool.h>
#include <stddef.h>

/**
 * struct nfhp_state_entry - a state, as listed, saved and added
 * @family: &enum nfhp_family
 * @proto: the transport protocol
 * @src: the creator's source address, host order, IPv4 in the low bits
 * @dst: its destination address
 * @sport: its source port; ICMP echo: the identifier
 * @dport: its destination port; ICMP echo: the identifier again
 * @tcp: TCP flags seen forward ([0]) and in reply ([1]): FIN, SYN, RST
 *	as on the wire, ACK for an ACK since the last renewal
 * @timeout: seconds left to live
 * @pkts: packets forward and in reply
 * @bytes: bytes, the same way
 * @verdict: NFHP_ACT_ACCEPT or NFHP_ACT_DROP (listings)
 * @chain: the chain of its rule, "" when the listing found none
 * @pos: the rule's 1-based position
 */
struct nfhp_state_entry {
	u8 family;
	u8 proto;
	nfhp_u128 src;
	nfhp_u128 dst;
	u16 sport;
	u16 dport;
	u8 tcp[2];
	u32 timeout;
	u64 pkts[2];
	u64 bytes[2];
	u8 verdict;
	char chain[NFHP_CHAIN_MAXNAMELEN];
	u32 pos;
};

/* What nfhp_state_parse_opts() read (bits of its @have). */
#define NFHP_STATE_HAVE_FLOW	(1U << 0)	/* -p, -s and -d */
#define NFHP_STATE_HAVE_RULE	(1U << 1)
#define NFHP_STATE_HAVE_TIMEOUT	(1U << 2)

/*
 * The options of a flow and of a state added by hand into @e, whose
 * family is set; @have says which came.  Return 0, or an exit code
 * (NFHP_EXIT_PARAM) with the reason in @err.
 */
int nfhp_state_parse_opts(int argc, char **argv, struct nfhp_state_entry *e,
			  unsigned int *have, char *err, size_t errlen);

/* The conntrack-like name of a TCP state's flags: "ESTABLISHED", ... */
const char *nfhp_state_tcp_name(const u8 tcp[2]);
/* "tcp", "udp", "icmp", ..., or NULL for a protocol without a name. */
const char *nfhp_state_proto_name(u8 proto);

/*
 * A state as "nf-hipac state -L" lists it, as the event @event ("NEW",
 * "DESTROY") of "-E" when it is not NULL, or as the line of a save;
 * without the newline.  Return the length it needs, as snprintf().
 */
int nfhp_state_format(char *buf, size_t len, const struct nfhp_state_entry *e,
		      const char *event);
int nfhp_state_format_save(char *buf, size_t len,
			   const struct nfhp_state_entry *e);
/* A flow as messages name it: "tcp src=... dst=... sport=... dport=...". */
int nfhp_state_format_flow(char *buf, size_t len,
			   const struct nfhp_state_entry *e);

#endif /* _NFHP_STATE_PARSE_H */
