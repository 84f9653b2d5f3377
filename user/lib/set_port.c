// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the "proto:port" part of a flow set's element and the ports
 * of a bitmap:port set (see set_port.h), with ipset's v7.17 messages and
 * names.
 */
#include "set_port.h"
#include "set_parse.h"

#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <netinet/in.h>

/* The highest port. */
#define PORT_MAX	65535u

/* Room for a "PORT-PORT" of names: longer is no service of any protocol. */
#define PORT_TEXT_MAX	128

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

/*
 * Where ipset splits "PROTO:PORT": at the first ':' of a text that
 * neither begins nor ends with one.  NULL for none.
 */
static const char *proto_colon(const char *s)
{
	size_t len = strlen(s);

	if (!len || *s == ':' || s[len - 1] == ':')
		return NULL;
	return strchr(s, ':');
}

/* A protocol by number or name; -EINVAL with ipset's message if none. */
static int lookup_proto(const char *s, u8 *proto, char *err, size_t errlen)
{
	const struct protoent *pe;
	unsigned long v;

	if (!strcmp(s, "icmpv6"))
		s = "ipv6-icmp";
	if (parse_u32(s, 255, &v)) {
		*proto = v;
		return 0;
	}
	pe = getprotobyname(s);
	if (!pe) {
		nfhp_set_errmsg(err, errlen,
				"Syntax error: cannot parse '%s' as a protocol", s);
		return -EINVAL;
	}
	*proto = pe->p_proto;
	return 0;
}

/* A protocol by name or number, as ipset takes it; -EINVAL if none. */
static int parse_proto(const char *s, u8 *proto, char *err, size_t errlen)
{
	if (lookup_proto(s, proto, err, errlen))
		return -EINVAL;
	if (!*proto) {
		/* The kernel's answer in ipset: it reaches ipset's kernel. */
		nfhp_set_errmsg(err, errlen, "Invalid protocol specified");
		return -EINVAL;
	}
	return 0;
}

/*
 * A port number as ipset reads one, strtoull's base 0 ("0x50", "010"
 * octal): 1 with it in @v, 0 for no number, -ERANGE for one over @max.
 */
static int port_number(const char *s, unsigned long long max, u32 *v)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 0);
	if (end == s || *end)
		return 0;
	if (errno == ERANGE || n > max)
		return -ERANGE;
	*v = n;
	return 1;
}

/*
 * One port of @pname by number, up to @max, or by service name, bare or
 * in brackets ("[ftp-data]", as ipset escapes a name with a '-').
 */
static int parse_one_port(const char *s, const char *pname, u32 max,
			  u32 *port, char *err, size_t errlen)
{
	const struct servent *se;
	char name[PORT_TEXT_MAX];
	size_t len = strlen(s);
	int n = port_number(s, max, port);

	if (n > 0)
		return 0;
	if (n < 0) {
		nfhp_set_errmsg(err, errlen,
				"Syntax error: '%s' is out of range 0-%u",
				s, max);
		return -EINVAL;
	}
	if (*s == '[' && (len < 2 || s[len - 1] != ']')) {
		nfhp_set_errmsg(err, errlen,
		    "Syntax error: cannot find closing escape character ']' in %s",
		    s);
		return -EINVAL;
	}
	if (*s == '[')
		snprintf(name, sizeof(name), "%.*s", (int)len - 2, s + 1);
	else
		snprintf(name, sizeof(name), "%s", s);
	se = getservbyname(name, pname);
	if (se) {
		*port = ntohs(se->s_port);
		return 0;
	}
	nfhp_set_errmsg(err, errlen,
			"Syntax error: cannot parse '%s' as a %s port",
			s, pname);
	return -EINVAL;
}

/*
 * Splits "FROM-TO" where ipset does: after a FROM in brackets, else at
 * the first '-' of a text that neither begins nor ends with one.  So a
 * name with a '-' is FROM only in brackets; TO is the rest, whatever it
 * holds ("ftp-ftp-data").  @to is NULL for no range.
 */
static int split_range(char *s, char **to, char *err, size_t errlen)
{
	size_t len = strlen(s);
	char *close;

	*to = NULL;
	if (*s == '[') {
		close = strchr(s, ']');
		if (!close) {
			nfhp_set_errmsg(err, errlen,
			    "Syntax error: cannot find closing escape character ']' in %s",
			    s);
			return -EINVAL;
		}
		if (!close[1])
			return 0;
		if (close[1] != '-') {
			close[1] = '\0';
			nfhp_set_errmsg(err, errlen,
			    "Syntax error: range separator expected after '%s'",
			    s);
			return -EINVAL;
		}
		close[1] = '\0';
		*to = close + 2;
		return 0;
	}
	if (!len || *s == '-' || s[len - 1] == '-')
		return 0;
	*to = strchr(s, '-');
	if (*to)
		*(*to)++ = '\0';
	return 0;
}

/*
 * "FROM[-TO]" of @pname's ports up to @max into @lo and @hi, as written
 * (TO may be below FROM).  A text too long for any name is refused as
 * one getservbyname() does not know.
 */
static int parse_range(const char *s, const char *pname, u32 max, u32 *lo,
		       u32 *hi, char *err, size_t errlen)
{
	char buf[PORT_TEXT_MAX], *to;

	if (strlen(s) >= sizeof(buf)) {
		nfhp_set_errmsg(err, errlen,
				"Syntax error: cannot parse '%s' as a %s port",
				s, pname);
		return -EINVAL;
	}
	strcpy(buf, s);
	if (split_range(buf, &to, err, errlen) ||
	    parse_one_port(buf, pname, max, lo, err, errlen))
		return -EINVAL;
	if (!to) {
		*hi = *lo;
		return 0;
	}
	return parse_one_port(to, pname, max, hi, err, errlen);
}

/* "PORT[-PORT]" of a flow set's protocol with ports into @p, in order. */
static int parse_port_range(const char *s, const char *pname,
			    struct nfhp_set_port *p, char *err, size_t errlen)
{
	u32 lo, hi;

	if (parse_range(s, pname, PORT_MAX, &lo, &hi, err, errlen))
		return -EINVAL;
	/* ipset takes them either way */
	p->lo = lo < hi ? lo : hi;
	p->hi = lo < hi ? hi : lo;
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
	const char *colon = proto_colon(s);
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

/**
 * nfhp_set_parse_tcp_udp_port() - "[PROTO:]FROM[-TO]" of a bitmap:port set
 * @s: an entry, or a create's range
 * @max: the highest number taken: 65535 for ports, more for "algo range"
 * @lo: FROM
 * @hi: TO, @lo without one; either way round, as written
 * @err: ipset's message on failure
 * @errlen: its room
 *
 * As ipset's bitmap:port reads it: PROTO is tcp (the default) or udp, by
 * name or number, and only says whose service names FROM and TO may be;
 * the numbers alone are kept.
 *
 * Return: 0, or -EINVAL.
 */
int nfhp_set_parse_tcp_udp_port(const char *s, u32 max, u32 *lo, u32 *hi,
				char *err, size_t errlen)
{
	const char *colon = proto_colon(s);
	u8 proto = IPPROTO_TCP;
	char pname[64];

	if (colon) {
		snprintf(pname, sizeof(pname), "%.*s", (int)(colon - s), s);
		if (lookup_proto(pname, &proto, err, errlen))
			return -EINVAL;
		if (proto != IPPROTO_TCP && proto != IPPROTO_UDP) {
			nfhp_set_errmsg(err, errlen,
			    "Syntax error: Only protocols TCP and UDP are valid");
			return -EINVAL;
		}
		s = colon + 1;
	}
	return parse_range(s, proto == IPPROTO_UDP ? "udp" : "tcp", max, lo,
			   hi, err, errlen);
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
