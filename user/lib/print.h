/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: printing rules the way iptables-save and iptables -L do.
 */
#ifndef _NFHP_PRINT_H
#define _NFHP_PRINT_H

#include "spec.h"
#include "ruleset.h"
#include <stdio.h>

#define NFHP_PRINT_NUMERIC	1
#define NFHP_PRINT_VERBOSE	2
#define NFHP_PRINT_EXACT	4
#define NFHP_PRINT_LINENUM	8

/* One "-A CHAIN ..." line exactly as iptables-save / iptables -S print it. */
void nfhp_print_save_string(FILE *f, const char *v);
void nfhp_print_rule_save(FILE *f, const char *chain,
			  const struct nfhp_rule_spec *spec,
			  const struct nfhp_counter *c);

/*
 * "Chain FORWARD (policy DROP 0 packets, 0 bytes)" or
 * "Chain foo (1 references)" and the column header line, as iptables -L.
 */
void nfhp_print_chain_header(FILE *f, const char *chain, bool builtin,
			     u8 policy, const struct nfhp_counter *policy_counter,
			     unsigned int refs, unsigned int flags);

/*
 * The family (&enum nfhp_family) of the rules printed from now on: IPv6
 * addresses and ip6tables' -L columns for IPv6.  IPv4 by default.
 */
void nfhp_print_set_family(u8 family);

/* One rule line of iptables -L [-n] [-v] [-x] [--line-numbers]. */
void nfhp_print_list_rule(FILE *f, unsigned int num,
			  const struct nfhp_rule_spec *spec,
			  const struct nfhp_counter *c, unsigned int flags);

#endif /* _NFHP_PRINT_H */
