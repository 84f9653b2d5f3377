// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the netfilter hooks.
 *
 * One hook per built-in chain and family.  Each turns the packet into a
 * &struct nfhp_key and asks the classifier of its namespace and family
 * for a verdict.  nf_hook() already holds rcu_read_lock(), which is all
 * nfhp_classify() needs, so this path takes no lock and allocates
 * nothing.
 *
 * An IPv6 packet's protocol is the upper-layer one past the extension
 * headers, as ip6tables' "-p" matches it: ipv6_find_hdr() finds it and the
 * fragment offset.  A packet whose headers cannot be walked (unless it
 * is a later fragment that ipv6_find_hdr() reports as one) is dropped
 * before any rule.  ip6tables drops it later: in the first rule with "-p"
 * whose addresses and interfaces it matches (ip6_packet_match() sets
 * hotdrop only under IP6T_F_PROTO); rules without "-p" before that one,
 * and the policies, see it.  Doing the same would take a tree of its own
 * for such packets, or a walk of the rules for each, which any sender of
 * malformed packets could make us pay; nf-hipac(8) lists the difference.
 */

#include <asm/unaligned.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/netfilter/nf_conntrack.h>

#include "hooks.h"
#include "ifname.h"
#include "key.h"
#include "pernet.h"
#include "xt_run.h"

/**
 * nfhp_ct_state() - the conntrack state of a packet, as xt_state sees it
 * @skb: the packet
 *
 * Return: &enum nfhp_ct_state.
 */
static u8 nfhp_ct_state(const struct sk_buff *skb)
{
	enum ip_conntrack_info ctinfo;
	struct nf_conn *ct = nf_ct_get(skb, &ctinfo);

	if (!ct)
		return ctinfo == IP_CT_UNTRACKED ? NFHP_CT_UNTRACKED :
						   NFHP_CT_INVALID;
	if (nf_ct_is_template(ct))
		return NFHP_CT_UNTRACKED;
	switch (ctinfo) {
	case IP_CT_ESTABLISHED:
	case IP_CT_ESTABLISHED_REPLY:
		return NFHP_CT_ESTABLISHED;
	case IP_CT_RELATED:
	case IP_CT_RELATED_REPLY:
		return NFHP_CT_RELATED;
	case IP_CT_NEW:
		return NFHP_CT_NEW;
	default:
		return NFHP_CT_INVALID;
	}
}

/**
 * nfhp_key_fill_l4() - the transport dimensions of a first fragment
 * @key: the key, zeroed
 * @skb: the packet
 * @thoff: offset of the transport header in @skb
 * @proto: the IPv4 protocol, or IPv6's upper-layer protocol
 *
 * Fields beyond the end of a truncated header stay 0; the caller then
 * marks them with nfhp_key_set_l4_short().
 */
static void nfhp_key_fill_l4(struct nfhp_key *key, const struct sk_buff *skb,
			     unsigned int thoff, u8 proto)
{
	const __be16 *ports;
	__be16 _ports[2];
	const u8 *p;
	u8 _buf[2];

	switch (proto) {
	case IPPROTO_TCP:
		/* The flags live in byte 13 of the TCP header. */
		p = skb_header_pointer(skb, thoff + 13, 1, _buf);
		if (p)
			key->v[NFHP_DIM_TCPFLAGS] = p[0];
		fallthrough;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		ports = skb_header_pointer(skb, thoff, sizeof(_ports), _ports);
		if (ports) {
			key->v[NFHP_DIM_SPORT] = ntohs(ports[0]);
			key->v[NFHP_DIM_DPORT] = ntohs(ports[1]);
		}
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		p = skb_header_pointer(skb, thoff, 2, _buf);
		if (p)
			key->v[NFHP_DIM_ICMP] = p[0] << 8 | p[1];
		break;
	}
}

/* What keys of both families hold alike: state, mark and interfaces. */
static void nfhp_key_fill_common(struct nfhp_key *key,
				 const struct nfhp_xt_pkt *pkt)
{
	const struct nf_hook_state *state = pkt->state;

	key->v[NFHP_DIM_STATE] = nfhp_ct_state(pkt->skb);
	key->v[NFHP_DIM_MARK] = pkt->skb->mark;
	if (state->in)
		key->v[NFHP_DIM_IIF] = nfhp_ifname_value16(state->in->name);
	if (state->out)
		key->v[NFHP_DIM_OIF] = nfhp_ifname_value16(state->out->name);
}

/**
 * nfhp_key_fill() - the key of an IPv4 packet
 * @key: the key to fill
 * @pkt: the packet and its hook state; its fragment offset, transport
 *	header offset and protocol are filled in, for xtables modules and
 *	set matches
 */
static void nfhp_key_fill(struct nfhp_key *key, struct nfhp_xt_pkt *pkt)
{
	const struct sk_buff *skb = pkt->skb;
	const struct iphdr *iph = ip_hdr(skb);
	unsigned int fragoff, thoff;

	memset(key, 0, sizeof(*key));
	key->v[NFHP_DIM_SRC] = ntohl(iph->saddr);
	key->v[NFHP_DIM_DST] = ntohl(iph->daddr);
	key->v[NFHP_DIM_TTL] = iph->ttl;
	key->v[NFHP_DIM_LEN] = ntohs(iph->tot_len);
	nfhp_key_fill_common(key, pkt);

	fragoff = ntohs(iph->frag_off) & IP_OFFSET;
	thoff = skb_network_offset(skb) + iph->ihl * 4;
	if (!fragoff)
		nfhp_key_fill_l4(key, skb, thoff, iph->protocol);
	nfhp_key_set_l4_short(key, iph->protocol, fragoff,
			      skb->len > thoff ? skb->len - thoff : 0);
	nfhp_key_fold_port(key, iph->protocol);
	pkt->fragoff = fragoff;
	pkt->thoff = thoff;
	pkt->proto = iph->protocol;
}

/**
 * nfhp_key_fill6() - the key of an IPv6 packet
 * @key: the key to fill
 * @pkt: the packet and its hook state; its fragment offset, transport
 *	header offset and protocol are filled in, for xtables modules and
 *	set matches
 *
 * The length is ip6tables' "-m length": the payload length and the fixed
 * header; the TTL dimension holds the hop limit.
 *
 * Return: false for a first fragment whose headers cannot be walked.
 */
static bool nfhp_key_fill6(struct nfhp_key *key, struct nfhp_xt_pkt *pkt)
{
	const struct sk_buff *skb = pkt->skb;
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	unsigned short fragoff = 0;
	unsigned int thoff = 0;
	int proto;

	memset(key, 0, sizeof(*key));
	key->v[NFHP_DIM_SRC] = nfhp_in6_value(&ip6h->saddr);
	key->v[NFHP_DIM_DST] = nfhp_in6_value(&ip6h->daddr);
	key->v[NFHP_DIM_TTL] = ip6h->hop_limit;
	key->v[NFHP_DIM_LEN] = ntohs(ip6h->payload_len) + sizeof(*ip6h);
	nfhp_key_fill_common(key, pkt);

	proto = ipv6_find_hdr(skb, &thoff, -1, &fragoff, NULL);
	if (proto < 0) {
		if (!fragoff)
			return false;
		/* A later fragment with no upper-layer header in sight. */
		proto = NEXTHDR_NONE;
	}
	if (!fragoff)
		nfhp_key_fill_l4(key, skb, thoff, proto);
	nfhp_key_set_l4_short(key, proto, fragoff,
			      skb->len > thoff ? skb->len - thoff : 0);
	nfhp_key_fold_port(key, proto);
	pkt->fragoff = fragoff;
	pkt->thoff = thoff;
	pkt->proto = proto;
	return true;
}

/**
 * nfhp_hook_decide() - classify a packet whose key is filled
 * @fam: the rule set's family state
 * @pkt: the packet, as the key's producer left it
 * @key: its key
 *
 * Return: NF_ACCEPT, NF_DROP, NF_QUEUE (queue 0, as iptables' QUEUE), or
 * the verdict of an xtables target.
 */
static unsigned int nfhp_hook_decide(const struct nfhp_fam *fam,
				     struct nfhp_xt_pkt *pkt,
				     const struct nfhp_key *key)
{
	struct nfhp_verdict verdict;

	nfhp_classify(fam->rs, pkt->state->hook - NF_INET_LOCAL_IN, key,
		      pkt->skb->len, pkt, &verdict);
	if (verdict.action == NFHP_ACT_XT)
		return verdict.xt_verdict;
	if (verdict.action == NFHP_ACT_QUEUE)
		return NF_QUEUE;
	return verdict.action == NFHP_ACT_DROP ? NF_DROP : NF_ACCEPT;
}

/**
 * nfhp_hook() - classify one IPv4 packet
 * @priv: the &struct nfhp_fam of the hook's namespace and family
 * @skb: the packet
 * @state: where it is
 *
 * Return: as nfhp_hook_decide().
 */
static unsigned int nfhp_hook(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	struct nfhp_xt_pkt pkt = { .skb = skb, .state = state };
	struct nfhp_key key;

	nfhp_key_fill(&key, &pkt);
	return nfhp_hook_decide(priv, &pkt, &key);
}

/**
 * nfhp_hook6() - classify one IPv6 packet
 * @priv: the &struct nfhp_fam of the hook's namespace and family
 * @skb: the packet
 * @state: where it is
 *
 * Return: as nfhp_hook_decide(); NF_DROP for a packet whose headers
 * cannot be walked.
 */
static unsigned int nfhp_hook6(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	struct nfhp_xt_pkt pkt = { .skb = skb, .state = state };
	struct nfhp_key key;

	if (!nfhp_key_fill6(&key, &pkt))
		return NF_DROP;
	return nfhp_hook_decide(priv, &pkt, &key);
}

/**
 * nfhp_hooks_register() - hook the classifier into a namespace
 * @net: the namespace
 * @family: the &enum nfhp_family whose packets to classify
 * @ops: %NFHP_HOOK_MAX registrations, kept until nfhp_hooks_unregister()
 * @priv: the &struct nfhp_fam of @net and @family
 * @priority: %NFHP_PRI_FIRST or %NFHP_PRI_AFTER
 *
 * Return: 0 or -errno.
 */
int nfhp_hooks_register(struct net *net, u8 family, struct nf_hook_ops *ops,
			void *priv, int priority)
{
	unsigned int i;

	/* nfhp_hook() maps netfilter hooks to chains by subtraction. */
	BUILD_BUG_ON(NF_INET_FORWARD - NF_INET_LOCAL_IN != NFHP_HOOK_FORWARD);
	BUILD_BUG_ON(NF_INET_LOCAL_OUT - NF_INET_LOCAL_IN != NFHP_HOOK_OUTPUT);
	BUILD_BUG_ON(NFHP_HOOK_INPUT != 0);
	/* The filter tables of both families sit at the same priority. */
	BUILD_BUG_ON((int)NF_IP_PRI_FILTER != (int)NF_IP6_PRI_FILTER);

	for (i = 0; i < NFHP_HOOK_MAX; i++) {
		ops[i] = (struct nf_hook_ops) {
			.hook = family == NFHP_FAMILY_IPV6 ? nfhp_hook6 :
							     nfhp_hook,
			.priv = priv,
			.pf = family,
			.hooknum = NF_INET_LOCAL_IN + i,
			.priority = priority,
		};
	}
	return nf_register_net_hooks(net, ops, NFHP_HOOK_MAX);
}

/**
 * nfhp_hooks_unregister() - unhook the classifier from a namespace
 * @net: the namespace
 * @ops: the registrations of nfhp_hooks_register()
 *
 * Packets may still be inside nfhp_hook() on return; they finish within
 * the current RCU grace period.
 */
void nfhp_hooks_unregister(struct net *net, struct nf_hook_ops *ops)
{
	nf_unregister_net_hooks(net, ops, NFHP_HOOK_MAX);
}
