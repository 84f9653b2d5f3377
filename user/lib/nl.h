/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: the generic netlink client of the nf-hipac tools (libmnl).
 *
 * Every change function sends one request and, outside batch mode, waits
 * for its acknowledgement.  They return 0 or -errno; the failure is kept in
 * the handle (errno, the kernel's extended ack message, the command) so that
 * nfhp_nl_report() can print it the way iptables would and pick iptables'
 * exit code.
 *
 * Batch mode (nfhp_nl_batch_start()) is for nf-hipac-restore: requests are
 * queued in a large buffer and sent many per sendmsg() without asking for
 * acknowledgements; the kernel still answers each failed request, and the
 * caller's tag (a line number) of the first failure is kept.
 */
#ifndef _NFHP_NL_H
#define _NFHP_NL_H

#include "spec.h"
#include "ruleset.h"
#include <stdbool.h>
#include <stdio.h>
#include <linux/netlink.h>

struct nfhp_nl;

/**
 * struct nfhp_nl_chain - a chain as a LIST dump reports it
 * @name: the chain name
 * @builtin: INPUT, FORWARD or OUTPUT (the dump carries a policy)
 * @policy: &enum nfhp_action of a built-in chain
 * @counters: the policy counters
 * @refs: number of rules jumping to the chain
 */
struct nfhp_nl_chain {
	const char *name;
	bool builtin;
	u8 policy;
	struct nfhp_counter counters;
	unsigned int refs;
};

/**
 * struct nfhp_nl_dump_ops - callbacks of nfhp_nl_dump()
 * @chain: called once per chain, before its rules
 * @rule: called per rule with its 1-based position; @spec is only valid
 *	during the call
 *
 * A callback returning non-zero stops the dump; nfhp_nl_dump() then
 * returns that value.  Either callback may be NULL.
 */
struct nfhp_nl_dump_ops {
	int (*chain)(void *data, const struct nfhp_nl_chain *chain);
	int (*rule)(void *data, const char *chain, unsigned int pos,
		    const struct nfhp_rule_spec *spec,
		    const struct nfhp_counter *counters);
};

/* Opening: returns 0, or an exit code after printing why (module missing). */
int nfhp_nl_open(struct nfhp_nl **nlp, const char *prog);
void nfhp_nl_close(struct nfhp_nl *nl);

/* Rules.  counters may be NULL. */
int nfhp_nl_append(struct nfhp_nl *nl, const char *chain,
		   const struct nfhp_rule_spec *spec,
		   const struct nfhp_counter *counters);
int nfhp_nl_insert(struct nfhp_nl *nl, const char *chain, unsigned int pos,
		   const struct nfhp_rule_spec *spec,
		   const struct nfhp_counter *counters);
int nfhp_nl_delete_pos(struct nfhp_nl *nl, const char *chain,
		       unsigned int pos);
int nfhp_nl_delete_spec(struct nfhp_nl *nl, const char *chain,
			const struct nfhp_rule_spec *spec);
int nfhp_nl_replace(struct nfhp_nl *nl, const char *chain, unsigned int pos,
		    const struct nfhp_rule_spec *spec);

/* Chains.  chain NULL means every chain for flush, delete and zero. */
int nfhp_nl_flush(struct nfhp_nl *nl, const char *chain);
int nfhp_nl_new_chain(struct nfhp_nl *nl, const char *chain);
int nfhp_nl_del_chain(struct nfhp_nl *nl, const char *chain);
int nfhp_nl_rename(struct nfhp_nl *nl, const char *chain,
		   const char *new_name);
int nfhp_nl_policy(struct nfhp_nl *nl, const char *chain, u8 policy,
		   const struct nfhp_counter *counters);
int nfhp_nl_zero(struct nfhp_nl *nl, const char *chain, unsigned int pos);

/* Transactions. */
int nfhp_nl_begin(struct nfhp_nl *nl);
int nfhp_nl_commit(struct nfhp_nl *nl);
int nfhp_nl_abort(struct nfhp_nl *nl);

/*
 * Listing: chain NULL lists every chain.  nfhp_nl_dump_chains() asks for
 * the chain messages only, none of the rules; nfhp_nl_dump_equal() for
 * the rules equal to @spec only, as a delete by rule finds them, from a
 * kernel that reads NFHPA_RULE in a LIST (an older one sends them all).
 */
int nfhp_nl_dump(struct nfhp_nl *nl, const char *chain,
		 const struct nfhp_nl_dump_ops *ops, void *data);
int nfhp_nl_dump_chains(struct nfhp_nl *nl, const char *chain,
			const struct nfhp_nl_dump_ops *ops, void *data);
int nfhp_nl_dump_equal(struct nfhp_nl *nl, const char *chain,
		       const struct nfhp_rule_spec *spec,
		       const struct nfhp_nl_dump_ops *ops, void *data);

/*
 * Batch mode: requests are queued and sent many at a time.  Every queued
 * request carries the tag last set with nfhp_nl_set_tag().  A change
 * function may then return the error of an earlier request, found when the
 * buffer was sent; nfhp_nl_batch_end() sends the rest.  After a failure
 * nfhp_nl_failed_tag() names the request that failed first.
 */
void nfhp_nl_batch_start(struct nfhp_nl *nl);
int nfhp_nl_batch_end(struct nfhp_nl *nl);
void nfhp_nl_set_tag(struct nfhp_nl *nl, unsigned long tag);

/*
 * Like iptables -w and -W: a request refused because another process has
 * a transaction open (EBUSY) is sent again every interval_us microseconds
 * (0: every second) until it goes through or seconds have passed (0:
 * forever).  Without it such a request fails at once.
 */
/* The rule set of this family (&enum nfhp_family) takes the requests. */
void nfhp_nl_set_family(struct nfhp_nl *nl, u8 family);
u8 nfhp_nl_family(const struct nfhp_nl *nl);
void nfhp_nl_set_wait(struct nfhp_nl *nl, unsigned int seconds,
		      unsigned long interval_us);
unsigned long nfhp_nl_failed_tag(const struct nfhp_nl *nl);

/*
 * The last failure: -errno (0 if none) and the kernel's extended ack
 * message ("" if none).
 */
int nfhp_nl_error(const struct nfhp_nl *nl);
const char *nfhp_nl_ext_msg(const struct nfhp_nl *nl);

/**
 * struct nfhp_nl_failure - a failed request
 * @err: -errno, 0 for no failure
 * @cmd: &enum nfhp_cmd of the request
 * @by_spec: the request was a delete by rule
 * @tag: the tag of the request (batch mode)
 * @waited: seconds spent waiting for another transaction before giving
 *	up (-w N), or 0
 * @ext_msg: the kernel's extended ack message, "" if none
 * @lost: the request was sent but its answer could not be read (the
 *	kernel sets ENOBUFS on the socket when it cannot allocate an ack),
 *	so it may have taken effect
 */
struct nfhp_nl_failure {
	int err;
	int cmd;
	bool by_spec;
	unsigned long tag;
	unsigned int waited;
	char ext_msg[256];
	bool lost;
};

/*
 * Print the last failure as iptables would ("prog: Chain already exists.")
 * plus the kernel's message, and return iptables' exit code for it.  A
 * failure can be kept aside with nfhp_nl_get_failure() while other
 * requests are made, and reported later.
 */
int nfhp_nl_report(const struct nfhp_nl *nl, const char *prog);
void nfhp_nl_get_failure(const struct nfhp_nl *nl, struct nfhp_nl_failure *f);
int nfhp_nl_report_failure(const struct nfhp_nl_failure *f, const char *prog);

/*
 * The iptables wording of error err (positive errno) of command cmd
 * (&enum nfhp_cmd; by_spec for a delete by rule) and its exit code.
 */
const char *nfhp_nl_strerror(int cmd, bool by_spec, int err, int *exit_code);

/*
 * The wire format of a rule, exposed for the unit tests: put NFHPA_RULE
 * into nlh; parse an NFHPA_RULE attribute back.  counters may be NULL.
 * nfhp_nl_parse_rule() returns 0 or -EINVAL for a malformed attribute.
 */
void nfhp_nl_put_rule(struct nlmsghdr *nlh, const struct nfhp_rule_spec *spec,
		      const struct nfhp_counter *counters);
int nfhp_nl_parse_rule(const struct nlattr *attr, struct nfhp_rule_spec *spec,
		       struct nfhp_counter *counters);

/*
 * Hand one message of a LIST dump to ops, as nfhp_nl_dump() does; for the
 * unit tests.  Returns 0, the non-zero value of a callback, or -EINVAL for
 * a malformed message.
 */
int nfhp_nl_dump_msg(const struct nlmsghdr *nlh,
		     const struct nfhp_nl_dump_ops *ops, void *data);

/*
 * Requests whose answers carry data, such as the set commands
 * (lib/nl_set.c): start one, put its attributes, and send it with
 * nfhp_nl_talk(), which hands each answer before the acknowledgement to
 * @cb.  Not in batch mode.
 */
struct nlmsghdr *nfhp_nl_request(struct nfhp_nl *nl, u8 cmd, bool dump);
int nfhp_nl_talk(struct nfhp_nl *nl, struct nlmsghdr *nlh,
		 int (*cb)(const struct nlmsghdr *nlh, void *data),
		 void *data);

/**
 * struct nfhp_nl_ids - what the generic netlink controller says of nf_hipac
 * @group: the name of a multicast group to look for, or NULL
 * @family: the family's id
 * @group_id: the id of @group
 */
struct nfhp_nl_ids {
	const char *group;
	u16 family;
	u32 group_id;
};

/* CTRL_CMD_GETFAMILY on a socket of the caller's (lib/nl_state.c's events). */
struct mnl_socket;
int nfhp_nl_resolve(struct mnl_socket *sock, void *buf, size_t size, u32 seq,
		    struct nfhp_nl_ids *ids);

/* Two specs are the same rule (what -C looks for). */
bool nfhp_nl_spec_equal(const struct nfhp_rule_spec *a,
		     const struct nfhp_rule_spec *b);

#endif /* _NFHP_NL_H */
