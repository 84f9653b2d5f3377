// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: named sets in ipset's words (see set_parse.h).
 *
 * The messages are those of ipset v7.17 for the same mistakes, without
 * the "ipset v7.17: " its caller puts first, so that scripts that look
 * at them keep working.
 */
#include "set_parse.h"
#include "set_iface.h"
#include "set_port.h"
#include "parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

/**
 * nfhp_set_errmsg() - write ipset's message of a failure
 * @err: where
 * @len: its room
 * @fmt: the message, printf's way
 */
void nfhp_set_errmsg(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* The algorithms of each type, the ipset type name's first. */
static const struct {
	const char *name;
	u8 type;
	const char *algo;
} typenames[] = {
	{ "hash:ip", NFHP_SET_ADDR, "hash" },
	{ "hash:net", NFHP_SET_ADDR, "lpm" },
	{ "bitmap:port", NFHP_SET_NUMBER, "bitmap" },
	{ "bitmap:port", NFHP_SET_NUMBER, "range" },
	{ "hash:ip,port", NFHP_SET_FLOW, "hash" },
	{ "hash:net,port", NFHP_SET_FLOW, "lpm" },
	/* nf-hipac's own: interface names, "eth0" and "eth+". */
	{ "hash:iface", NFHP_SET_IFACE, "hash" },
	{ "hash:iface", NFHP_SET_IFACE, "lpm" },
};

/* The highest port, and the range a bitmap:port set is listed with. */
#define PORT_MAX	65535u

/**
 * nfhp_set_parse_typename() - the type and algorithm of an ipset type name
 * @s: "hash:ip", "hash:net", "bitmap:port", "hash:ip,port",
 *	"hash:net,port" or "hash:iface"
 * @type: set to &enum nfhp_set_type
 * @algo: set to the algorithm, "hash", "lpm" or "bitmap"
 *
 * Return: false for a type nf-hipac has no sets of.
 */
bool nfhp_set_parse_typename(const char *s, u8 *type, const char **algo)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(typenames); i++) {
		if (!strcmp(s, typenames[i].name)) {
			*type = typenames[i].type;
			*algo = typenames[i].algo;
			return true;
		}
	}
	return false;
}

/**
 * nfhp_set_typename() - the ipset type name of a set
 * @info: the set
 *
 * Return: "hash:ip" for hosts in a hash, "hash:net" for prefixes,
 * "bitmap:port" for numbers, "hash:ip,port" and "hash:net,port" for
 * flows, "hash:iface" for interface names.
 */
const char *nfhp_set_typename(const struct nfhp_set_info *info)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(typenames); i++)
		if (typenames[i].type == info->type &&
		    !strcmp(info->algo, typenames[i].algo))
			return typenames[i].name;
	return info->algo;
}

/* Is @algo an algorithm of @type? */
static bool algo_of_type(const char *algo, u8 type)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(typenames); i++)
		if (typenames[i].type == type &&
		    !strcmp(algo, typenames[i].algo))
			return true;
	return false;
}

/*
 * Does a save name @info's algorithm?  Not when its type name stands
 * for it (the first algorithm of the name), as bitmap:port for "bitmap".
 */
static bool algo_named(const struct nfhp_set_info *info)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(typenames); i++)
		if (!strcmp(nfhp_set_typename(info), typenames[i].name))
			return strcmp(info->algo, typenames[i].algo);
	return false;
}

/**
 * nfhp_set_algo_number() - is an algorithm one of the number type's?
 * @algo: its name
 *
 * Return: true for "bitmap" and "range".
 */
bool nfhp_set_algo_number(const char *algo)
{
	return algo_of_type(algo, NFHP_SET_NUMBER);
}

/* An unsigned number of ipset's syntax in [0, max], or an exit code. */
static int parse_num(const char *s, unsigned long long max,
		     unsigned long long *v, char *err, size_t errlen)
{
	char *end;

	errno = 0;
	if (*s == '-' || *s == '+') {
		nfhp_set_errmsg(err, errlen,
				"Syntax error: '%s' is out of range 0-%llu",
		    s, max);
		return NFHP_SET_EXIT_ERR;
	}
	*v = strtoull(s, &end, 0);
	if (!*s || *end) {
		nfhp_set_errmsg(err, errlen,
				"Syntax error: '%s' is invalid as number", s);
		return NFHP_SET_EXIT_ERR;
	}
	if (errno || *v > max) {
		nfhp_set_errmsg(err, errlen,
				"Syntax error: '%s' is out of range 0-%llu",
		    s, max);
		return NFHP_SET_EXIT_ERR;
	}
	return 0;
}

/* The argument of option @opt, or NULL with ipset's message. */
static const char *opt_arg(int argc, char **argv, int *i, char *err,
			   size_t errlen)
{
	if (*i + 1 >= argc) {
		nfhp_set_errmsg(err, errlen,
				"Missing mandatory argument of option `%s'",
		    argv[*i]);
		return NULL;
	}
	return argv[++*i];
}

/* -exist, --exist, -! */
static bool is_exist(const char *s)
{
	return !strcmp(s, "-exist") || !strcmp(s, "--exist") ||
	       !strcmp(s, "-!");
}

/* "timeout N": nf-hipac's sets have no timeouts, so only 0 is taken. */
static int parse_timeout(const char *s, char *err, size_t errlen)
{
	unsigned long long v;
	int ret = parse_num(s, 2147483, &v, err, errlen);

	if (ret)
		return ret;
	if (v) {
		nfhp_set_errmsg(err, errlen,
		    "Syntax error: nf-hipac sets have no timeouts: only timeout 0 is supported");
		return NFHP_SET_EXIT_ERR;
	}
	return 0;
}

/*
 * A number set's "range [PROTO:]FIRST-LAST" (or a single one), first no
 * greater than last, into @info: numbers or service names, as an entry's.
 * Whether a bitmap's are ports is checked once the algorithm is known.
 * 0 or an exit code.
 */
static int parse_num_range(const char *s, struct nfhp_set_info *info,
			   char *err, size_t errlen)
{
	u32 lo, hi;

	if (nfhp_set_parse_tcp_udp_port(s, 0xffffffffu, &lo, &hi, err,
					errlen))
		return NFHP_SET_EXIT_ERR;
	if (lo > hi) {
		nfhp_set_errmsg(err, errlen,
		    "Syntax error: the range %s ends before it begins", s);
		return NFHP_SET_EXIT_ERR;
	}
	info->ranged = true;
	info->range_lo = lo;
	info->range_hi = hi;
	return 0;
}

/*
 * A bitmap holds ports: its range is ports, 0-65535 when none is given
 * (ipset's bitmap:port needs one).  "range" takes any u32, all of them
 * when no range is given.  A number set's range is always set, as the
 * kernel lists it.  0 or an exit code.
 */
static int check_num_range(struct nfhp_set_info *info, char *err,
			   size_t errlen)
{
	bool bitmap = !strcmp(info->algo, "bitmap");

	if (info->type != NFHP_SET_NUMBER)
		return 0;
	if (!info->ranged) {
		info->ranged = true;
		info->range_lo = 0;
		info->range_hi = bitmap ? PORT_MAX : 0xffffffffu;
	} else if (bitmap && info->range_hi > PORT_MAX) {
		nfhp_set_errmsg(err, errlen,
		    "Syntax error: '%u' is out of range 0-%u",
		    info->range_hi, PORT_MAX);
		return NFHP_SET_EXIT_ERR;
	}
	return 0;
}

/**
 * nfhp_set_parse_create() - the options of a create
 * @argc: number of options
 * @argv: the options after NAME TYPE
 * @info: the set, whose name, type and algorithm are set; its family,
 *	limit, flags and algorithm are filled in
 * @exist: set for -exist
 * @err: ipset's message on failure
 * @errlen: its room
 *
 * ipset's "family inet|inet6", "maxelem N", "hashsize N", "timeout 0",
 * "counters" (%NFHP_SET_F_COUNTERS), "comment", "bucketsize N" and
 * "initval N" (what ipset save prints) are taken, the last four without
 * effect, plus nf-hipac's "algo hash|lpm" ("algo bitmap|range" for
 * bitmap:port), "limit N" (maxelem's twin) and "locked".  Without
 * maxelem or limit the set holds
 * %NFHP_SET_DEFAULT_LIMIT entries, as ipset's; a limit of 0 is none.
 * bitmap:port takes ipset's "range [PROTO:]FIRST-LAST", ports by number
 * or service name, 0-65535 when absent; with "algo range" the range may
 * hold any u32, all of them when absent.  The kernel refuses entries
 * outside it.
 *
 * Return: 0, or an exit code.
 */
int nfhp_set_parse_create(int argc, char **argv, struct nfhp_set_info *info,
			  bool *exist, char *err, size_t errlen)
{
	unsigned long long v;
	const char *a;
	int i, ret;

	if (!info->family)
		info->family = NFHP_FAMILY_IPV4;
	info->limit = NFHP_SET_DEFAULT_LIMIT;
	for (i = 0; i < argc; i++) {
		const char *o = argv[i];

		if (is_exist(o)) {
			*exist = true;
			continue;
		}
		if (!strcmp(o, "comment") || !strcmp(o, "forceadd"))
			continue;
		if (!strcmp(o, "locked")) {
			info->flags |= NFHP_SET_F_LOCKED;
			continue;
		}
		if (!strcmp(o, "counters")) {
			info->flags |= NFHP_SET_F_COUNTERS;
			continue;
		}
		if (strcmp(o, "family") && strcmp(o, "maxelem") &&
		    strcmp(o, "limit") && strcmp(o, "hashsize") &&
		    strcmp(o, "timeout") && strcmp(o, "algo") &&
		    strcmp(o, "bucketsize") && strcmp(o, "initval") &&
		    (strcmp(o, "range") || info->type != NFHP_SET_NUMBER)) {
			nfhp_set_errmsg(err, errlen,
					"Unknown argument: `%s'", o);
			return NFHP_SET_EXIT_PARAM;
		}
		a = opt_arg(argc, argv, &i, err, errlen);
		if (!a)
			return NFHP_SET_EXIT_PARAM;
		if (!strcmp(o, "family")) {
			if (!strcmp(a, "inet") || !strcmp(a, "ipv4")) {
				info->family = NFHP_FAMILY_IPV4;
			} else if (!strcmp(a, "inet6") || !strcmp(a, "ipv6")) {
				info->family = NFHP_FAMILY_IPV6;
			} else {
				nfhp_set_errmsg(err, errlen,
				    "Syntax error: unknown inet family %s", a);
				return NFHP_SET_EXIT_ERR;
			}
		} else if (!strcmp(o, "maxelem") || !strcmp(o, "limit")) {
			ret = parse_num(a, 0xffffffffULL, &v, err, errlen);
			if (ret)
				return ret;
			info->limit = v;
		} else if (!strcmp(o, "timeout")) {
			ret = parse_timeout(a, err, errlen);
			if (ret)
				return ret;
		} else if (!strcmp(o, "algo")) {
			if (!algo_of_type(a, info->type)) {
				nfhp_set_errmsg(err, errlen,
				    "Syntax error: unknown algorithm %s (%s)",
				    a, info->type == NFHP_SET_NUMBER ?
				    "bitmap or range" : "hash or lpm");
				return NFHP_SET_EXIT_ERR;
			}
			snprintf(info->algo, sizeof(info->algo), "%s", a);
		} else if (!strcmp(o, "range")) {
			ret = parse_num_range(a, info, err, errlen);
			if (ret)
				return ret;
		} else {
			/* hashsize, bucketsize, initval: the kernel sizes. */
			ret = parse_num(a, 0xffffffffULL, &v, err, errlen);
			if (ret)
				return ret;
		}
	}
	return check_num_range(info, err, errlen);
}

static unsigned int family_bits(u8 family)
{
	return family == NFHP_FAMILY_IPV6 ? 128 : 32;
}

static nfhp_u128 host_mask(unsigned int bits, unsigned int plen)
{
	/* The bits below a prefix of @plen in a @bits wide address. */
	if (plen >= bits)
		return 0;
	if (bits - plen >= 128)
		return ~(nfhp_u128)0;
	return ((nfhp_u128)1 << (bits - plen)) - 1;
}

/* One address of @family, host order, an IPv4 one in the low bits. */
static bool parse_addr(const char *s, u8 family, nfhp_u128 *addr)
{
	unsigned char b[16];
	unsigned int i, n = family == NFHP_FAMILY_IPV6 ? 16 : 4;

	if (inet_pton(family == NFHP_FAMILY_IPV6 ? AF_INET6 : AF_INET, s,
		      b) != 1)
		return false;
	*addr = 0;
	for (i = 0; i < n; i++)
		*addr = *addr << 8 | b[i];
	return true;
}

static int bad_addr(const char *s, u8 family, char *err, size_t errlen)
{
	nfhp_set_errmsg(err, errlen,
	    "Syntax error: cannot parse %s: resolving to %s address failed",
	    s, family == NFHP_FAMILY_IPV6 ? "IPv6" : "IPv4");
	return -EINVAL;
}

/* Each key of [@lo, @hi], as hosts or as the fewest prefixes. */
static int walk_range(nfhp_u128 lo, nfhp_u128 hi, unsigned int bits,
		      bool hosts,
		      int (*fn)(void *data, const struct nfhp_set_entry *e),
		      void *data)
{
	struct nfhp_set_entry e = {};
	int ret;

	for (;;) {
		unsigned int size = 0;	/* log2 of the block at lo */

		while (!hosts && size < bits &&
		       !(lo & ((nfhp_u128)1 << size)) &&
		       lo + host_mask(bits, bits - size - 1) <= hi &&
		       lo + host_mask(bits, bits - size - 1) >= lo)
			size++;
		e.addr = lo;
		e.plen = bits - size;
		ret = fn(data, &e);
		if (ret)
			return ret;
		if (lo + host_mask(bits, bits - size) >= hi)
			return 0;
		lo += host_mask(bits, bits - size) + 1;
	}
}

/**
 * nfhp_set_range_prefixes() - the prefixes of an address range
 * @lo: the first address, host order, an IPv4 one in the low 32 bits
 * @hi: the last, at least @lo
 * @family: &enum nfhp_family
 * @fn: called for each prefix, in order
 * @data: its argument
 *
 * The fewest prefixes that cover [@lo, @hi] exactly, as an "lpm" set
 * takes a range.
 *
 * Return: 0, or @fn's non-zero value.
 */
int nfhp_set_range_prefixes(nfhp_u128 lo, nfhp_u128 hi, u8 family,
			    int (*fn)(void *data,
				      const struct nfhp_set_entry *e),
			    void *data)
{
	return walk_range(lo, hi, family_bits(family), false, fn, data);
}

/*
 * A number set's element, "[PROTO:]N" or "[PROTO:]FIRST-LAST" (either
 * way round, as ipset takes them), numbers or service names, as one key:
 * ports below 65536 for "bitmap".
 */
static int parse_num_elem(const char *s, const char *algo,
			  int (*fn)(void *data, const struct nfhp_set_entry *e),
			  void *data, char *err, size_t errlen)
{
	u32 max = strcmp(algo, "bitmap") ? 0xffffffffu : PORT_MAX;
	struct nfhp_set_entry e = {};
	u32 lo, hi;

	if (nfhp_set_parse_tcp_udp_port(s, max, &lo, &hi, err, errlen))
		return -EINVAL;
	e.addr = lo < hi ? lo : hi;
	e.hi = lo < hi ? hi : lo;
	return fn(data, &e);
}

/**
 * parse_addr_elem() - the keys of an address element
 * @s: "ADDR", "ADDR/PLEN" or "FIRST-LAST" (IPv4)
 * @family: the set's &enum nfhp_family
 * @hosts: the set takes hosts only: a prefix or range stands for each
 * @fn: called for each key
 * @data: its argument
 * @err: ipset's message on failure
 * @errlen: its room
 *
 * Return: 0, @fn's non-zero value, or -EINVAL.
 */
static int parse_addr_elem(const char *s, u8 family, bool hosts,
			   int (*fn)(void *data,
				     const struct nfhp_set_entry *e),
			   void *data, char *err, size_t errlen)
{
	unsigned int bits = family_bits(family);
	char buf[INET6_ADDRSTRLEN + 8];
	nfhp_u128 lo, hi;
	char *slash, *dash;

	if (strlen(s) >= sizeof(buf))
		return bad_addr(s, family, err, errlen);
	strcpy(buf, s);
	slash = strchr(buf, '/');
	dash = family == NFHP_FAMILY_IPV4 ? strchr(buf, '-') : NULL;
	if (slash && dash)
		return bad_addr(s, family, err, errlen);
	if (family == NFHP_FAMILY_IPV6 && hosts && (slash || strchr(s, '-'))) {
		nfhp_set_errmsg(err, errlen,
		    "Syntax error: plain IP address must be supplied: %s", s);
		return -EINVAL;
	}
	if (slash)
		*slash++ = '\0';
	if (dash)
		*dash++ = '\0';
	if (!parse_addr(buf, family, &lo) ||
	    (dash && !parse_addr(dash, family, &hi)))
		return bad_addr(s, family, err, errlen);
	if (slash) {
		unsigned long long plen;

		if (!*slash)
			return bad_addr(s, family, err, errlen);
		if (parse_num(slash, 255, &plen, err, errlen))
			return -EINVAL;
		if (plen > bits) {
			nfhp_set_errmsg(err, errlen,
			    "Syntax error: '%llu' is out of range 0-%u",
			    plen, bits);
			return -EINVAL;
		}
		lo &= ~host_mask(bits, plen);
		hi = lo | host_mask(bits, plen);
		if (!hosts) {
			struct nfhp_set_entry e = { .addr = lo, .plen = plen };

			return fn(data, &e);
		}
	} else if (!dash) {
		hi = lo;
	} else if (hi < lo) {
		nfhp_u128 t = lo;	/* ipset takes them either way */

		lo = hi;
		hi = t;
	}
	if (hosts && hi - lo >= NFHP_SET_MAX_EXPAND) {
		nfhp_set_errmsg(err, errlen,
		    "Syntax error: %s stands for more than %u hosts", s,
		    NFHP_SET_MAX_EXPAND);
		return -EINVAL;
	}
	return walk_range(lo, hi, bits, hosts, fn, data);
}

/**
 * struct flow_ctx - the keys of a flow element, address by address
 * @port: its protocol and ports
 * @fn: called for each key
 * @data: its argument
 * @prefixes: the set holds prefixes, 1 to the family's width long
 * @bad_plen: a prefix of length 0 came up
 */
struct flow_ctx {
	struct nfhp_set_port port;
	int (*fn)(void *data, const struct nfhp_set_entry *e);
	void *data;
	bool prefixes;
	bool bad_plen;
};

/* Each port of the element with the address or prefix @e. */
static int flow_addr_cb(void *data, const struct nfhp_set_entry *e)
{
	struct flow_ctx *f = data;
	struct nfhp_set_entry k = *e;
	u32 p;
	int ret;

	if (f->prefixes && !e->plen) {
		f->bad_plen = true;
		return -EINVAL;
	}
	k.proto = f->port.proto;
	for (p = f->port.lo; p <= f->port.hi; p++) {
		k.port = p;
		ret = f->fn(f->data, &k);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A flow set's element, "ADDR-PART,[PROTO:]PORT[-PORT]": a key for each
 * address (or prefix of "lpm") and each port, addresses outer, as ipset
 * adds them.
 */
static int parse_flow_elem(const char *s, u8 family, const char *algo,
			   int (*fn)(void *data,
				     const struct nfhp_set_entry *e),
			   void *data, char *err, size_t errlen)
{
	struct flow_ctx f = { .fn = fn, .data = data,
			      .prefixes = strcmp(algo, "hash") };
	char buf[INET6_ADDRSTRLEN + 8];
	const char *comma = strchr(s, ',');
	int ret;

	if (!comma) {
		nfhp_set_errmsg(err, errlen,
		    "Syntax error: Second element is missing from %s.", s);
		return -EINVAL;
	}
	if ((size_t)(comma - s) >= sizeof(buf))
		return bad_addr(s, family, err, errlen);
	snprintf(buf, sizeof(buf), "%.*s", (int)(comma - s), s);
	if (nfhp_set_parse_port(comma + 1, family, &f.port, err, errlen))
		return -EINVAL;
	ret = parse_addr_elem(buf, family, !f.prefixes, flow_addr_cb, &f, err,
			      errlen);
	if (f.bad_plen) {
		/* The kernel's answer in ipset. */
		nfhp_set_errmsg(err, errlen,
		    "The value of the CIDR parameter of the IP address is invalid");
		return -EINVAL;
	}
	return ret;
}

/*
 * An interface set's element, "eth0", "eth+" or "+", as one key; ipset's
 * message for a name of IFNAMSIZ bytes or more.
 */
static int parse_iface_elem(const char *s,
			    int (*fn)(void *data,
				      const struct nfhp_set_entry *e),
			    void *data, char *err, size_t errlen)
{
	struct nfhp_set_entry e = {};

	if (strlen(s) > NFHP_IFACE_MAXLEN) {
		nfhp_set_errmsg(err, errlen,
		    "Syntax error: interface name '%s' is longer than %u characters",
		    s, NFHP_IFACE_MAXLEN);
		return -EINVAL;
	}
	if (!nfhp_iface_key_parse(s, &e.addr, &e.plen)) {
		nfhp_set_errmsg(err, errlen,
		    "Syntax error: cannot parse %s as interface name", s);
		return -EINVAL;
	}
	return fn(data, &e);
}

/**
 * nfhp_set_parse_elem() - the keys of an element
 * @s: "ADDR", "ADDR/PLEN" or "FIRST-LAST" (IPv4); of a flow set that
 *	and ",[PROTO:]PORT[-PORT]"; of a number set "[PROTO:]N" or
 *	"[PROTO:]FIRST-LAST"; of an interface set "NAME" or "PREFIX+"
 * @family: the set's &enum nfhp_family
 * @type: the set's &enum nfhp_set_type
 * @algo: the set's algorithm: "hash" takes hosts only
 * @fn: called for each key
 * @data: its argument
 * @err: ipset's message on failure
 * @errlen: its room
 *
 * The bits of a prefix below its length are cleared, as ipset clears
 * them.  A "hash" set of IPv6 takes plain addresses only, as ipset's
 * hash:ip does.  A number set ("bitmap", "range") takes "N" or
 * "FIRST-LAST" as one key, each a number or a service name of PROTO, tcp
 * or udp (tcp without), as ipset's bitmap:port: the kernel's algorithm
 * decides what a range is (each port of it, or one entry).  A flow set takes a key for each
 * address or prefix of the address part and each port of the port part;
 * "lpm" refuses a prefix of length 0, as ipset's hash:net,port does.
 * An interface set takes a name or a wildcard, as iptables' -i does, as
 * one key.
 *
 * Return: 0, @fn's non-zero value, or -EINVAL.
 */
int nfhp_set_parse_elem(const char *s, u8 family, u8 type, const char *algo,
			int (*fn)(void *data, const struct nfhp_set_entry *e),
			void *data, char *err, size_t errlen)
{
	if (type == NFHP_SET_IFACE)
		return parse_iface_elem(s, fn, data, err, errlen);
	if (type == NFHP_SET_NUMBER)
		return parse_num_elem(s, algo, fn, data, err, errlen);
	if (type == NFHP_SET_FLOW)
		return parse_flow_elem(s, family, algo, fn, data, err, errlen);
	return parse_addr_elem(s, family, !strcmp(algo, "hash"), fn, data,
			       err, errlen);
}

/* The count of "packets N" or "bytes N": any u64, as ipset takes it. */
static int parse_count(const char *s, bool *has, u64 *count, char *err,
		       size_t errlen)
{
	unsigned long long v;
	int ret = parse_num(s, ~0ULL, &v, err, errlen);

	if (ret)
		return ret;
	*has = true;
	*count = v;
	return 0;
}

/**
 * nfhp_set_parse_entry_opts() - the options after an element
 * @argc: their number
 * @argv: the options
 * @add: an add: "value N", "packets N" and "bytes N" are read
 * @e: where they go (@e's value, counts and whether each count is given)
 * @exist: set by -exist
 * @err: ipset's message on failure
 * @errlen: its room
 *
 * A del or a test refuses "value" and takes ipset's "packets" and
 * "bytes" unread, as it takes "timeout 0" and "comment".  "nomatch"
 * takes no argument.  Whether the set counts, or takes nomatch entries,
 * is nfhp_set_check_entry_opts()'s to say.
 *
 * Return: 0, or an exit code.
 */
int nfhp_set_parse_entry_opts(int argc, char **argv, bool add,
			      struct nfhp_set_entry *e, bool *exist,
			      char *err, size_t errlen)
{
	unsigned long long v;
	const char *a;
	int i, ret;

	for (i = 0; i < argc; i++) {
		const char *o = argv[i];

		if (is_exist(o)) {
			*exist = true;
			continue;
		}
		if (!strcmp(o, "nomatch")) {
			e->flags |= NFHP_SETE_F_NOMATCH;
			continue;
		}
		if ((strcmp(o, "value") || !add) && strcmp(o, "timeout") &&
		    strcmp(o, "packets") && strcmp(o, "bytes") &&
		    strcmp(o, "comment") && strcmp(o, "skbmark") &&
		    strcmp(o, "skbprio") && strcmp(o, "skbqueue")) {
			nfhp_set_errmsg(err, errlen,
					"Unknown argument: `%s'", o);
			return NFHP_SET_EXIT_PARAM;
		}
		a = opt_arg(argc, argv, &i, err, errlen);
		if (!a)
			return NFHP_SET_EXIT_PARAM;
		if (!strcmp(o, "value")) {
			ret = parse_num(a, 0xffffffffULL, &v, err, errlen);
			if (ret)
				return ret;
			e->value = v;
		} else if (!strcmp(o, "timeout")) {
			ret = parse_timeout(a, err, errlen);
			if (ret)
				return ret;
		} else if (add && !strcmp(o, "packets")) {
			ret = parse_count(a, &e->has_packets, &e->packets, err,
					  errlen);
			if (ret)
				return ret;
		} else if (add && !strcmp(o, "bytes")) {
			ret = parse_count(a, &e->has_bytes, &e->bytes, err,
					  errlen);
			if (ret)
				return ret;
		}
		/* comment, skb*: what ipset save carries */
	}
	return 0;
}

/**
 * nfhp_set_parse_elem_opts() - the options after an element, the value
 * @argc: their number
 * @argv: the options
 * @value: set by "value N"; NULL where no value is taken (del, test)
 * @exist: set by -exist
 * @err: ipset's message on failure
 * @errlen: its room
 *
 * nfhp_set_parse_entry_opts() for a caller that keeps no counts, and
 * takes no nomatch entries.
 *
 * Return: 0, or an exit code.
 */
int nfhp_set_parse_elem_opts(int argc, char **argv, u32 *value, bool *exist,
			     char *err, size_t errlen)
{
	struct nfhp_set_entry e = {};
	int ret;

	ret = nfhp_set_parse_entry_opts(argc, argv, value, &e, exist, err,
					errlen);
	if (!ret && (e.flags & NFHP_SETE_F_NOMATCH)) {
		nfhp_set_errmsg(err, errlen, "Unknown argument: `nomatch'");
		return NFHP_SET_EXIT_PARAM;
	}
	if (!ret && value)
		*value = e.value;
	return ret;
}

/**
 * nfhp_set_takes_nomatch() - may a set hold nomatch entries?
 * @info: the set
 *
 * Return: true for "lpm" sets of addresses and flows (ipset's hash:net
 * and hash:net,port), as the kernel's &nfhp_set_algo.nomatch says.
 */
bool nfhp_set_takes_nomatch(const struct nfhp_set_info *info)
{
	return (info->type == NFHP_SET_ADDR || info->type == NFHP_SET_FLOW) &&
	       !strcmp(info->algo, "lpm");
}

/**
 * nfhp_set_check_entry_opts() - may an add's options go to a set?
 * @info: the set
 * @e: the options, as nfhp_set_parse_entry_opts() read them
 * @err: ipset's message on failure
 * @errlen: its room
 *
 * The kernel refuses counts for a set without %NFHP_SET_F_COUNTERS
 * (%NFHP_SET_INVALID); they are refused first, with ipset's words for
 * its kernel's refusal, and its exit code.  So is "nomatch" where the
 * set takes no nomatch entries, as ipset's hash:ip refuses it.
 *
 * Return: 0, or an exit code.
 */
int nfhp_set_check_entry_opts(const struct nfhp_set_info *info,
			      const struct nfhp_set_entry *e, char *err,
			      size_t errlen)
{
	if ((e->flags & NFHP_SETE_F_NOMATCH) && !nfhp_set_takes_nomatch(info)) {
		nfhp_set_errmsg(err, errlen, "Unknown argument: `nomatch'");
		return NFHP_SET_EXIT_PARAM;
	}
	if ((e->has_packets || e->has_bytes) &&
	    !(info->flags & NFHP_SET_F_COUNTERS)) {
		nfhp_set_errmsg(err, errlen,
		    "Packet/byte counters cannot be used: set was created without counter support");
		return NFHP_SET_EXIT_ERR;
	}
	return 0;
}

/**
 * nfhp_set_key_str() - an entry's key as ipset prints it
 * @buf: the text
 * @len: its room
 * @family: the set's family
 * @e: the entry
 *
 * A host has no "/32" or "/128", as in ipset's listings.
 */
void nfhp_set_key_str(char *buf, size_t len, u8 family,
		      const struct nfhp_set_entry *e)
{
	unsigned int i, bits = family_bits(family);
	unsigned char b[16];
	char a[INET6_ADDRSTRLEN];

	for (i = 0; i < bits / 8; i++)
		b[i] = (u8)(e->addr >> (bits - 8 - 8 * i));
	inet_ntop(bits == 128 ? AF_INET6 : AF_INET, b, a, sizeof(a));
	if (e->plen < bits)
		snprintf(buf, len, "%s/%u", a, e->plen);
	else
		snprintf(buf, len, "%s", a);
}

/**
 * nfhp_set_elem_str() - an entry's key as ipset prints it, of any type
 * @buf: the text
 * @len: its room
 * @info: the set
 * @e: the entry
 */
void nfhp_set_elem_str(char *buf, size_t len,
		       const struct nfhp_set_info *info,
		       const struct nfhp_set_entry *e)
{
	char port[48];
	size_t n;

	if (info->type == NFHP_SET_FLOW) {
		nfhp_set_key_str(buf, len, info->family, e);
		nfhp_set_port_str(port, sizeof(port), e->proto, e->port);
		n = strlen(buf);
		snprintf(buf + n, len - n, ",%s", port);
	} else if (info->type == NFHP_SET_IFACE && len > NFHP_IFNAME_LEN)
		nfhp_iface_key_str(e->addr, e->plen, buf);
	else if (info->type != NFHP_SET_NUMBER)
		nfhp_set_key_str(buf, len, info->family, e);
	else if ((u32)e->addr == e->hi)
		snprintf(buf, len, "%u", (u32)e->addr);
	else
		snprintf(buf, len, "%u-%u", (u32)e->addr, e->hi);
}

static const char *family_name(u8 family)
{
	return family == NFHP_FAMILY_IPV6 ? "inet6" : "inet";
}

/*
 * What follows "create NAME TYPE" and "Header:": ipset's options of the
 * type, so that ipset restore takes the line.
 */
static void print_type_header(FILE *f, const struct nfhp_set_info *info)
{
	if (info->type == NFHP_SET_IFACE) {
		/* nf-hipac's own type: names have no family. */
		fprintf(f, "hashsize 1024 maxelem %u", info->limit);
		return;
	}
	if (info->type != NFHP_SET_NUMBER) {
		fprintf(f, "family %s hashsize 1024 maxelem %u",
			family_name(info->family), info->limit);
		return;
	}
	/*
	 * ipset's bitmap:port has a range and no maxelem: the limit is
	 * nf-hipac's, printed when it is not the default.
	 */
	if (info->ranged)
		fprintf(f, "range %u-%u", info->range_lo, info->range_hi);
	else
		fprintf(f, "range 0-%u", PORT_MAX);
	if (info->limit != NFHP_SET_DEFAULT_LIMIT)
		fprintf(f, " maxelem %u", info->limit);
}

/* ipset's options after the type's: " counters" where ipset prints it. */
static void print_header(FILE *f, const struct nfhp_set_info *info)
{
	print_type_header(f, info);
	if (info->flags & NFHP_SET_F_COUNTERS)
		fputs(" counters", f);
}

/* An entry's counts as ipset prints them, in a set that counts. */
static void print_counts(FILE *f, const struct nfhp_set_info *info,
			 const struct nfhp_set_entry *e)
{
	if (info->flags & NFHP_SET_F_COUNTERS)
		fprintf(f, " packets %llu bytes %llu",
			(unsigned long long)e->packets,
			(unsigned long long)e->bytes);
}

void nfhp_set_print_create(FILE *f, const struct nfhp_set_info *info)
{
	fprintf(f, "create %s %s ", info->name, nfhp_set_typename(info));
	print_header(f, info);
	/* bitmap:port stands for "bitmap"; "range" is nf-hipac's. */
	if (algo_named(info))
		fprintf(f, " algo %s", info->algo);
	fputc('\n', f);
}

void nfhp_set_print_add(FILE *f, const struct nfhp_set_info *info,
			const struct nfhp_set_entry *e)
{
	char key[NFHP_SET_ELEM_STRLEN];

	nfhp_set_elem_str(key, sizeof(key), info, e);
	fprintf(f, "add %s %s", info->name, key);
	/* ipset prints it right after the element. */
	if (e->flags & NFHP_SETE_F_NOMATCH)
		fputs(" nomatch", f);
	if (e->value)
		fprintf(f, " value %u", e->value);
	print_counts(f, info, e);
	fputc('\n', f);
}

/**
 * nfhp_set_print_list_head() - the head of a set in "ipset list"
 * @f: where to
 * @info: the set
 * @terse: -terse: without the "Members:" line
 *
 * The lines and their order are ipset's.  Revision is nf-hipac's (0);
 * the header carries "algo" and "locked" beside ipset's options.
 */
void nfhp_set_print_list_head(FILE *f, const struct nfhp_set_info *info,
			      bool terse)
{
	fprintf(f, "Name: %s\n", info->name);
	fprintf(f, "Type: %s\n", nfhp_set_typename(info));
	fprintf(f, "Revision: 0\n");
	fprintf(f, "Header: ");
	print_header(f, info);
	fprintf(f, " algo %s", info->algo);
	if (info->flags & NFHP_SET_F_LOCKED)
		fprintf(f, " locked");
	fputc('\n', f);
	fprintf(f, "Size in memory: %llu\n",
		(unsigned long long)info->memory);
	fprintf(f, "References: %u\n", info->refs);
	fprintf(f, "Number of entries: %u\n", info->count);
	if (!terse)
		fprintf(f, "Members:\n");
}

void nfhp_set_print_member(FILE *f, const struct nfhp_set_info *info,
			   const struct nfhp_set_entry *e)
{
	char key[NFHP_SET_ELEM_STRLEN];

	nfhp_set_elem_str(key, sizeof(key), info, e);
	fputs(key, f);
	if (e->flags & NFHP_SETE_F_NOMATCH)
		fputs(" nomatch", f);
	if (e->value)
		fprintf(f, " value %u", e->value);
	print_counts(f, info, e);
	fputc('\n', f);
}
