// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the netlink commands of the dynamic states (NFHP_CMD_STATE_*)
 * and their events; the contract is in include/uapi/linux/nf_hipac.h.
 *
 * A listing takes the table a message buffer at a time
 * (nfhp_state_walk(), which says what a listing sees of the states made,
 * freed and moved meanwhile), each under the namespace's mutex and the
 * states' one, in that order, as a commit takes them.  It names each
 * state's rule by its chain and position in the committed rule set: a
 * map of the committed keep-state rules (rule_place.c), made once and
 * again only after the rules changed (&struct nfhp_net.gen).
 *
 * Events go out from where a state is made or unlinked: the packet path,
 * or under a bucket lock with bottom halves off.  So they are built with
 * GFP_ATOMIC, only when someone listens, and without the rule, which
 * only the namespace's mutex may read.
 */
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "netlink.h"
#include "pernet.h"
#include "rule_place.h"
#include "state_netlink.h"
#include "state_rule.h"
#include "xt_run.h"

/* A message of one state, its rule's name at the longest: enough room. */
#define NFHP_STATE_MSG_LEN	384

const struct nla_policy nfhp_state_policy[NFHPA_STATE_MAX + 1] = {
	[NFHPA_STATE_FAMILY] = { .type = NLA_U8 },
	[NFHPA_STATE_PROTO] = { .type = NLA_U8 },
	[NFHPA_STATE_SRC] = NLA_POLICY_EXACT_LEN(16),
	[NFHPA_STATE_DST] = NLA_POLICY_EXACT_LEN(16),
	[NFHPA_STATE_SPORT] = { .type = NLA_U16 },
	[NFHPA_STATE_DPORT] = { .type = NLA_U16 },
	[NFHPA_STATE_TCP_FWD] = { .type = NLA_U8 },
	[NFHPA_STATE_TCP_REV] = { .type = NLA_U8 },
	[NFHPA_STATE_TIMEOUT] = { .type = NLA_U32 },
	[NFHPA_STATE_PACKETS_FWD] = { .type = NLA_U64 },
	[NFHPA_STATE_BYTES_FWD] = { .type = NLA_U64 },
	[NFHPA_STATE_PACKETS_REV] = { .type = NLA_U64 },
	[NFHPA_STATE_BYTES_REV] = { .type = NLA_U64 },
	[NFHPA_STATE_VERDICT] = { .type = NLA_REJECT,
				  .reject_message = "a state's verdict is its rule's" },
	[NFHPA_STATE_CHAIN] = { .type = NLA_NUL_STRING,
				.len = NFHP_CHAIN_MAXNAMELEN - 1 },
	[NFHPA_STATE_POS] = { .type = NLA_U32 },
};

/* The TCP flags a state's word holds, each way, as on the wire. */
#define NFHP_STATE_TCP_SEEN	(NFHP_TCP_FIN | NFHP_TCP_SYN | NFHP_TCP_RST)

/**
 * nfhp_state_tcp_out() - the TCP flags of one way of a state, for the wire
 * @tcp: the state's word (&struct nfhp_state.tcp)
 * @rev: the reply's way
 *
 * Return: FIN, SYN and RST seen that way, and ACK for an ACK seen that
 * way since the last renewal.
 */
static u8 nfhp_state_tcp_out(u32 tcp, bool rev)
{
	u32 ack = rev ? NFHP_STATE_ACK_REV : NFHP_STATE_ACK_FWD;

	return ((tcp >> (rev ? 8 : 0)) & NFHP_STATE_TCP_SEEN) |
	       (tcp & ack ? NFHP_TCP_ACK : 0);
}

/**
 * nfhp_state_tcp_in() - a state's word from the flags of each way
 * @fwd: NFHPA_STATE_TCP_FWD
 * @rev: NFHPA_STATE_TCP_REV
 *
 * Return: the word; see nfhp_state_tcp_out().
 */
static u32 nfhp_state_tcp_in(u8 fwd, u8 rev)
{
	return (fwd & NFHP_STATE_TCP_SEEN) |
	       (u32)(rev & NFHP_STATE_TCP_SEEN) << 8 |
	       (fwd & NFHP_TCP_ACK ? NFHP_STATE_ACK_FWD : 0) |
	       (rev & NFHP_TCP_ACK ? NFHP_STATE_ACK_REV : 0);
}

/**
 * nfhp_state_put_addr() - put an address the way NFHPA_SETE_ADDR has it
 * @skb: the message
 * @type: NFHPA_STATE_SRC or NFHPA_STATE_DST
 * @w: the address in a state's words
 * @family: its family
 *
 * Return: 0 or -EMSGSIZE.
 */
static int nfhp_state_put_addr(struct sk_buff *skb, int type, const u32 *w,
			       u8 family)
{
	nfhp_u128 v = nfhp_state_addr_get(w, family);
	u32 out[4] = {
		(u32)(v >> 96), (u32)(v >> 64), (u32)(v >> 32), (u32)v,
	};

	return nla_put(skb, type, sizeof(out), out);
}

/**
 * nfhp_state_put() - put NFHPA_STATE
 * @skb: the message
 * @s: the state, under rcu_read_lock()
 * @now: jiffies
 * @place: where its rule stands, or NULL to leave the rule out
 *
 * Return: 0 or -EMSGSIZE, the attribute then cancelled.
 */
static int nfhp_state_put(struct sk_buff *skb, const struct nfhp_state *s,
			  unsigned long now, const struct nfhp_rule_place *place)
{
	const struct nfhp_state_key *k = &s->key;
	unsigned int src = s->creator_reverse, dst = !src;
	long left = (long)(READ_ONCE(s->expire) - now);
	u32 tcp = READ_ONCE(s->tcp);
	struct nlattr *nest;

	nest = nla_nest_start(skb, NFHPA_STATE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, NFHPA_STATE_FAMILY, k->family) ||
	    nla_put_u8(skb, NFHPA_STATE_PROTO, k->proto) ||
	    nfhp_state_put_addr(skb, NFHPA_STATE_SRC, k->addr[src],
				k->family) ||
	    nfhp_state_put_addr(skb, NFHPA_STATE_DST, k->addr[dst],
				k->family) ||
	    nla_put_u16(skb, NFHPA_STATE_SPORT, k->port[src]) ||
	    nla_put_u16(skb, NFHPA_STATE_DPORT, k->port[dst]) ||
	    nla_put_u8(skb, NFHPA_STATE_TCP_FWD, nfhp_state_tcp_out(tcp, false)) ||
	    nla_put_u8(skb, NFHPA_STATE_TCP_REV, nfhp_state_tcp_out(tcp, true)) ||
	    nla_put_u32(skb, NFHPA_STATE_TIMEOUT,
			left > 0 ? DIV_ROUND_UP(left, HZ) : 0) ||
	    nla_put_u64_64bit(skb, NFHPA_STATE_PACKETS_FWD,
			      READ_ONCE(s->pkts[0]), NFHPA_STATE_PAD) ||
	    nla_put_u64_64bit(skb, NFHPA_STATE_BYTES_FWD,
			      READ_ONCE(s->bytes[0]), NFHPA_STATE_PAD) ||
	    nla_put_u64_64bit(skb, NFHPA_STATE_PACKETS_REV,
			      READ_ONCE(s->pkts[1]), NFHPA_STATE_PAD) ||
	    nla_put_u64_64bit(skb, NFHPA_STATE_BYTES_REV,
			      READ_ONCE(s->bytes[1]), NFHPA_STATE_PAD) ||
	    nla_put_u8(skb, NFHPA_STATE_VERDICT, s->verdict) ||
	    (place &&
	     (nla_put_string(skb, NFHPA_STATE_CHAIN, place->chain) ||
	      nla_put_u32(skb, NFHPA_STATE_POS, place->pos)))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * nfhp_state_rule_key() - what a keep-state rule's states know it by
 * @ext: the rule's handle
 *
 * For nfhp_rule_places().
 *
 * Return: the handle's keep-state part (&struct nfhp_state.rule).
 */
static const void *nfhp_state_rule_key(const void *ext)
{
	return nfhp_xt_keep_state(ext);
}

/**
 * struct nfhp_state_places - where a family's keep-state rules stood at
 *	its last commit, for events
 * @rcu: frees it a grace period after a commit hid it
 * @n: how many
 * @place: their places, sorted by key (nfhp_rule_places()); each names a
 *	copy of its chain's name, after @place[@n - 1]
 *
 * Events come from the packet path, which may not take the namespace's
 * mutex the committed rules are read under: each commit of a rule set
 * with keep-state rules leaves this copy of their places, and the next
 * hides it before it publishes (nfhp_state_places_hide()).
 */
struct nfhp_state_places {
	struct rcu_head rcu;
	unsigned int n;
	struct nfhp_rule_place place[];
};

/* Where the chain name of @p's place @i is kept. */
static char *nfhp_state_places_name(struct nfhp_state_places *p,
				    unsigned int i)
{
	return (char *)&p->place[p->n] + i * NFHP_CHAIN_MAXNAMELEN;
}

/**
 * nfhp_state_places_hide() - events go without their rule until
 *	nfhp_state_places_publish()
 * @hn: the namespace, its mutex held
 * @fams: the families whose commits are about to publish, as bits
 *
 * Between a commit's publication and the new places, a place of the old
 * rules could be wrong: an event rather goes without its rule.
 */
void nfhp_state_places_hide(struct nfhp_net *hn, unsigned int fams)
{
	struct nfhp_state_places *old;
	unsigned int i;

	for (i = 0; i < NFHP_FAM_MAX; i++) {
		if (!(fams & (1u << i)))
			continue;
		old = rcu_replace_pointer(hn->fam[i].places, NULL,
					  lockdep_is_held(&hn->lock));
		if (old)
			kvfree_rcu(old, rcu);
	}
}

/**
 * nfhp_state_places_publish() - let events name the rules just committed
 * @hn: the namespace, its mutex held
 * @fams: the families that committed, as bits, hidden before
 *
 * One pass over each rule set that has keep-state rules.  Short of
 * memory, its events go without their rule until its next commit.
 */
void nfhp_state_places_publish(struct nfhp_net *hn, unsigned int fams)
{
	const struct nfhp_ruleset *rs;
	struct nfhp_state_places *p;
	unsigned int i, j, n;

	for (i = 0; i < NFHP_FAM_MAX; i++) {
		rs = hn->fam[i].rs;
		if (!(fams & (1u << i)))
			continue;
		n = nfhp_rule_places(rs, nfhp_state_rule_key, NULL, 0);
		if (!n)
			continue;
		p = kvmalloc(struct_size(p, place, n) +
			     n * NFHP_CHAIN_MAXNAMELEN, GFP_KERNEL);
		if (!p)
			continue;
		p->n = nfhp_rule_places(rs, nfhp_state_rule_key, p->place, n);
		for (j = 0; j < p->n; j++) {
			strscpy(nfhp_state_places_name(p, j), p->place[j].chain,
				NFHP_CHAIN_MAXNAMELEN);
			p->place[j].chain = nfhp_state_places_name(p, j);
		}
		rcu_assign_pointer(hn->fam[i].places, p);
	}
}

/**
 * nfhp_state_places_free() - free the places of a namespace going
 * @hn: the namespace, its mutex held, its events detached
 */
void nfhp_state_places_free(struct nfhp_net *hn)
{
	unsigned int i;

	for (i = 0; i < NFHP_FAM_MAX; i++)
		kvfree(rcu_replace_pointer(hn->fam[i].places, NULL,
					   lockdep_is_held(&hn->lock)));
}

/**
 * nfhp_state_event_place() - where the rule of an event's state stood
 * @net: the namespace
 * @s: the state
 *
 * Call under rcu_read_lock().
 *
 * Return: the place, or NULL while its family commits, when its rule is
 * gone, or when memory for the places was short.
 */
static const struct nfhp_rule_place *
nfhp_state_event_place(struct net *net, const struct nfhp_state *s)
{
	unsigned int f = s->key.family == NFHP_FAMILY_IPV6 ? NFHP_FAM_IPV6 :
							      NFHP_FAM_IPV4;
	const struct nfhp_state_places *p;

	p = rcu_dereference(nfhp_net(net)->fam[f].places);
	return p ? nfhp_rule_place_find(p->place, p->n, s->rule) : NULL;
}

/* The family is registered: events may go out (nfhp_state_events_enable()). */
static bool nfhp_state_events_on;

/**
 * nfhp_state_events_enable() - let events go out, or stop them
 * @on: the family is registered, or is about to be unregistered
 *
 * Stopping waits until no event is being sent: the packet path sends
 * under rcu_read_lock(), the others with bottom halves off, and
 * synchronize_rcu() waits for both.  The family's groups may then go.
 */
void nfhp_state_events_enable(bool on)
{
	WRITE_ONCE(nfhp_state_events_on, on);
	if (!on)
		synchronize_rcu();
}

/**
 * nfhp_state_event() - tell the listeners of a state made or unlinked
 * @arg: the table's namespace, a &struct net
 * @s: the state
 * @made: it was made, else unlinked
 *
 * &struct nfhp_state_table.event: on the packet path or under a bucket
 * lock, so it allocates with GFP_ATOMIC, and only when someone listens.
 * An event that finds no memory or no room in a listener's socket is
 * lost; the listener's next recv() fails with ENOBUFS.
 */
static void nfhp_state_event(void *arg, const struct nfhp_state *s, bool made)
{
	const struct genl_family *family = nfhp_genl_family();
	struct net *net = arg;
	struct sk_buff *skb;
	void *hdr;

	if (!READ_ONCE(nfhp_state_events_on) ||
	    !genl_has_listeners(family, net, NFHP_MCGRP_STATES_IDX))
		return;
	skb = genlmsg_new(NFHP_STATE_MSG_LEN, GFP_ATOMIC);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, family, 0,
			  made ? NFHP_CMD_STATE_NEW : NFHP_CMD_STATE_DESTROY);
	rcu_read_lock();
	if (!hdr || nfhp_state_put(skb, s, jiffies,
				   nfhp_state_event_place(net, s))) {
		rcu_read_unlock();
		nlmsg_free(skb);
		return;
	}
	rcu_read_unlock();
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(family, net, skb, 0, NFHP_MCGRP_STATES_IDX,
				GFP_ATOMIC);
}

/**
 * nfhp_state_events_attach() - send a namespace's states' events
 * @hn: the namespace, its states ready and no packet through them yet
 *
 * nfhp_states_exit() detaches them before the table goes.
 */
void nfhp_state_events_attach(struct nfhp_net *hn)
{
	hn->states.table.event_arg = hn->net;
	hn->states.table.event = nfhp_state_event;
}

/**
 * nfhp_state_attrs() - the NFHPA_STATE of a request, split
 * @info: the request
 * @tb: filled with its attributes
 *
 * Return: 0, or -EINVAL when it is absent or malformed.
 */
static int nfhp_state_attrs(struct genl_info *info, struct nlattr **tb)
{
	if (!info->attrs[NFHPA_STATE]) {
		NL_SET_ERR_MSG(info->extack, "NFHPA_STATE is missing");
		return -EINVAL;
	}
	return nla_parse_nested(tb, NFHPA_STATE_MAX, info->attrs[NFHPA_STATE],
				nfhp_state_policy, info->extack);
}

/**
 * nfhp_state_get_addr() - an address of a request, in a state's words
 * @w: filled in
 * @attr: NFHPA_STATE_SRC or NFHPA_STATE_DST, 16 bytes
 * @family: the flow's family
 *
 * Return: 0, or -EINVAL for an IPv4 address wider than 32 bits.
 */
static int nfhp_state_get_addr(u32 *w, const struct nlattr *attr, u8 family)
{
	u32 in[4];
	nfhp_u128 v;

	memcpy(in, nla_data(attr), sizeof(in));
	v = (nfhp_u128)in[0] << 96 | (nfhp_u128)in[1] << 64 |
	    (nfhp_u128)in[2] << 32 | in[3];
	if (family == NFHP_FAMILY_IPV4 && v >> 32)
		return -EINVAL;
	nfhp_state_addr_set(w, family, v);
	return 0;
}

/**
 * nfhp_state_flow() - the flow a request names
 * @tb: its NFHPA_STATE, split
 * @pkt: filled with the flow, SRC to DST being the creator's way
 * @extack: for the reason
 *
 * Return: 0, -EINVAL for a flow missing a part or malformed, or
 * -EAFNOSUPPORT for an unknown family.
 */
static int nfhp_state_flow(struct nlattr **tb, struct nfhp_state_pkt *pkt,
			   struct netlink_ext_ack *extack)
{
	struct nfhp_state_tuple t = {};

	if (!tb[NFHPA_STATE_FAMILY] || !tb[NFHPA_STATE_PROTO] ||
	    !tb[NFHPA_STATE_SRC] || !tb[NFHPA_STATE_DST]) {
		NL_SET_ERR_MSG(extack,
			       "a flow needs a family, a protocol and both addresses");
		return -EINVAL;
	}
	t.family = nla_get_u8(tb[NFHPA_STATE_FAMILY]);
	if (t.family != NFHP_FAMILY_IPV4 && t.family != NFHP_FAMILY_IPV6) {
		NL_SET_ERR_MSG_ATTR(extack, tb[NFHPA_STATE_FAMILY],
				    "unknown family");
		return -EAFNOSUPPORT;
	}
	t.proto = nla_get_u8(tb[NFHPA_STATE_PROTO]);
	if (nfhp_state_get_addr(t.src, tb[NFHPA_STATE_SRC], t.family) ||
	    nfhp_state_get_addr(t.dst, tb[NFHPA_STATE_DST], t.family)) {
		NL_SET_ERR_MSG(extack, "an IPv4 address wider than 32 bits");
		return -EINVAL;
	}
	if (tb[NFHPA_STATE_SPORT])
		t.sport = nla_get_u16(tb[NFHPA_STATE_SPORT]);
	if (tb[NFHPA_STATE_DPORT])
		t.dport = nla_get_u16(tb[NFHPA_STATE_DPORT]);
	memset(pkt, 0, sizeof(*pkt));
	nfhp_state_pkt_init(pkt, &t);
	return 0;
}

/**
 * struct nfhp_state_dump - where a NFHP_CMD_STATE_LIST dump is
 * @cur: the walk's cursor
 * @family: the family listed, or 0 for both
 * @one: only the state of the flow @key is listed
 * @key: with @one, the flow
 * @done: every state is listed (or, with @one, the flow's): the rounds
 *	after the last send nothing, whatever the table holds by then
 * @gen: the &struct nfhp_net.gen @places were made at, 0 for none
 * @places: the map of each family's committed keep-state rules
 * @nplaces: their number
 * @hn: the namespace, for the walk's callback
 * @skb: the message buffer being filled
 * @cb: the dump's callback
 * @now: jiffies of this round
 */
struct nfhp_state_dump {
	struct nfhp_state_cursor cur;
	u8 family;
	bool one;
	struct nfhp_state_key key;
	bool done;
	unsigned int gen;
	struct nfhp_rule_place *places[NFHP_FAM_MAX];
	unsigned int nplaces[NFHP_FAM_MAX];
	struct nfhp_net *hn;
	struct sk_buff *skb;
	struct netlink_callback *cb;
	unsigned long now;
};

/**
 * nfhp_state_dump_ctx() - the dump state of a callback
 * @cb: the callback
 *
 * Return: the state nfhp_nl_state_list_start() allocated.
 */
static struct nfhp_state_dump *nfhp_state_dump_ctx(struct netlink_callback *cb)
{
	return *(struct nfhp_state_dump **)cb->ctx;
}

/**
 * nfhp_state_dump_places() - map the committed keep-state rules again
 * @d: the dump, the namespace's mutex held
 *
 * Only when the rules changed since the last map.
 *
 * Return: 0 or -ENOMEM.
 */
static int nfhp_state_dump_places(struct nfhp_state_dump *d)
{
	const struct nfhp_ruleset *rs;
	unsigned int i, n;

	if (d->gen == d->hn->gen)
		return 0;
	for (i = 0; i < NFHP_FAM_MAX; i++) {
		rs = d->hn->fam[i].rs;
		kvfree(d->places[i]);
		d->places[i] = NULL;
		d->nplaces[i] = 0;
		n = nfhp_rule_places(rs, nfhp_state_rule_key, NULL, 0);
		if (!n)
			continue;
		d->places[i] = kvmalloc_array(n, sizeof(*d->places[i]),
					      GFP_KERNEL);
		if (!d->places[i])
			return -ENOMEM;
		d->nplaces[i] = nfhp_rule_places(rs, nfhp_state_rule_key,
						 d->places[i], n);
	}
	d->gen = d->hn->gen;
	return 0;
}

/**
 * nfhp_state_dump_one() - one state's message, if it fits
 * @arg: the dump, &struct nfhp_state_dump
 * @s: the state
 *
 * nfhp_state_walk()'s callback.
 *
 * Return: 0, or -EMSGSIZE when the buffer is full.
 */
static int nfhp_state_dump_one(void *arg, const struct nfhp_state *s)
{
	struct nfhp_state_dump *d = arg;
	const struct nfhp_rule_place *place;
	unsigned int f;
	void *hdr;

	if (d->family && s->key.family != d->family)
		return 0;
	f = s->key.family == NFHP_FAMILY_IPV6 ? NFHP_FAM_IPV6 : NFHP_FAM_IPV4;
	place = nfhp_rule_place_find(d->places[f], d->nplaces[f], s->rule);
	hdr = genlmsg_put(d->skb, NETLINK_CB(d->cb->skb).portid,
			  d->cb->nlh->nlmsg_seq, nfhp_genl_family(),
			  NLM_F_MULTI, NFHP_CMD_STATE_LIST);
	if (!hdr)
		return -EMSGSIZE;
	if (nfhp_state_put(d->skb, s, d->now, place)) {
		genlmsg_cancel(d->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(d->skb, hdr);
	return 0;
}

/**
 * nfhp_state_dump_flow() - the message of the one flow a dump asks for
 * @d: the dump, its round under way
 * @t: the table, under rcu_read_lock()
 *
 * The first round sends it, if the flow has a live state; the next ends
 * the dump.
 *
 * Return: 0, or -EMSGSIZE.
 */
static int nfhp_state_dump_flow(struct nfhp_state_dump *d,
				struct nfhp_state_table *t)
{
	const struct nfhp_state *s;
	int ret = 0;

	if (d->done)
		return 0;
	s = nfhp_state_find(t, &d->key);
	if (s && !nfhp_state_dead(s, d->now))
		ret = nfhp_state_dump_one(d, s);
	d->done = !ret;
	return ret;
}

/**
 * nfhp_nl_state_list() - one round of NFHP_CMD_STATE_LIST
 * @skb: the message buffer to fill
 * @cb: the dump's callback
 *
 * Return: the length of @skb, 0 at the end, or -errno.
 */
int nfhp_nl_state_list(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nfhp_state_dump *d = nfhp_state_dump_ctx(cb);
	struct nfhp_states *st = &d->hn->states;
	int ret;

	mutex_lock(&d->hn->lock);
	ret = nfhp_state_dump_places(d);
	if (!ret) {
		mutex_lock(&st->lock);
		d->skb = skb;
		d->cb = cb;
		d->now = jiffies;
		rcu_read_lock();
		if (st->ready && d->one)
			ret = nfhp_state_dump_flow(d, &st->table);
		else if (st->ready && !d->done)
			ret = nfhp_state_walk(&st->table, &d->cur, d->now,
					      nfhp_state_dump_one, d);
		d->done |= !ret;
		rcu_read_unlock();
		mutex_unlock(&st->lock);
	}
	mutex_unlock(&d->hn->lock);
	/* A full buffer is no error, unless not even one message fitted. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ? ret : skb->len;
}

/**
 * nfhp_nl_state_list_start() - set up a NFHP_CMD_STATE_LIST dump
 * @cb: the callback
 *
 * A state tells what the firewall lets through, as a rule does: the same
 * permission as NFHP_CMD_LIST.
 *
 * Return: 0, -EPERM, -EAFNOSUPPORT for an unknown family, -EINVAL for a
 * flow missing a part, or -ENOMEM.
 */
int nfhp_nl_state_list_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct net *net = sock_net(cb->skb->sk);
	struct nfhp_net *hn = nfhp_net(net);
	struct nlattr *tb[NFHPA_STATE_MAX + 1] = {};
	struct nfhp_state_pkt pkt = {};
	struct nfhp_state_dump *d;
	u8 family = 0;
	int ret;

	BUILD_BUG_ON(sizeof(d) > sizeof(cb->ctx));
	if (!nfhp_net_world_readable(hn) &&
	    !netlink_ns_capable(cb->skb, net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (info->attrs[NFHPA_STATE]) {
		ret = nla_parse_nested(tb, NFHPA_STATE_MAX,
				       info->attrs[NFHPA_STATE],
				       nfhp_state_policy, NULL);
		if (ret)
			return ret;
		if (tb[NFHPA_STATE_FAMILY]) {
			family = nla_get_u8(tb[NFHPA_STATE_FAMILY]);
			if (!nfhp_net_fam(hn, family))
				return -EAFNOSUPPORT;
		}
		/* A flow: its state only. */
		if (tb[NFHPA_STATE_PROTO] || tb[NFHPA_STATE_SRC] ||
		    tb[NFHPA_STATE_DST]) {
			ret = nfhp_state_flow(tb, &pkt, NULL);
			if (ret)
				return ret;
		}
	}
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->hn = hn;
	d->family = family;
	d->one = tb[NFHPA_STATE_PROTO] || tb[NFHPA_STATE_SRC] ||
		 tb[NFHPA_STATE_DST];
	d->key = pkt.key;
	*(struct nfhp_state_dump **)cb->ctx = d;
	return 0;
}

/**
 * nfhp_nl_state_list_done() - tear down a NFHP_CMD_STATE_LIST dump
 * @cb: the callback
 *
 * Return: 0.
 */
int nfhp_nl_state_list_done(struct netlink_callback *cb)
{
	struct nfhp_state_dump *d = nfhp_state_dump_ctx(cb);
	unsigned int i;

	if (!d)
		return 0;
	for (i = 0; i < NFHP_FAM_MAX; i++)
		kvfree(d->places[i]);
	kfree(d);
	return 0;
}

/**
 * nfhp_nl_state_del() - NFHP_CMD_STATE_DEL: delete a flow's state
 * @skb: the request
 * @info: its attributes
 *
 * Return: 0, -ENOENT when the flow has no live state, or -EINVAL.
 */
int nfhp_nl_state_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nfhp_states *st = &nfhp_net(genl_info_net(info))->states;
	struct nlattr *tb[NFHPA_STATE_MAX + 1];
	struct nfhp_state_pkt pkt;
	int ret;

	ret = nfhp_state_attrs(info, tb);
	if (!ret)
		ret = nfhp_state_flow(tb, &pkt, info->extack);
	if (ret)
		return ret;
	mutex_lock(&st->lock);
	rcu_read_lock();
	ret = st->ready ? nfhp_state_delete(&st->table, &pkt.key, jiffies) :
			  -ENOENT;
	rcu_read_unlock();
	mutex_unlock(&st->lock);
	if (ret)
		NL_SET_ERR_MSG(info->extack, "the flow has no state");
	return ret;
}

/**
 * nfhp_state_of_family() - is a state of a family?
 * @s: the state
 * @family: the family, a u8
 *
 * nfhp_state_flush_if()'s test.
 *
 * Return: true when it is.
 */
static bool nfhp_state_of_family(const struct nfhp_state *s,
				 const void *family)
{
	return s->key.family == *(const u8 *)family;
}

/**
 * nfhp_state_keep_rule() - the keep-state part of the rule a request names
 * @hn: the namespace, its mutex held
 * @family: the rule set's family
 * @tb: the request's NFHPA_STATE, split, with NFHPA_STATE_CHAIN and _POS
 * @extack: for the reason
 * @ks: set to the committed rule's part
 *
 * Return: 0, -ENOENT when there is no such rule, -EINVAL when it is no
 * keep-state rule.
 */
static int nfhp_state_keep_rule(struct nfhp_net *hn, u8 family,
				struct nlattr **tb,
				struct netlink_ext_ack *extack,
				struct nfhp_keep_state **ks)
{
	void *ext = NULL;
	int ret;

	ret = nfhp_rule_keep_ext(nfhp_net_fam(hn, family)->rs,
				 nla_data(tb[NFHPA_STATE_CHAIN]),
				 nla_get_u32(tb[NFHPA_STATE_POS]), &ext);
	*ks = ret ? NULL : nfhp_xt_keep_state(ext);
	if (ret == -ENOENT) {
		NL_SET_ERR_MSG(extack, "no rule at that chain and position");
		return ret;
	}
	if (!*ks) {
		NL_SET_ERR_MSG(extack, "the rule is no keep-state rule");
		return -EINVAL;
	}
	return 0;
}

/**
 * nfhp_nl_state_flush() - NFHP_CMD_STATE_FLUSH: delete every state
 * @skb: the request
 * @info: its attributes: NFHPA_STATE_FAMILY for one family's,
 *	NFHPA_STATE_CHAIN and _POS for one rule's
 *
 * Return: 0, -EAFNOSUPPORT for an unknown family, or as
 * nfhp_state_keep_rule() for a rule.
 */
int nfhp_nl_state_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct nfhp_net *hn = nfhp_net(genl_info_net(info));
	struct nfhp_states *st = &hn->states;
	struct nlattr *tb[NFHPA_STATE_MAX + 1] = {};
	struct nfhp_keep_state *ks = NULL;
	u8 family = 0;
	int ret = 0;

	if (info->attrs[NFHPA_STATE]) {
		ret = nfhp_state_attrs(info, tb);
		if (ret)
			return ret;
	}
	if (tb[NFHPA_STATE_FAMILY]) {
		family = nla_get_u8(tb[NFHPA_STATE_FAMILY]);
		if (!nfhp_net_fam(hn, family)) {
			NL_SET_ERR_MSG(info->extack, "unknown family");
			return -EAFNOSUPPORT;
		}
	}
	if (!tb[NFHPA_STATE_CHAIN] != !tb[NFHPA_STATE_POS]) {
		NL_SET_ERR_MSG(info->extack,
			       "a rule needs its chain and its position");
		return -EINVAL;
	}
	/* A rule's states: under the mutex a commit removing it takes. */
	mutex_lock(&hn->lock);
	if (tb[NFHPA_STATE_CHAIN])
		ret = nfhp_state_keep_rule(hn, family ? family :
					   NFHP_FAMILY_IPV4, tb, info->extack,
					   &ks);
	if (!ret) {
		mutex_lock(&st->lock);
		if (st->ready && ks)
			nfhp_state_flush(&st->table, ks);
		else if (st->ready && family)
			nfhp_state_flush_if(&st->table, nfhp_state_of_family,
					    &family);
		else if (st->ready)
			nfhp_state_flush(&st->table, NULL);
		mutex_unlock(&st->lock);
	}
	mutex_unlock(&hn->lock);
	return ret;
}

/**
 * nfhp_state_init_of() - what a state added by hand starts with
 * @tb: the request's NFHPA_STATE, split
 * @init: filled in
 * @extack: for the reason
 *
 * Return: 0, or -EINVAL without a lifetime of 1 s or more.
 */
static int nfhp_state_init_of(struct nlattr **tb, struct nfhp_state_init *init,
			      struct netlink_ext_ack *extack)
{
	static const int counters[2][2] = {
		{ NFHPA_STATE_PACKETS_FWD, NFHPA_STATE_PACKETS_REV },
		{ NFHPA_STATE_BYTES_FWD, NFHPA_STATE_BYTES_REV },
	};
	u32 secs;
	int d;

	secs = tb[NFHPA_STATE_TIMEOUT] ?
	       nla_get_u32(tb[NFHPA_STATE_TIMEOUT]) : 0;
	/* Past a day times 30, jiffies might wrap on a 32-bit machine. */
	if (!secs || secs > 30 * 86400) {
		NL_SET_ERR_MSG(extack,
			       "a state needs NFHPA_STATE_TIMEOUT, 1 to 2592000 s");
		return -EINVAL;
	}
	memset(init, 0, sizeof(*init));
	init->expire = jiffies + (unsigned long)secs * HZ;
	init->tcp = nfhp_state_tcp_in(tb[NFHPA_STATE_TCP_FWD] ?
				      nla_get_u8(tb[NFHPA_STATE_TCP_FWD]) : 0,
				      tb[NFHPA_STATE_TCP_REV] ?
				      nla_get_u8(tb[NFHPA_STATE_TCP_REV]) : 0);
	for (d = 0; d < 2; d++) {
		if (tb[counters[0][d]])
			init->pkts[d] = nla_get_u64(tb[counters[0][d]]);
		if (tb[counters[1][d]])
			init->bytes[d] = nla_get_u64(tb[counters[1][d]]);
	}
	return 0;
}

/**
 * nfhp_state_add_msg() - why a state added by hand was refused
 * @err: nfhp_state_add()'s -errno
 *
 * Return: the reason.
 */
static const char *nfhp_state_add_msg(int err)
{
	switch (err) {
	case -EEXIST:
		return "the flow has a state already";
	case -ENOSPC:
		return "the table holds max_states states, or max limit parents";
	case -EDQUOT:
		return "the rule's limit is reached";
	case -ENOENT:
		return "the rule is being deleted";
	default:
		return "no memory for the state";
	}
}

/**
 * nfhp_nl_state_add() - NFHP_CMD_STATE_ADD: make a state by hand
 * @skb: the request
 * @info: its attributes
 *
 * The rule is looked up in the committed rule set under the namespace's
 * mutex, which a commit that removes it holds too: a state is never
 * added to a rule whose states a commit flushed.
 *
 * Return: 0 or -errno, see the uapi header.
 */
int nfhp_nl_state_add(struct sk_buff *skb, struct genl_info *info)
{
	struct nfhp_net *hn = nfhp_net(genl_info_net(info));
	struct nlattr *tb[NFHPA_STATE_MAX + 1];
	struct nfhp_keep_state *ks = NULL;
	struct nfhp_states *st = &hn->states;
	struct nfhp_state_init init;
	struct nfhp_state_pkt pkt;
	int ret;

	ret = nfhp_state_attrs(info, tb);
	if (!ret)
		ret = nfhp_state_flow(tb, &pkt, info->extack);
	if (!ret)
		ret = nfhp_state_init_of(tb, &init, info->extack);
	if (ret)
		return ret;
	if (!tb[NFHPA_STATE_CHAIN] || !tb[NFHPA_STATE_POS]) {
		NL_SET_ERR_MSG(info->extack,
			       "a state needs its rule's chain and position");
		return -EINVAL;
	}
	mutex_lock(&hn->lock);
	ret = nfhp_state_keep_rule(hn, pkt.tuple.family, tb, info->extack, &ks);
	if (!ret) {
		mutex_lock(&st->lock);
		rcu_read_lock();
		ret = st->ready ? nfhp_state_add(&st->table, &pkt, &ks->rule,
						 &init, jiffies) : -ENOENT;
		rcu_read_unlock();
		/* The tick expires it, as a packet's state. */
		if (!ret)
			nfhp_states_kick(st);
		mutex_unlock(&st->lock);
		if (ret)
			nfhp_set_msg(info->extack, nfhp_state_add_msg(ret));
	}
	mutex_unlock(&hn->lock);
	return ret;
}
