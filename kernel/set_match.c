// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the set matches of rules ("-m set --match-set NAME src").
 *
 * DOC: Set matches
 *
 * A set match is no dimension of the tree: its sets change without a
 * commit, and a tree that held their entries would have to be rebuilt at
 * each change.  It runs where the xtables matches run, after the tree
 * found the packet in the rule's box (xt_run.c), before those matches.
 * So "-s 10.0.0.0/8 -m set --match-set bl src -j DROP" costs the tree's
 * lookup for every packet and a set lookup only for packets from
 * 10.0.0.0/8, whatever the set holds.
 *
 * A number set ("bitmap:port") is looked up with a port: "src" and "dst"
 * are the source and destination port of a TCP or UDP packet, as for
 * ipset's bitmap:port.  Any other packet, a later fragment and a packet
 * too short for its ports have none: the set does not hold them, and a
 * "!" match holds.  The port is read only for rules with such a match.
 * An interface set ("hash:iface") is looked up with the name of the
 * packet's input device for "src" and of its output device for "dst",
 * as iptables' -i and -o read them; a packet without that device (no
 * input device in OUTPUT, no output device in INPUT) is in no interface
 * set.  An address set must be of the rule's family; number and
 * interface sets serve both.
 *
 * A flow set ("hash:ip,port") is looked up with an address, the packet's
 * protocol and a port, as ipset's hash:ip,port: "src,dst" is the source
 * address and the destination port.  TCP, UDP, SCTP and UDPLITE have
 * ports; ICMP (IPv4) and ICMPv6 (IPv6) give type << 8 | code; any other
 * protocol port 0.  A later fragment, or a packet too short for its
 * ports or its ICMP header, is in no flow set.  A flow set must be of
 * the rule's family and take two directions; the others take one.
 *
 * With a value range ("--set-value 1:4") the entry found must also have
 * a value in it: one rule per verdict maps a set's values to verdicts,
 * and an add with a new value changes an address's verdict at once.
 *
 * A packet looks a set up with a field once per hook: the packet keeps
 * its last %NFHP_SETM_CACHE_SIZE lookups (&struct nfhp_setm_cache, in
 * &struct nfhp_xt_pkt), and a later rule with the same set and fields
 * takes the result instead of looking again.  So a verdict map costs
 * one lookup, however many rules it has, and it is consistent: an add
 * that changes the entry's value while the packet goes down the rules
 * cannot make it meet no rule of the map, or the rules of two values.
 * Example: "-m set --match-set m src --set-value 1 -j ACCEPT" then
 * "... --set-value 2 -j DROP", and 10.0.0.1's value going from 2 to 1
 * between the two rules: without the memo the packet would see 2 at the
 * first rule and 1 at the second, and pass both by.  A counting set
 * counts the packet at each rule that reaches it, as ipset's counters
 * do, in a nomatch entry too; the set's "lookups" in /proc count the
 * lookups made.
 *
 * In a set with counters a rule may also compare the entry's counts, as
 * xt_set's "--packets-gt N" and "! --bytes-eq N" do: once the rule's
 * lookup counted the packet (unless it says "! --update-counters"), the
 * counts must compare so, or the entry does not hold the packet for this
 * rule.  Example: "--packets-gt 2" holds from an entry's third packet
 * on; "! --match-set s src ! --update-counters --bytes-lt 300" holds for
 * a packet of an entry that counted 300 bytes or more, or of none.  In a
 * set without counters the compares hold, as in ipset.
 *
 * The rule resolves the set's name when it is added and holds a
 * reference to the set until the rule is freed, a grace period after no
 * packet can see it: a set is never freed under a packet.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>

#include "hooks.h"
#include "ifname.h"
#include "pernet.h"
#include "set_match.h"
#include "xt_run.h"

/* The port of a direction as written: src and sport are the source's. */
static u8 nfhp_setm_port_dir(u8 dir)
{
	return dir == NFHP_SETM_SRC || dir == NFHP_SETM_SPORT ?
	       NFHP_SETM_SPORT : NFHP_SETM_DPORT;
}

/**
 * nfhp_setm_dir() - the packet fields a set match looks up
 * @set: its set, or NULL for none of that name
 * @family: the rule's family
 * @spec: the set match as written
 * @out: its @dir and @dir2 set to the fields, resolved
 * @msg: set to the reason of a failure
 *
 * Return: 0, -ENOENT for no set, or -EINVAL for an address or flow set
 * of another family, a port direction on an address or interface set,
 * or a number of directions other than the set's fields.
 */
static int nfhp_setm_dir(const struct nfhp_set *set, u8 family,
			 const struct nfhp_setm_spec *spec,
			 struct nfhp_setm *out, const char **msg)
{
	bool flow = set && set->algo->type == NFHP_SET_FLOW;

	if (!set) {
		*msg = "no set of that name";
		return -ENOENT;
	}
	if (flow != !!spec->has_dir2) {
		*msg = flow ? "a flow set takes two directions, as src,dst" :
			      "the set has one field: one direction";
		return -EINVAL;
	}
	if (set->algo->type == NFHP_SET_NUMBER) {
		out->dir = nfhp_setm_port_dir(spec->dir);
		return 0;
	}
	if (set->algo->type != NFHP_SET_IFACE && set->family != family) {
		*msg = "the set is of another family";
		return -EINVAL;
	}
	if (spec->dir != NFHP_SETM_SRC && spec->dir != NFHP_SETM_DST) {
		*msg = "a port direction needs a number set";
		return -EINVAL;
	}
	if (set->algo->type == NFHP_SET_IFACE) {
		out->dir = spec->dir == NFHP_SETM_SRC ? NFHP_SETM_IN :
							NFHP_SETM_OUT;
		return 0;
	}
	out->dir = spec->dir;
	if (flow) {
		out->dir += NFHP_SETM_FLOW_SRC;
		out->dir2 = nfhp_setm_port_dir(spec->dir2);
	}
	return 0;
}

/**
 * nfhp_setm_get() - resolve the set matches of a rule
 * @net: the namespace of the rule set
 * @family: its family (NFPROTO_IPV4 or NFPROTO_IPV6, which are the
 *	&enum nfhp_family values)
 * @spec: the rule
 * @out: filled with @spec's set matches, each set referenced
 * @msg: set to the reason of a failure
 *
 * The caller holds the namespace's mutex.
 *
 * A set match's direction is resolved against its set's type: "src" and
 * "dst" of a number set are ports.  The set's type cannot change while
 * the rule refers to it: it cannot be destroyed, and a swap keeps types.
 *
 * Return: 0, -ENOENT for an unknown set or -EINVAL for an address or
 * flow set of another family, an address set with a port direction, or
 * directions that are not the set's fields; nothing is referenced then.
 */
int nfhp_setm_get(struct net *net, u8 family,
		  const struct nfhp_rule_spec *spec, struct nfhp_setm *out,
		  const char **msg)
{
	struct nfhp_sets *sets = &nfhp_net(net)->sets;
	struct nfhp_set *set;
	unsigned int i;
	int ret;

	for (i = 0; i < nfhp_spec_nsetm(spec); i++) {
		set = nfhp_set_find(sets, spec->setm[i].name);
		ret = nfhp_setm_dir(set, family, &spec->setm[i], &out[i], msg);
		if (ret) {
			nfhp_setm_put(out, i);
			return ret;
		}
		set->refs++;
		out[i].set = set;
		out[i].invert = spec->setm[i].invert;
		out[i].has_value = spec->setm[i].has_value;
		out[i].value_min = spec->setm[i].value_min;
		out[i].value_max = spec->setm[i].value_max;
		out[i].no_count = spec->setm[i].no_count;
		out[i].packets_cmp = spec->setm[i].packets_cmp;
		out[i].bytes_cmp = spec->setm[i].bytes_cmp;
		out[i].packets = spec->setm[i].packets;
		out[i].bytes = spec->setm[i].bytes;
	}
	return 0;
}

/**
 * nfhp_setm_put() - give back the sets of set matches
 * @m: the set matches
 * @n: how many
 *
 * The caller holds the namespace's mutex.
 */
void nfhp_setm_put(struct nfhp_setm *m, unsigned int n)
{
	while (n--)
		m[n].set->refs--;
}

/**
 * nfhp_setm_port() - a packet's port, as a number set's key
 * @dir: %NFHP_SETM_SPORT or %NFHP_SETM_DPORT
 * @p: the packet, its transport protocol and header offset known
 * @key: its low bits set to the port
 *
 * As ipset's bitmap:port: TCP and UDP alone have ports.
 *
 * Return: false for none: another protocol, a later fragment, a header
 * too short.
 */
static bool nfhp_setm_port(u8 dir, const struct nfhp_xt_pkt *p,
			   struct nfhp_set_key *key)
{
	const __be16 *ports;
	__be16 _ports[2];

	if ((p->proto != IPPROTO_TCP && p->proto != IPPROTO_UDP) ||
	    p->fragoff)
		return false;
	ports = skb_header_pointer(p->skb, p->thoff, sizeof(_ports), _ports);
	if (!ports)
		return false;
	key->addr = ntohs(ports[dir == NFHP_SETM_SPORT ? 0 : 1]);
	return true;
}

/**
 * nfhp_setm_flow_port() - a packet's protocol and port, as a flow key's
 * @dir: %NFHP_SETM_SPORT or %NFHP_SETM_DPORT
 * @family: the packet's family
 * @p: the packet, its transport protocol and header offset known
 * @key: its protocol and port set
 *
 * As ipset's hash:ip,port reads them: the port of TCP, UDP, SCTP and
 * UDPLITE, type << 8 | code of the family's ICMP, 0 for the others.
 * Like ipset, it wants the whole header of the protocol: TCP's 20
 * bytes, SCTP's 12, UDP's, UDPLITE's and ICMP's 8.
 *
 * Return: false for none: a later fragment, a header too short.
 */
static bool nfhp_setm_flow_port(u8 dir, u8 family,
				const struct nfhp_xt_pkt *p,
				struct nfhp_set_key *key)
{
	unsigned int len, at = dir == NFHP_SETM_SPORT ? 0 : 2;
	u8 _h[20];
	const u8 *h;

	if (p->fragoff)
		return false;
	key->proto = p->proto;
	key->port = 0;
	switch (p->proto) {
	case IPPROTO_TCP:
		len = 20;
		break;
	case IPPROTO_SCTP:
		len = 12;
		break;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		len = 8;
		break;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		if ((p->proto == IPPROTO_ICMP) != (family == NFHP_FAMILY_IPV4))
			return true;
		/* Type and code, in the order the key wants them. */
		len = 8;
		at = 0;
		break;
	default:
		return true;
	}
	h = skb_header_pointer(p->skb, p->thoff, len, _h);
	if (!h)
		return false;
	key->port = h[at] << 8 | h[at + 1];
	return true;
}

/**
 * nfhp_setm_iface() - a packet's device name, as an interface set's key
 * @dir: %NFHP_SETM_IN or %NFHP_SETM_OUT
 * @p: the packet
 * @key: set to the name, plen 128
 *
 * Return: false when the packet has no such device.
 */
static bool nfhp_setm_iface(u8 dir, const struct nfhp_xt_pkt *p,
			    struct nfhp_set_key *key)
{
	const struct net_device *dev = dir == NFHP_SETM_IN ? p->state->in :
							     p->state->out;

	if (!dev)
		return false;
	key->addr = nfhp_ifname_value16(dev->name);
	key->plen = 128;
	return true;
}

/* A packet's source or destination address, full width, into @key. */
static void nfhp_setm_addr(u8 family, u8 dir, const struct sk_buff *skb,
			   struct nfhp_set_key *key)
{
	if (family == NFHP_FAMILY_IPV6) {
		const struct ipv6hdr *h = ipv6_hdr(skb);

		key->addr = nfhp_in6_value(dir == NFHP_SETM_SRC ? &h->saddr :
							      &h->daddr);
		key->plen = 128;
	} else {
		const struct iphdr *h = ip_hdr(skb);

		key->addr = ntohl(dir == NFHP_SETM_SRC ? h->saddr : h->daddr);
		key->plen = 32;
	}
}

/**
 * nfhp_setm_key() - the fields a set match looks up, as a set's key
 * @family: the packet's family
 * @m: the set match, its directions resolved
 * @p: the packet
 * @key: filled in
 *
 * Return: false when the packet has no such field.
 */
static bool nfhp_setm_key(u8 family, const struct nfhp_setm *m,
			  const struct nfhp_xt_pkt *p,
			  struct nfhp_set_key *key)
{
	/* One test for an address set, as before the other types. */
	if (m->dir >= NFHP_SETM_SPORT) {
		if (m->dir >= NFHP_SETM_IN)
			return nfhp_setm_iface(m->dir, p, key);
		if (m->dir < NFHP_SETM_FLOW_SRC)
			return nfhp_setm_port(m->dir, p, key);
		if (!nfhp_setm_flow_port(m->dir2, family, p, key))
			return false;
		nfhp_setm_addr(family, m->dir - NFHP_SETM_FLOW_SRC, p->skb,
			       key);
		return true;
	}
	nfhp_setm_addr(family, m->dir, p->skb, key);
	return true;
}

/**
 * nfhp_setm_memo_find() - the lookup a packet made already for a set match
 * @c: the packet's set lookups
 * @m: the set match
 *
 * Return: the memo of the same set and fields, or NULL.
 */
static const struct nfhp_setm_memo *
nfhp_setm_memo_find(const struct nfhp_setm_cache *c, const struct nfhp_setm *m)
{
	const struct nfhp_setm_memo *e;
	unsigned int i;

	for (i = 0; i < NFHP_SETM_CACHE_SIZE; i++) {
		e = &c->memo[i];
		if (e->set == m->set && e->dir == m->dir && e->dir2 == m->dir2)
			return e;
	}
	return NULL;
}

/**
 * nfhp_setm_cmp() - does a count compare with a rule's number as it asks?
 * @cmp: &enum nfhp_setm_cmp
 * @count: the entry's count
 * @n: the rule's number
 *
 * Return: true when it does, or when @cmp is %NFHP_SETM_CMP_NONE.
 */
static bool nfhp_setm_cmp(u8 cmp, u64 count, u64 n)
{
	switch (cmp) {
	case NFHP_SETM_CMP_EQ:
		return count == n;
	case NFHP_SETM_CMP_NE:
		return count != n;
	case NFHP_SETM_CMP_LT:
		return count < n;
	case NFHP_SETM_CMP_GT:
		return count > n;
	}
	return true;
}

/**
 * nfhp_setm_count() - a rule's use of the counts of the entry a lookup found
 * @m: the rule's set match
 * @e: the lookup, which found an entry of a set with counters
 * @len: the packet's length
 *
 * Counts the packet unless the rule says not to ("! --update-counters"),
 * then compares the counts, this packet's included, as the rule asks
 * ("--packets-gt N"), as xt_set does.
 *
 * Return: false when a compare fails: the entry does not hold the packet
 * for this rule.
 */
static bool nfhp_setm_count(const struct nfhp_setm *m,
			    const struct nfhp_setm_memo *e, unsigned int len)
{
	struct nfhp_set_counts now;

	if (m->no_count && !m->packets_cmp && !m->bytes_cmp)
		return true;
	nfhp_set_slot_use(&e->body->counters, e->found, len, !m->no_count,
			  &now);
	return nfhp_setm_cmp(m->packets_cmp, now.packets, m->packets) &&
	       nfhp_setm_cmp(m->bytes_cmp, now.bytes, m->bytes);
}

/**
 * nfhp_setm_lookup() - is a packet's field in a set match's set?
 * @family: the packet's family
 * @m: the set match
 * @p: the packet
 * @value: set to the value of the entry that holds it
 *
 * The first rule that looks a set up with a packet's field makes the
 * lookup; the later rules of the packet at this hook take its result
 * (see DOC: Set matches).  In a set with counters each rule still counts
 * the packet and compares the counts, as ipset does.
 *
 * Return: true if an entry holds it, the longest one not a nomatch
 * entry.
 */
static bool nfhp_setm_lookup(u8 family, const struct nfhp_setm *m,
			     struct nfhp_xt_pkt *p, u32 *value)
{
	struct nfhp_setm_cache *c = &p->sets;
	const struct nfhp_setm_memo *e = nfhp_setm_memo_find(c, m);
	struct nfhp_setm_memo *fresh;
	struct nfhp_set_key key;

	if (!e) {
		fresh = &c->memo[c->next];
		c->next = (c->next + 1) % NFHP_SETM_CACHE_SIZE;
		fresh->set = m->set;
		fresh->dir = m->dir;
		fresh->dir2 = m->dir2;
		fresh->hit = nfhp_setm_key(family, m, p, &key) &&
			     nfhp_set_probe(m->set, &key, &fresh->body,
					    &fresh->found);
		fresh->value = 0;
		fresh->in = fresh->hit &&
			    nfhp_set_hit_value(fresh->body, fresh->found,
					       &fresh->value);
		e = fresh;
	}
	*value = e->value;
	/* A nomatch entry counts too, and holds no packet. */
	if (e->hit && e->body->counting)
		return nfhp_setm_count(m, e, p->skb->len) && e->in;
	return e->in;
}

/**
 * nfhp_setm_match() - do all set matches of a rule hold for a packet?
 * @m: the set matches
 * @n: how many
 * @family: the packet's family
 * @p: the packet, with its transport header's offset and protocol
 *
 * The packet path: under rcu_read_lock().
 *
 * Return: true when they all hold.
 */
bool nfhp_setm_match(const struct nfhp_setm *m, unsigned int n, u8 family,
		     struct nfhp_xt_pkt *p)
{
	unsigned int i;
	bool hit;
	u32 value;

	for (i = 0; i < n; i++) {
		hit = nfhp_setm_lookup(family, &m[i], p, &value);
		if (hit && m[i].has_value)
			hit = value >= m[i].value_min && value <= m[i].value_max;
		if (hit == m[i].invert)
			return false;
	}
	return true;
}
