// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the iptables-compatible command line tool.
 *
 * One binary, several names: nf-hipac-save and nf-hipac-restore are links
 * to it, and nf-hipac6, nf-hipac6-save and nf-hipac6-restore, which work
 * on the IPv6 rule set in ip6tables' syntax (nf-hipac6 is nf-hipac -6),
 * and nf-hipac-set, the named sets in ipset's syntax (nf-hipac set).  As
 * nf-hipac it parses an iptables command line and dispatches on the
 * command through the table below, one subcommand per file.
 */
#include <libgen.h>
#include <string.h>
#include "print.h"
#include "subcommands.h"
#include "xt.h"

static const struct {
	int cmd;
	int (*fn)(const struct nfhp_cmdline *cl, struct nfhp_nl *nl);
} subcommands[] = {
	{ NFHP_CLI_APPEND, append_main },
	{ NFHP_CLI_INSERT, insert_main },
	{ NFHP_CLI_DELETE, delete_main },
	{ NFHP_CLI_REPLACE, replace_main },
	{ NFHP_CLI_CHECK, check_main },
	{ NFHP_CLI_FLUSH, flush_main },
	{ NFHP_CLI_ZERO, zero_main },
	{ NFHP_CLI_LIST, list_main },
	{ NFHP_CLI_LIST_RULES, list_rules_main },
	{ NFHP_CLI_NEW_CHAIN, new_chain_main },
	{ NFHP_CLI_DEL_CHAIN, del_chain_main },
	{ NFHP_CLI_RENAME_CHAIN, rename_chain_main },
	{ NFHP_CLI_POLICY, policy_main },
};

static void show_usage(FILE *f)
{
	fprintf(f,
"nf-hipac v" NFHP_VERSION "\n"
"\n"
"Usage: nf-hipac -[ACD] chain rule-specification [options]\n"
"       nf-hipac -I chain [rulenum] rule-specification [options]\n"
"       nf-hipac -R chain rulenum rule-specification [options]\n"
"       nf-hipac -D chain rulenum [options]\n"
"       nf-hipac -[LS] [chain [rulenum]] [options]\n"
"       nf-hipac -[FZ] [chain] [options]\n"
"       nf-hipac -[NX] chain\n"
"       nf-hipac -E old-chain-name new-chain-name\n"
"       nf-hipac -P chain target [options]\n"
"       nf-hipac import [--takeover] [--table FAMILY:NAME] [--chain NAME]\n"
"                       [--dry-run|--print] (from live nftables; FAMILY\n"
"                       ip, ip6 or inet)\n"
"       nf-hipac set COMMAND ... (named sets, as nf-hipac-set: ipset's\n"
"                       syntax)\n"
"       nf-hipac state COMMAND ... (the dynamic states of keep-state\n"
"                       rules, as conntrack: -L, -D, -F, -A, -E, save,\n"
"                       restore; nf-hipac state -h)\n"
"       nf-hipac -h (print this help information)\n"
"\n"
"Commands:\n"
"  --append  -A chain            Append to chain\n"
"  --check   -C chain            Check for the existence of a rule\n"
"  --delete  -D chain            Delete matching rule from chain\n"
"  --delete  -D chain rulenum    Delete rule rulenum (1 = first) from chain\n"
"  --insert  -I chain [rulenum]  Insert in chain as rulenum (default 1=first)\n"
"  --replace -R chain rulenum    Replace rule rulenum (1 = first) in chain\n"
"  --list    -L [chain [rulenum]] List the rules in a chain or all chains\n"
"  --list-rules -S [chain [rulenum]] Print the rules in a chain or all chains\n"
"  --flush   -F [chain]          Delete all rules in chain or all chains\n"
"  --zero    -Z [chain [rulenum]] Zero counters in chain or all chains\n"
"  --new     -N chain            Create a new user-defined chain\n"
"  --delete-chain -X [chain]     Delete a user-defined chain\n"
"  --policy  -P chain target     Change policy on chain to target\n"
"  --rename-chain -E old-chain new-chain  Change chain name\n"
"\n"
"Options:\n"
"  --proto -p [!] proto          protocol: by number or name, eg. `tcp'\n"
"  --source -s [!] address[/mask][...] source specification\n"
"  --destination -d [!] address[/mask][...] destination specification\n"
"  --in-interface -i [!] input name[+]   network interface name ([+] for wildcard)\n"
"  --out-interface -o [!] output name[+] network interface name ([+] for wildcard)\n"
"  --jump -j target              target for rule (ACCEPT, DROP, RETURN, QUEUE\n"
"                                or a chain)\n"
"  --goto -g chain               jump to chain with no return\n"
"  [!] --fragment -f             match second or further fragments only\n"
"  --match -m match              extended match (tcp udp icmp multiport iprange\n"
"                                state conntrack ttl length mark comment set\n"
"                                are native, every other runs through xtables)\n"
"  --jump -j target              also any xtables target (REJECT, LOG, ...)\n"
"  --numeric -n                  numeric output of addresses and ports\n"
"  --verbose -v                  verbose mode\n"
"  --exact -x                    expand numbers (display exact values)\n"
"  --line-numbers                print line numbers when listing\n"
"  --set-counters -c PKTS BYTES  set the counter during insert/append\n"
"  --wait    -w [seconds]        wait for another tool's transaction\n"
"                                (for ever, or at most seconds)\n"
"  --wait-interval -W usecs      try again this often while waiting\n"
"  --table -t filter             the only table nf-hipac has\n"
"  --ipv6    -6                  the IPv6 rule set, in ip6tables' syntax (as\n"
"                                nf-hipac6); native matches only, for now\n"
"  --ipv4    -4                  the IPv4 rule set (the default)\n"
"  --version -V                  print package version\n"
"\n"
"See nf-hipac(8) for the matches and the differences from iptables.\n");
}

/*
 * A rule command whose -s or -d stands for several addresses: one rule
 * per address pair, in one transaction, as iptables commits them in one
 * table replace; -C wants every one of them.
 */
static int run_pairs(struct nfhp_cmdline *cl,
		     int (*fn)(const struct nfhp_cmdline *cl,
			       struct nfhp_nl *nl),
		     struct nfhp_nl *nl)
{
	unsigned int i, n = nfhp_cmdline_rules(cl);
	bool txn = cl->cmd != NFHP_CLI_CHECK;
	int ret = 0;

	if (n == 1)
		return fn(cl, nl);
	if (txn && nfhp_nl_begin(nl))
		return nfhp_nl_report(nl, NFHP_PROG);
	for (i = 0; i < n && !ret; i++) {
		nfhp_cmdline_select(cl, i);
		ret = fn(cl, nl);
	}
	if (!txn)
		return ret;
	if (ret) {
		nfhp_nl_abort(nl);
		return ret;
	}
	if (nfhp_nl_commit(nl))
		return nfhp_nl_report(nl, NFHP_PROG);
	return NFHP_EXIT_OK;
}

static int dispatch(struct nfhp_cmdline *cl)
{
	struct nfhp_nl *nl = NULL;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(subcommands); i++)
		if (subcommands[i].cmd == cl->cmd)
			break;
	if (i == ARRAY_SIZE(subcommands)) {
		nfhp_cli_param_error(NFHP_PROG, "no command specified");
		return NFHP_EXIT_PARAM;
	}
	ret = nfhp_nl_open(&nl, NFHP_PROG);
	if (ret)
		return ret;
	if (cl->wait)
		nfhp_nl_set_wait(nl, cl->wait_seconds, cl->wait_interval_us);
	nfhp_nl_set_family(nl, cl->family);
	nfhp_print_set_family(cl->family);
	ret = run_pairs(cl, subcommands[i].fn, nl);
	nfhp_nl_close(nl);
	return ret;
}

int main(int argc, char **argv)
{
	const char *name = basename(argv[0]);
	struct nfhp_cmdline *cl;
	char err[256] = "";
	int ret;

	/* Named sets, in ipset's syntax: no rules, no libxtables. */
	if (!strcmp(name, "nf-hipac-set"))
		return set_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "set"))
		return set_main(argc - 1, argv + 1);
	/* The dynamic states: no rules, no libxtables. */
	if (argc > 1 && !strcmp(argv[1], "state"))
		return state_main(argc - 1, argv + 1,
				  nfhp_cmdline_family(argc, argv));
	if (argc > 2 && (!strcmp(argv[1], "-6") || !strcmp(argv[1], "-4")) &&
	    !strcmp(argv[2], "state"))
		return state_main(argc - 2, argv + 2,
				  nfhp_cmdline_family(argc, argv));
	/* import sets libxtables up itself, per family: see import.c. */
	if (argc > 1 && !strcmp(argv[1], "import"))
		return import_main(argc - 1, argv + 1,
				   nfhp_cmdline_family(1, argv));
	if (argc > 2 && !strcmp(argv[1], "-6") && !strcmp(argv[2], "import"))
		return import_main(argc - 2, argv + 2, NFHP_FAMILY_IPV6);
	/*
	 * Every match and target nf-hipac has no native form: libxtables,
	 * for the family of the program's name and -4/-6.
	 */
	if (nfhp_xt_setup(nfhp_cmdline_family(argc, argv), 0))
		fprintf(stderr, "%s: cannot initialise libxtables\n",
			NFHP_PROG);
	if (!strcmp(name, "nf-hipac-save") || !strcmp(name, "nf-hipac6-save"))
		return save_main(argc, argv);
	if (!strcmp(name, "nf-hipac-restore") ||
	    !strcmp(name, "nf-hipac6-restore"))
		return restore_main(argc, argv);

	/* About 7 KiB of rule: on the heap, like everywhere else. */
	cl = calloc(1, sizeof(*cl));
	if (!cl) {
		fprintf(stderr, "%s: out of memory\n", NFHP_PROG);
		return NFHP_EXIT_RESOURCE;
	}
	ret = nfhp_parse_cmdline(argc, argv, cl, err, sizeof(err));
	if (ret) {
		if (ret == NFHP_EXIT_PARAM)
			nfhp_cli_param_error(NFHP_PROG, err);
		else
			fprintf(stderr, "%s: %s\n", NFHP_PROG, err);
		goto cleanup;
	}
	switch (cl->cmd) {
	case NFHP_CLI_HELP:
		show_usage(stdout);
		break;
	case NFHP_CLI_VERSION:
		printf("%s v%s\n", NFHP_PROG, NFHP_VERSION);
		break;
	default:
		ret = dispatch(cl);
	}
cleanup:
	free(cl);
	return ret;
}
