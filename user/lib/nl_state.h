/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the dynamic states' commands and events of the netlink client.
 *
 * Each request goes on a connection of lib/nl.c and waits for its
 * answer; they return 0 or -errno, the failure kept in the connection
 * (nfhp_nl_get_failure()) with the kernel's message.  The events come
 * on a socket of their own (struct nfhp_nl_mon), subscribed to the
 * family's "states" group.
 */
#ifndef _NFHP_NL_STATE_H
#define _NFHP_NL_STATE_H

#include "nl.h"
#include "state_parse.h"

/* NFHP_CMD_STATE_LIST of @family's states (0: both), each to @fn. */
int nfhp_nl_state_list(struct nfhp_nl *nl, u8 family,
		       int (*fn)(void *data, const struct nfhp_state_entry *e),
		       void *data);
/*
 * NFHP_CMD_STATE_LIST of @flow's state only, either way round, into
 * @e: 0 and *@found, or -errno.
 */
int nfhp_nl_state_get(struct nfhp_nl *nl, const struct nfhp_state_entry *flow,
		      struct nfhp_state_entry *e, bool *found);
/* NFHP_CMD_STATE_DEL of @e's flow: -ENOENT when it has no state. */
int nfhp_nl_state_del(struct nfhp_nl *nl, const struct nfhp_state_entry *e);
/*
 * NFHP_CMD_STATE_FLUSH of @family's states (0: both families'), or with
 * @chain those of the keep-state rule @chain:@pos of @family.
 */
int nfhp_nl_state_flush(struct nfhp_nl *nl, u8 family, const char *chain,
			u32 pos);
/* NFHP_CMD_STATE_ADD of @e: its flow, rule, timeout, TCP flags, counters. */
int nfhp_nl_state_add(struct nfhp_nl *nl, const struct nfhp_state_entry *e);

struct nfhp_nl_mon;

/*
 * A socket that receives the "states" events: 0, -ENOENT when the module
 * is not loaded, -EPERM without CAP_NET_ADMIN, or -errno.
 */
int nfhp_nl_mon_open(struct nfhp_nl_mon **mp);
/*
 * Wait for the next events and hand each to @fn with its command
 * (NFHP_CMD_STATE_NEW or _DESTROY).  Return 0, @fn's non-zero value,
 * -ENOBUFS when events were lost (the socket's buffer was full), or
 * -errno.
 */
int nfhp_nl_mon_read(struct nfhp_nl_mon *m,
		     int (*fn)(void *data, u8 cmd,
			       const struct nfhp_state_entry *e),
		     void *data);
void nfhp_nl_mon_close(struct nfhp_nl_mon *m);

/*
 * The wire format, for the unit tests: put NFHPA_STATE with @e's flow
 * (and with @add its rule, timeout, TCP flags and counters); read the
 * NFHPA_STATE of a listing's message or an event into @e.
 */
void nfhp_nl_put_state(struct nlmsghdr *nlh, const struct nfhp_state_entry *e,
		       bool add);
int nfhp_nl_parse_state_msg(const struct nlmsghdr *nlh,
			    struct nfhp_state_entry *e);

#endif /* _NFHP_NL_STATE_H */
