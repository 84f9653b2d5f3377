// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac -A and -I.
 */
#include "subcommands.h"

static const struct nfhp_counter *counters(const struct nfhp_cmdline *cl)
{
	return cl->has_counters ? &cl->counters : NULL;
}

int append_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl)
{
	if (nfhp_nl_append(nl, cl->chain, &cl->spec, counters(cl)))
		return nfhp_cli_rule_error(nl, &cl->spec);
	return NFHP_EXIT_OK;
}

int insert_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl)
{
	if (nfhp_nl_insert(nl, cl->chain, cl->pos ? cl->pos : 1, &cl->spec,
			   counters(cl)))
		return nfhp_cli_rule_error(nl, &cl->spec);
	return NFHP_EXIT_OK;
}
