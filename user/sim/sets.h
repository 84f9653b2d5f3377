/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nf-hipac-sim: named sets and the set matches of rules
 * (nf-hipac-sim --sets FILE).
 *
 * FILE holds sets in the format of ipset save, as nf-hipac-set save
 * writes it: create lines (hash:ip, hash:net, with their options), add
 * lines and lock lines; so may the rule set's file before its table, as
 * nf-hipac-save writes it.  The sets go into the core's own registry (kernel/set.c), built
 * in userspace.  The set matches of rules ("-m set --match-set bl src")
 * are resolved and run by nfhp_sim_ext_ops, which the core and the
 * reference share, so that --check compares them exactly; it hands the
 * other extensions to the opaque model (opaque.h) when --opaque-xt is
 * given, and refuses them otherwise.
 */
#ifndef _NFHP_SIM_SETS_H
#define _NFHP_SIM_SETS_H

#include <stdio.h>

#include "ext.h"
#include "pkt.h"
#include "set.h"

extern const struct nfhp_ext_ops nfhp_sim_ext_ops;

void nfhp_sim_sets_init(const struct nfhp_ext_ops *inner);
int nfhp_sim_sets_line(char *line, bool aliases, char *err, size_t errlen);
int nfhp_sim_sets_load(FILE *f, char *err, size_t errlen);
void nfhp_sim_sets_free(void);

#endif /* _NFHP_SIM_SETS_H */
