/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: iptables command line and iptables-save syntax parser.
 *
 * The parser turns iptables 1.8.9 filter-table syntax into the command and
 * a struct nfhp_rule_spec.  It reports errors with the exit codes and,
 * as far as practical, the wording of iptables itself, so that scripts
 * written for iptables see the same behaviour.
 */
#ifndef _NFHP_PARSE_H
#define _NFHP_PARSE_H

#include "spec.h"
#include "ruleset.h"
#include <stdio.h>
#include <stddef.h>

/* Most addresses one -s or -d stands for ("a,b,c", a name). */
#define NFHP_MAX_ADDRS	64

enum nfhp_cli_cmd {
	NFHP_CLI_NONE,
	NFHP_CLI_APPEND,
	NFHP_CLI_INSERT,
	NFHP_CLI_DELETE,
	NFHP_CLI_REPLACE,
	NFHP_CLI_CHECK,
	NFHP_CLI_FLUSH,
	NFHP_CLI_ZERO,
	NFHP_CLI_LIST,
	NFHP_CLI_LIST_RULES,	/* -S */
	NFHP_CLI_NEW_CHAIN,
	NFHP_CLI_DEL_CHAIN,
	NFHP_CLI_RENAME_CHAIN,
	NFHP_CLI_POLICY,
	NFHP_CLI_HELP,
	NFHP_CLI_VERSION
};

/**
 * struct nfhp_cmdline - one parsed iptables command
 * @cmd: &enum nfhp_cli_cmd
 * @chain: the chain, "" when not given (-F, -L, -X, -Z)
 * @new_name: the new name of -E
 * @pos: rule number for -I/-D/-R/-L/-S/-Z, 0 when not given
 * @policy: -P: NFHP_ACT_ACCEPT or NFHP_ACT_DROP
 * @numeric: -n
 * @verbose: -v
 * @exact: -x
 * @line_numbers: --line-numbers
 * @has_rule: rule options are present
 * @has_counters: -c PKTS BYTES, or "[p:b]" before the rule in a restore file
 * @counters: the counters of @has_counters
 * @naddr: how many addresses -s (0) and -d (1) stand for, 0 when not
 *	given: a name resolving to several, or a list "a,b"
 * @addr: those addresses with their masks; the command is one rule per
 *	pair, nfhp_cmdline_select() puts pair i into @spec (pair 0 is
 *	there after parsing), in iptables' order
 * @spec: the rule, valid when @has_rule (or for -A/-I/-D spec/-R/-C)
 */
struct nfhp_cmdline {
	int cmd;
	u8 family;
	char chain[NFHP_CHAIN_NAME_LEN];
	char new_name[NFHP_CHAIN_NAME_LEN];
	unsigned int pos;
	u8 policy;
	bool numeric, verbose, exact, line_numbers;
	bool wait;
	unsigned int wait_seconds;
	unsigned long wait_interval_us;
	bool has_rule;
	bool has_counters;
	struct nfhp_counter counters;
	unsigned int naddr[2];
	struct nfhp_addr_mask {
		nfhp_u128 addr, mask;
	} addr[2][NFHP_MAX_ADDRS];
	struct nfhp_rule_spec spec;
};

/* The rules a command line stands for: one per -s and -d address pair. */
static inline unsigned int nfhp_cmdline_rules(const struct nfhp_cmdline *cl)
{
	return (cl->naddr[0] ? cl->naddr[0] : 1) *
	       (cl->naddr[1] ? cl->naddr[1] : 1);
}

/* Put the @i-th -s/-d address pair into @cl->spec. */
void nfhp_cmdline_select(struct nfhp_cmdline *cl, unsigned int i);

/* iptables exit codes */
#define NFHP_EXIT_OK		0
#define NFHP_EXIT_OTHER		1	/* rule/chain problem (kernel errors) */
#define NFHP_EXIT_PARAM		2	/* parameter problem */
#define NFHP_EXIT_VERSION	3
#define NFHP_EXIT_RESOURCE	4

/*
 * Parse an iptables command line (argv[0] is the program name; "-t filter"
 * accepted, other tables give exit 3 with iptables' message).  Returns
 * NFHP_EXIT_OK or an exit code with a message in err.
 */
int nfhp_parse_cmdline(int argc, char **argv, struct nfhp_cmdline *cl,
		       char *err, size_t errlen);

/*
 * The family (NFHP_FAMILY_IPV4 or NFHP_FAMILY_IPV6) of a command line,
 * from the program's name and -4/-6, as nfhp_parse_cmdline() takes it.
 */
u8 nfhp_cmdline_family(int argc, char **argv);

/*
 * Split a restore line into argv like iptables-restore does (whitespace,
 * "double quotes", 'single quotes').  Returns argc or -1.  The argv strings
 * point into buf, which is modified.
 */
int nfhp_split_line(char *buf, char **argv, int max);

/**
 * struct nfhp_restore_ops - callbacks of nfhp_parse_save_stream()
 * @table: a "*filter" line
 * @chain: a ":CHAIN POLICY [p:b]" line; policy is NFHP_ACT_NONE for user
 *	chains ("-"); c may be NULL
 * @cmd: each -A/-I/-D/-N/-X/-F/-P/... line
 * @commit: a "COMMIT" line
 * @outside: a line outside a table but a table's start, without its end
 *	and the blanks around it (nf-hipac-restore takes the lines of
 *	nf-hipac-set restore there); a negative value says it is none of
 *	the caller's: the line is an error then, as without the callback
 *
 * Another value than 0 (and than a negative one of @outside) from a
 * callback stops the reading; that value is returned.
 */
struct nfhp_restore_ops {
	int (*table)(void *ctx, const char *name);
	int (*chain)(void *ctx, const char *name, u8 policy,
		     const struct nfhp_counter *c);
	int (*cmd)(void *ctx, struct nfhp_cmdline *cl);
	int (*commit)(void *ctx);
	int (*outside)(void *ctx, char *line);
};

/*
 * Read iptables-save format, or ip6tables-save's for @family IPv6; '#'
 * comment lines and blank lines are skipped; counters "[p:b]" before -A
 * are honoured; a rule line of the other family (-4 or -6) is skipped, as
 * iptables-restore skips it.  Returns 0 or an exit code, err says "line N:
 * ...".
 */
int nfhp_parse_save_stream(FILE *f, u8 family,
			   const struct nfhp_restore_ops *ops, void *ctx,
			   char *err, size_t errlen);

/* Names shared by the parser and the printer, in iptables' order. */
struct nfhp_icmp_name {
	const char *name;
	u8 type, code_min, code_max;
};

struct nfhp_flag_name {
	const char *name;
	unsigned int value;
};

extern const struct nfhp_icmp_name nfhp_icmp_names[];	/* NULL-terminated */
extern const struct nfhp_icmp_name nfhp_icmpv6_names[];	/* NULL-terminated */
extern const struct nfhp_flag_name nfhp_state_names[];	/* NULL-terminated */
extern const struct nfhp_flag_name nfhp_tcp_flag_names[]; /* NULL-terminated */
/* The fields of keep-state's --state-limit-by (NFHP_STATE_LIMIT_*). */
extern const struct nfhp_flag_name nfhp_limit_by_names[]; /* NULL-terminated */

/*
 * The place of a native match module (enum nfhp_module) in the canonical
 * order the printer uses when a rule has no NFHPA_RULE_ORDER: tcp/udp,
 * multiport, icmp, iprange, state/conntrack, ttl, length, mark, comment.
 * Modules of one place print as one group.
 */
#define NFHP_MOD_GROUPS		9
static inline unsigned int nfhp_mod_group(unsigned int mod)
{
	static const unsigned char group[NFHP_MOD_MAX] = {
		[NFHP_MOD_TCP] = 0, [NFHP_MOD_UDP] = 0,
		[NFHP_MOD_MULTIPORT] = 1, [NFHP_MOD_ICMP] = 2,
		[NFHP_MOD_IPRANGE] = 3,
		[NFHP_MOD_STATE] = 4, [NFHP_MOD_CONNTRACK] = 4,
		[NFHP_MOD_TTL] = 5, [NFHP_MOD_LENGTH] = 6,
		[NFHP_MOD_MARK] = 7, [NFHP_MOD_COMMENT] = 8,
	};

	return mod < NFHP_MOD_MAX ? group[mod] : NFHP_MOD_GROUPS;
}

/* -p argument: number, "all", /etc/protocols name or built-in name. */
bool nfhp_parse_protocol(const char *s, u8 *proto);
/* The protocol name iptables prints; lookup consults /etc/protocols. */
const char *nfhp_proto_to_name(u8 proto, bool lookup);
/* Dotted IPv4 address ("10.1" is 10.1.0.0), host byte order. */
bool nfhp_parse_ipv4(const char *s, u32 *addr);
/* A whole string of an unsigned number (0x hex, 0 octal) in [min, max]. */
bool nfhp_parse_uint(const char *s, unsigned long long min,
		     unsigned long long max, unsigned long long *out);

#endif /* _NFHP_PARSE_H */
