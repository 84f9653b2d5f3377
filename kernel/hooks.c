// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the netfilter hooks.
 *
 * One IPv4 hook per built-in chain.  Each turns the packet into a
 * &struct nfhp_key and asks the classifier of its namespace for a verdict.
 * nf_hook() already holds rcu_read_lock(), which is all nfhp_classify()
 * needs, so this path takes no lock and allocates nothing.
 */

#include <linux/ip.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <net/ip.h>
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
 * @proto: the IPv4 protocol
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
		p = skb_header_pointer(skb, thoff, 2, _buf);
		if (p)
			key->v[NFHP_DIM_ICMP] = p[0] << 8 | p[1];
		break;
	}
}

/**
 * nfhp_key_fill() - the key of a packet
 * @key: the key to fill
 * @pkt: the packet and its hook state; its fragment offset and transport
 *	header offset are filled in, for xtables modules
 */
static void nfhp_key_fill(struct nfhp_key *key, struct nfhp_xt_pkt *pkt)
{
	const struct nf_hook_state *state = pkt->state;
	const struct sk_buff *skb = pkt->skb;
	const struct iphdr *iph = ip_hdr(skb);
	unsigned int fragoff, thoff;

	memset(key, 0, sizeof(*key));
	key->v[NFHP_DIM_SRC] = ntohl(iph->saddr);
	key->v[NFHP_DIM_DST] = ntohl(iph->daddr);
	key->v[NFHP_DIM_STATE] = nfhp_ct_state(skb);
	key->v[NFHP_DIM_TTL] = iph->ttl;
	key->v[NFHP_DIM_LEN] = ntohs(iph->tot_len);
	key->v[NFHP_DIM_MARK] = skb->mark;
	if (state->in)
		key->v[NFHP_DIM_IIF] = nfhp_ifname_value16(state->in->name);
	if (state->out)
		key->v[NFHP_DIM_OIF] = nfhp_ifname_value16(state->out->name);

	fragoff = ntohs(iph->frag_off) & IP_OFFSET;
	thoff = skb_network_offset(skb) + iph->ihl * 4;
	if (!fragoff)
		nfhp_key_fill_l4(key, skb, thoff, iph->protocol);
	nfhp_key_set_l4_short(key, iph->protocol, fragoff,
			      skb->len > thoff ? skb->len - thoff : 0);
	nfhp_key_fold_port(key, iph->protocol);
	pkt->fragoff = fragoff;
	pkt->thoff = thoff;
}

/**
 * nfhp_hook() - classify one packet
 * @priv: the &struct nfhp_net of the hook's namespace
 * @skb: the packet
 * @state: where it is
 *
 * Return: NF_ACCEPT, NF_DROP, NF_QUEUE (queue 0, as iptables' QUEUE), or
 * the verdict of an xtables target.
 */
static unsigned int nfhp_hook(void *priv, struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	const struct nfhp_net *hn = priv;
	struct nfhp_xt_pkt pkt = { .skb = skb, .state = state };
	struct nfhp_verdict verdict;
	struct nfhp_key key;

	nfhp_key_fill(&key, &pkt);
	nfhp_classify(hn->rs, state->hook - NF_INET_LOCAL_IN, &key, skb->len,
		      &pkt, &verdict);
	if (verdict.action == NFHP_ACT_XT)
		return verdict.xt_verdict;
	if (verdict.action == NFHP_ACT_QUEUE)
		return NF_QUEUE;
	return verdict.action == NFHP_ACT_DROP ? NF_DROP : NF_ACCEPT;
}

/**
 * nfhp_hooks_register() - hook the classifier into a namespace
 * @net: the namespace
 * @ops: %NFHP_HOOK_MAX registrations, kept until nfhp_hooks_unregister()
 * @priv: the &struct nfhp_net of @net
 * @priority: %NFHP_PRI_FIRST or %NFHP_PRI_AFTER
 *
 * Return: 0 or -errno.
 */
int nfhp_hooks_register(struct net *net, struct nf_hook_ops *ops,
			void *priv, int priority)
{
	unsigned int i;

	/* nfhp_hook() maps netfilter hooks to chains by subtraction. */
	BUILD_BUG_ON(NF_INET_FORWARD - NF_INET_LOCAL_IN != NFHP_HOOK_FORWARD);
	BUILD_BUG_ON(NF_INET_LOCAL_OUT - NF_INET_LOCAL_IN != NFHP_HOOK_OUTPUT);
	BUILD_BUG_ON(NFHP_HOOK_INPUT != 0);

	for (i = 0; i < NFHP_HOOK_MAX; i++) {
		ops[i] = (struct nf_hook_ops) {
			.hook = nfhp_hook,
			.priv = priv,
			.pf = NFPROTO_IPV4,
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
