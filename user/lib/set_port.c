// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the "proto:port" part of a flow set's element (see
 * set_port.h), with ipset's v7.17 messages and names.
 */
#include "set_port.h"
#include "set_parse.h"

#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netinet/in.h>

/**
 * struct icmp_name - an ICMP or ICMPv6 codename of ipset's
 * @name: the name
 * @type: its type
 * @code: its code
 */
struct icmp_name {
	const char *name;
	u8 type;
	u8 code;
};

/* ipset's tables, in its order: the first name of a type/code prints. */
static const struct icmp_name icmp_names[] = {
	{ "echo-reply", 0, 0 }, { "pong", 0, 0 },
	{ "network-unreachable", 3, 0 }, { "host-unreachable", 3, 1 },
	{ "protocol-unreachable", 3, 2 }, { "port-unreachable", 3, 3 },
	{ "fragmentation-needed", 3, 4 }, { "source-route-failed", 3, 5 },
	{ "network-unknown", 3, 6 }, { "host-unknown", 3, 7 },
	{ "network-prohibited", 3, 9 }, { "host-prohibited", 3, 10 },
	{ "TOS-network-unreachable", 3, 11 },
	{ "TOS-host-unreachable", 3, 12 },
	{ "communication-prohibited", 3, 13 },
	{ "host-precedence-violation", 3, 14 },
	{ "precedence-cutoff", 3, 15 }, { "source-quench", 4, 0 },
	{ "network-redirect", 5, 0 }, { "host-redirect", 5, 1 },
	{ "TOS-network-redirect", 5, 2 }, { "TOS-host-redirect", 5, 3 },
	{ "echo-request", 8, 0 }, { "ping", 8, 0 },
	{ "router-advertisement", 9, 0 }, { "router-solicitation", 10, 0 },
	{ "ttl-zero-during-transit", 11, 0 },
	{ "ttl-zero-during-reassembly", 11, 1 },
	{ "ip-header-bad", 12, 0 }, { "required-option-missing", 12, 1 },
	{ "timestamp-request", 13, 0 }, { "timestamp-reply", 14, 0 },
	{ "address-mask-request", 17, 0 }, { "address-mask-reply", 18, 0 },
	{ NULL, 0, 0 },
};

static const struct icmp_name icmp6_names[] = {
	{ "no-route", 1, 0 }, { "communication-prohibited", 1, 1 },
	{ "address-unreachable", 1, 3 }, { "port-unreachable", 1, 4 },
	{ "packet-too-big", 2, 0 }, { "ttl-zero-during-transit", 3, 0 },
	{ "ttl-zero-during-reassembly", 3, 1 }, { "bad-header", 4, 0 },
	{ "unknown-header-type", 4, 1 }, { "unknown-option", 4, 2 },
	{ "echo-request", 128, 0 }, { "ping", 128, 0 },
	{ "echo-reply", 129, 0 }, { "pong", 129, 0 },
	{ "router-solicitation", 133, 0 }, { "router-advertisement", 134, 0 },
	{ "neighbour-solicitation", 135, 0 },
	{ "neigbour-solicitation", 135, 0 },
	{ "neighbour-advertisement", 136, 0 },
	{ "neigbour-advertisement", 136, 0 },
	{ "redirect", 137, 0 },
	{ NULL, 0, 0 },
};

/* TCP, UDP, SCTP and UDPLITE: the protocols whose ports are ports. */
static bool proto_has_ports(u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_SCTP || proto == IPPROTO_UDPLITE;
}

/* A number in [0, @max], the whole of @s; false for anything else. */
static bool parse_u32(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !*end && !errno && *v <= max;
}

/* A protocol by name or number, as ipset takes it; -EINVAL if none. */
static int parse_proto(const char *s, u8 *proto, char *err, size_t errlen)
{
	const struct protoent *pe;
	unsigned long v;

	if (!strcmp(s, "icmpv6"))
		s = "ipv6-icmp";
	if (parse_u32(s, 255, &v)) {
		*proto = v;
	} else {
		pe = getprotobyname(s);
		if (!pe) {
			nfhp_set_errmsg(err, errlen,
			    "Syntax error: cannot parse '%s' as a protocol", s);
			return -EINVAL;
		}
		*proto = pe->p_proto;
	}
	if (!*proto) {
		/* The kernel's answer in ipset: it reaches ipset's kernel. */
		nfhp_set_errmsg(err, errlen, "Invalid protocol specified");
		return -EINVAL;
	}
	return 0;
}

/* One port of @proto by number or service name. */
static int parse_one_port(const char *s, const char *pname, u16 *port,
			  char *err, size_t errlen)
{
	const struct servent *se;
	unsigned long v;

	if (parse_u32(s, 65535, &v)) {
		*port = v;
		return 0;
	}
	se = getservbyname(s, pname);
	if (se) {
		*port = ntohs(se->s_port);
		return 0;
	}
	if (strspn(s, "0123456789") == strlen(s) && *s)
		nfhp_set_errmsg(err, errlen,
				"Syntax error: '%s' is out of range 0-65535",
		    s);
	else
		nfhp_set_errmsg(err, errlen,
				"Syntax error: cannot parse '%s' as a %s port",
		    s, pname);
	return -EINVAL;
}

/* "PORT[-PORT]" of a protocol with ports into @p, low to high. */
static int parse_port_range(const char *s, const char *pname,
			    struct nfhp_set_port *p, char *err, size_t errlen)
{
	char buf[64], *dash;
	u16 t;

	snprintf(buf, sizeof(buf), "%s", s);
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = '\0';
	if (parse_one_port(buf, pname, &p->lo, err, errlen) ||
	    parse_one_port(dash ? dash : buf, pname, &p->hi, err, errlen))
		return -EINVAL;
	if (p->lo > p->hi) {
		t = p->lo;	/* ipset takes them either way */
		p->lo = p->hi;
		p->hi = t;
	}
	return 0;
}

/* ICMP's or ICMPv6's "codename" or "TYPE/CODE" into @p. */
static int parse_icmp(const char *s, bool v6, struct nfhp_set_port *p,
		      char *err, size_t errlen)
{
	const struct icmp_name *n = v6 ? icmp6_names : icmp_names;
	unsigned long type, code;
	char buf[32], *slash;

	for (; n->name; n++) {
		if (!strcasecmp(s, n->name)) {
			p->lo = p->hi = n->type << 8 | n->code;
			return 0;
		}
	}
	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (!slash) {
		nfhp_set_errmsg(err, errlen,
				"Syntax error: cannot parse %s as an %s type/code",
		    s, v6 ? "ICMPv6" : "ICMP");
		return -EINVAL;
	}
	*slash++ = '\0';
	if (!parse_u32(buf, 255, &type) || !parse_u32(slash, 255, &code)) {
		nfhp_set_errmsg(err, errlen,
				"Syntax error: '%s' is out of range 0-255",
		    parse_u32(buf, 255, &type) ? slash : buf);
		return -EINVAL;
	}
	p->lo = p->hi = type << 8 | code;
	return 0;
}

/**
 * nfhp_set_parse_port() - "[PROTO:]PORT[-PORT]" of a flow set's element
 * @s: the text after the address's comma
 * @family: the set's &enum nfhp_family
 * @p: filled in
 * @err: ipset's message on failure
 * @errlen: its room
 *
 * Return: 0, or -EINVAL.
 */
int nfhp_set_parse_port(const char *s, u8 family, struct nfhp_set_port *p,
			char *err, size_t errlen)
{
	bool v6 = family == NFHP_FAMILY_IPV6;
	const char *colon = strchr(s, ':');
	const struct protoent *pe;
	char pname[64];

	p->proto = IPPROTO_TCP;
	if (colon) {
		snprintf(pname, sizeof(pname), "%.*s", (int)(colon - s), s);
		if (parse_proto(pname, &p->proto, err, errlen))
			return -EINVAL;
		s = colon + 1;
	}
	if (p->proto == IPPROTO_ICMP || p->proto == IPPROTO_ICMPV6) {
		if ((p->proto == IPPROTO_ICMPV6) != v6) {
			nfhp_set_errmsg(err, errlen,
			    "Syntax error: Protocol %s can be used with family %s only",
			    v6 ? "ICMP" : "ICMPv6", v6 ? "inet" : "inet6");
			return -EINVAL;
		}
		return parse_icmp(s, v6, p, err, errlen);
	}
	pe = getprotobynumber(p->proto);
	snprintf(pname, sizeof(pname), "%s", pe ? pe->p_name : "tcp");
	if (proto_has_ports(p->proto))
		return parse_port_range(s, pname, p, err, errlen);
	if (strcmp(s, "0")) {
		nfhp_set_errmsg(err, errlen,
		    "Syntax error: Protocol %s can be used with pseudo port value 0 only.",
		    pname);
		return -EINVAL;
	}
	p->lo = p->hi = 0;
	return 0;
}

/* ICMP's type/code by its first name in @n, or "TYPE/CODE". */
static void icmp_str(char *buf, size_t len, const struct icmp_name *n,
		     u16 port)
{
	for (; n->name; n++) {
		if ((n->type << 8 | n->code) == port) {
			snprintf(buf, len, "%s", n->name);
			return;
		}
	}
	snprintf(buf, len, "%u/%u", port >> 8, port & 0xff);
}

/**
 * nfhp_set_port_str() - a flow key's protocol and port as ipset prints
 * @buf: the text
 * @len: its room
 * @proto: the protocol
 * @port: the port, or ICMP's type << 8 | code
 *
 * The protocol by its name in the protocols database, or its number.
 */
void nfhp_set_port_str(char *buf, size_t len, u8 proto, u16 port)
{
	const struct protoent *pe = getprotobynumber(proto);
	char name[32], what[40];

	if (pe)
		snprintf(name, sizeof(name), "%s", pe->p_name);
	else
		snprintf(name, sizeof(name), "%u", proto);
	if (proto == IPPROTO_ICMP)
		icmp_str(what, sizeof(what), icmp_names, port);
	else if (proto == IPPROTO_ICMPV6)
		icmp_str(what, sizeof(what), icmp6_names, port);
	else
		snprintf(what, sizeof(what), "%u", port);
	snprintf(buf, len, "%s:%s", name, what);
}
