// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: iptables 1.8.9 filter-table syntax to struct nfhp_rule_spec.
 *
 * The command line is scanned the way iptables' getopt_long() loop does it:
 * short options may be joined ("-ptcp", "-nvL"), long options take their
 * value after '=' or in the next word and may be abbreviated to a unique
 * prefix, "!" negates the next option, and the options of a match become
 * known only once the match is loaded (-m NAME, or implicitly by -p tcp
 * when an unknown option turns up).  Every native match lands in one
 * dimension of the spec, which holds one match per dimension.
 *
 * Every other match and target goes to the extension hook of xt_hooks.h
 * when one is plugged in (the CLI's libxtables, lib/xt.c): -m NAME loads
 * it, -j NAME too unless NAME is a chain, an option no native match knows
 * is offered to it, and at the end of the line it checks and serialises
 * them into spec->ext.  Without the hook they are refused.
 *
 * The kernel runs the native dimensions first, then the xtables matches
 * in order; iptables runs the IP part (-s -d -p -i -o -f) first, then
 * every match in the order given, up to the first that fails, which
 * matters for stateful matches (limit, recent, ...) and for the hotdrop
 * of truncated packets by tcp, udp and icmp.  So with the hook, a native
 * match loaded after the first xtables match is loaded through
 * libxtables as well (unless the hook's extensions may run in any
 * order, as the simulator's model may), as is a second instance of a
 * native match; and one the tree cannot take (a second match on its
 * dimension, an option it has no dimension for, a mark mask of low bits)
 * makes refuse() parse the line again with that whole match in
 * libxtables.  The IP part always stays native.  spec->order records the
 * order the native matches were loaded in; the printer prints them in
 * it, then the xtables ones, which is then the order iptables-save prints
 * them in.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "parse.h"
#include "xt_hooks.h"

#define NFHP_EXT_NAMELEN	29	/* XT_EXTENSION_MAXNAMELEN */
/* Matches and targets of a line that refuse() can move to libxtables. */
#define NFHP_MAX_LOADS		64
/* refuse(): parse the line again (no exit code of iptables) */
#define PARSE_RETRY		(-1000)
#define NFHP_IFNAMSIZ		16

/* The matches nf-hipac evaluates natively: NFHPA_RULE_ORDER names them. */
enum nfhp_pmatch {
	PM_TCP = NFHP_MOD_TCP,
	PM_UDP = NFHP_MOD_UDP,
	PM_ICMP = NFHP_MOD_ICMP,
	PM_MULTIPORT = NFHP_MOD_MULTIPORT,
	PM_IPRANGE = NFHP_MOD_IPRANGE,
	PM_STATE = NFHP_MOD_STATE,
	PM_CONNTRACK = NFHP_MOD_CONNTRACK,
	PM_TTL = NFHP_MOD_TTL,
	PM_LENGTH = NFHP_MOD_LENGTH,
	PM_MARK = NFHP_MOD_MARK,
	PM_COMMENT = NFHP_MOD_COMMENT,
	PM_MAX = NFHP_MOD_MAX,
	PM_CORE = PM_MAX,	/* options of iptables itself */
	PM_SET,			/* -m set: NFHPA_RULE_SETM, not an order byte */
	PM_KEEP,		/* -m keep-state: NFHPA_RULE_STATE, neither */
	PM_SEQS,		/* the matches with a load sequence number */
};

static const char *const pm_names[PM_MAX] = {
	"tcp", "udp", "icmp", "multiport", "iprange", "state", "conntrack",
	"ttl", "length", "mark", "comment",
};

/* Extensions iptables ships that nf-hipac does not evaluate (yet). */
static const char *const known_matches[] = {
	"addrtype", "ah", "bpf", "cgroup", "cluster", "connbytes",
	"connlabel", "connlimit", "connmark", "cpu", "dccp", "devgroup",
	"dscp", "ecn", "esp", "hashlimit", "helper", "ipcomp", "ipvs",
	"limit", "mac", "nfacct", "osf", "owner", "physdev", "pkttype",
	"policy", "quota", "rateest", "realm", "recent", "rpfilter", "sctp",
	"socket", "statistic", "string", "tcpmss", "time", "tos",
	"u32", "udplite", "mh",
};

static const char *const known_targets[] = {
	"AUDIT", "CHECKSUM", "CLASSIFY", "CLUSTERIP", "CONNMARK",
	"CONNSECMARK", "CT", "DNAT", "DSCP", "ECN", "HMARK", "IDLETIMER",
	"LED", "LOG", "MARK", "MASQUERADE", "NETMAP", "NFLOG", "NFQUEUE",
	"NOTRACK", "QUEUE", "RATEEST", "REDIRECT", "REJECT", "SECMARK",
	"SET", "SNAT", "SYNPROXY", "TCPMSS", "TCPOPTSTRIP", "TEE", "TOS",
	"TPROXY", "TRACE", "TTL", "ULOG",
};

/* Option identifiers: core options use their short letter. */
enum {
	O_LINENUM = 256,
	O_SPORT, O_DPORT, O_SYN, O_TCPFLAGS, O_TCPOPT,
	O_ICMPTYPE,
	O_MP_SPORTS, O_MP_DPORTS, O_MP_PORTS,
	O_SRCRANGE, O_DSTRANGE,
	O_STATE,
	O_CTSTATE, O_CT_OTHER,
	O_TTL_EQ, O_TTL_LT, O_TTL_GT,
	O_ICMP6TYPE, O_HL_EQ, O_HL_LT, O_HL_GT,
	O_LENGTH,
	O_MARK,
	O_COMMENT,
	O_MATCHSET,
	O_SETVALUE,
	O_SET_UPDATE, O_SET_SUBCOUNTERS, O_SET_NOMATCH,
	O_SET_PACKETS_EQ, O_SET_PACKETS_LT, O_SET_PACKETS_GT,
	O_SET_BYTES_EQ, O_SET_BYTES_LT, O_SET_BYTES_GT,
	O_STATE_LIMIT, O_STATE_LIMIT_BY,
	O_IGNORED_ARG,		/* --wait etc.: accepted and ignored */
};

/*
 * A core option: @has_arg is no_argument, required_argument or
 * optional_argument, as for getopt_long() and the extensions' options;
 * an optional argument only comes after "=" (--wait=5) or, for --wait,
 * as a number in the next word.
 */
struct nfhp_opt {
	const char *name;
	int has_arg;
	int pm;
	int id;
};

static const struct nfhp_opt opts[] = {
	{ "append",		required_argument, PM_CORE, 'A' },
	{ "check",		required_argument, PM_CORE, 'C' },
	{ "delete",		required_argument, PM_CORE, 'D' },
	{ "replace",		required_argument, PM_CORE, 'R' },
	{ "insert",		required_argument, PM_CORE, 'I' },
	{ "list",		no_argument, PM_CORE, 'L' },
	{ "list-rules",		no_argument, PM_CORE, 'S' },
	{ "flush",		no_argument, PM_CORE, 'F' },
	{ "zero",		no_argument, PM_CORE, 'Z' },
	{ "new-chain",		required_argument, PM_CORE, 'N' },
	{ "delete-chain",	no_argument, PM_CORE, 'X' },
	{ "rename-chain",	required_argument, PM_CORE, 'E' },
	{ "policy",		required_argument, PM_CORE, 'P' },
	{ "source",		required_argument, PM_CORE, 's' },
	{ "src",		required_argument, PM_CORE, 's' },
	{ "destination",	required_argument, PM_CORE, 'd' },
	{ "dst",		required_argument, PM_CORE, 'd' },
	{ "protocol",		required_argument, PM_CORE, 'p' },
	{ "in-interface",	required_argument, PM_CORE, 'i' },
	{ "out-interface",	required_argument, PM_CORE, 'o' },
	{ "jump",		required_argument, PM_CORE, 'j' },
	{ "goto",		required_argument, PM_CORE, 'g' },
	{ "table",		required_argument, PM_CORE, 't' },
	{ "match",		required_argument, PM_CORE, 'm' },
	{ "numeric",		no_argument, PM_CORE, 'n' },
	{ "verbose",		no_argument, PM_CORE, 'v' },
	{ "exact",		no_argument, PM_CORE, 'x' },
	{ "fragments",		no_argument, PM_CORE, 'f' },
	{ "fragment",		no_argument, PM_CORE, 'f' },
	{ "version",		no_argument, PM_CORE, 'V' },
	{ "help",		no_argument, PM_CORE, 'h' },
	{ "line-numbers",	no_argument, PM_CORE, O_LINENUM },
	{ "set-counters",	required_argument, PM_CORE, 'c' },
	{ "wait",		optional_argument, PM_CORE, 'w' },
	{ "wait-interval",	required_argument, PM_CORE, 'W' },
	{ "modprobe",		required_argument, PM_CORE, 'M' },
	{ "ipv4",		no_argument, PM_CORE, '4' },
	{ "ipv6",		no_argument, PM_CORE, '6' },
	{ "source-port",	required_argument, PM_TCP, O_SPORT },
	{ "sport",		required_argument, PM_TCP, O_SPORT },
	{ "destination-port",	required_argument, PM_TCP, O_DPORT },
	{ "dport",		required_argument, PM_TCP, O_DPORT },
	{ "syn",		no_argument, PM_TCP, O_SYN },
	{ "tcp-flags",		required_argument, PM_TCP, O_TCPFLAGS },
	{ "tcp-option",		required_argument, PM_TCP, O_TCPOPT },
	{ "source-port",	required_argument, PM_UDP, O_SPORT },
	{ "sport",		required_argument, PM_UDP, O_SPORT },
	{ "destination-port",	required_argument, PM_UDP, O_DPORT },
	{ "dport",		required_argument, PM_UDP, O_DPORT },
	{ "icmp-type",		required_argument, PM_ICMP, O_ICMPTYPE },
	{ "source-ports",	required_argument, PM_MULTIPORT, O_MP_SPORTS },
	{ "sports",		required_argument, PM_MULTIPORT, O_MP_SPORTS },
	{ "destination-ports",	required_argument, PM_MULTIPORT, O_MP_DPORTS },
	{ "dports",		required_argument, PM_MULTIPORT, O_MP_DPORTS },
	{ "ports",		required_argument, PM_MULTIPORT, O_MP_PORTS },
	{ "src-range",		required_argument, PM_IPRANGE, O_SRCRANGE },
	{ "dst-range",		required_argument, PM_IPRANGE, O_DSTRANGE },
	{ "state",		required_argument, PM_STATE, O_STATE },
	{ "ctstate",		required_argument, PM_CONNTRACK, O_CTSTATE },
	{ "ctproto",		required_argument, PM_CONNTRACK, O_CT_OTHER },
	{ "ctorigsrc",		required_argument, PM_CONNTRACK, O_CT_OTHER },
	{ "ctorigdst",		required_argument, PM_CONNTRACK, O_CT_OTHER },
	{ "ctreplsrc",		required_argument, PM_CONNTRACK, O_CT_OTHER },
	{ "ctrepldst",		required_argument, PM_CONNTRACK, O_CT_OTHER },
	{ "ctorigsrcport",	required_argument, PM_CONNTRACK, O_CT_OTHER },
	{ "ctorigdstport",	required_argument, PM_CONNTRACK, O_CT_OTHER },
	{ "ctreplsrcport",	required_argument, PM_CONNTRACK, O_CT_OTHER },
	{ "ctrepldstport",	required_argument, PM_CONNTRACK, O_CT_OTHER },
	{ "ctstatus",		required_argument, PM_CONNTRACK, O_CT_OTHER },
	{ "ctexpire",		required_argument, PM_CONNTRACK, O_CT_OTHER },
	{ "ctdir",		required_argument, PM_CONNTRACK, O_CT_OTHER },
	{ "ttl-eq",		required_argument, PM_TTL, O_TTL_EQ },
	{ "ttl-lt",		required_argument, PM_TTL, O_TTL_LT },
	{ "ttl-gt",		required_argument, PM_TTL, O_TTL_GT },
	{ "icmpv6-type",	required_argument, PM_ICMP, O_ICMP6TYPE },
	{ "hl-eq",		required_argument, PM_TTL, O_HL_EQ },
	{ "hl-lt",		required_argument, PM_TTL, O_HL_LT },
	{ "hl-gt",		required_argument, PM_TTL, O_HL_GT },
	{ "length",		required_argument, PM_LENGTH, O_LENGTH },
	{ "mark",		required_argument, PM_MARK, O_MARK },
	{ "comment",		required_argument, PM_COMMENT, O_COMMENT },
	{ "match-set",		required_argument, PM_SET, O_MATCHSET },
	{ "set-value",		required_argument, PM_SET, O_SETVALUE },
	{ "update-counters",	no_argument, PM_SET, O_SET_UPDATE },
	{ "update-subcounters",	no_argument, PM_SET, O_SET_SUBCOUNTERS },
	{ "return-nomatch",	no_argument, PM_SET, O_SET_NOMATCH },
	{ "packets-eq",		required_argument, PM_SET, O_SET_PACKETS_EQ },
	{ "packets-lt",		required_argument, PM_SET, O_SET_PACKETS_LT },
	{ "packets-gt",		required_argument, PM_SET, O_SET_PACKETS_GT },
	{ "bytes-eq",		required_argument, PM_SET, O_SET_BYTES_EQ },
	{ "bytes-lt",		required_argument, PM_SET, O_SET_BYTES_LT },
	{ "bytes-gt",		required_argument, PM_SET, O_SET_BYTES_GT },
	{ "state-limit",	required_argument, PM_KEEP, O_STATE_LIMIT },
	{ "state-limit-by",	required_argument, PM_KEEP, O_STATE_LIMIT_BY },
};

/* Short options: letter, argument (0 none, 1 required, 2 optional). */
static const char short_opts[] = "A1C1D1R1I1L2S2F2Z2N1X2E1P1s1d1p1i1o1j1g1"
				 "t1m1n0v0x0f0V0h2c1w2W1M14060";

/*
 * Protocols iptables knows without /etc/protocols: libxtables 1.8.9's
 * xtables_chain_protos, in its order (the first name of a number is the
 * one printed).
 */
static const struct {
	const char *name;
	u8 num;
} chain_protos[] = {
	{ "tcp", 6 }, { "sctp", 132 }, { "udp", 17 }, { "udplite", 136 },
	{ "icmp", 1 }, { "ipv6-icmp", 58 }, { "icmpv6", 58 }, { "esp", 50 },
	{ "ah", 51 }, { "mobility-header", 135 }, { "ipv6-mh", 135 },
	{ "mh", 135 }, { "all", 0 },
};

/* libipt_icmp's table; the order matters for printing. */
const struct nfhp_icmp_name nfhp_icmp_names[] = {
	{ "any", 0xFF, 0, 0xFF },
	{ "echo-reply", 0, 0, 0xFF },
	{ "pong", 0, 0, 0xFF },
	{ "destination-unreachable", 3, 0, 0xFF },
	{ "network-unreachable", 3, 0, 0 },
	{ "host-unreachable", 3, 1, 1 },
	{ "protocol-unreachable", 3, 2, 2 },
	{ "port-unreachable", 3, 3, 3 },
	{ "fragmentation-needed", 3, 4, 4 },
	{ "source-route-failed", 3, 5, 5 },
	{ "network-unknown", 3, 6, 6 },
	{ "host-unknown", 3, 7, 7 },
	{ "network-prohibited", 3, 9, 9 },
	{ "host-prohibited", 3, 10, 10 },
	{ "TOS-network-unreachable", 3, 11, 11 },
	{ "TOS-host-unreachable", 3, 12, 12 },
	{ "communication-prohibited", 3, 13, 13 },
	{ "host-precedence-violation", 3, 14, 14 },
	{ "precedence-cutoff", 3, 15, 15 },
	{ "source-quench", 4, 0, 0xFF },
	{ "redirect", 5, 0, 0xFF },
	{ "network-redirect", 5, 0, 0 },
	{ "host-redirect", 5, 1, 1 },
	{ "TOS-network-redirect", 5, 2, 2 },
	{ "TOS-host-redirect", 5, 3, 3 },
	{ "echo-request", 8, 0, 0xFF },
	{ "ping", 8, 0, 0xFF },
	{ "router-advertisement", 9, 0, 0xFF },
	{ "router-solicitation", 10, 0, 0xFF },
	{ "time-exceeded", 11, 0, 0xFF },
	{ "ttl-exceeded", 11, 0, 0xFF },
	{ "ttl-zero-during-transit", 11, 0, 0 },
	{ "ttl-zero-during-reassembly", 11, 1, 1 },
	{ "parameter-problem", 12, 0, 0xFF },
	{ "ip-header-bad", 12, 0, 0 },
	{ "required-option-missing", 12, 1, 1 },
	{ "timestamp-request", 13, 0, 0xFF },
	{ "timestamp-reply", 14, 0, 0xFF },
	{ "address-mask-request", 17, 0, 0xFF },
	{ "address-mask-reply", 18, 0, 0xFF },
	{ NULL, 0, 0, 0 },
};

/* libip6t_icmp6's table, in its order; type 255 is no "any" here. */
const struct nfhp_icmp_name nfhp_icmpv6_names[] = {
	{ "destination-unreachable", 1, 0, 0xFF },
	{ "no-route", 1, 0, 0 },
	{ "communication-prohibited", 1, 1, 1 },
	{ "beyond-scope", 1, 2, 2 },
	{ "address-unreachable", 1, 3, 3 },
	{ "port-unreachable", 1, 4, 4 },
	{ "failed-policy", 1, 5, 5 },
	{ "reject-route", 1, 6, 6 },
	{ "packet-too-big", 2, 0, 0xFF },
	{ "time-exceeded", 3, 0, 0xFF },
	{ "ttl-exceeded", 3, 0, 0xFF },
	{ "ttl-zero-during-transit", 3, 0, 0 },
	{ "ttl-zero-during-reassembly", 3, 1, 1 },
	{ "parameter-problem", 4, 0, 0xFF },
	{ "bad-header", 4, 0, 0 },
	{ "unknown-header-type", 4, 1, 1 },
	{ "unknown-option", 4, 2, 2 },
	{ "echo-request", 128, 0, 0xFF },
	{ "ping", 128, 0, 0xFF },
	{ "echo-reply", 129, 0, 0xFF },
	{ "pong", 129, 0, 0xFF },
	{ "router-solicitation", 133, 0, 0xFF },
	{ "router-advertisement", 134, 0, 0xFF },
	{ "neighbour-solicitation", 135, 0, 0xFF },
	{ "neighbor-solicitation", 135, 0, 0xFF },
	{ "neighbour-advertisement", 136, 0, 0xFF },
	{ "neighbor-advertisement", 136, 0, 0xFF },
	{ "redirect", 137, 0, 0xFF },
	{ NULL, 0, 0, 0 },
};

/* In the order iptables prints them. */
const struct nfhp_flag_name nfhp_state_names[] = {
	{ "INVALID", NFHP_CT_INVALID },
	{ "NEW", NFHP_CT_NEW },
	{ "RELATED", NFHP_CT_RELATED },
	{ "ESTABLISHED", NFHP_CT_ESTABLISHED },
	{ "UNTRACKED", NFHP_CT_UNTRACKED },
	{ NULL, 0 },
};

/* The flow fields of --state-limit-by, in the order they print. */
const struct nfhp_flag_name nfhp_limit_by_names[] = {
	{ "src-addr", NFHP_STATE_LIMIT_SRC_ADDR },
	{ "src-port", NFHP_STATE_LIMIT_SRC_PORT },
	{ "dst-addr", NFHP_STATE_LIMIT_DST_ADDR },
	{ "dst-port", NFHP_STATE_LIMIT_DST_PORT },
	{ NULL, 0 },
};

const struct nfhp_flag_name nfhp_tcp_flag_names[] = {
	{ "FIN", 0x01 }, { "SYN", 0x02 }, { "RST", 0x04 }, { "PSH", 0x08 },
	{ "ACK", 0x10 }, { "URG", 0x20 }, { "ALL", 0x3F }, { "NONE", 0 },
	{ NULL, 0 },
};

/**
 * struct pstate - the state of one command line parse
 * @cl: the result
 * @err: error buffer
 * @errlen: its size
 * @invert: a "!" is pending for the next option
 * @loaded: bit mask of the loaded matches (enum nfhp_pmatch)
 * @seen: core options already given (bit per letter index)
 * @mseen: match options already given (bit per O_* - O_SPORT)
 * @proto: the -p protocol when @proto_set
 * @proto_set: -p was given with a protocol other than "all"
 * @proto_given: -p was given at all
 * @proto_inv: -p was negated
 * @have: dimension already matched
 * @target_set: -j or -g was given
 * @ttl_opt: the --ttl-* option given, for the exclusion message
 * @mp_opt: the multiport option given
 * @seq: load sequence number of the last match or target loaded
 * @pm_seq: the load sequence number of each loaded native match
 * @setm_open: the last -m set has no --match-set yet
 * @proto_used: the protocol's match was loaded implicitly by an extension
 * @xt_seen: an xtables match was loaded: the matches after it go there too
 * @done: native matches a later xtables instance of the same match
 *	completed: their options go to that instance
 * @xt_force: load sequence numbers of the native matches that go to
 *	libxtables, found by earlier passes over the line (refuse())
 * @cur_seq: the load sequence number of the match whose option is being
 *	parsed, 0 for iptables' own options (the IP part)
 * @dim_seq: the load sequence number of the match of each dimension
 * @retry_seq: the match refuse() asks to move to libxtables
 * @ret: the exit code of a failed dim_new()
 * @addr_inv: -s or -d was negated
 */
struct pstate {
	struct nfhp_cmdline *cl;
	char *err;
	size_t errlen;
	bool invert;
	unsigned int loaded;
	unsigned long long seen;
	unsigned long long mseen;
	u8 proto;
	bool proto_set, proto_given, proto_inv;
	bool have[NFHP_DIM_MAX];
	struct nfhp_dim_match m[NFHP_DIM_MAX];
	bool target_set;
	int ttl_opt;
	int mp_opt;
	unsigned int seq;
	unsigned int pm_seq[PM_SEQS];
	bool setm_open;
	bool proto_used;
	bool xt_seen;
	unsigned int done;
	unsigned long long xt_force;
	unsigned int cur_seq;
	unsigned int dim_seq[NFHP_DIM_MAX];
	unsigned int retry_seq;
	int ret;
	bool addr_inv;
};

/* The extensions beyond the native matches: xt.c in the CLI, else none. */
static const struct nfhp_parse_ext *parse_ext;

/**
 * nfhp_parse_set_ext() - hand unknown matches, targets and options on
 * @ext: the extension ops, or NULL to refuse them (the default)
 */
void nfhp_parse_set_ext(const struct nfhp_parse_ext *ext)
{
	parse_ext = ext;
}

static int fail(struct pstate *ps, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct pstate *ps, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errlen, fmt, ap);
	va_end(ap);
	return code;
}

/*
 * A native match cannot take what it was given (a second match on its
 * dimension, an option the tree has no dimension for), but libxtables
 * can: ask nfhp_parse_cmdline() to parse the line again with the match
 * of load sequence number @seq sent to libxtables.  Without the hook, and
 * for the IP part (@seq 0), which iptables never hands to a match, it is
 * refused with the message.
 */
static int refuse(struct pstate *ps, unsigned int seq, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int refuse(struct pstate *ps, unsigned int seq, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errlen, fmt, ap);
	va_end(ap);
	if (!parse_ext || !seq || seq >= NFHP_MAX_LOADS ||
	    (ps->xt_force & (1ULL << seq)))
		return NFHP_EXIT_PARAM;
	ps->retry_seq = seq;
	return PARSE_RETRY;
}

static bool in_list(const char *name, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

/**
 * nfhp_parse_uint() - parse an unsigned number, as iptables reads them
 * @s: the whole string: decimal, 0x hexadecimal or 0 octal
 * @min: the smallest value allowed
 * @max: the largest
 * @out: set to the value
 *
 * Return: false for anything else, a sign or space included.
 */
bool nfhp_parse_uint(const char *s, unsigned long long min,
		     unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/**
 * nfhp_parse_protocol() - parse a -p argument
 * @s: the argument, any case
 * @proto: the protocol number
 *
 * Return: true on success.
 */
bool nfhp_parse_protocol(const char *s, u8 *proto)
{
	char buf[64];
	unsigned long long v;
	struct protoent *pe;
	size_t i;

	if (nfhp_parse_uint(s, 0, 255, &v)) {
		*proto = v;
		return true;
	}
	for (i = 0; s[i] && i < sizeof(buf) - 1; i++)
		buf[i] = tolower((unsigned char)s[i]);
	buf[i] = 0;
	if (!strcmp(buf, "all")) {
		*proto = 0;
		return true;
	}
	/* The common names without reading /etc/protocols each time. */
	for (i = 0; i < ARRAY_SIZE(chain_protos); i++) {
		if (!strcmp(buf, chain_protos[i].name)) {
			*proto = chain_protos[i].num;
			return true;
		}
	}
	pe = getprotobyname(buf);
	if (pe) {
		*proto = pe->p_proto;
		return true;
	}
	return false;
}

/**
 * nfhp_proto_to_name() - the name iptables prints for a protocol
 * @proto: the protocol number
 * @lookup: consult /etc/protocols for one iptables does not know itself
 *
 * As iptables 1.8.9's proto_to_name(): its own list first, so that a
 * listing of tcp and udp rules does not ask NSS (which loads libraries and
 * reads /etc/nsswitch.conf and /etc/protocols: nearly a second of
 * nf-hipac -S in the test VM), then /etc/protocols.
 *
 * Return: the name, or NULL when there is none.
 */
const char *nfhp_proto_to_name(u8 proto, bool lookup)
{
	/* One read of /etc/protocols per number: listings print it per rule. */
	static char *names[256];
	static bool looked_up[256];
	struct protoent *pe;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(chain_protos); i++)
		if (chain_protos[i].num == proto)
			return chain_protos[i].name;
	if (!proto || !lookup)
		return NULL;
	if (!looked_up[proto]) {
		pe = getprotobynumber(proto);
		names[proto] = pe ? strdup(pe->p_name) : NULL;
		looked_up[proto] = true;
	}
	return names[proto];
}

/*
 * One part of a dotted address, as xtables_strtoui() reads it: leading
 * space, decimal, 0x hexadecimal or 0 octal, to the end of the part.
 */
static bool ipv4_part(const char *s, size_t len, u32 *v)
{
	unsigned long long n;
	char buf[24];
	const char *p;
	char *end;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	for (p = buf; isspace((unsigned char)*p); p++)
		;
	if (*p == '-')
		return false;
	errno = 0;
	n = strtoull(buf, &end, 0);
	if (end == buf || *end || errno || n > 255)
		return false;
	*v = n;
	return true;
}

/* xtables' __numeric_to_ipaddr(): a mask needs all four parts. */
static bool parse_dotted(const char *s, u32 *addr, bool mask)
{
	u32 a = 0, v;
	unsigned int i;
	const char *dot;

	for (i = 0; i < 3; i++) {
		dot = strchr(s, '.');
		if (!dot) {
			if (mask || !ipv4_part(s, strlen(s), &v))
				return false;
			*addr = (a << 8 | v) << (8 * (3 - i));
			return true;
		}
		if (!ipv4_part(s, dot - s, &v))
			return false;
		a = a << 8 | v;
		s = dot + 1;
	}
	if (!ipv4_part(s, strlen(s), &v))
		return false;
	*addr = a << 8 | v;
	return true;
}

/**
 * nfhp_parse_ipv4() - parse a dotted IPv4 address as xtables does
 * @s: "a.b.c.d"; missing trailing parts are zero ("10.1" is 10.1.0.0),
 *	each part decimal, 0x hexadecimal or 0 octal ("010" is 8)
 * @addr: the address, host byte order
 *
 * Return: true on success.
 */
bool nfhp_parse_ipv4(const char *s, u32 *addr)
{
	return parse_dotted(s, addr, false);
}

/* xtables' parse_ipmask(): a dotted mask of four parts or a length. */
static int parse_mask(struct pstate *ps, const char *s, u32 *mask)
{
	unsigned long long v;
	const char *p;

	if (parse_dotted(s, mask, true))
		return 0;
	for (p = s; isspace((unsigned char)*p); p++)
		;
	if (!nfhp_parse_uint(p, 0, 32, &v))
		return fail(ps, NFHP_EXIT_PARAM, "invalid mask `%s' specified",
			    s);
	*mask = v ? ~0u << (32 - v) : 0;
	return 0;
}

/* The prefix length of @mask, or -1 when it has holes. */
static int mask_prefix(u32 mask)
{
	int plen = __builtin_popcount(mask);

	return !plen || mask == ~0u << (32 - plen) ? plen : -1;
}

/*
 * The intervals of a mask with holes (kernel/match.c): 2^holes, the
 * holes being its 0 bits above its lowest 1 bit.
 */
static unsigned int mask_holes(u32 mask)
{
	return __builtin_popcount(~mask & ~((mask & -mask) - 1));
}

/*
 * The tree takes "-m multiport --ports" as two boxes, a source and a
 * destination port match (kernel/match.c): no other source port match.
 * Without libxtables the core refuses that with the same words.
 */
static bool ports_clash(struct pstate *ps, int dim, u8 syntax)
{
	if (!parse_ext)
		return false;
	if (syntax == NFHP_SYN_MULTIPORT_BOTH)
		return ps->have[NFHP_DIM_SPORT];
	return dim == NFHP_DIM_SPORT && ps->have[NFHP_DIM_DPORT] &&
	       ps->m[NFHP_DIM_DPORT].syntax == NFHP_SYN_MULTIPORT_BOTH;
}

static struct nfhp_dim_match *dim_new(struct pstate *ps, int dim, u8 form,
				      u8 syntax, bool invert)
{
	struct nfhp_dim_match *m = &ps->m[dim];

	if (ports_clash(ps, dim, syntax)) {
		ps->ret = refuse(ps, ps->cur_seq,
				 "nf-hipac: multiport --ports together with another source port match is not supported");
		return NULL;
	}
	if (ps->have[dim]) {
		/* The later match moves, unless it is the IP part. */
		ps->ret = refuse(ps, ps->cur_seq ? ps->cur_seq :
				 ps->dim_seq[dim],
				 "multiple matches on the same dimension are not supported");
		return NULL;
	}
	ps->have[dim] = true;
	ps->dim_seq[dim] = ps->cur_seq;
	/*
	 * Only the first interval is cleared: a form with more writes each
	 * one it counts, and dim_copy() takes no more.  A restore of 100,000
	 * rules spent a tenth of its parsing clearing the other fourteen.
	 */
	memset(m, 0, offsetof(struct nfhp_dim_match, ranges[1]));
	memset(m->ifname, 0, sizeof(m->ifname));
	m->dim = dim;
	m->form = form;
	m->syntax = syntax;
	m->invert = invert;
	return m;
}

/* Copy what @src holds: its intervals in use, not the rest of the array. */
static void dim_copy(struct nfhp_dim_match *dst,
		     const struct nfhp_dim_match *src)
{
	unsigned int n = max_t(unsigned int, nfhp_match_stored_ranges(src), 1);

	memcpy(dst, src, offsetof(struct nfhp_dim_match, ranges[n]));
	memcpy(dst->ifname, src->ifname, sizeof(dst->ifname));
}

/*
 * xtables' ipparse_hostnetwork(): a dotted address, a network of
 * /etc/networks, or every IPv4 address of a host name.  Appends to @out,
 * which holds @*n of NFHP_MAX_ADDRS.
 */
static int resolve_addr(struct pstate *ps, int dim, const char *name,
			u32 mask, struct nfhp_addr_mask *out, unsigned int *n)
{
	struct addrinfo hints = {
		.ai_family = AF_INET, .ai_socktype = SOCK_RAW,
	};
	struct addrinfo *res, *p;
	struct netent *ne;
	u32 a;

	if (nfhp_parse_ipv4(name, &a)) {
		res = NULL;
	} else if ((ne = getnetbyname(name)) && ne->n_addrtype == AF_INET) {
		a = ne->n_net;
		res = NULL;
	} else {
		if (!*name || getaddrinfo(name, NULL, &hints, &res) || !res)
			return fail(ps, NFHP_EXIT_PARAM,
				    "host/network `%s' not found", name);
	}
	for (p = res; !res || p; p = p ? p->ai_next : NULL) {
		if (*n == NFHP_MAX_ADDRS) {
			if (res)
				freeaddrinfo(res);
			return fail(ps, NFHP_EXIT_PARAM,
				    "nf-hipac: `-%c' stands for more than %d addresses",
				    dim == NFHP_DIM_SRC ? 's' : 'd',
				    NFHP_MAX_ADDRS);
		}
		if (p)
			a = ntohl(((struct sockaddr_in *)p->ai_addr)->sin_addr.s_addr);
		out[*n].addr = a & mask;
		out[*n].mask = mask;
		(*n)++;
		if (!res)
			break;
	}
	if (res)
		freeaddrinfo(res);
	return 0;
}

/* The prefix length of an IPv6 mask, or -1 when it is no prefix. */
static int mask_prefix6(nfhp_u128 mask)
{
	int plen = __builtin_popcountll((u64)(mask >> 64)) +
		   __builtin_popcountll((u64)mask);

	return !plen || mask == ~(nfhp_u128)0 << (128 - plen) ? plen : -1;
}

/*
 * One address and mask of the family @family as the match of @dim: a
 * prefix, or IPv4's value/mask.
 */
static void addr_match(struct nfhp_dim_match *m, int dim, u8 family,
		       const struct nfhp_addr_mask *am, bool inv)
{
	int plen = family == NFHP_FAMILY_IPV6 ? mask_prefix6(am->mask) :
		   mask_prefix((u32)am->mask);

	memset(m, 0, offsetof(struct nfhp_dim_match, ranges[1]));
	m->dim = dim;
	m->syntax = NFHP_SYN_DEFAULT;
	m->invert = inv;
	if (plen < 0) {
		/* value/mask: the address as iptables keeps it, masked */
		m->form = NFHP_FORM_MASK;
		m->ranges[0].lo = am->addr;
		m->ranges[0].hi = am->mask;
		return;
	}
	m->form = NFHP_FORM_PREFIX;
	m->nranges = plen;
	m->ranges[0].lo = am->addr;
	m->ranges[0].hi = am->addr | (family == NFHP_FAMILY_IPV6 ? ~am->mask :
				      (u32)~am->mask);
}

/*
 * The element of an address list that starts at @elem, without leading
 * blanks, into @buf of @size bytes, as xtables_ipparse_multiple() splits
 * the list; @next is set to where the next one starts, past the comma,
 * or NULL after the last.  Return: false when the element does not fit.
 */
static bool addr_elem(const char *elem, char *buf, size_t size,
		      const char **next)
{
	const char *comma;
	size_t len;

	while (isspace((unsigned char)*elem))
		elem++;
	comma = strchr(elem, ',');
	len = comma ? (size_t)(comma - elem) : strlen(elem);
	if (len >= size)
		return false;
	memcpy(buf, elem, len);
	buf[len] = 0;
	*next = comma ? comma + 1 : NULL;
	return true;
}

/* The 128-bit value of the IPv6 address @a. */
static nfhp_u128 in6_value(const struct in6_addr *a)
{
	nfhp_u128 v = 0;
	unsigned int i;

	for (i = 0; i < 16; i++)
		v = v << 8 | a->s6_addr[i];
	return v;
}

/*
 * xtables_ip6parse_mask(): a prefix length 0..128 or, as ip6tables also
 * takes, a mask written as an address; the tree takes masks that are
 * prefixes.
 */
static int parse_mask6(struct pstate *ps, const char *s, nfhp_u128 *mask)
{
	unsigned long long plen;
	struct in6_addr a;

	if (inet_pton(AF_INET6, s, &a) == 1) {
		*mask = in6_value(&a);
		if (mask_prefix6(*mask) < 0)
			return fail(ps, NFHP_EXIT_PARAM,
				    "nf-hipac: IPv6 mask `%s' is not a prefix",
				    s);
		return 0;
	}
	if (!nfhp_parse_uint(s, 0, 128, &plen))
		return fail(ps, NFHP_EXIT_PARAM, "invalid mask `%s' specified",
			    s);
	*mask = plen ? ~(nfhp_u128)0 << (128 - plen) : 0;
	return 0;
}

/*
 * The addresses of the IPv6 host or address @name, masked with @mask,
 * into @out, which holds @*n of NFHP_MAX_ADDRS (xtables_numeric_to_ip6addr(),
 * then getaddrinfo() for IPv6 as ip6tables' host_to_ip6addr()).
 */
static int resolve_addr6(struct pstate *ps, int dim, const char *name,
			 nfhp_u128 mask, struct nfhp_addr_mask *out,
			 unsigned int *n)
{
	struct addrinfo hints = {
		.ai_family = AF_INET6, .ai_socktype = SOCK_RAW,
	};
	struct addrinfo *res = NULL, *p;
	struct in6_addr a;
	bool numeric;

	numeric = inet_pton(AF_INET6, name, &a) == 1;
	if (!numeric &&
	    (!*name || getaddrinfo(name, NULL, &hints, &res) || !res))
		return fail(ps, NFHP_EXIT_PARAM,
			    "host/network `%s' not found", name);
	for (p = res; numeric || p; p = p ? p->ai_next : NULL) {
		if (*n == NFHP_MAX_ADDRS) {
			if (res)
				freeaddrinfo(res);
			return fail(ps, NFHP_EXIT_PARAM,
				    "nf-hipac: `-%c' stands for more than %d addresses",
				    dim == NFHP_DIM_SRC ? 's' : 'd',
				    NFHP_MAX_ADDRS);
		}
		if (p)
			a = ((struct sockaddr_in6 *)p->ai_addr)->sin6_addr;
		out[*n].addr = in6_value(&a) & mask;
		out[*n].mask = mask;
		(*n)++;
		if (numeric)
			break;
	}
	if (res)
		freeaddrinfo(res);
	return 0;
}

/*
 * xtables_ip6parse_multiple(): "-s a[/m][,b[/m]...]" of an IPv6 rule,
 * each a numeric address, a network or a host name of one or more
 * addresses, with a prefix length (128 when absent) or a mask that is a
 * prefix.  The first is the rule's match; with more the command stands
 * for one rule each (nfhp_cmdline_select()).
 */
static int parse_addr6(struct pstate *ps, int dim, const char *arg, bool inv)
{
	struct nfhp_cmdline *cl = ps->cl;
	struct nfhp_addr_mask *out = cl->addr[dim == NFHP_DIM_DST];
	unsigned int *n = &cl->naddr[dim == NFHP_DIM_DST];
	const char *elem, *next;
	struct nfhp_dim_match *m;
	char buf[256], *slash;
	nfhp_u128 mask;
	int ret;

	*n = 0;
	ps->addr_inv |= inv;
	for (elem = arg; elem; elem = next) {
		if (!addr_elem(elem, buf, sizeof(buf), &next))
			return fail(ps, NFHP_EXIT_PARAM, "Hostname too long");
		mask = ~(nfhp_u128)0;
		slash = strrchr(buf, '/');
		if (slash) {
			*slash++ = 0;
			ret = parse_mask6(ps, slash, &mask);
			if (ret)
				return ret;
		}
		/* "any/0": the name is not looked at. */
		ret = resolve_addr6(ps, dim, mask ? buf : "::", mask, out, n);
		if (ret)
			return ret;
	}
	/* As ip6tables: "-s x/0" is no match at all, "! -s x/0" is kept. */
	if (*n == 1 && !out[0].mask && !inv)
		return 0;
	m = dim_new(ps, dim, NFHP_FORM_PREFIX, NFHP_SYN_DEFAULT, inv);
	if (!m)
		return ps->ret;
	addr_match(m, dim, cl->family, &out[0], inv);
	return 0;
}

/*
 * xtables_ipparse_multiple(): "-s a[/m][,b[/m]...]", each a dotted
 * address, a network or a host name of one or more addresses.  The first
 * is the rule's match; with more the command stands for one rule each
 * (nfhp_cmdline_select()).
 */
static int parse_addr(struct pstate *ps, int dim, const char *arg, bool inv)
{
	struct nfhp_cmdline *cl = ps->cl;
	struct nfhp_addr_mask *out = cl->addr[dim == NFHP_DIM_DST];
	unsigned int *n = &cl->naddr[dim == NFHP_DIM_DST];
	char buf[256], *slash;
	struct nfhp_dim_match *m;
	const char *elem, *next;
	u32 mask;
	int ret;

	*n = 0;
	ps->addr_inv |= inv;
	for (elem = arg; elem; elem = next) {
		if (!addr_elem(elem, buf, sizeof(buf), &next))
			return fail(ps, NFHP_EXIT_PARAM, "Hostname too long");
		mask = ~0u;
		slash = strrchr(buf, '/');
		if (slash) {
			*slash++ = 0;
			ret = parse_mask(ps, slash, &mask);
			if (ret)
				return ret;
		}
		if (mask_prefix(mask) < 0 &&
		    (1ull << mask_holes(mask)) > NFHP_MAX_MASK_RANGES)
			return fail(ps, NFHP_EXIT_PARAM,
				    "nf-hipac: mask `%s' stands for %llu address ranges, more than the %u the tree takes",
				    slash, 1ull << mask_holes(mask),
				    NFHP_MAX_MASK_RANGES);
		/* "any/0": the name is not looked at. */
		ret = resolve_addr(ps, dim, mask ? buf : "0.0.0.0", mask, out,
				   n);
		if (ret)
			return ret;
	}
	/* iptables drops "-s x/0" entirely, but keeps "! -s x/0". */
	if (*n == 1 && !out[0].mask && !inv)
		return 0;
	m = dim_new(ps, dim, NFHP_FORM_PREFIX, NFHP_SYN_DEFAULT, inv);
	if (!m)
		return ps->ret;
	addr_match(m, dim, cl->family, &out[0], inv);
	return 0;
}

/**
 * nfhp_cmdline_select() - make @cl->spec the rule of one address pair
 * @cl: a command line that nfhp_parse_cmdline() took
 * @i: the pair, below nfhp_cmdline_rules(): iptables' order, every -d
 *	address of the first -s address, then of the second...
 */
void nfhp_cmdline_select(struct nfhp_cmdline *cl, unsigned int i)
{
	struct nfhp_rule_spec *spec = &cl->spec;
	unsigned int nd = cl->naddr[1] ? cl->naddr[1] : 1;
	unsigned int k, d, n = 0, pick[2] = { i / nd, i % nd };
	struct nfhp_dim_match m[2];
	bool inv[2] = { false, false }, has[2] = { false, false };

	for (k = 0; k < spec->nmatch && spec->m[k].dim <= NFHP_DIM_DST; k++) {
		has[spec->m[k].dim] = true;
		inv[spec->m[k].dim] = spec->m[k].invert;
	}
	for (d = 0; d < 2; d++) {
		const struct nfhp_addr_mask *am = &cl->addr[d][pick[d]];

		/* A single address is the match as parsed. */
		if (cl->naddr[d] < 2) {
			if (has[d])
				m[n++] = spec->m[d && has[0] ? 1 : 0];
			continue;
		}
		if (!am->mask)
			continue;
		addr_match(&m[n++], d ? NFHP_DIM_DST : NFHP_DIM_SRC, cl->family,
			   am, inv[d]);
	}
	/* Out with the old address matches, in with the new. */
	k = has[0] + has[1];
	memmove(&spec->m[n], &spec->m[k],
		(spec->nmatch - k) * sizeof(spec->m[0]));
	memcpy(spec->m, m, n * sizeof(m[0]));
	spec->nmatch += n - k;
}

static int parse_iface(struct pstate *ps, int dim, const char *arg, bool inv)
{
	struct nfhp_dim_match *m;

	if (strlen(arg) >= NFHP_IFNAMSIZ)
		return fail(ps, NFHP_EXIT_PARAM,
			    "interface name `%s' must be shorter than IFNAMSIZ (%i)",
			    arg, NFHP_IFNAMSIZ - 1);
	m = dim_new(ps, dim, NFHP_FORM_IFNAME, NFHP_SYN_DEFAULT, inv);
	if (!m)
		return ps->ret;
	strscpy(m->ifname, arg, sizeof(m->ifname));
	return 0;
}

/* xtables_parse_port(): a service name or a number 0..65535. */
static int parse_port(struct pstate *ps, const char *s, const char *proto,
		      unsigned int *port)
{
	unsigned long long v;
	struct servent *se;

	/*
	 * Numbers first, as iptables does: a service lookup reads
	 * /etc/services, which made restoring big rule sets crawl.
	 */
	if (nfhp_parse_uint(s, 0, 65535, &v)) {
		*port = v;
		return 0;
	}
	/* iptables 1.8.9 asks getaddrinfo(), which takes any protocol. */
	se = *s ? getservbyname(s, proto) : NULL;
	if (!se && *s)
		se = getservbyname(s, NULL);
	if (se) {
		*port = ntohs(se->s_port);
		return 0;
	}
	return fail(ps, NFHP_EXIT_PARAM, "invalid port/service `%s' specified",
		    s);
}

static int parse_port_range(struct pstate *ps, int dim, const char *arg,
			    bool inv, const char *proto)
{
	char buf[128], *colon;
	unsigned int lo, hi;
	struct nfhp_dim_match *m;
	int ret;

	strscpy(buf, arg, sizeof(buf));
	colon = strchr(buf, ':');
	if (!colon) {
		ret = parse_port(ps, buf, proto, &lo);
		if (ret)
			return ret;
		hi = lo;
	} else {
		*colon++ = 0;
		lo = 0;
		hi = 65535;
		if (buf[0]) {
			ret = parse_port(ps, buf, proto, &lo);
			if (ret)
				return ret;
		}
		if (colon[0]) {
			ret = parse_port(ps, colon, proto, &hi);
			if (ret)
				return ret;
		}
		/*
		 * libxt_tcp refuses a reversed range, libxt_udp takes it: a
		 * match of no port (of every port under "!"), which the tree
		 * has no interval for.  libxtables keeps it as written.
		 */
		if (lo > hi && strcmp(proto, "udp"))
			return fail(ps, NFHP_EXIT_PARAM,
				    "invalid portrange (min > max)");
		if (lo > hi)
			return refuse(ps, ps->cur_seq,
				      "nf-hipac: `--%s %s' can never match",
				      dim == NFHP_DIM_SPORT ? "sport" : "dport",
				      arg);
	}
	m = dim_new(ps, dim, NFHP_FORM_RANGES, NFHP_SYN_DEFAULT, inv);
	if (!m)
		return ps->ret;
	m->nranges = 1;
	m->ranges[0].lo = lo;
	m->ranges[0].hi = hi;
	return 0;
}

static int parse_multiport(struct pstate *ps, int dim, u8 syntax,
			   const char *arg, bool inv)
{
	char buf[512], *cp, *next, *range;
	struct nfhp_dim_match *m;
	const char *proto;
	unsigned int slots = 0, lo, hi;
	int ret;

	if (!ps->proto_given || (!ps->proto_set && !ps->proto_inv))
		return fail(ps, NFHP_EXIT_PARAM,
			    "multiport needs `-p tcp', `-p udp', `-p udplite', `-p sctp' or `-p dccp'");
	if (ps->proto_inv || (ps->proto != 6 && ps->proto != 17 &&
			      ps->proto != 132 && ps->proto != 33 &&
			      ps->proto != 136))
		return fail(ps, NFHP_EXIT_PARAM,
			    "multiport only works with TCP, UDP, UDPLITE, SCTP and DCCP");
	proto = nfhp_proto_to_name(ps->proto, false);
	m = dim_new(ps, dim, NFHP_FORM_RANGES, syntax, inv);
	if (!m)
		return ps->ret;
	strscpy(buf, arg, sizeof(buf));
	for (cp = buf; cp; cp = next) {
		if (slots == NFHP_MAX_RANGES)
			return fail(ps, NFHP_EXIT_PARAM,
				    "too many ports specified");
		next = strchr(cp, ',');
		if (next)
			*next++ = 0;
		range = strchr(cp, ':');
		if (range) {
			if (slots == NFHP_MAX_RANGES - 1)
				return fail(ps, NFHP_EXIT_PARAM,
					    "too many ports specified");
			*range++ = 0;
		}
		ret = parse_port(ps, cp, proto, &lo);
		if (ret)
			return ret;
		hi = lo;
		slots++;
		if (range) {
			ret = parse_port(ps, range, proto, &hi);
			if (ret)
				return ret;
			if (lo >= hi)
				return fail(ps, NFHP_EXIT_PARAM,
					    "invalid portrange specified");
			slots++;
		}
		m->ranges[m->nranges].lo = lo;
		m->ranges[m->nranges].hi = hi;
		m->nranges++;
	}
	return 0;
}

/* The entry of the NULL-terminated @names called @name, any case, or NULL. */
static const struct nfhp_flag_name *
flag_by_name(const struct nfhp_flag_name *names, const char *name)
{
	for (; names->name; names++)
		if (!strcasecmp(name, names->name))
			return names;
	return NULL;
}

static int parse_tcp_flag_list(struct pstate *ps, const char *s, u8 *out)
{
	const struct nfhp_flag_name *flag;
	char buf[128], *tok, *save;

	*out = 0;
	strscpy(buf, s, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		flag = flag_by_name(nfhp_tcp_flag_names, tok);
		if (!flag)
			return fail(ps, NFHP_EXIT_PARAM,
				    "Unknown TCP flag `%s'", tok);
		*out |= flag->value;
	}
	return 0;
}

static int set_tcp_flags(struct pstate *ps, u8 mask, u8 cmp, u8 syntax,
			 bool inv)
{
	struct nfhp_dim_match *m;

	m = dim_new(ps, NFHP_DIM_TCPFLAGS, NFHP_FORM_MASK, syntax, inv);
	if (!m)
		return ps->ret;
	m->ranges[0].lo = cmp;
	m->ranges[0].hi = mask;
	return 0;
}

static int parse_icmp(struct pstate *ps, const char *arg, bool inv)
{
	bool v6 = ps->cl->family == NFHP_FAMILY_IPV6;
	const struct nfhp_icmp_name *names = v6 ? nfhp_icmpv6_names :
						  nfhp_icmp_names;
	const char *what = v6 ? "ICMPv6" : "ICMP";
	struct nfhp_dim_match *m;
	unsigned int type, cmin = 0, cmax = 0xFF;
	unsigned long long v;
	char buf[64], *slash;
	size_t i, len = strlen(arg), found = SIZE_MAX;

	for (i = 0; names[i].name; i++) {
		if (strncasecmp(names[i].name, arg, len))
			continue;
		if (found != SIZE_MAX &&
		    (names[found].type != names[i].type ||
		     names[found].code_min != names[i].code_min ||
		     names[found].code_max != names[i].code_max))
			return fail(ps, NFHP_EXIT_PARAM,
				    "Ambiguous %s type `%s': `%s' or `%s'?",
				    what, arg, names[found].name,
				    names[i].name);
		if (found == SIZE_MAX)
			found = i;
	}
	if (found != SIZE_MAX) {
		type = names[found].type;
		cmin = names[found].code_min;
		cmax = names[found].code_max;
	} else {
		strscpy(buf, arg, sizeof(buf));
		slash = strchr(buf, '/');
		if (slash)
			*slash++ = 0;
		if (!nfhp_parse_uint(buf, 0, 255, &v))
			return fail(ps, NFHP_EXIT_PARAM,
				    "Unknown %s type `%s'", what, arg);
		type = v;
		if (slash) {
			if (!nfhp_parse_uint(slash, 0, 255, &v))
				return fail(ps, NFHP_EXIT_PARAM,
					    "Unknown %s code `%s'", what, arg);
			cmin = cmax = v;
		}
	}
	m = dim_new(ps, NFHP_DIM_ICMP, NFHP_FORM_RANGES, NFHP_SYN_ICMP, inv);
	if (!m)
		return ps->ret;
	m->nranges = 1;
	if (type == 0xFF && !v6) {	/* "any": every type and code */
		m->ranges[0].lo = 0;
		m->ranges[0].hi = 0xFFFF;
	} else {
		m->ranges[0].lo = type << 8 | cmin;
		m->ranges[0].hi = type << 8 | cmax;
	}
	return 0;
}

static int parse_states(struct pstate *ps, const char *arg, bool inv,
			bool ct)
{
	const struct nfhp_flag_name *state;
	char buf[256], *tok, *p;
	struct nfhp_dim_match *m;
	unsigned int bits = 0, i;

	if (!*arg)
		return fail(ps, NFHP_EXIT_PARAM,
			    "\"--state\" requires a list of states with no spaces, e.g. ESTABLISHED,RELATED");
	strscpy(buf, arg, sizeof(buf));
	for (p = buf; (tok = strsep(&p, ",")); ) {
		state = flag_by_name(nfhp_state_names, tok);
		if (!state) {
			if (ct && (!strcasecmp(tok, "SNAT") ||
				   !strcasecmp(tok, "DNAT")))
				return refuse(ps, ps->cur_seq,
					      "nf-hipac: ctstate `%s' is not supported yet",
					      tok);
			return fail(ps, NFHP_EXIT_PARAM, "Bad %s \"%s\"",
				    ct ? "ctstate" : "state", tok);
		}
		bits |= 1u << state->value;
	}
	m = dim_new(ps, NFHP_DIM_STATE, NFHP_FORM_RANGES,
		    ct ? NFHP_SYN_CONNTRACK : NFHP_SYN_STATE, inv);
	if (!m)
		return ps->ret;
	/* The states as intervals of adjacent values. */
	for (i = 0; i < NFHP_CT_MAX; i++) {
		if (!(bits & (1u << i)))
			continue;
		if (m->nranges && m->ranges[m->nranges - 1].hi == i - 1) {
			m->ranges[m->nranges - 1].hi = i;
			continue;
		}
		m->ranges[m->nranges].lo = i;
		m->ranges[m->nranges].hi = i;
		m->nranges++;
	}
	return 0;
}

static int parse_ttl(struct pstate *ps, int id, const char *optname,
		     const char *arg, bool inv)
{
	static const char *const names4[] = { "ttl-eq", "ttl-lt", "ttl-gt" };
	static const char *const names6[] = { "hl-eq", "hl-lt", "hl-gt" };
	bool v6 = ps->cl->family == NFHP_FAMILY_IPV6;
	const char *const *names = v6 ? names6 : names4;
	const char *mod = v6 ? "hl" : "ttl";
	struct nfhp_dim_match *m;
	unsigned long long v;
	unsigned int lo, hi;
	u8 syntax;

	if (ps->ttl_opt)
		return fail(ps, NFHP_EXIT_PARAM,
			    "%s: option \"--%s\" cannot be used together with \"--%s\".",
			    mod, names[id - O_TTL_EQ], names[ps->ttl_opt - O_TTL_EQ]);
	ps->ttl_opt = id;
	if (inv && id != O_TTL_EQ)
		return fail(ps, NFHP_EXIT_PARAM,
			    "%s: option \"--%s\" cannot be inverted.",
			    mod, names[id - O_TTL_EQ]);
	if (!nfhp_parse_uint(arg, 0, 255, &v))
		return fail(ps, NFHP_EXIT_PARAM,
			    "%s: bad value for option \"--%s\", or out of range (0-255).",
			    mod, names[id - O_TTL_EQ]);
	if (id == O_TTL_EQ) {
		lo = hi = v;
		syntax = NFHP_SYN_TTL_EQ;
	} else if (id == O_TTL_LT) {
		if (!v)
			return refuse(ps, ps->cur_seq,
				      v6 ? "nf-hipac: `--hl-lt 0' can never match" :
				      "nf-hipac: `--ttl-lt 0' can never match");
		lo = 0;
		hi = v - 1;
		syntax = NFHP_SYN_TTL_LT;
	} else {
		if (v == 255)
			return refuse(ps, ps->cur_seq,
				      v6 ? "nf-hipac: `--hl-gt 255' can never match" :
				      "nf-hipac: `--ttl-gt 255' can never match");
		lo = v + 1;
		hi = 255;
		syntax = NFHP_SYN_TTL_GT;
	}
	m = dim_new(ps, NFHP_DIM_TTL, NFHP_FORM_RANGES, syntax, inv);
	if (!m)
		return ps->ret;
	m->nranges = 1;
	m->ranges[0].lo = lo;
	m->ranges[0].hi = hi;
	return 0;
}

static int parse_length(struct pstate *ps, const char *arg, bool inv)
{
	char buf[64], *colon;
	unsigned long long lo, hi;
	struct nfhp_dim_match *m;

	strscpy(buf, arg, sizeof(buf));
	colon = strchr(buf, ':');
	if (colon)
		*colon++ = 0;
	if (!nfhp_parse_uint(buf, 0, 65535, &lo) ||
	    (colon && *colon && !nfhp_parse_uint(colon, 0, 65535, &hi)))
		return fail(ps, NFHP_EXIT_PARAM,
			    "length: bad value for option \"--length\", or out of range (0-65535).");
	if (!colon)
		hi = lo;
	else if (!*colon)
		hi = 65535;
	if (lo > hi)
		return refuse(ps, ps->cur_seq,
			      "nf-hipac: `--length %s' can never match", arg);
	m = dim_new(ps, NFHP_DIM_LEN, NFHP_FORM_RANGES, NFHP_SYN_LENGTH, inv);
	if (!m)
		return ps->ret;
	m->nranges = 1;
	m->ranges[0].lo = lo;
	m->ranges[0].hi = hi;
	return 0;
}

static int parse_markarg(struct pstate *ps, const char *arg, bool inv)
{
	char buf[64], *slash;
	unsigned long long v, mask = 0xFFFFFFFFu, host;
	struct nfhp_dim_match *m;

	strscpy(buf, arg, sizeof(buf));
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = 0;
	if (!nfhp_parse_uint(buf, 0, 0xFFFFFFFFu, &v) ||
	    (slash && !nfhp_parse_uint(slash, 0, 0xFFFFFFFFu, &mask)))
		return fail(ps, NFHP_EXIT_PARAM,
			    "mark: bad integer value for option \"--mark\", or out of range.");
	/*
	 * The tree takes a mask of high bits only (an interval of marks);
	 * without libxtables the core refuses the others (kernel/match.c).
	 */
	host = ~mask & 0xFFFFFFFFu;
	if (parse_ext && (host & (host + 1)))
		return refuse(ps, ps->cur_seq,
			      "nf-hipac: mark mask 0x%llx: mask must consist of contiguous high bits",
			      mask);
	m = dim_new(ps, NFHP_DIM_MARK, NFHP_FORM_MASK, NFHP_SYN_MARK, inv);
	if (!m)
		return ps->ret;
	m->ranges[0].lo = v;
	m->ranges[0].hi = mask;
	return 0;
}

static int parse_iprange(struct pstate *ps, int dim, const char *arg,
			 bool inv)
{
	char buf[64], *dash;
	struct nfhp_dim_match *m;
	u32 lo, hi;

	strscpy(buf, arg, sizeof(buf));
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = 0;
	if (!nfhp_parse_ipv4(buf, &lo))
		return fail(ps, NFHP_EXIT_PARAM,
			    "iprange: Bad IP address \"%s\"", buf);
	hi = lo;
	if (dash && !nfhp_parse_ipv4(dash, &hi))
		return fail(ps, NFHP_EXIT_PARAM,
			    "iprange: Bad IP address \"%s\"", dash);
	if (lo > hi)
		return refuse(ps, ps->cur_seq,
			      "nf-hipac: range `%s' can never match", arg);
	m = dim_new(ps, dim, NFHP_FORM_RANGES, NFHP_SYN_IPRANGE, inv);
	if (!m)
		return ps->ret;
	m->nranges = 1;
	m->ranges[0].lo = lo;
	m->ranges[0].hi = hi;
	return 0;
}

/* The target of -j / -g. */
static int parse_target(struct pstate *ps, const char *arg, bool go)
{
	struct nfhp_rule_spec *spec = &ps->cl->spec;
	const char *p;

	if (ps->target_set)
		return fail(ps, NFHP_EXIT_PARAM, "multiple -j flags not allowed");
	ps->target_set = true;
	if (!*arg)
		return fail(ps, NFHP_EXIT_PARAM,
			    "Invalid target name (too short)");
	if (strlen(arg) >= NFHP_EXT_NAMELEN)
		return fail(ps, NFHP_EXIT_PARAM,
			    "Invalid target name `%s' (%u chars max)", arg,
			    NFHP_EXT_NAMELEN - 1);
	for (p = arg; *p; p++)
		if (isspace((unsigned char)*p))
			return fail(ps, NFHP_EXIT_PARAM,
				    "Invalid target name `%s'", arg);
	/* QUEUE is iptables' standard verdict NF_QUEUE, no extension. */
	if (!strcmp(arg, "ACCEPT") || !strcmp(arg, "DROP") ||
	    !strcmp(arg, "RETURN") || !strcmp(arg, "QUEUE")) {
		if (go)
			return fail(ps, NFHP_EXIT_PARAM,
				    "nf-hipac: goto '%s' is not a chain",
				    arg);
		spec->action = !strcmp(arg, "ACCEPT") ? NFHP_ACT_ACCEPT :
			       !strcmp(arg, "DROP") ? NFHP_ACT_DROP :
			       !strcmp(arg, "QUEUE") ? NFHP_ACT_QUEUE :
			       NFHP_ACT_RETURN;
		return 0;
	}
	/* The check point of the dynamic states: no verdict of its own. */
	if (!strcmp(arg, "CHECK-STATE")) {
		if (go)
			return fail(ps, NFHP_EXIT_PARAM,
				    "nf-hipac: goto '%s' is not a chain",
				    arg);
		spec->action = NFHP_ACT_NONE;
		spec->state.mode = NFHP_RSTATE_CHECK;
		return 0;
	}
	if (!parse_ext &&
	    in_list(arg, known_targets, ARRAY_SIZE(known_targets)))
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: target `%s' is not supported yet", arg);
	/* As iptables, -g never loads a target: it names a chain. */
	if (parse_ext && !go) {
		int ret = parse_ext->target(arg, ++ps->seq, ps->err,
					    ps->errlen);

		if (ret == 1) {
			spec->action = NFHP_ACT_XT;
			return 0;
		}
		if (ret)
			return ret;
	}
	spec->action = go ? NFHP_ACT_GOTO : NFHP_ACT_JUMP;
	strscpy(spec->target, arg, sizeof(spec->target));
	return 0;
}

/*
 * Does the native match @pm, about to be loaded, go to libxtables?  It
 * does after the first xtables match, so that the matches run in the
 * order iptables runs them, unless the extensions may run in any order
 * (&struct nfhp_parse_ext @any_order); as a second instance of itself,
 * which iptables keeps apart; as a tcp or udp match after multiport,
 * which drops short packets only among those multiport let through (the
 * kernel has one box for them, nfhp_rule_body_new()); and when an earlier
 * pass found that the tree cannot take it (refuse()).
 */
static bool next_to_xt(struct pstate *ps, int pm)
{
	unsigned int seq = ps->seq + 1;

	if (!parse_ext)
		return false;
	if ((pm == PM_TCP || pm == PM_UDP) &&
	    (ps->loaded & (1u << PM_MULTIPORT)))
		return true;
	return (ps->xt_seen && !parse_ext->any_order) ||
	       (ps->loaded & (1u << pm)) ||
	       (seq < NFHP_MAX_LOADS && (ps->xt_force & (1ULL << seq)));
}

/* -m NAME through libxtables; @pm is its native match, or -1. */
static int load_xt_match(struct pstate *ps, const char *name, int pm)
{
	ps->cl->has_rule = true;
	ps->xt_seen = true;
	/* iptables hands the options to the newest instance. */
	if (pm >= 0)
		ps->done |= 1u << pm;
	return parse_ext->match(name, false, ++ps->seq, ps->err, ps->errlen);
}

/*
 * The native matches an IPv6 rule may use: iprange's ranges are IPv4
 * addresses, so ip6tables' iprange goes to libxtables.  (icmp and ttl
 * are native under IPv6's names, icmp6 and hl: pm_name().)
 */
static bool native6(int pm)
{
	return pm != PM_IPRANGE;
}

/* The name a native match is loaded by: IPv6 calls two of them its own. */
static const char *pm_name(const struct pstate *ps, int pm)
{
	if (ps->cl->family == NFHP_FAMILY_IPV6 && pm == PM_ICMP)
		return "icmp6";
	if (ps->cl->family == NFHP_FAMILY_IPV6 && pm == PM_TTL)
		return "hl";
	return pm_names[pm];
}

/* Options of one family: icmp's and ttl's are IPv4's, icmp6's and hl's IPv6's. */
static bool opt_family_ok(const struct pstate *ps, const struct nfhp_opt *o)
{
	bool v6 = ps->cl->family == NFHP_FAMILY_IPV6;

	switch (o->id) {
	case O_ICMPTYPE:
	case O_TTL_EQ:
	case O_TTL_LT:
	case O_TTL_GT:
		return !v6;
	case O_ICMP6TYPE:
	case O_HL_EQ:
	case O_HL_LT:
	case O_HL_GT:
		return v6;
	}
	return true;
}

/*
 * -m set: always native, a set match of the rule (NFHPA_RULE_SETM), which
 * the kernel runs after the dimensions and before the xtables matches.
 * After an xtables match that keeps state or drops packets it would run
 * before it, not after as written: refused there.
 */
static int load_set(struct pstate *ps)
{
	if (ps->setm_open)
		return fail(ps, NFHP_EXIT_PARAM,
			    "You must specify `--match-set' with proper arguments");
	if (ps->xt_seen && parse_ext && !parse_ext->any_order)
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: match `set' must come before the xtables matches (it runs before them)");
	ps->loaded |= 1u << PM_SET;
	ps->pm_seq[PM_SET] = ++ps->seq;
	ps->setm_open = true;
	return 0;
}

/*
 * -m keep-state: always native, the rule's part in the dynamic states
 * (NFHPA_RULE_STATE).  The kernel makes a state when the rule decides a
 * packet, whatever matches held before: it has no place among them, and
 * state_checks() sets the mode once the line is read.
 */
static int load_keep_state(struct pstate *ps)
{
	ps->cl->has_rule = true;
	if (ps->loaded & (1u << PM_KEEP))
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: keep-state can be specified only once");
	ps->loaded |= 1u << PM_KEEP;
	ps->pm_seq[PM_KEEP] = ++ps->seq;
	return 0;
}

static int load_match(struct pstate *ps, const char *name)
{
	int i;

	if (!strcmp(name, "set"))
		return load_set(ps);
	if (!strcmp(name, "keep-state"))
		return load_keep_state(ps);
	for (i = 0; i < PM_MAX; i++) {
		if (strcmp(name, pm_name(ps, i)))
			continue;
		if (ps->cl->family == NFHP_FAMILY_IPV6 && !native6(i))
			break;
		if (next_to_xt(ps, i))
			return load_xt_match(ps, name, i);
		ps->loaded |= 1u << i;
		ps->pm_seq[i] = ++ps->seq;
		return 0;
	}
	if (parse_ext)
		return load_xt_match(ps, name, -1);
	if (in_list(name, known_matches, ARRAY_SIZE(known_matches)))
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: match `%s' is not supported yet", name);
	return fail(ps, NFHP_EXIT_PARAM,
		    "Couldn't load match `%s':No such file or directory\n", name);
}

/* Is @o an option of iptables or of a loaded native match that takes it? */
static bool native_opt(const struct pstate *ps, const struct nfhp_opt *o)
{
	unsigned int bit = 1u << o->pm;

	if (!opt_family_ok(ps, o))
		return false;
	return o->pm == PM_CORE || ((ps->loaded & bit) && !(ps->done & bit));
}

/* Find a long option among the core's and the loaded matches' options. */
static const struct nfhp_opt *find_long(struct pstate *ps, const char *name,
					size_t len, bool *ambiguous)
{
	const struct nfhp_opt *found = NULL;
	size_t i;

	*ambiguous = false;
	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		if (!native_opt(ps, &opts[i]))
			continue;
		if (opts[i].name[0] == name[0] &&
		    !strncmp(opts[i].name, name, len) && !opts[i].name[len])
			return &opts[i];
	}
	for (i = 0; i < ARRAY_SIZE(opts); i++) {
		if (!native_opt(ps, &opts[i]))
			continue;
		if (strncmp(opts[i].name, name, len))
			continue;
		if (found && (found->id != opts[i].id ||
			      found->pm != opts[i].pm))
			*ambiguous = true;
		found = found ? found : &opts[i];
	}
	return *ambiguous ? NULL : found;
}

static int short_arg_kind(int c)
{
	const char *p;

	for (p = short_opts; *p; p += 2)
		if (*p == c)
			return p[1] - '0';
	return -1;
}

static bool is_cmd_letter(int c)
{
	switch (c) {
	case 'A': case 'C': case 'D': case 'R': case 'I': case 'L': case 'S':
	case 'F': case 'Z': case 'N': case 'X': case 'E': case 'P': case 'h':
	case 'V':
		return true;
	}
	return false;
}

static int cmd_of(int c)
{
	switch (c) {
	case 'A': return NFHP_CLI_APPEND;
	case 'C': return NFHP_CLI_CHECK;
	case 'D': return NFHP_CLI_DELETE;
	case 'R': return NFHP_CLI_REPLACE;
	case 'I': return NFHP_CLI_INSERT;
	case 'L': return NFHP_CLI_LIST;
	case 'S': return NFHP_CLI_LIST_RULES;
	case 'F': return NFHP_CLI_FLUSH;
	case 'Z': return NFHP_CLI_ZERO;
	case 'N': return NFHP_CLI_NEW_CHAIN;
	case 'X': return NFHP_CLI_DEL_CHAIN;
	case 'E': return NFHP_CLI_RENAME_CHAIN;
	case 'P': return NFHP_CLI_POLICY;
	case 'h': return NFHP_CLI_HELP;
	default: return NFHP_CLI_VERSION;
	}
}

static char cmd_letter(int cmd)
{
	static const char letters[] = "?AIDRCFZLSNXEPhV";

	return letters[cmd];
}

static bool next_is_arg(int argc, char **argv, int i)
{
	return i < argc && argv[i][0] != '-' && argv[i][0] != '!';
}

static int parse_rulenum(struct pstate *ps, const char *s, unsigned int *pos)
{
	unsigned long long v;

	if (!nfhp_parse_uint(s, 1, INT_MAX, &v))
		return fail(ps, NFHP_EXIT_PARAM, "Invalid rule number `%s'", s);
	*pos = v;
	return 0;
}

static int set_chain(struct pstate *ps, char *dst, const char *name)
{
	if (strlen(name) >= NFHP_EXT_NAMELEN)
		return fail(ps, NFHP_EXIT_PARAM,
			    "chain name `%s' too long (must be under %u chars)",
			    name, NFHP_EXT_NAMELEN);
	strscpy(dst, name, NFHP_CHAIN_NAME_LEN);
	return 0;
}

/* The checks iptables makes on the name of a new chain. */
static int check_new_chain_name(struct pstate *ps, const char *name)
{
	const char *p;

	if (strlen(name) >= NFHP_EXT_NAMELEN)
		return fail(ps, NFHP_EXIT_PARAM,
			    "chain name `%s' too long (must be under %u chars)",
			    name, NFHP_EXT_NAMELEN);
	if (*name == '-' || *name == '!')
		return fail(ps, NFHP_EXIT_PARAM,
			    "chain name not allowed to start with `%c'", *name);
	if (!strcmp(name, "ACCEPT") || !strcmp(name, "DROP") ||
	    !strcmp(name, "RETURN") || !strcmp(name, "QUEUE") ||
	    !strcmp(name, "CHECK-STATE") ||
	    in_list(name, known_targets, ARRAY_SIZE(known_targets)))
		return fail(ps, NFHP_EXIT_PARAM,
			    "chain name may not clash with target name");
	for (p = name; *p; p++)
		if (isspace((unsigned char)*p))
			return fail(ps, NFHP_EXIT_PARAM,
				    "Invalid chain name `%s'", name);
	return 0;
}

/* Arguments of a command option: chain, and the optional ones after it. */
static int parse_command(struct pstate *ps, int c, const char *optarg,
			 int argc, char **argv, int *ip)
{
	struct nfhp_cmdline *cl = ps->cl;
	int ret = 0;

	if (cl->cmd != NFHP_CLI_NONE)
		return fail(ps, NFHP_EXIT_PARAM, "Cannot use -%c with -%c",
			    c, cmd_letter(cl->cmd));
	if (ps->invert)
		return fail(ps, NFHP_EXIT_PARAM, "cannot have ! before -%c", c);
	cl->cmd = cmd_of(c);
	switch (c) {
	case 'A': case 'C': case 'N':
		ret = set_chain(ps, cl->chain, optarg);
		if (!ret && c == 'N')
			ret = check_new_chain_name(ps, optarg);
		break;
	case 'D': case 'R': case 'I':
		ret = set_chain(ps, cl->chain, optarg);
		if (ret)
			break;
		if (c == 'R' && !next_is_arg(argc, argv, *ip))
			return fail(ps, NFHP_EXIT_PARAM,
				    "-R requires a rule number");
		if (next_is_arg(argc, argv, *ip))
			ret = parse_rulenum(ps, argv[(*ip)++], &cl->pos);
		break;
	case 'L': case 'S': case 'Z': case 'F': case 'X':
		if (!optarg && next_is_arg(argc, argv, *ip))
			optarg = argv[(*ip)++];
		if (optarg)
			ret = set_chain(ps, cl->chain, optarg);
		if (!ret && optarg && strchr("LSZ", c) &&
		    next_is_arg(argc, argv, *ip))
			ret = parse_rulenum(ps, argv[(*ip)++], &cl->pos);
		break;
	case 'E':
		ret = set_chain(ps, cl->chain, optarg);
		if (ret)
			break;
		if (!next_is_arg(argc, argv, *ip))
			return fail(ps, NFHP_EXIT_PARAM,
				    "-E requires old-chain-name and new-chain-name");
		ret = check_new_chain_name(ps, argv[*ip]);
		if (!ret)
			ret = set_chain(ps, cl->new_name, argv[(*ip)++]);
		break;
	case 'P':
		ret = set_chain(ps, cl->chain, optarg);
		if (ret)
			break;
		if (!next_is_arg(argc, argv, *ip))
			return fail(ps, NFHP_EXIT_PARAM,
				    "-P requires a chain and a policy");
		optarg = argv[(*ip)++];
		if (!strcmp(optarg, "ACCEPT"))
			cl->policy = NFHP_ACT_ACCEPT;
		else if (!strcmp(optarg, "DROP"))
			cl->policy = NFHP_ACT_DROP;
		else
			return fail(ps, NFHP_EXIT_OTHER, "Bad policy name");
		break;
	}
	return ret;
}

static int set_once(struct pstate *ps, int c, bool invertible)
{
	unsigned int bit = (unsigned int)c & 63;

	if (ps->seen & (1ULL << bit))
		return fail(ps, NFHP_EXIT_PARAM,
			    "multiple -%c flags not allowed", c);
	ps->seen |= 1ULL << bit;
	if (ps->invert && !invertible)
		return fail(ps, NFHP_EXIT_PARAM, "cannot have ! before -%c", c);
	return 0;
}

static int parse_counters(struct pstate *ps, const char *pcnt, int argc,
			  char **argv, int *ip)
{
	const char *bcnt = strchr(pcnt, ',');
	unsigned long long v;
	char buf[32];

	strscpy(buf, pcnt, sizeof(buf));
	if (bcnt) {
		/* A longer packet count cannot be a number anyway. */
		if (bcnt - pcnt >= (long)sizeof(buf))
			return fail(ps, NFHP_EXIT_PARAM,
				    "-c packet counter not numeric");
		buf[bcnt - pcnt] = 0;
		bcnt++;
	} else if (next_is_arg(argc, argv, *ip)) {
		bcnt = argv[(*ip)++];
	}
	if (!bcnt)
		return fail(ps, NFHP_EXIT_PARAM,
			    "-c requires packet and byte counter");
	if (!nfhp_parse_uint(buf, 0, ULLONG_MAX, &v))
		return fail(ps, NFHP_EXIT_PARAM,
			    "-c packet counter not numeric");
	ps->cl->counters.packets = v;
	if (!nfhp_parse_uint(bcnt, 0, ULLONG_MAX, &v))
		return fail(ps, NFHP_EXIT_PARAM, "-c byte counter not numeric");
	ps->cl->counters.bytes = v;
	ps->cl->has_counters = true;
	return 0;
}

_Static_assert(O_IGNORED_ARG - O_SPORT <= 64,
	       "struct pstate mseen holds a bit per match option");

static bool mseen_once(struct pstate *ps, int id)
{
	unsigned long long bit = 1ull << (id - O_SPORT);

	if (ps->mseen & bit)
		return false;
	ps->mseen |= bit;
	return true;
}

static int match_option(struct pstate *ps, const struct nfhp_opt *o,
			const char *arg, bool inv)
{
	static const char *const mp_names[] = {
		"source-ports", "destination-ports", "ports",
	};
	const char *proto;

	ps->cl->has_rule = true;
	ps->cur_seq = ps->pm_seq[o->pm];
	switch (o->id) {
	case O_SPORT:
	case O_DPORT:
		if (!mseen_once(ps, o->id))
			return fail(ps, NFHP_EXIT_PARAM, "Only one `--%s' allowed",
				    o->id == O_SPORT ? "source-port" :
				    "destination-port");
		proto = o->pm == PM_UDP ? "udp" : "tcp";
		return parse_port_range(ps, o->id == O_SPORT ? NFHP_DIM_SPORT :
					NFHP_DIM_DPORT, arg, inv, proto);
	case O_SYN:
	case O_TCPFLAGS:
		if (!mseen_once(ps, O_SYN))
			return fail(ps, NFHP_EXIT_PARAM,
				    "Only one of `--syn' or `--tcp-flags'  allowed");
		if (o->id == O_SYN)
			return set_tcp_flags(ps, 0x17, 0x02, NFHP_SYN_SYN, inv);
		return 0;	/* handled by the caller: two arguments */
	case O_TCPOPT:
		return refuse(ps, ps->cur_seq,
			      "nf-hipac: option `--tcp-option' is not supported yet");
	case O_ICMPTYPE:
	case O_ICMP6TYPE:
		if (!mseen_once(ps, o->id))
			return fail(ps, NFHP_EXIT_PARAM,
				    "%s: option \"--%s\" can only be used once.",
				    o->id == O_ICMPTYPE ? "icmp" : "icmp6",
				    o->name);
		return parse_icmp(ps, arg, inv);
	case O_HL_EQ:
	case O_HL_LT:
	case O_HL_GT:
		return parse_ttl(ps, o->id - O_HL_EQ + O_TTL_EQ, o->name, arg,
				 inv);
	case O_MP_SPORTS:
	case O_MP_DPORTS:
	case O_MP_PORTS:
		if (ps->mp_opt) {
			int a = min(ps->mp_opt, o->id), b = max(ps->mp_opt, o->id);

			if (a == b)
				return fail(ps, NFHP_EXIT_PARAM,
					    "multiport: option \"--%s\" can only be used once.",
					    mp_names[a - O_MP_SPORTS]);
			return fail(ps, NFHP_EXIT_PARAM,
				    "multiport: option \"--%s\" cannot be used together with \"--%s\".",
				    mp_names[a - O_MP_SPORTS],
				    mp_names[b - O_MP_SPORTS]);
		}
		ps->mp_opt = o->id;
		return parse_multiport(ps, o->id == O_MP_SPORTS ?
				       NFHP_DIM_SPORT : NFHP_DIM_DPORT,
				       o->id == O_MP_PORTS ?
				       NFHP_SYN_MULTIPORT_BOTH :
				       NFHP_SYN_MULTIPORT, arg, inv);
	case O_SRCRANGE:
	case O_DSTRANGE:
		if (!mseen_once(ps, o->id))
			return fail(ps, NFHP_EXIT_PARAM,
				    "iprange: option \"--%s\" can only be used once.",
				    o->name);
		return parse_iprange(ps, o->id == O_SRCRANGE ? NFHP_DIM_SRC :
				     NFHP_DIM_DST, arg, inv);
	case O_STATE:
	case O_CTSTATE:
		if (!mseen_once(ps, o->id))
			return fail(ps, NFHP_EXIT_PARAM,
				    "%s: option \"--%s\" can only be used once.",
				    o->id == O_STATE ? "state" : "conntrack",
				    o->id == O_STATE ? "state" : "ctstate");
		return parse_states(ps, arg, inv, o->id == O_CTSTATE);
	case O_CT_OTHER:
		return refuse(ps, ps->cur_seq,
			      "nf-hipac: option `--%s' is not supported yet",
			      o->name);
	case O_TTL_EQ:
	case O_TTL_LT:
	case O_TTL_GT:
		return parse_ttl(ps, o->id, o->name, arg, inv);
	case O_LENGTH:
		if (!mseen_once(ps, o->id))
			return fail(ps, NFHP_EXIT_PARAM,
				    "length: option \"--length\" can only be used once.");
		return parse_length(ps, arg, inv);
	case O_MARK:
		if (!mseen_once(ps, o->id))
			return fail(ps, NFHP_EXIT_PARAM,
				    "mark: option \"--mark\" can only be used once.");
		return parse_markarg(ps, arg, inv);
	case O_COMMENT:
		if (!mseen_once(ps, o->id))
			return fail(ps, NFHP_EXIT_PARAM,
				    "comment: option \"--comment\" can only be used once.");
		if (inv)
			return fail(ps, NFHP_EXIT_PARAM,
				    "comment: option \"--comment\" cannot be inverted.");
		if (strlen(arg) >= NFHP_COMMENT_LEN)
			return fail(ps, NFHP_EXIT_PARAM,
				    "comment: option \"--comment\" value too long (max %d chars)",
				    NFHP_COMMENT_LEN - 1);
		snprintf(ps->cl->spec.comment, sizeof(ps->cl->spec.comment),
			 "%s", arg);
		return 0;
	}
	return fail(ps, NFHP_EXIT_PARAM, "unknown option \"--%s\"", o->name);
}

/* A core (non-command) option. */
static int core_option(struct pstate *ps, int c, const char *arg, int argc,
		       char **argv, int *ip)
{
	struct nfhp_cmdline *cl = ps->cl;
	bool inv = ps->invert;
	unsigned long long v;
	int ret;

	ps->cur_seq = 0;
	switch (c) {
	case 's': case 'd': case 'p': case 'i': case 'o': case 'f':
	case 'j': case 'g':
		cl->has_rule = true;
		ret = set_once(ps, c == 'g' ? 'j' : c,
			       c != 'j' && c != 'g');
		if (ret)
			return ret;
		break;
	case 'm': case 't':
		break;
	default:
		if (inv)
			return fail(ps, NFHP_EXIT_PARAM,
				    "cannot have ! before -%c", c < 256 ? c : 'l');
	}
	switch (c) {
	case 's':
	case 'd':
		if (cl->family == NFHP_FAMILY_IPV6)
			return parse_addr6(ps, c == 's' ? NFHP_DIM_SRC :
							  NFHP_DIM_DST, arg, inv);
		return parse_addr(ps, c == 's' ? NFHP_DIM_SRC : NFHP_DIM_DST,
				  arg, inv);
	case 'p':
		if (!nfhp_parse_protocol(arg, &ps->proto))
			return fail(ps, NFHP_EXIT_PARAM,
				    "unknown protocol \"%s\" specified", arg);
		ps->proto_given = true;
		ps->proto_inv = inv;
		if (!ps->proto) {
			if (inv)
				return fail(ps, NFHP_EXIT_PARAM,
					    "rule would never match protocol");
			return 0;
		}
		ps->proto_set = true;
		{
			struct nfhp_dim_match *m;

			m = dim_new(ps, NFHP_DIM_PROTO, NFHP_FORM_RANGES,
				    NFHP_SYN_DEFAULT, inv);
			if (!m)
				return ps->ret;
			m->nranges = 1;
			m->ranges[0].lo = ps->proto;
			m->ranges[0].hi = ps->proto;
		}
		return 0;
	case 'i':
		return parse_iface(ps, NFHP_DIM_IIF, arg, inv);
	case 'o':
		return parse_iface(ps, NFHP_DIM_OIF, arg, inv);
	case 'f': {
		struct nfhp_dim_match *m;

		/* ip6tables has no -f: -m frag matches fragments there. */
		if (cl->family == NFHP_FAMILY_IPV6)
			return fail(ps, NFHP_EXIT_PARAM,
				    "unknown option \"-f\"");
		m = dim_new(ps, NFHP_DIM_FRAG, NFHP_FORM_RANGES,
			    NFHP_SYN_DEFAULT, inv);
		if (!m)
			return NFHP_EXIT_PARAM;
		m->nranges = 1;
		m->ranges[0].lo = 1;
		m->ranges[0].hi = 1;
		return 0;
	}
	case 'j':
	case 'g':
		return parse_target(ps, arg, c == 'g');
	case 'm':
		if (inv)
			return fail(ps, NFHP_EXIT_PARAM,
				    "unexpected ! flag before --match");
		return load_match(ps, arg);
	case 'n':
		cl->numeric = true;
		return 0;
	case 'v':
		cl->verbose = true;
		return 0;
	case 'x':
		cl->exact = true;
		return 0;
	case O_LINENUM:
		cl->line_numbers = true;
		return 0;
	case 't':
		if (inv)
			return fail(ps, NFHP_EXIT_PARAM,
				    "unexpected ! flag before --table");
		/*
		 * iptables' exit code for a table it cannot find, not its
		 * words: nothing here needs an upgrade.
		 */
		if (strcmp(arg, "filter"))
			return fail(ps, NFHP_EXIT_VERSION,
				    "table `%s' is not available: nf-hipac holds the filter table only",
				    arg);
		return 0;
	case 'c':
		return parse_counters(ps, arg, argc, argv, ip);
	case 'w':
		/* --wait [seconds]: for another tool's transaction. */
		if (!arg && next_is_arg(argc, argv, *ip) &&
		    isdigit((unsigned char)argv[*ip][0]))
			arg = argv[(*ip)++];
		cl->wait = true;
		if (arg && !nfhp_parse_uint(arg, 0, UINT_MAX, &v))
			return fail(ps, NFHP_EXIT_PARAM,
				    "wait seconds not numeric");
		cl->wait_seconds = arg ? v : 0;
		return 0;
	case 'W':
		if (!nfhp_parse_uint(arg, 1, ULONG_MAX, &v))
			return fail(ps, NFHP_EXIT_PARAM,
				    "wait interval not numeric");
		cl->wait_interval_us = v;
		return 0;
	case 'M': case '4': case '6':
		/* The family was chosen before the pass (nfhp_cmdline_family()). */
		return 0;
	}
	return fail(ps, NFHP_EXIT_PARAM, "unknown option \"-%c\"", c);
}

/* The native match of a protocol, or -1. */
static int proto_pm(const struct pstate *ps, u8 proto)
{
	bool v6 = ps->cl->family == NFHP_FAMILY_IPV6;

	switch (proto) {
	case 6:
		return PM_TCP;
	case 17:
		return PM_UDP;
	case 1:
		return v6 ? -1 : PM_ICMP;
	case 58:
		return v6 ? PM_ICMP : -1;
	}
	return -1;
}

/*
 * An option nobody knows: if a protocol was given, load its match as
 * iptables does and retry; else it is unknown.  After an xtables match
 * ext_implicit() loads it instead.
 */
static const struct nfhp_opt *implicit_match(struct pstate *ps,
					     const char *name, size_t len)
{
	const struct nfhp_opt *o;
	bool amb;
	int pm;

	if (!ps->proto_set)
		return NULL;
	pm = proto_pm(ps, ps->proto);
	if (pm < 0 || (ps->loaded & (1u << pm)) || next_to_xt(ps, pm) ||
	    (ps->cl->family == NFHP_FAMILY_IPV6 && !native6(pm)))
		return NULL;
	ps->loaded |= 1u << pm;
	o = find_long(ps, name, len, &amb);
	if (!o || o->pm != pm) {
		ps->loaded &= ~(1u << pm);
		return NULL;
	}
	ps->pm_seq[pm] = ++ps->seq;
	return o;
}

/*
 * A bare "-m tcp" or "-m udp" still refuses later fragments and drops
 * short packets in iptables: keep it as the port match "--sport 0:65535",
 * which iptables prints as nothing too.
 */
static int bare_proto_match(struct pstate *ps)
{
	struct nfhp_dim_match *m;
	int dim = NFHP_DIM_SPORT;

	if (!(ps->loaded & (1u << PM_TCP | 1u << PM_UDP)))
		return 0;
	if ((ps->have[NFHP_DIM_SPORT] &&
	     ps->m[NFHP_DIM_SPORT].syntax == NFHP_SYN_DEFAULT) ||
	    (ps->have[NFHP_DIM_DPORT] &&
	     ps->m[NFHP_DIM_DPORT].syntax == NFHP_SYN_DEFAULT) ||
	    ps->have[NFHP_DIM_TCPFLAGS])
		return 0;
	if (ps->have[dim])
		dim = NFHP_DIM_DPORT;
	if (ps->have[dim])
		return 0;	/* multiport on both: it drops them as well */
	ps->cur_seq = ps->pm_seq[ps->loaded & (1u << PM_TCP) ? PM_TCP : PM_UDP];
	m = dim_new(ps, dim, NFHP_FORM_RANGES, NFHP_SYN_DEFAULT, false);
	if (!m)
		return ps->ret;
	m->nranges = 1;
	m->ranges[0].hi = 65535;
	return 0;
}

/*
 * One direction of --match-set, "src" or "dst", into @dir; false for
 * anything else.
 */
static bool parse_setm_dir(const char *s, size_t len, u8 *dir)
{
	if (len != 3 || (strncmp(s, "src", 3) && strncmp(s, "dst", 3)))
		return false;
	*dir = strncmp(s, "src", 3) ? NFHP_SETM_DST : NFHP_SETM_SRC;
	return true;
}

/*
 * "src", "dst" or two of them, "src,dst": the fields of a one- or
 * two-field set (a flow set's address and port).  False for anything
 * else.
 */
static bool parse_setm_dirs(const char *s, struct nfhp_setm_spec *m)
{
	const char *comma = strchr(s, ',');

	m->has_dir2 = !!comma;
	if (!comma)
		return parse_setm_dir(s, strlen(s), &m->dir);
	return parse_setm_dir(s, comma - s, &m->dir) &&
	       parse_setm_dir(comma + 1, strlen(comma + 1), &m->dir2);
}

/*
 * --match-set NAME src|dst|src,dst, "!" before it or, as old ipset wrote
 * it, between it and the name.  One direction or two: a flow set's
 * address and port ("src,dst"); the kernel checks they fit the set.
 */
static int parse_match_set(struct pstate *ps, const char *arg, int argc,
			   char **argv, int *ip)
{
	struct nfhp_rule_spec *spec = &ps->cl->spec;
	struct nfhp_setm_spec *m;
	bool inv = ps->invert;
	const char *dir;

	ps->cl->has_rule = true;
	if (!ps->setm_open)
		return fail(ps, NFHP_EXIT_PARAM,
			    "--match-set can be specified only once");
	if (!strcmp(arg, "!") && !inv && *ip < argc) {
		inv = true;
		arg = argv[(*ip)++];
	}
	if (!next_is_arg(argc, argv, *ip))
		return fail(ps, NFHP_EXIT_PARAM, "--match-set requires two args.");
	dir = argv[(*ip)++];
	if (strlen(arg) >= NFHP_SET_MAXNAMELEN)
		return fail(ps, NFHP_EXIT_PARAM,
			    "setname `%s' too long, max %d characters.", arg,
			    NFHP_SET_MAXNAMELEN - 1);
	if (spec->nsetm >= NFHP_MAX_SETM)
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: at most %d set matches in a rule",
			    NFHP_MAX_SETM);
	m = &spec->setm[spec->nsetm];
	if (!parse_setm_dirs(dir, m)) {
		if (strspn(dir, "srcdt,") == strlen(dir) && strchr(dir, ','))
			return fail(ps, NFHP_EXIT_PARAM,
				    "nf-hipac: --match-set takes one or two directions, src or dst, not `%s'",
				    dir);
		return fail(ps, NFHP_EXIT_PARAM,
			    "You must spefify (the comma separated list of) 'src' or 'dst'.");
	}
	spec->nsetm++;
	snprintf(m->name, sizeof(m->name), "%s", arg);
	m->invert = inv;
	ps->setm_open = false;
	return 0;
}

/*
 * --set-value N[:M], nf-hipac's own: the entry the last --match-set finds
 * must have a value from N to M.  A "!" goes before --match-set, and
 * inverts the whole.
 */
static int parse_set_value(struct pstate *ps, const char *arg)
{
	struct nfhp_rule_spec *spec = &ps->cl->spec;
	unsigned long long lo, hi;
	struct nfhp_setm_spec *m;
	const char *colon = strchr(arg, ':');
	char buf[24];

	if (ps->setm_open || !spec->nsetm)
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: --set-value needs a --match-set before it");
	m = &spec->setm[spec->nsetm - 1];
	if (m->has_value)
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: --set-value can be specified only once");
	if (ps->invert)
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: --set-value cannot be inverted: put ! before --match-set");
	snprintf(buf, sizeof(buf), "%.*s",
		 colon ? (int)(colon - arg) : (int)strlen(arg), arg);
	if (!nfhp_parse_uint(buf, 0, UINT32_MAX, &lo) ||
	    !nfhp_parse_uint(colon ? colon + 1 : buf, 0, UINT32_MAX, &hi) ||
	    lo > hi)
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: bad --set-value `%s': N or N:M, N <= M, up to 4294967295",
			    arg);
	m->has_value = true;
	m->value_min = lo;
	m->value_max = hi;
	return 0;
}

/*
 * xt_set's options on the counts of the last --match-set's entry:
 * "[!] --update-counters", "[!] --update-subcounters" (nf-hipac has no
 * list:set, whose members' counters they are: taken, and not kept),
 * "--return-nomatch" (refused) and one compare of the packets and one of
 * the bytes: "[!] --packets-eq N", "--packets-lt N", "--packets-gt N".
 * With libxt_set's messages; nf-hipac wants them after --match-set.
 */
static int parse_set_counts(struct pstate *ps, const struct nfhp_opt *o,
			    const char *arg)
{
	struct nfhp_rule_spec *spec = &ps->cl->spec;
	bool packets = o->id <= O_SET_PACKETS_GT;
	unsigned long long n;
	struct nfhp_setm_spec *m;
	u8 *cmp;

	if (ps->setm_open || !spec->nsetm)
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: --%s needs a --match-set before it",
			    o->name);
	m = &spec->setm[spec->nsetm - 1];
	switch (o->id) {
	case O_SET_UPDATE:
		m->no_count = ps->invert;
		return 0;
	case O_SET_SUBCOUNTERS:
		return 0;
	case O_SET_NOMATCH:
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: --return-nomatch is not supported");
	}
	cmp = packets ? &m->packets_cmp : &m->bytes_cmp;
	if (*cmp)
		return fail(ps, NFHP_EXIT_PARAM,
			    "only one of the --%s-[eq|lt|gt] is allowed",
			    packets ? "packets" : "bytes");
	if (ps->invert && o->id != O_SET_PACKETS_EQ && o->id != O_SET_BYTES_EQ)
		return fail(ps, NFHP_EXIT_PARAM,
			    "--%s option cannot be inverted", o->name);
	if (!nfhp_parse_uint(arg, 0, ULLONG_MAX, &n))
		return fail(ps, NFHP_EXIT_PARAM,
			    "Cannot parse %s as a counter value", arg);
	switch (o->id) {
	case O_SET_PACKETS_LT:
	case O_SET_BYTES_LT:
		*cmp = NFHP_SETM_CMP_LT;
		break;
	case O_SET_PACKETS_GT:
	case O_SET_BYTES_GT:
		*cmp = NFHP_SETM_CMP_GT;
		break;
	default:
		*cmp = ps->invert ? NFHP_SETM_CMP_NE : NFHP_SETM_CMP_EQ;
	}
	if (packets)
		m->packets = n;
	else
		m->bytes = n;
	return 0;
}

/* A keep-state option: once, and not inverted, as libxtables has it. */
static int keep_state_opt(struct pstate *ps, const struct nfhp_opt *o)
{
	ps->cl->has_rule = true;
	if (!mseen_once(ps, o->id))
		return fail(ps, NFHP_EXIT_PARAM,
			    "keep-state: option \"--%s\" can only be used once.",
			    o->name);
	if (ps->invert)
		return fail(ps, NFHP_EXIT_PARAM,
			    "keep-state: option \"--%s\" cannot be inverted.",
			    o->name);
	return 0;
}

/* --state-limit N: at most N states of the rule per parent, N >= 1. */
static int parse_state_limit(struct pstate *ps, const struct nfhp_opt *o,
			     const char *arg)
{
	unsigned long long v;
	int ret = keep_state_opt(ps, o);

	if (ret)
		return ret;
	if (!nfhp_parse_uint(arg, 1, UINT32_MAX, &v))
		return fail(ps, NFHP_EXIT_PARAM,
			    "keep-state: bad value for option \"--state-limit\", or out of range (1-4294967295).");
	ps->cl->spec.state.limit = v;
	return 0;
}

/*
 * --state-limit-by FIELD[,FIELD...]: the fields of the creating flow
 * that make a parent (nfhp_limit_by_names[]).
 */
static int parse_state_limit_by(struct pstate *ps, const struct nfhp_opt *o,
				const char *arg)
{
	const struct nfhp_flag_name *field;
	char buf[64], *tok, *p;
	u8 bits = 0;
	int ret = keep_state_opt(ps, o);

	if (ret)
		return ret;
	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strscpy(buf, arg, sizeof(buf));
	for (p = buf; (tok = strsep(&p, ",")); ) {
		field = flag_by_name(nfhp_limit_by_names, tok);
		if (!field)
			goto bad;
		bits |= field->value;
	}
	ps->cl->spec.state.limit_by = bits;
	return 0;
bad:
	return fail(ps, NFHP_EXIT_PARAM,
		    "keep-state: Bad value for \"--state-limit-by\" option: \"%s\"",
		    arg);
}

static int do_option(struct pstate *ps, int c, const struct nfhp_opt *o,
		     const char *arg, int argc, char **argv, int *ip)
{
	int ret;

	if (o && o->id == O_MATCHSET)
		return parse_match_set(ps, arg, argc, argv, ip);
	if (o && o->id == O_SETVALUE)
		return parse_set_value(ps, arg);
	if (o && o->id >= O_SET_UPDATE && o->id <= O_SET_BYTES_GT)
		return parse_set_counts(ps, o, arg);
	if (o && o->id == O_STATE_LIMIT)
		return parse_state_limit(ps, o, arg);
	if (o && o->id == O_STATE_LIMIT_BY)
		return parse_state_limit_by(ps, o, arg);
	if (o && o->pm != PM_CORE) {
		if (o->id == O_TCPFLAGS) {
			u8 mask, cmp;

			if (!next_is_arg(argc, argv, *ip))
				return fail(ps, NFHP_EXIT_PARAM,
					    "--tcp-flags requires two args.");
			ret = match_option(ps, o, arg, ps->invert);
			if (ret)
				return ret;
			ret = parse_tcp_flag_list(ps, arg, &mask);
			if (!ret)
				ret = parse_tcp_flag_list(ps, argv[(*ip)++],
							  &cmp);
			if (!ret)
				ret = set_tcp_flags(ps, mask, cmp,
						    NFHP_SYN_TCPFLAGS,
						    ps->invert);
			return ret;
		}
		return match_option(ps, o, arg, ps->invert);
	}
	if (is_cmd_letter(c)) {
		if (c == 'h' || c == 'V') {
			if (ps->cl->cmd != NFHP_CLI_NONE)
				return fail(ps, NFHP_EXIT_PARAM,
					    "Cannot use -%c with -%c", c,
					    cmd_letter(ps->cl->cmd));
			ps->cl->cmd = cmd_of(c);
			return 0;
		}
		return parse_command(ps, c, arg, argc, argv, ip);
	}
	return core_option(ps, c, arg, argc, argv, ip);
}

/*
 * Does an extension take the long option @name rather than the native
 * parser, which found @o (or found it ambiguous)?  An extension's option
 * given in full beats an abbreviated native one, and of two given in full
 * the one loaded last wins, as in iptables' merged option table; an
 * abbreviation of an extension's option counts only when no native
 * option matches.  Return 1 with @xo set, -1 when ambiguous, else 0.
 */
static int ext_lookup(struct pstate *ps, const char *name, size_t len,
		      const struct nfhp_opt *o, bool amb,
		      struct nfhp_ext_opt *xo)
{
	bool native_exact = o && strlen(o->name) == len;
	int ret;

	if (!parse_ext)
		return 0;
	ret = parse_ext->find_option(name, len, xo);
	if (ret > 0 && xo->exact) {
		if (!native_exact)
			return 1;
		return o->pm != PM_CORE && xo->seq > ps->pm_seq[o->pm];
	}
	if (o || amb)
		return 0;
	return ret;
}

/*
 * iptables' load_proto(): an option nobody knows loads the match of the
 * -p protocol, here for the protocols without a native match (sctp,
 * dccp, ...) and for tcp, udp and icmp when next_to_xt().  Return 1 with
 * @xo set when it takes the option, 0 when not, or -exit code.
 */
static int ext_implicit(struct pstate *ps, const char *name, size_t len,
			struct nfhp_ext_opt *xo)
{
	const char *pname;
	int pm, ret;

	if (!parse_ext || !ps->proto_set || ps->proto_inv || ps->proto_used)
		return 0;
	pm = proto_pm(ps, ps->proto);
	if (pm >= 0 && ((ps->loaded & (1u << pm)) || !next_to_xt(ps, pm)))
		return 0;
	pname = nfhp_proto_to_name(ps->proto, true);
	if (!pname)
		return 0;
	ret = parse_ext->match(pname, true, ++ps->seq, ps->err, ps->errlen);
	if (ret < 0)
		return 0;
	if (ret)
		return -ret;
	ps->proto_used = true;
	ps->xt_seen = true;
	return parse_ext->find_option(name, len, xo) > 0;
}

/* An extension's long option @w, with "=value" at @eq if given. */
static int ext_option(struct pstate *ps, const struct nfhp_ext_opt *xo,
		      const char *w, const char *eq, size_t len, int argc,
		      char **argv, int *ip)
{
	const char *arg = NULL;
	int ret;

	if (xo->has_arg == 1) {
		if (eq)
			arg = eq + 1;
		else if (*ip < argc)
			arg = argv[(*ip)++];
		else
			return fail(ps, NFHP_EXIT_PARAM,
				    "option \"%s\" requires an argument", w);
	} else if (eq) {
		if (xo->has_arg != 2)
			return fail(ps, NFHP_EXIT_PARAM,
				    "option '--%.*s' doesn't allow an argument",
				    (int)len, w + 2);
		arg = eq + 1;
	}
	ps->cl->has_rule = true;
	ret = parse_ext->option(xo->id, arg, argv, ip, ps->invert, ps->proto,
				ps->proto_inv, ps->err, ps->errlen);
	ps->invert = false;
	return ret;
}

/* One word of argv that starts with '-'. */
static int parse_word(struct pstate *ps, int argc, char **argv, int *ip)
{
	const char *w = argv[(*ip)++];
	const struct nfhp_opt *o;
	struct nfhp_ext_opt xo;
	const char *arg = NULL, *eq;
	size_t len;
	bool amb;
	int kind, ret, x;

	if (w[1] == '-') {
		eq = strchr(w + 2, '=');
		len = eq ? (size_t)(eq - (w + 2)) : strlen(w + 2);
		o = find_long(ps, w + 2, len, &amb);
		x = ext_lookup(ps, w + 2, len, o, amb, &xo);
		if (!o && !amb && !x)
			o = implicit_match(ps, w + 2, len);
		if (!o && !amb && !x)
			x = ext_implicit(ps, w + 2, len, &xo);
		if (x < -1)
			return -x;
		if (x > 0)
			return ext_option(ps, &xo, w, eq, len, argc, argv, ip);
		if (!o)
			return fail(ps, NFHP_EXIT_PARAM, "unknown option \"%s\"",
				    w);
		if (o->has_arg == required_argument) {
			if (eq)
				arg = eq + 1;
			else if (*ip < argc)
				arg = argv[(*ip)++];
			else
				return fail(ps, NFHP_EXIT_PARAM,
					    "option \"%s\" requires an argument",
					    w);
		} else if (eq && o->has_arg == optional_argument) {
			arg = eq + 1;
		} else if (eq) {
			return fail(ps, NFHP_EXIT_PARAM,
				    "option '--%.*s' doesn't allow an argument",
				    (int)len, w + 2);
		} else if (o->id == 'L' || o->id == 'S' || o->id == 'F' ||
			   o->id == 'Z' || o->id == 'X') {
			arg = NULL;
		}
		ret = do_option(ps, o->id, o, arg, argc, argv, ip);
		ps->invert = false;
		return ret;
	}
	/* Short options, possibly joined. */
	for (w++; *w; ) {
		int c = *w++;

		kind = short_arg_kind(c);
		if (kind < 0)
			return fail(ps, NFHP_EXIT_PARAM,
				    "unknown option \"-%c\"", c);
		arg = NULL;
		if (kind == 1) {
			if (*w)
				arg = w;
			else if (*ip < argc)
				arg = argv[(*ip)++];
			else
				return fail(ps, NFHP_EXIT_PARAM,
					    "option \"-%c\" requires an argument",
					    c);
			w = "";
		} else if (kind == 2 && *w) {
			arg = w;
			w = "";
		}
		ret = do_option(ps, c, NULL, arg, argc, argv, ip);
		ps->invert = false;
		if (ret)
			return ret;
	}
	return 0;
}

static bool builtin_chain(const char *name)
{
	return !strcmp(name, "INPUT") || !strcmp(name, "FORWARD") ||
	       !strcmp(name, "OUTPUT");
}

/*
 * spec->order: the native matches in the order they were loaded, which is
 * the order iptables-save prints them in; none when that is the canonical
 * order, so that a rule written in it packs as before and equals the same
 * rule from a client that sends no order (nf-hipac import).
 */
static void set_order(struct pstate *ps, struct nfhp_rule_spec *spec)
{
	unsigned int i, j, n = 0;
	bool canonical = true;
	u8 mods[PM_MAX];

	for (i = 0; i < PM_MAX; i++) {
		if (!(ps->loaded & (1u << i)))
			continue;
		for (j = n; j > 0 && ps->pm_seq[mods[j - 1]] > ps->pm_seq[i]; j--)
			mods[j] = mods[j - 1];
		mods[j] = i;
		n++;
	}
	for (i = 1; i < n; i++)
		if (nfhp_mod_group(mods[i]) < nfhp_mod_group(mods[i - 1]))
			canonical = false;
	spec->norder = 0;
	if (canonical || n > sizeof(spec->order))
		return;
	memcpy(spec->order, mods, n);
	spec->norder = n;
}

/* Does the rule match anything but every packet (-m comment aside)? */
static bool any_match(const struct pstate *ps)
{
	unsigned int d;

	for (d = 0; d < NFHP_DIM_MAX; d++)
		if (ps->have[d])
			return true;
	return ps->proto_given || ps->cl->spec.ext_len ||
	       (ps->loaded & ~(1u << PM_COMMENT));
}

/*
 * keep-state gives its states the rule's verdict, and CHECK-STATE is a
 * check point for every packet that reaches it: what the kernel refuses
 * with -EINVAL (NFHPA_RULE_STATE), in words.
 */
static int state_checks(struct pstate *ps)
{
	struct nfhp_rule_spec *spec = &ps->cl->spec;

	if (spec->state.mode == NFHP_RSTATE_CHECK) {
		if (any_match(ps))
			return fail(ps, NFHP_EXIT_PARAM,
				    "CHECK-STATE takes no match: it checks every packet that reaches it");
		return 0;
	}
	if (!(ps->loaded & (1u << PM_KEEP)))
		return 0;
	if (spec->action != NFHP_ACT_ACCEPT && spec->action != NFHP_ACT_DROP)
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: keep-state needs `-j ACCEPT' or `-j DROP' (the verdict its states give)");
	if (spec->state.limit_by && !spec->state.limit)
		return fail(ps, NFHP_EXIT_PARAM,
			    "keep-state: option \"--state-limit-by\" also requires \"--state-limit\".");
	if (spec->state.limit && !spec->state.limit_by)
		spec->state.limit_by = NFHP_STATE_LIMIT_SRC_ADDR;
	spec->state.mode = NFHP_RSTATE_KEEP;
	return 0;
}

/* What iptables checks once the whole line is read. */
static int final_checks(struct pstate *ps)
{
	struct nfhp_cmdline *cl = ps->cl;
	struct nfhp_rule_spec *spec = &cl->spec;
	bool rule_cmd;
	int ret;
	int d;

	if (ps->invert)
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: `!' at the end of the line negates nothing");
	if (ps->setm_open)
		return fail(ps, NFHP_EXIT_PARAM,
			    "You must specify `--match-set' with proper arguments");
	if ((ps->loaded & (1u << PM_STATE)) && !ps->have[NFHP_DIM_STATE])
		return fail(ps, NFHP_EXIT_PARAM,
			    "state: option \"--state\" must be specified");
	if ((ps->loaded & (1u << PM_CONNTRACK)) && !ps->have[NFHP_DIM_STATE])
		return fail(ps, NFHP_EXIT_PARAM,
			    "conntrack: At least one option is required");
	if ((ps->loaded & (1u << PM_TTL)) && !ps->ttl_opt)
		return fail(ps, NFHP_EXIT_PARAM,
			    "TTL match: You must specify one of `--ttl-eq', `--ttl-lt', `--ttl-gt");
	if ((ps->loaded & (1u << PM_LENGTH)) && !ps->have[NFHP_DIM_LEN])
		return fail(ps, NFHP_EXIT_PARAM,
			    "length: option \"--length\" must be specified");
	if ((ps->loaded & (1u << PM_MARK)) && !ps->have[NFHP_DIM_MARK])
		return fail(ps, NFHP_EXIT_PARAM,
			    "mark: option \"--mark\" must be specified");
	if ((ps->loaded & (1u << PM_COMMENT)) && !(ps->mseen &
						   (1u << (O_COMMENT - O_SPORT))))
		return fail(ps, NFHP_EXIT_PARAM,
			    "comment: option \"--comment\" must be specified");
	if ((ps->loaded & (1u << PM_IPRANGE)) &&
	    !(ps->mseen & (3u << (O_SRCRANGE - O_SPORT))))
		return fail(ps, NFHP_EXIT_PARAM,
			    "iprange match: You must specify `--src-range' or `--dst-range'");
	if ((ps->loaded & (1u << PM_MULTIPORT)) && !ps->mp_opt)
		return fail(ps, NFHP_EXIT_PARAM,
			    "multiport: no ports specified");
	/* The protocol matches need their protocol, not negated. */
	if ((ps->loaded & (1u << PM_TCP)) && (ps->proto != 6 ||
					      ps->proto_inv || !ps->proto_set))
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: match `tcp' needs `-p tcp'");
	if ((ps->loaded & (1u << PM_UDP)) && (ps->proto != 17 ||
					      ps->proto_inv || !ps->proto_set))
		return fail(ps, NFHP_EXIT_PARAM,
			    "nf-hipac: match `udp' needs `-p udp'");
	if ((ps->loaded & (1u << PM_ICMP)) &&
	    (ps->proto != (ps->cl->family == NFHP_FAMILY_IPV6 ? 58 : 1) ||
	     ps->proto_inv || !ps->proto_set))
		return fail(ps, NFHP_EXIT_PARAM,
			    ps->cl->family == NFHP_FAMILY_IPV6 ?
			    "nf-hipac: match `icmp6' needs `-p ipv6-icmp'" :
			    "nf-hipac: match `icmp' needs `-p icmp'");
	ret = bare_proto_match(ps);
	if (ret)
		return ret;
	if (parse_ext) {
		ret = parse_ext->finish(spec, ps->proto, ps->proto_inv,
					ps->err, ps->errlen);
		if (ret)
			return ret;
	}

	if (cl->cmd == NFHP_CLI_NONE)
		return fail(ps, NFHP_EXIT_PARAM, "no command specified");
	if (nfhp_cmdline_rules(cl) > 1 && ps->addr_inv)
		return fail(ps, NFHP_EXIT_PARAM,
			    "! not allowed with multiple source or destination IP addresses");
	if (nfhp_cmdline_rules(cl) > 1 && cl->cmd == NFHP_CLI_REPLACE)
		return fail(ps, NFHP_EXIT_PARAM,
			    "Replacement rule does not specify a unique address");
	rule_cmd = cl->cmd == NFHP_CLI_APPEND || cl->cmd == NFHP_CLI_INSERT ||
		   cl->cmd == NFHP_CLI_REPLACE || cl->cmd == NFHP_CLI_CHECK ||
		   (cl->cmd == NFHP_CLI_DELETE && !cl->pos);
	if (cl->has_rule && !rule_cmd)
		return fail(ps, NFHP_EXIT_PARAM,
			    "Illegal option with this command");
	if (cl->cmd == NFHP_CLI_DELETE && cl->pos && cl->has_rule)
		return fail(ps, NFHP_EXIT_PARAM,
			    "Illegal option with this command");
	if (cl->has_counters && cl->cmd != NFHP_CLI_APPEND &&
	    cl->cmd != NFHP_CLI_INSERT && cl->cmd != NFHP_CLI_REPLACE &&
	    cl->cmd != NFHP_CLI_POLICY)
		return fail(ps, NFHP_EXIT_PARAM,
			    "Illegal option `-c' with this command");
	if (rule_cmd) {
		cl->has_rule = true;
		if (ps->have[NFHP_DIM_OIF] && !strcmp(cl->chain, "INPUT"))
			return fail(ps, NFHP_EXIT_PARAM,
				    "Can't use -o with INPUT");
		if (ps->have[NFHP_DIM_IIF] && !strcmp(cl->chain, "OUTPUT"))
			return fail(ps, NFHP_EXIT_PARAM,
				    "Can't use -i with OUTPUT");
	}
	if (cl->cmd == NFHP_CLI_POLICY && !builtin_chain(cl->chain))
		return fail(ps, NFHP_EXIT_OTHER, "Bad built-in chain name.");
	if (rule_cmd) {
		ret = state_checks(ps);
		if (ret)
			return ret;
	}
	spec->nmatch = 0;
	for (d = 0; d < NFHP_DIM_MAX; d++)
		if (ps->have[d])
			dim_copy(&spec->m[spec->nmatch++], &ps->m[d]);
	set_order(ps, spec);
	return 0;
}

/* One pass over the command line, with @ps fresh but for xt_force. */
static int parse_pass(struct pstate *ps, int argc, char **argv)
{
	int i = 1, ret = 0;

	if (parse_ext)
		parse_ext->begin();
	while (i < argc && !ret) {
		const char *w = argv[i];

		if (!strcmp(w, "!")) {
			if (ps->invert)
				ret = fail(ps, NFHP_EXIT_PARAM,
					   "multiple consecutive ! not allowed");
			ps->invert = true;
			i++;
		} else if (w[0] == '-' && w[1]) {
			ret = parse_word(ps, argc, argv, &i);
		} else {
			ret = fail(ps, NFHP_EXIT_PARAM, "Bad argument `%s'", w);
		}
	}
	if (!ret)
		ret = final_checks(ps);
	return ret;
}

/*
 * Empty @cl and @ps for a pass.  Their match arrays and the extension
 * buffer are most of their 19 KiB, and a restore parses a line at a time:
 * those are written before they are read (dim_new(), the copy at the end
 * of parse_pass(), @ext_len), so they are left alone.
 */
static void pass_reset(struct nfhp_cmdline *cl, struct pstate *ps)
{
	struct nfhp_rule_spec *spec = &cl->spec;

	_Static_assert(offsetof(struct nfhp_cmdline, spec) + sizeof(*spec) ==
		       sizeof(*cl), "spec ends struct nfhp_cmdline");
	_Static_assert(offsetof(struct nfhp_rule_spec, ext) +
		       sizeof(spec->ext) == sizeof(*spec),
		       "ext ends struct nfhp_rule_spec");
	memset(cl, 0, offsetof(struct nfhp_cmdline, spec));
	memset(spec, 0, offsetof(struct nfhp_rule_spec, m));
	memset(spec->target, 0, offsetof(struct nfhp_rule_spec, ext) -
				offsetof(struct nfhp_rule_spec, target));
	memset(ps, 0, offsetof(struct pstate, m));
	memset(&ps->target_set, 0,
	       sizeof(*ps) - offsetof(struct pstate, target_set));
}

/*
 * The family of a command line: IPv6 under a name that starts with
 * "nf-hipac6" or "ip6tables", else IPv4; -6 (--ipv6) and -4 (--ipv4)
 * anywhere choose.  Known before the pass, so that "-s" reads its address
 * in the family whatever comes first.
 */
u8 nfhp_cmdline_family(int argc, char **argv)
{
	const char *name = argc ? strrchr(argv[0], '/') : NULL;
	u8 family;
	int i;

	name = name ? name + 1 : argc ? argv[0] : "";
	family = strncmp(name, "nf-hipac6", 9) && strncmp(name, "ip6tables", 9) ?
		 NFHP_FAMILY_IPV4 : NFHP_FAMILY_IPV6;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-6") || !strcmp(argv[i], "--ipv6"))
			family = NFHP_FAMILY_IPV6;
		else if (!strcmp(argv[i], "-4") || !strcmp(argv[i], "--ipv4"))
			family = NFHP_FAMILY_IPV4;
	}
	return family;
}

int nfhp_parse_cmdline(int argc, char **argv, struct nfhp_cmdline *cl,
		       char *err, size_t errlen)
{
	unsigned long long force = 0;
	struct pstate *ps;
	char dummy[2];
	int ret;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	ps = malloc(sizeof(*ps));
	if (!ps) {
		memset(cl, 0, sizeof(*cl));
		snprintf(err, errlen, "out of memory");
		return NFHP_EXIT_RESOURCE;
	}
	do {
		err[0] = 0;
		pass_reset(cl, ps);
		cl->family = nfhp_cmdline_family(argc, argv);
		ps->cl = cl;
		ps->err = err;
		ps->errlen = errlen;
		ps->xt_force = force;
		ret = parse_pass(ps, argc, argv);
		force |= 1ULL << ps->retry_seq;
	} while (ret == PARSE_RETRY);
	free(ps);
	return ret;
}

int nfhp_split_line(char *buf, char **argv, int max)
{
	char *r = buf, *w = buf;
	int argc = 0;

	for (;;) {
		char quote = 0;

		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (!*r)
			break;
		if (argc == max)
			return -1;
		argv[argc++] = w;
		while (*r) {
			if (quote) {
				if (*r == '\\' && r[1]) {
					*w++ = r[1];
					r += 2;
				} else if (*r == quote) {
					quote = 0;
					r++;
				} else {
					*w++ = *r++;
				}
			} else if (*r == '"' || *r == '\'') {
				quote = *r++;
			} else if (*r == ' ' || *r == '\t' || *r == '\n' ||
				   *r == '\r') {
				break;
			} else {
				*w++ = *r++;
			}
		}
		if (quote)
			return -1;
		if (*r)
			r++;
		*w++ = 0;
	}
	return argc;
}

static int parse_counter_pair(const char *s, struct nfhp_counter *c,
			      const char **end)
{
	unsigned long long p, b;
	int n = 0;

	if (sscanf(s, "[%llu:%llu]%n", &p, &b, &n) != 2 || !n)
		return -1;
	c->packets = p;
	c->bytes = b;
	if (end)
		*end = s + n;
	return 0;
}

#define NFHP_MAX_ARGS 256

static int restore_line(char *line, unsigned int lineno, u8 family,
			const struct nfhp_restore_ops *ops, void *ctx,
			bool *in_table, struct nfhp_cmdline *cl, char *err,
			size_t errlen)
{
	char *argv[NFHP_MAX_ARGS + 1];
	char msg[512];
	struct nfhp_counter cnt;
	const char *rest;
	bool has_cnt = false;
	unsigned int i;
	int argc, ret;
	char *p;

	p = line + strlen(line);
	while (p > line && (p[-1] == '\n' || p[-1] == '\r' || p[-1] == ' ' ||
			    p[-1] == '\t'))
		*--p = 0;
	while (*line == ' ' || *line == '\t')
		line++;
	if (!*line || *line == '#')
		return 0;
	if (*line == '*') {
		if (*in_table) {
			snprintf(err, errlen, "line %u: COMMIT expected",
				 lineno);
			return NFHP_EXIT_OTHER;
		}
		if (strcmp(line + 1, "filter")) {
			snprintf(err, errlen,
				 "line %u: table `%s' is not supported, only `filter'",
				 lineno, line + 1);
			return NFHP_EXIT_OTHER;
		}
		*in_table = true;
		return ops->table ? ops->table(ctx, line + 1) : 0;
	}
	if (!*in_table) {
		ret = ops->outside ? ops->outside(ctx, line) : -1;
		if (ret >= 0)
			return ret;
		snprintf(err, errlen, "line %u: no table specified", lineno);
		return NFHP_EXIT_OTHER;
	}
	if (!strcmp(line, "COMMIT")) {
		*in_table = false;
		return ops->commit ? ops->commit(ctx) : 0;
	}
	if (*line == ':') {
		char *name = line + 1, *pol, *cnts;
		u8 policy;

		pol = strpbrk(name, " \t");
		if (!pol) {
			snprintf(err, errlen, "line %u: no policy for chain",
				 lineno);
			return NFHP_EXIT_OTHER;
		}
		*pol++ = 0;
		while (*pol == ' ' || *pol == '\t')
			pol++;
		cnts = strpbrk(pol, " \t");
		if (cnts) {
			*cnts++ = 0;
			while (*cnts == ' ' || *cnts == '\t')
				cnts++;
		}
		if (strlen(name) >= NFHP_EXT_NAMELEN) {
			snprintf(err, errlen,
				 "line %u: chain name `%s' too long (must be under %u chars)",
				 lineno, name, NFHP_EXT_NAMELEN);
			return NFHP_EXIT_PARAM;
		}
		if (!strcmp(pol, "-")) {
			policy = NFHP_ACT_NONE;
		} else if (!strcmp(pol, "ACCEPT")) {
			policy = NFHP_ACT_ACCEPT;
		} else if (!strcmp(pol, "DROP")) {
			policy = NFHP_ACT_DROP;
		} else {
			snprintf(err, errlen, "line %u: Bad policy name `%s'",
				 lineno, pol);
			return NFHP_EXIT_OTHER;
		}
		if (policy != NFHP_ACT_NONE && !builtin_chain(name)) {
			snprintf(err, errlen,
				 "line %u: Can't set policy `%s' on `%s'",
				 lineno, pol, name);
			return NFHP_EXIT_OTHER;
		}
		if (cnts && *cnts) {
			if (parse_counter_pair(cnts, &cnt, NULL)) {
				snprintf(err, errlen,
					 "line %u: invalid counters `%s'",
					 lineno, cnts);
				return NFHP_EXIT_PARAM;
			}
			has_cnt = true;
		}
		return ops->chain ? ops->chain(ctx, name, policy,
					       has_cnt ? &cnt : NULL) : 0;
	}
	if (*line == '[') {
		if (parse_counter_pair(line, &cnt, &rest)) {
			snprintf(err, errlen, "line %u: invalid counters",
				 lineno);
			return NFHP_EXIT_PARAM;
		}
		has_cnt = true;
		line = (char *)rest;
	}
	argv[0] = family == NFHP_FAMILY_IPV6 ? "ip6tables-restore" :
					       "iptables-restore";
	argc = nfhp_split_line(line, argv + 1, NFHP_MAX_ARGS - 1);
	if (argc < 0) {
		snprintf(err, errlen, "line %u: too many arguments or unterminated quote",
			 lineno);
		return NFHP_EXIT_PARAM;
	}
	argv[argc + 1] = NULL;
	ret = nfhp_parse_cmdline(argc + 1, argv, cl, msg, sizeof(msg));
	if (ret) {
		snprintf(err, errlen, "line %u: %s", lineno, msg);
		return ret;
	}
	/* As ip6tables-restore skips "-4" lines, and iptables-restore "-6". */
	if (cl->family != family)
		return 0;
	if (has_cnt) {
		cl->has_counters = true;
		cl->counters = cnt;
	}
	/* A rule per address pair, as iptables-restore adds them. */
	for (i = 0, ret = 0; i < nfhp_cmdline_rules(cl) && !ret; i++) {
		nfhp_cmdline_select(cl, i);
		ret = ops->cmd ? ops->cmd(ctx, cl) : 0;
	}
	return ret;
}

int nfhp_parse_save_stream(FILE *f, u8 family,
			   const struct nfhp_restore_ops *ops, void *ctx,
			   char *err, size_t errlen)
{
	struct nfhp_cmdline *cl;
	unsigned int lineno = 0;
	bool in_table = false;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;
	char dummy[2];

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = 0;
	cl = malloc(sizeof(*cl));
	if (!cl) {
		snprintf(err, errlen, "out of memory");
		return NFHP_EXIT_RESOURCE;
	}
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		ret = restore_line(line, lineno, family, ops, ctx, &in_table,
				   cl, err, errlen);
		if (ret) {
			if (!err[0])
				snprintf(err, errlen, "line %u failed",
					 lineno);
			goto out;
		}
	}
	if (in_table) {
		snprintf(err, errlen, "line %u: COMMIT expected", lineno);
		ret = NFHP_EXIT_OTHER;
	}
out:
	free(line);
	free(cl);
	return ret;
}
