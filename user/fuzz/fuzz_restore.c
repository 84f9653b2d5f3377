// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: an iptables-save stream through the parser into the
 * classifier core, every command applied (errors are fine, crashes, leaks
 * and undefined behaviour are not), committed, then a few packets
 * classified.  Each input is an IPv4 rule set (iptables-save) and then
 * an IPv6 one (ip6tables-save): the same text meets both parsers and both
 * widths of address.  Built with clang -fsanitize=fuzzer,address,undefined.
 */
#include <stdint.h>

#include "parse.h"
#include "ruleset.h"

static int fz_table(void *ctx, const char *name)
{
	return 0;
}

static int fz_chain(void *ctx, const char *name, u8 policy,
		    const struct nfhp_counter *c)
{
	if (policy == NFHP_ACT_NONE)
		nfhp_chain_new(ctx, name, NULL);
	else
		nfhp_chain_policy(ctx, name, policy, c, NULL);
	return 0;
}

static const char *fz_chain_or_null(const struct nfhp_cmdline *cl)
{
	return cl->chain[0] ? cl->chain : NULL;
}

static int fz_cmd(void *ctx, struct nfhp_cmdline *cl)
{
	const struct nfhp_counter *c = cl->has_counters ? &cl->counters : NULL;
	struct nfhp_ruleset *rs = ctx;

	switch (cl->cmd) {
	case NFHP_CLI_APPEND:
		nfhp_rule_append(rs, cl->chain, &cl->spec, c, NULL);
		break;
	case NFHP_CLI_INSERT:
		nfhp_rule_insert(rs, cl->chain, cl->pos ? cl->pos : 1,
				 &cl->spec, c, NULL);
		break;
	case NFHP_CLI_DELETE:
		if (cl->pos)
			nfhp_rule_delete(rs, cl->chain, cl->pos, NULL);
		else
			nfhp_rule_delete_spec(rs, cl->chain, &cl->spec, NULL);
		break;
	case NFHP_CLI_REPLACE:
		nfhp_rule_replace(rs, cl->chain, cl->pos, &cl->spec, NULL);
		break;
	case NFHP_CLI_FLUSH:
		nfhp_chain_flush(rs, fz_chain_or_null(cl), NULL);
		break;
	case NFHP_CLI_ZERO:
		nfhp_counters_zero(rs, fz_chain_or_null(cl), cl->pos, NULL);
		break;
	case NFHP_CLI_NEW_CHAIN:
		nfhp_chain_new(rs, cl->chain, NULL);
		break;
	case NFHP_CLI_DEL_CHAIN:
		nfhp_chain_delete(rs, fz_chain_or_null(cl), NULL);
		break;
	case NFHP_CLI_RENAME_CHAIN:
		nfhp_chain_rename(rs, cl->chain, cl->new_name, NULL);
		break;
	case NFHP_CLI_POLICY:
		nfhp_chain_policy(rs, cl->chain, cl->policy, c, NULL);
		break;
	}
	return 0;
}

static int fz_commit(void *ctx)
{
	nfhp_txn_commit(ctx, NULL);
	nfhp_txn_begin(ctx);
	return 0;
}

static const struct nfhp_restore_ops fz_ops = {
	.table = fz_table,
	.chain = fz_chain,
	.cmd = fz_cmd,
	.commit = fz_commit,
};

/* A packet key of @family, the @i-th of a fixed spread over the space. */
static void fz_key(struct nfhp_key *key, u8 family, unsigned int i)
{
	memset(key, 0, sizeof(*key));
	if (family == NFHP_FAMILY_IPV6) {
		key->v[NFHP_DIM_SRC] = (nfhp_u128)0x20010db8u << 96 |
				       (nfhp_u128)i << (i % 128);
		key->v[NFHP_DIM_DST] = ~(nfhp_u128)0 >> (i % 128);
	} else {
		key->v[NFHP_DIM_SRC] = 0x0a000000u + i * 0x01010101u;
	}
	key->v[NFHP_DIM_DPORT] = i * 997 % 65536;
	nfhp_key_fold_port(key, i % 3 ? 6 : family == NFHP_FAMILY_IPV6 &&
			   i % 2 ? 58 : 17);
}

/* The input as a rule set of @family, committed, then 64 packets. */
static void fz_one(const uint8_t *data, size_t size, u8 family)
{
	struct nfhp_ruleset *rs = nfhp_ruleset_new(family, 64ull << 20);
	struct nfhp_verdict v;
	struct nfhp_key key;
	char err[256];
	unsigned int i;
	FILE *f;

	if (!rs)
		return;
	f = fmemopen((void *)data, size, "r");
	if (f) {
		nfhp_txn_begin(rs);
		nfhp_parse_save_stream(f, family, &fz_ops, rs, err,
				       sizeof(err));
		fclose(f);
		nfhp_txn_commit(rs, NULL);
	}
	for (i = 0; i < 64; i++) {
		fz_key(&key, family, i);
		nfhp_classify(rs, i % NFHP_HOOK_MAX, &key, 100, NULL, &v);
	}
	nfhp_ruleset_free(rs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_one(data, size, NFHP_FAMILY_IPV4);
	fz_one(data, size, NFHP_FAMILY_IPV6);
	return 0;
}
