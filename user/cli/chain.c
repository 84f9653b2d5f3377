// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac -N, -X, -E, -P, -F and -Z.
 */
#include "subcommands.h"

static int done(struct nfhp_nl *nl, int ret)
{
	return ret ? nfhp_nl_report(nl, NFHP_PROG) : NFHP_EXIT_OK;
}

int new_chain_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl)
{
	return done(nl, nfhp_nl_new_chain(nl, cl->chain));
}

int del_chain_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl)
{
	return done(nl, nfhp_nl_del_chain(nl, nfhp_cli_chain(cl)));
}

int rename_chain_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl)
{
	return done(nl, nfhp_nl_rename(nl, cl->chain, cl->new_name));
}

int policy_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl)
{
	return done(nl, nfhp_nl_policy(nl, cl->chain, cl->policy,
				       cl->has_counters ? &cl->counters :
							  NULL));
}

int flush_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl)
{
	return done(nl, nfhp_nl_flush(nl, nfhp_cli_chain(cl)));
}

int zero_main(const struct nfhp_cmdline *cl, struct nfhp_nl *nl)
{
	return done(nl, nfhp_nl_zero(nl, nfhp_cli_chain(cl), cl->pos));
}
