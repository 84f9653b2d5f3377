// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: keep-state and check-state rules, the glue.
 *
 * The pure core (state.h) keeps the states; the classifier (classify.c,
 * "The check point") says when a packet is looked up.  Here is what
 * joins them to packets, rules and netlink:
 *
 * - NFHPA_RULE_STATE, decoded into and put from &struct nfhp_state_spec;
 * - a packet's flow as the states key it, read from the skb;
 * - keep-state, the last match of a keep-state rule's handle (xt_run.c):
 *   it makes the state, or refuses it and the rule does not match;
 * - the check point's lookup, which counts a state's packets on the rule
 *   that made it, as ipfw counts them on the parent rule, and gives an
 *   ICMP error the verdict of the state of the flow it quotes;
 * - a removed rule's states, flushed by the commit that removed it.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jiffies.h>
#include <linux/percpu.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "pernet.h"
#include "state_rule.h"

const struct nla_policy nfhp_rstate_policy[NFHPA_RSTATE_MAX + 1] = {
	[NFHPA_RSTATE_MODE] = NLA_POLICY_RANGE(NLA_U8, NFHP_RSTATE_KEEP,
					       NFHP_RSTATE_CHECK),
	[NFHPA_RSTATE_LIMIT] = NLA_POLICY_MIN(NLA_U32, 1),
	[NFHPA_RSTATE_LIMIT_BY] = NLA_POLICY_RANGE(NLA_U8, 1,
						   NFHP_STATE_LIMIT_ALL),
};

/**
 * nfhp_rstate_decode() - decode NFHPA_RULE_STATE into a rule
 * @spec: the rule
 * @attr: the attribute, validated against nfhp_rstate_policy
 * @extack: for the reason
 *
 * What the mode allows with its action and matches is checked when the
 * rule is made (chain.c).
 *
 * Return: 0 or -EINVAL.
 */
int nfhp_rstate_decode(struct nfhp_rule_spec *spec, const struct nlattr *attr,
		       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[NFHPA_RSTATE_MAX + 1];
	struct nfhp_state_spec *st = &spec->state;
	int ret;

	ret = nla_parse_nested(tb, NFHPA_RSTATE_MAX, attr, nfhp_rstate_policy,
			       extack);
	if (ret)
		return ret;
	if (!tb[NFHPA_RSTATE_MODE]) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "a rule's state needs a mode");
		return -EINVAL;
	}
	st->mode = nla_get_u8(tb[NFHPA_RSTATE_MODE]);
	if (tb[NFHPA_RSTATE_LIMIT_BY] && !tb[NFHPA_RSTATE_LIMIT]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[NFHPA_RSTATE_LIMIT_BY],
				    "the fields of a state limit need its count");
		return -EINVAL;
	}
	if (tb[NFHPA_RSTATE_LIMIT]) {
		st->limit = nla_get_u32(tb[NFHPA_RSTATE_LIMIT]);
		st->limit_by = tb[NFHPA_RSTATE_LIMIT_BY] ?
			       nla_get_u8(tb[NFHPA_RSTATE_LIMIT_BY]) :
			       NFHP_STATE_LIMIT_SRC_ADDR;
	}
	return 0;
}

/**
 * nfhp_rstate_put() - add the NFHPA_RULE_STATE of a rule, if it has one
 * @skb: the message
 * @spec: the rule
 *
 * Return: 0 or -EMSGSIZE.
 */
int nfhp_rstate_put(struct sk_buff *skb, const struct nfhp_rule_spec *spec)
{
	const struct nfhp_state_spec *st = &spec->state;
	struct nlattr *nest;

	if (st->mode == NFHP_RSTATE_NONE)
		return 0;
	nest = nla_nest_start(skb, NFHPA_RULE_STATE);
	if (!nest ||
	    nla_put_u8(skb, NFHPA_RSTATE_MODE, st->mode) ||
	    (st->limit &&
	     (nla_put_u32(skb, NFHPA_RSTATE_LIMIT, st->limit) ||
	      nla_put_u8(skb, NFHPA_RSTATE_LIMIT_BY, st->limit_by)))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * nfhp_keep_state_init() - what a keep-state rule gives its states
 * @ks: the handle's part, zeroed
 * @spec: the rule
 */
void nfhp_keep_state_init(struct nfhp_keep_state *ks,
			  const struct nfhp_rule_spec *spec)
{
	ks->rule.rule = ks;
	ks->rule.verdict = spec->action;
	ks->rule.limit = spec->state.limit;
	ks->rule.limit_mask = spec->state.limit_by;
}

/* An ICMP echo request or reply: its identifier stands for both ports. */
static bool nfhp_state_echo(u8 proto, u8 type)
{
	if (proto == IPPROTO_ICMP)
		return type == ICMP_ECHO || type == ICMP_ECHOREPLY;
	return proto == IPPROTO_ICMPV6 &&
	       (type == ICMPV6_ECHO_REQUEST || type == ICMPV6_ECHO_REPLY);
}

/* The ports of @p, its TCP flags and acknowledgment, into @sp. */
static void nfhp_state_pkt_l4(struct nfhp_state_pkt *sp,
			      struct nfhp_state_tuple *tu,
			      const struct nfhp_xt_pkt *p)
{
	const struct tcphdr *th;
	struct tcphdr _th;
	const __be16 *w;
	__be16 _w[3];

	switch (p->proto) {
	case IPPROTO_TCP:
		th = skb_header_pointer(p->skb, p->thoff, sizeof(_th), &_th);
		if (!th)
			return;
		tu->sport = ntohs(th->source);
		tu->dport = ntohs(th->dest);
		/* The flags live in byte 13 of the header. */
		sp->tcp_flags = ((const u8 *)th)[13];
		sp->ack = ntohl(th->ack_seq);
		return;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		w = skb_header_pointer(p->skb, p->thoff, 4, _w);
		if (w) {
			tu->sport = ntohs(w[0]);
			tu->dport = ntohs(w[1]);
		}
		return;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		/* Type and code, checksum, identifier. */
		w = skb_header_pointer(p->skb, p->thoff, 6, _w);
		if (w && nfhp_state_echo(p->proto, ntohs(w[0]) >> 8)) {
			tu->sport = ntohs(w[2]);
			tu->dport = tu->sport;
		}
		return;
	}
}

/* An ICMP error: it quotes the head of the packet it is about. */
static bool nfhp_state_icmp_error(u8 proto, u8 type)
{
	if (proto == IPPROTO_ICMP)
		return type == ICMP_DEST_UNREACH || type == ICMP_SOURCE_QUENCH ||
		       type == ICMP_REDIRECT || type == ICMP_TIME_EXCEEDED ||
		       type == ICMP_PARAMETERPROB;
	/* ICMPv6's errors are its types below 128. */
	return proto == IPPROTO_ICMPV6 && type < 128;
}

/* Is @p an ICMP error, the first fragment of one at least? */
static bool nfhp_state_is_error(const struct nfhp_xt_pkt *p)
{
	const u8 *type;
	u8 _type;

	if ((p->proto != IPPROTO_ICMP && p->proto != IPPROTO_ICMPV6) ||
	    p->fragoff)
		return false;
	type = skb_header_pointer(p->skb, p->thoff, 1, &_type);
	return type && nfhp_state_icmp_error(p->proto, *type);
}

/*
 * The addresses of the IPv6 header a quote starts at @off, and the
 * transport header after its extension headers, into @tu and @in.
 * False for a quote too short, or of a later fragment: it has no ports.
 */
static bool nfhp_state_quoted6(struct nfhp_state_tuple *tu,
			       struct nfhp_xt_pkt *in, unsigned int off)
{
	const struct ipv6hdr *ip6h;
	struct ipv6hdr _ip6h;
	__be16 frag = 0;
	u8 nexthdr;
	int thoff;
	int i;

	ip6h = skb_header_pointer(in->skb, off, sizeof(_ip6h), &_ip6h);
	if (!ip6h)
		return false;
	nexthdr = ip6h->nexthdr;
	thoff = ipv6_skip_exthdr(in->skb, off + sizeof(*ip6h), &nexthdr, &frag);
	if (thoff < 0 || (frag & htons(~0x7)))
		return false;
	tu->family = NFHP_FAMILY_IPV6;
	for (i = 0; i < 4; i++) {
		tu->src[i] = ntohl(ip6h->saddr.s6_addr32[i]);
		tu->dst[i] = ntohl(ip6h->daddr.s6_addr32[i]);
	}
	in->thoff = thoff;
	in->proto = nexthdr;
	return true;
}

/* nfhp_state_quoted6() for an IPv4 header. */
static bool nfhp_state_quoted4(struct nfhp_state_tuple *tu,
			       struct nfhp_xt_pkt *in, unsigned int off)
{
	const struct iphdr *iph;
	struct iphdr _iph;

	iph = skb_header_pointer(in->skb, off, sizeof(_iph), &_iph);
	if (!iph || iph->ihl < 5 || (iph->frag_off & htons(IP_OFFSET)))
		return false;
	tu->family = NFHP_FAMILY_IPV4;
	tu->src[0] = ntohl(iph->saddr);
	tu->dst[0] = ntohl(iph->daddr);
	in->thoff = off + iph->ihl * 4;
	in->proto = iph->protocol;
	return true;
}

/*
 * The flow the ICMP error @p quotes, into @sp: the head of the packet the
 * error is about, after the 8 bytes of the ICMP header, with the flow's
 * addresses and ports as that packet's sender sent them.  False when the
 * quote does not hold them.
 */
static bool nfhp_state_quoted(struct nfhp_state_pkt *sp,
			      const struct nfhp_xt_pkt *p)
{
	struct nfhp_xt_pkt in = { .skb = p->skb, .state = p->state };
	struct nfhp_state_tuple tu = {};
	unsigned int off = p->thoff + 8;

	if (p->state->pf == NFPROTO_IPV6 ? !nfhp_state_quoted6(&tu, &in, off) :
					   !nfhp_state_quoted4(&tu, &in, off))
		return false;
	tu.proto = in.proto;
	nfhp_state_pkt_l4(sp, &tu, &in);
	nfhp_state_pkt_init(sp, &tu);
	return true;
}

/*
 * The flow of @p as the states key it.  A later fragment has no ports,
 * so it is a flow of its own with ports 0: the rules decide it.
 */
static void nfhp_state_pkt_fill(struct nfhp_state_pkt *sp,
				const struct nfhp_xt_pkt *p)
{
	struct nfhp_state_tuple tu = { .proto = p->proto };
	const struct sk_buff *skb = p->skb;
	unsigned int i;

	sp->tcp_flags = 0;
	sp->ack = 0;
	sp->len = skb->len;
	if (p->state->pf == NFPROTO_IPV6) {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		tu.family = NFHP_FAMILY_IPV6;
		for (i = 0; i < 4; i++) {
			tu.src[i] = ntohl(ip6h->saddr.s6_addr32[i]);
			tu.dst[i] = ntohl(ip6h->daddr.s6_addr32[i]);
		}
	} else {
		tu.family = NFHP_FAMILY_IPV4;
		tu.src[0] = ntohl(ip_hdr(skb)->saddr);
		tu.dst[0] = ntohl(ip_hdr(skb)->daddr);
	}
	if (!p->fragoff)
		nfhp_state_pkt_l4(sp, &tu, p);
	nfhp_state_pkt_init(sp, &tu);
}

/**
 * nfhp_keep_state() - keep-state: make the state of a packet's flow
 * @net: the rule set's namespace
 * @p: the packet, which matched the rest of the rule
 * @ks: the rule's part
 *
 * Packet path, under rcu_read_lock().  A state the flow has already (made
 * on another CPU since the check point missed) is renewed instead.  A
 * rule a commit removed makes none; it still matches, as the rule set
 * the packet is classified with says.
 *
 * Return: %NFHP_EXT_MATCH, or %NFHP_EXT_NOMATCH when the state is refused
 * (the table is full, over the rule's limit, out of memory).
 */
enum nfhp_ext_result nfhp_keep_state(struct net *net,
				     const struct nfhp_xt_pkt *p,
				     const struct nfhp_keep_state *ks)
{
	struct nfhp_states *st = &nfhp_net(net)->states;
	struct nfhp_state_pkt sp;
	struct nfhp_state *s;
	int err;

	nfhp_state_pkt_fill(&sp, p);
	err = nfhp_state_keep(&st->table, &sp, &ks->rule, jiffies, &s);
	if (!err)
		nfhp_states_kick(st);
	if (!err || err == -EEXIST || err == -ENOENT)
		return NFHP_EXT_MATCH;
	return NFHP_EXT_NOMATCH;
}

/* Count a packet a state decided on the rule that made the state. */
static void nfhp_state_count_rule(const struct nfhp_state *s, u32 len)
{
	const struct nfhp_keep_state *ks = s->rule;

	if (ks->cnt) {
		this_cpu_add(ks->cnt->packets, 1);
		this_cpu_add(ks->cnt->bytes, len);
	}
}

/*
 * An ICMP error gets the verdict of the live state of the flow it quotes,
 * as conntrack's RELATED: "port unreachable" and "fragmentation needed"
 * reach the client of a keep-state flow.  It counts on the state's rule,
 * but neither renews the state nor moves its TCP tracking: an error says
 * nothing of the flow's progress, and may be forged.  An error that
 * quotes no live state goes on through the rules.
 */
static u8 nfhp_check_related(struct nfhp_states *st,
			     const struct nfhp_xt_pkt *p)
{
	struct nfhp_state_pkt sp;
	struct nfhp_state *s;

	if (!nfhp_state_quoted(&sp, p))
		return NFHP_ACT_NONE;
	s = nfhp_state_find(&st->table, &sp.key);
	if (!s || nfhp_state_dead(s, jiffies))
		return NFHP_ACT_NONE;
	nfhp_state_count_rule(s, p->skb->len);
	return s->verdict;
}

/**
 * nfhp_check_state() - the check point's lookup (&struct nfhp_ext_ops)
 * @priv: the rule set's namespace
 * @pkt: the packet, &struct nfhp_xt_pkt
 *
 * Packet path, under rcu_read_lock().  A live state counts the packet,
 * and so does the rule that made it: the rule is freed only a grace
 * period after its states were flushed (nfhp_keep_state_retire()).  An
 * ICMP error is checked against the flow it quotes (nfhp_check_related()).
 *
 * Return: the state's verdict, or %NFHP_ACT_NONE.
 */
u8 nfhp_check_state(void *priv, void *pkt)
{
	struct nfhp_states *st = &nfhp_net(priv)->states;
	struct nfhp_xt_pkt *p = pkt;
	struct nfhp_state_pkt sp;
	struct nfhp_state *s;

	if (!atomic_read(&st->table.count))
		return NFHP_ACT_NONE;
	if (nfhp_state_is_error(p))
		return nfhp_check_related(st, p);
	nfhp_state_pkt_fill(&sp, p);
	s = nfhp_state_check(&st->table, &sp, jiffies);
	if (!s)
		return NFHP_ACT_NONE;
	nfhp_state_count_rule(s, sp.len);
	return s->verdict;
}

/**
 * nfhp_keep_state_retire() - a commit removed a keep-state rule
 * @net: its namespace
 * @ks: its part
 *
 * From now on it makes no state (nfhp_state_keep() reads @ks->rule.retired
 * under the bucket lock the flush takes too), and the states it made go.
 * Process context, under the namespace's mutex.
 */
void nfhp_keep_state_retire(struct net *net, struct nfhp_keep_state *ks)
{
	struct nfhp_states *st = &nfhp_net(net)->states;

	WRITE_ONCE(ks->rule.retired, true);
	mutex_lock(&st->lock);
	if (st->ready)
		nfhp_state_flush(&st->table, ks);
	mutex_unlock(&st->lock);
}
