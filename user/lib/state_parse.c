// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: dynamic states in words (see state_parse.h).
 *
 * A listing's line is conntrack -L's, with the rule that made the state
 * and its verdict at the end:
 *
 *   tcp      6 299 ESTABLISHED src=10.0.0.1 dst=10.0.0.2 sport=40000
 *   dport=80 packets=3 bytes=180 [reply] packets=2 bytes=120
 *   rule=FORWARD:3 ACCEPT
 *
 * (one line).  A save's line is the options that add the state again:
 *
 *   -A -p tcp -s 10.0.0.1 -d 10.0.0.2 --sport 40000 --dport 80
 *   --rule FORWARD:3 --timeout 299 --tcp-flags SYN,ACK SYN,ACK
 *   --counters 3 180 2 120
 */
#include "state_parse.h"
#include "parse.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TCP flags as on the wire, as NFHPA_STATE_TCP_FWD and _REV carry them. */
#define TCP_FIN		0x01
#define TCP_SYN		0x02
#define TCP_RST		0x04
#define TCP_ACK		0x10

/* The most seconds a state added by hand may live: the kernel's bound. */
#define NFHP_STATE_TIMEOUT_MAX	2592000

static const struct {
	const char *name;
	u8 proto;
} protos[] = {
	{ "tcp", 6 }, { "udp", 17 }, { "icmp", 1 }, { "icmpv6", 58 },
	{ "udplite", 136 }, { "sctp", 132 }, { "dccp", 33 }, { "gre", 47 },
	{ "esp", 50 }, { "ah", 51 },
};

static const struct {
	const char *name;
	u8 bit;
} tcp_bits[] = {
	{ "SYN", TCP_SYN }, { "ACK", TCP_ACK },
	{ "FIN", TCP_FIN }, { "RST", TCP_RST },
};

/**
 * nfhp_state_proto_name() - the name a listing gives a protocol
 * @proto: the protocol number
 *
 * Return: its name, or NULL.
 */
const char *nfhp_state_proto_name(u8 proto)
{
	unsigned int i;

	for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		if (protos[i].proto == proto)
			return protos[i].name;
	}
	return NULL;
}

/* A protocol whose states have ports, or an echo's identifier. */
static bool has_ports(u8 proto)
{
	return proto == 6 || proto == 17 || proto == 136 || proto == 132 ||
	       proto == 33;
}

static bool is_icmp(u8 proto)
{
	return proto == 1 || proto == 58;
}

/**
 * nfhp_state_tcp_name() - what a TCP state's flags say, in conntrack's words
 * @tcp: the flags seen forward and in reply
 *
 * The phases are ipfw's (kernel/state_tcp.c): the creator's SYN alone,
 * both SYNs (open, with at most one side's FIN), both FINs, and
 * anything else (a RST).
 *
 * Return: "SYN_SENT", "ESTABLISHED", "FIN_WAIT", "TIME_WAIT" or "CLOSE".
 */
const char *nfhp_state_tcp_name(const u8 tcp[2])
{
	u8 f = tcp[0] & ~TCP_ACK, r = tcp[1] & ~TCP_ACK;

	if (f == TCP_SYN && !r)
		return "SYN_SENT";
	if ((f & TCP_RST) || (r & TCP_RST) ||
	    !(f & TCP_SYN) || !(r & TCP_SYN))
		return "CLOSE";
	if ((f & TCP_FIN) && (r & TCP_FIN))
		return "TIME_WAIT";
	if ((f | r) & TCP_FIN)
		return "FIN_WAIT";
	return "ESTABLISHED";
}

/* --- reading ------------------------------------------------------------- */

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return NFHP_EXIT_PARAM;
}

/* An unsigned number from @min to @max, all of @s. */
static bool parse_num(const char *s, unsigned long long min,
		      unsigned long long max, unsigned long long *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return !errno && !*end && *out >= min && *out <= max;
}

static bool parse_proto(const char *s, u8 *proto)
{
	unsigned long long n;
	unsigned int i;

	for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		if (!strcasecmp(s, protos[i].name)) {
			*proto = protos[i].proto;
			return true;
		}
	}
	if (!strcasecmp(s, "ipv6-icmp")) {
		*proto = 58;
		return true;
	}
	if (!parse_num(s, 0, 255, &n))
		return false;
	*proto = n;
	return true;
}

static bool parse_addr(const char *s, u8 family, nfhp_u128 *a)
{
	unsigned char b[16];
	unsigned int i;

	if (family == NFHP_FAMILY_IPV6) {
		if (inet_pton(AF_INET6, s, b) != 1)
			return false;
		*a = 0;
		for (i = 0; i < 16; i++)
			*a = *a << 8 | b[i];
		return true;
	}
	if (inet_pton(AF_INET, s, b) != 1)
		return false;
	*a = (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
	return true;
}

/* "SYN,ACK" or "NONE" into flag bits. */
static bool parse_tcp_flags(const char *s, u8 *flags)
{
	char buf[64], *tok, *save = NULL;
	unsigned int i;

	*flags = 0;
	if (!strcasecmp(s, "NONE"))
		return true;
	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(tcp_bits) / sizeof(tcp_bits[0]); i++) {
			if (!strcasecmp(tok, tcp_bits[i].name))
				break;
		}
		if (i == sizeof(tcp_bits) / sizeof(tcp_bits[0]))
			return false;
		*flags |= tcp_bits[i].bit;
	}
	return true;
}

/* "FORWARD:3" into @e's rule. */
static bool parse_rule(const char *s, struct nfhp_state_entry *e)
{
	const char *colon = strrchr(s, ':');
	unsigned long long pos;
	size_t n;

	if (!colon || colon == s)
		return false;
	n = colon - s;
	if (n >= sizeof(e->chain) || !parse_num(colon + 1, 1, UINT_MAX, &pos))
		return false;
	memcpy(e->chain, s, n);
	e->chain[n] = '\0';
	e->pos = pos;
	return true;
}

/* The argument @i of option @opt, or NULL with the reason in @err. */
static const char *arg(int argc, char **argv, int i, const char *opt,
		       char *err, size_t errlen)
{
	if (i < argc)
		return argv[i];
	fail(err, errlen, "option \"%s\" requires an argument", opt);
	return NULL;
}

/**
 * nfhp_state_parse_opts() - read a flow and a state added by hand
 * @argc: the options' count
 * @argv: the options
 * @e: filled in; its family must be set
 * @have: set to the %NFHP_STATE_HAVE_* bits of what came
 * @err: the reason on failure
 * @errlen: its size
 *
 * Options: -p PROTO, -s ADDR, -d ADDR, --sport N, --dport N, --id N (an
 * ICMP echo's identifier, for both ports), --rule CHAIN:POS, --timeout
 * SECONDS, --tcp-flags FORWARD REPLY (each a list of SYN, ACK, FIN, RST,
 * or NONE), --counters PACKETS BYTES PACKETS BYTES (forward, then
 * reply); -4 and -6 are skipped (the family is @e's).
 *
 * Return: 0, or %NFHP_EXIT_PARAM with the reason in @err.
 */
int nfhp_state_parse_opts(int argc, char **argv, struct nfhp_state_entry *e,
			  unsigned int *have, char *err, size_t errlen)
{
	unsigned long long n[4];
	bool p = false, s = false, d = false;
	const char *o, *a, *b;
	int i, j;

	*have = 0;
	for (i = 0; i < argc; i++) {
		o = argv[i];
		if (!strcmp(o, "-4") || !strcmp(o, "-6") ||
		    !strcmp(o, "--ipv4") || !strcmp(o, "--ipv6"))
			continue;
		if (!strcmp(o, "--tcp-flags")) {
			a = arg(argc, argv, ++i, o, err, errlen);
			b = a ? arg(argc, argv, ++i, o, err, errlen) : NULL;
			if (!b)
				return NFHP_EXIT_PARAM;
			if (!parse_tcp_flags(a, &e->tcp[0]) ||
			    !parse_tcp_flags(b, &e->tcp[1]))
				return fail(err, errlen,
					    "invalid TCP flags \"%s %s\"", a, b);
			continue;
		}
		if (!strcmp(o, "--counters")) {
			for (j = 0; j < 4; j++) {
				a = arg(argc, argv, ++i, o, err, errlen);
				if (!a)
					return NFHP_EXIT_PARAM;
				if (!parse_num(a, 0, ULLONG_MAX, &n[j]))
					return fail(err, errlen,
						    "invalid counter \"%s\"", a);
			}
			e->pkts[0] = n[0];
			e->bytes[0] = n[1];
			e->pkts[1] = n[2];
			e->bytes[1] = n[3];
			continue;
		}
		a = arg(argc, argv, ++i, o, err, errlen);
		if (!a)
			return NFHP_EXIT_PARAM;
		if (!strcmp(o, "-p") || !strcmp(o, "--proto")) {
			if (!parse_proto(a, &e->proto))
				return fail(err, errlen,
					    "unknown protocol \"%s\"", a);
			p = true;
		} else if (!strcmp(o, "-s") || !strcmp(o, "--src")) {
			if (!parse_addr(a, e->family, &e->src))
				return fail(err, errlen,
					    "invalid address \"%s\"", a);
			s = true;
		} else if (!strcmp(o, "-d") || !strcmp(o, "--dst")) {
			if (!parse_addr(a, e->family, &e->dst))
				return fail(err, errlen,
					    "invalid address \"%s\"", a);
			d = true;
		} else if (!strcmp(o, "--sport") || !strcmp(o, "--dport") ||
			   !strcmp(o, "--id")) {
			if (!parse_num(a, 0, 65535, &n[0]))
				return fail(err, errlen,
					    "invalid port \"%s\"", a);
			if (strcmp(o, "--dport"))
				e->sport = n[0];
			if (strcmp(o, "--sport"))
				e->dport = n[0];
		} else if (!strcmp(o, "--rule")) {
			if (!parse_rule(a, e))
				return fail(err, errlen,
					    "invalid rule \"%s\": CHAIN:POSITION",
					    a);
			*have |= NFHP_STATE_HAVE_RULE;
		} else if (!strcmp(o, "--timeout")) {
			if (!parse_num(a, 1, NFHP_STATE_TIMEOUT_MAX, n))
				return fail(err, errlen,
					    "invalid timeout \"%s\": 1 to %u seconds",
					    a, NFHP_STATE_TIMEOUT_MAX);
			e->timeout = n[0];
			*have |= NFHP_STATE_HAVE_TIMEOUT;
		} else {
			return fail(err, errlen, "unknown option \"%s\"", o);
		}
	}
	if (p && s && d)
		*have |= NFHP_STATE_HAVE_FLOW;
	return 0;
}

/* --- writing ------------------------------------------------------------- */

/**
 * struct out - a line being written
 * @buf: the buffer
 * @len: its size
 * @n: what the line needs so far, as snprintf() counts
 */
struct out {
	char *buf;
	size_t len;
	int n;
};

static void put(struct out *o, const char *fmt, ...)
{
	size_t at = (size_t)o->n < o->len ? (size_t)o->n : o->len;
	va_list ap;

	va_start(ap, fmt);
	o->n += vsnprintf(o->buf + at, o->len - at, fmt, ap);
	va_end(ap);
}

static void put_addr(struct out *o, const char *key, nfhp_u128 a, u8 family)
{
	char s[INET6_ADDRSTRLEN];
	unsigned char b[16];
	unsigned int i;

	if (family == NFHP_FAMILY_IPV6) {
		for (i = 0; i < 16; i++)
			b[i] = a >> (8 * (15 - i));
		inet_ntop(AF_INET6, b, s, sizeof(s));
	} else {
		for (i = 0; i < 4; i++)
			b[i] = a >> (8 * (3 - i));
		inet_ntop(AF_INET, b, s, sizeof(s));
	}
	put(o, "%s%s", key, s);
}

static void put_tcp_flags(struct out *o, u8 flags)
{
	const char *sep = "";
	unsigned int i;

	if (!flags) {
		put(o, "NONE");
		return;
	}
	for (i = 0; i < sizeof(tcp_bits) / sizeof(tcp_bits[0]); i++) {
		if (flags & tcp_bits[i].bit) {
			put(o, "%s%s", sep, tcp_bits[i].name);
			sep = ",";
		}
	}
}

/* The flow's words of a listing: src=, dst= and the ports or id=. */
static void put_flow(struct out *o, const struct nfhp_state_entry *e)
{
	put_addr(o, "src=", e->src, e->family);
	put_addr(o, " dst=", e->dst, e->family);
	if (is_icmp(e->proto) && e->sport == e->dport)
		put(o, " id=%u", e->sport);
	else if (has_ports(e->proto) || e->sport || e->dport)
		put(o, " sport=%u dport=%u", e->sport, e->dport);
}

/**
 * nfhp_state_format_flow() - a flow as messages name it
 * @buf: the words
 * @len: the buffer's size
 * @e: the flow
 *
 * "tcp src=10.0.0.1 dst=10.0.0.2 sport=40000 dport=80".
 *
 * Return: the length the words need, as snprintf() counts.
 */
int nfhp_state_format_flow(char *buf, size_t len,
			   const struct nfhp_state_entry *e)
{
	const char *name = nfhp_state_proto_name(e->proto);
	struct out o = { .buf = buf, .len = len };

	if (len)
		buf[0] = '\0';
	if (name)
		put(&o, "%s ", name);
	else
		put(&o, "%u ", e->proto);
	put_flow(&o, e);
	return o.n;
}

/**
 * nfhp_state_format() - a state as a listing or a monitor prints it
 * @buf: the line, without its newline
 * @len: the buffer's size
 * @e: the state
 * @event: "NEW" or "DESTROY" for an event, NULL for a listing
 *
 * Return: the length the line needs, as snprintf() counts.
 */
int nfhp_state_format(char *buf, size_t len, const struct nfhp_state_entry *e,
		      const char *event)
{
	const char *name = nfhp_state_proto_name(e->proto);
	struct out o = { .buf = buf, .len = len };

	if (len)
		buf[0] = '\0';
	if (event)
		put(&o, "%9s ", event);
	put(&o, "%-8s %u %u ", name ? name : "unknown", e->proto, e->timeout);
	if (e->proto == 6)
		put(&o, "%s ", nfhp_state_tcp_name(e->tcp));
	put_flow(&o, e);
	put(&o, " packets=%llu bytes=%llu [reply] packets=%llu bytes=%llu",
	    (unsigned long long)e->pkts[0], (unsigned long long)e->bytes[0],
	    (unsigned long long)e->pkts[1], (unsigned long long)e->bytes[1]);
	if (e->chain[0])
		put(&o, " rule=%s:%u", e->chain, e->pos);
	if (e->verdict == NFHP_ACT_ACCEPT || e->verdict == NFHP_ACT_DROP)
		put(&o, " %s", e->verdict == NFHP_ACT_ACCEPT ? "ACCEPT" : "DROP");
	return o.n;
}

/**
 * nfhp_state_format_save() - a state as the line restore reads back
 * @buf: the line, without its newline
 * @len: the buffer's size
 * @e: the state; one without a rule is written as a comment, its
 *	listing's line, which restore skips
 *
 * Return: the length the line needs, as snprintf() counts.
 */
int nfhp_state_format_save(char *buf, size_t len,
			   const struct nfhp_state_entry *e)
{
	const char *name = nfhp_state_proto_name(e->proto);
	struct out o = { .buf = buf, .len = len };

	if (len)
		buf[0] = '\0';
	if (!e->chain[0]) {
		char line[512];

		nfhp_state_format(line, sizeof(line), e, NULL);
		put(&o, "# no rule: %s", line);
		return o.n;
	}
	if (name)
		put(&o, "-A -p %s", name);
	else
		put(&o, "-A -p %u", e->proto);
	put_addr(&o, " -s ", e->src, e->family);
	put_addr(&o, " -d ", e->dst, e->family);
	if (is_icmp(e->proto) && e->sport == e->dport)
		put(&o, " --id %u", e->sport);
	else if (e->sport || e->dport)
		put(&o, " --sport %u --dport %u", e->sport, e->dport);
	put(&o, " --rule %s:%u --timeout %u", e->chain, e->pos,
	    e->timeout ? e->timeout : 1);
	if (e->proto == 6) {
		put(&o, " --tcp-flags ");
		put_tcp_flags(&o, e->tcp[0]);
		put(&o, " ");
		put_tcp_flags(&o, e->tcp[1]);
	}
	put(&o, " --counters %llu %llu %llu %llu",
	    (unsigned long long)e->pkts[0], (unsigned long long)e->bytes[0],
	    (unsigned long long)e->pkts[1], (unsigned long long)e->bytes[1]);
	return o.n;
}
