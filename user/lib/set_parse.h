/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: named sets in ipset's words.
 *
 * What nf-hipac-set needs without a kernel: the ipset type names and the
 * algorithms they stand for, the create options of ipset(8) and
 * nf-hipac's own, elements ("10.0.0.1", "10.0.0.0/24", "10.0.0.1-10.0.0.9",
 * ports "80" and "1024-2047")
 * turned into the keys of a set, and the lines of "ipset save" and
 * "ipset list" printed back.  lib/nl_set.c puts them on the wire.
 */
#ifndef _NFHP_SET_PARSE_H
#define _NFHP_SET_PARSE_H

#include "key.h"
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ipset's default maxelem, which a create without maxelem or limit gets. */
#define NFHP_SET_DEFAULT_LIMIT	65536
/* Most hosts one element of a "hash" set may stand for (a /16, a range). */
#define NFHP_SET_MAX_EXPAND	65536
#define NFHP_SET_ALGO_LEN	16
/* Room for an element as ipset prints it ("2001:db8::/64,ipv6-icmp:..."). */
#define NFHP_SET_ELEM_STRLEN	(INET6_ADDRSTRLEN + 64)

/**
 * struct nfhp_set_info - a set as created and as a listing reports it
 * @name: the name, NUL-terminated
 * @type: &enum nfhp_set_type
 * @algo: "hash" or "lpm"; of a number set "bitmap" or "range"
 * @family: &enum nfhp_family
 * @limit: most entries, 0 for no limit
 * @flags: NFHP_SET_F_*; a listing's: %NFHP_SET_F_LOCKED, and
 *	%NFHP_SET_F_COUNTERS for a set whose entries count packets
 * @count: entries (listings)
 * @refs: rules that refer to the set (listings)
 * @memory: bytes (listings)
 * @ranged: a number set's range is given: @range_lo and @range_hi
 * @range_lo: the least number its entries may hold
 * @range_hi: the greatest
 */
struct nfhp_set_info {
	char name[NFHP_SET_MAXNAMELEN];
	u8 type;
	char algo[NFHP_SET_ALGO_LEN];
	u8 family;
	u32 limit;
	u32 flags;
	u32 count;
	u32 refs;
	u64 memory;
	bool ranged;
	u32 range_lo;
	u32 range_hi;
};

/**
 * struct nfhp_set_entry - one key with its value
 * @addr: the address, host order, an IPv4 one in the low 32 bits; of a
 *	number set, the number or the first of the range
 * @plen: the prefix length (0 for a number set)
 * @proto: a flow set's: the protocol
 * @port: a flow set's: the port, or ICMP's type << 8 | code
 * @hi: a number set's: the last number of the range, @addr for one
 * @value: the value
 * @result: &enum nfhp_set_result of the kernel's answer
 * @has_packets: @packets is given (an add's "packets N"), or the kernel
 *	sent it (an entry of a set with %NFHP_SET_F_COUNTERS)
 * @has_bytes: @bytes is, likewise
 * @packets: the packets the entry counted, or starts at
 * @bytes: the bytes, likewise
 * @flags: %NFHP_SETE_F_* bits: %NFHP_SETE_F_NOMATCH for ipset's "nomatch"
 */
struct nfhp_set_entry {
	nfhp_u128 addr;
	u8 plen;
	u8 proto;
	u16 port;
	u32 hi;
	u32 value;
	u8 result;
	bool has_packets;
	bool has_bytes;
	u64 packets;
	u64 bytes;
	u32 flags;
};

/* ipset's message of a failure into @err, @len bytes, printf's way. */
void nfhp_set_errmsg(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Exit codes, ipset's: 1 for every error, 2 for a bad command line. */
#define NFHP_SET_EXIT_OK	0
#define NFHP_SET_EXIT_ERR	1
#define NFHP_SET_EXIT_PARAM	2

/*
 * ipset's type name (hash:ip, hash:net, bitmap:port, hash:ip,port,
 * hash:net,port) into the type and
 * algorithm of a set; false for any other.  nfhp_set_typename() is the
 * way back: bitmap:port for both algorithms of numbers.
 */
bool nfhp_set_parse_typename(const char *s, u8 *type, const char **algo);
const char *nfhp_set_typename(const struct nfhp_set_info *info);

/*
 * A create line's arguments after NAME TYPE ("family inet maxelem 10
 * counters -exist ..."), ipset's and nf-hipac's own, into @info (whose
 * name, type and algorithm are set) and @exist.  Return: 0, or an exit
 * code with ipset's message in @err.
 */
int nfhp_set_parse_create(int argc, char **argv, struct nfhp_set_info *info,
			  bool *exist, char *err, size_t errlen);

/* Is @algo one of the number type's ("bitmap", "range")? */
bool nfhp_set_algo_number(const char *algo);

/*
 * An element of a set of @family, @type and @algo: "ADDR", "ADDR/PLEN"
 * or, IPv4 only, "FIRST-LAST"; of a number set "N" or "FIRST-LAST", one
 * key; of a flow set the address part, a comma and "[PROTO:]PORT[-PORT]"
 * (set_port.h), a key for each address and port; of an interface set
 * "eth0" or "eth+", one key.  For "lpm" a range
 * becomes the fewest prefixes
 * that cover it exactly; for "hash" a prefix or a range becomes its
 * hosts, at most %NFHP_SET_MAX_EXPAND of them.  @fn is called for each
 * key in order and may stop the walk with a non-zero value, which is
 * returned.  Return: 0, @fn's value, or -EINVAL with ipset's message in
 * @err.
 */
int nfhp_set_parse_elem(const char *s, u8 family, u8 type, const char *algo,
			int (*fn)(void *data, const struct nfhp_set_entry *e),
			void *data, char *err, size_t errlen);

/*
 * The fewest prefixes that cover the addresses [@lo, @hi] of @family
 * exactly, each to @fn in order.  Return: 0, or @fn's non-zero value.
 */
int nfhp_set_range_prefixes(nfhp_u128 lo, nfhp_u128 hi, u8 family,
			    int (*fn)(void *data,
				      const struct nfhp_set_entry *e),
			    void *data);

/*
 * The arguments after an element of add, del and test: "value N",
 * "packets N" and "bytes N" (add only, @add) into @e, ipset's other
 * per-entry options, accepted and ignored ("timeout 0", "comment STR",
 * "skbmark ...", and a del's or a test's "packets N", "bytes N"), and
 * -exist.  Return: 0, or an exit code with ipset's message in @err.
 */
int nfhp_set_parse_entry_opts(int argc, char **argv, bool add,
			      struct nfhp_set_entry *e, bool *exist,
			      char *err, size_t errlen);
/*
 * The same with the value only (@value non-NULL: an add), the counts
 * checked and dropped.
 */
int nfhp_set_parse_elem_opts(int argc, char **argv, u32 *value, bool *exist,
			     char *err, size_t errlen);
/*
 * May an add with the options @e (nfhp_set_parse_entry_opts()) go to set
 * @info?  Counts only to a set with %NFHP_SET_F_COUNTERS.  Return: 0, or
 * an exit code with ipset's message in @err.
 */
int nfhp_set_check_entry_opts(const struct nfhp_set_info *info,
			      const struct nfhp_set_entry *e, char *err,
			      size_t errlen);
/* May set @info hold nomatch entries ("lpm" of addresses or flows)? */
bool nfhp_set_takes_nomatch(const struct nfhp_set_info *info);

/* An entry's key as ipset prints it: "10.0.0.1", "10.0.0.0/24", "::1". */
void nfhp_set_key_str(char *buf, size_t len, u8 family,
		      const struct nfhp_set_entry *e);

/*
 * An entry's key as ipset prints it, of whatever type: an address or
 * prefix, a number, "FIRST-LAST" for a range, or "ADDR,PROTO:PORT".
 */
void nfhp_set_elem_str(char *buf, size_t len,
		       const struct nfhp_set_info *info,
		       const struct nfhp_set_entry *e);

/*
 * "create NAME hash:ip family inet hashsize 1024 maxelem 65536\n", and
 * " counters" before the newline for a set that counts
 */
void nfhp_set_print_create(FILE *f, const struct nfhp_set_info *info);
/* "add NAME 10.0.0.1[ value 5][ packets 3 bytes 180]\n" */
void nfhp_set_print_add(FILE *f, const struct nfhp_set_info *info,
			const struct nfhp_set_entry *e);
/* The head of "ipset list", up to "Members:" (not with @terse). */
void nfhp_set_print_list_head(FILE *f, const struct nfhp_set_info *info,
			      bool terse);
/*
 * A member of "ipset list": "10.0.0.1[ value 5][ packets 3 bytes 180]\n";
 * the counts (of both) in a set with %NFHP_SET_F_COUNTERS, as ipset's
 */
void nfhp_set_print_member(FILE *f, const struct nfhp_set_info *info,
			   const struct nfhp_set_entry *e);

#endif /* _NFHP_SET_PARSE_H */
