/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac: every match and target the tree does not classify, through
 * libxtables, parsed and printed exactly as iptables 1.8.9 does.
 *
 * Only the CLI (nf-hipac, nf-hipac-save, nf-hipac-restore) and its test
 * link this; it plugs itself into the parser and the printer through
 * xt_hooks.h.
 */
#ifndef _NFHP_XT_H
#define _NFHP_XT_H

#include <stdbool.h>
#include <stdint.h>

/* nfhp_xt_setup() flags */
#define NFHP_XT_NO_PROBE	1	/* take the newest revision of each
					 * extension without asking the kernel
					 */

int nfhp_xt_setup(uint8_t family, unsigned int flags);
void nfhp_xt_fini(void);

#endif /* _NFHP_XT_H */
