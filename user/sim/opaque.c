// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac-sim: opaque extensions, see opaque.h.
 *
 * spec->ext holds the words of a rule's extensions, each ending in NUL:
 * the matches ("-m", NAME and the options) in the order written, then
 * the target ("-j", NAME and the options).  No other word is "-m" or
 * "-j": a name never starts with '-', an option's argument neither.
 */
#include "opaque.h"
#include "parse.h"
#include "print.h"
#include "xt_hooks.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define OPAQUE_NAMELEN	29	/* XT_EXTENSION_MAXNAMELEN */
#define OPAQUE_OPTLEN	64
#define OPAQUE_MAXOPTS	256	/* a line's words (parse.c NFHP_MAX_ARGS) */
#define OPAQUE_NF_DROP	0	/* NF_DROP */

/*
 * The protocols whose match iptables loads for an option no loaded match
 * knows ("-p sctp --dport 5"): those that have a match.
 */
static const char *const proto_matches[] = {
	"tcp", "udp", "icmp", "sctp", "dccp", "udplite", "esp", "ah",
};

/**
 * struct opaque_line - the extensions of the command line being parsed
 * @rs: the rule set, whose chains are no targets
 * @words: the matches' words (@words[0]) and the target's (@words[1])
 * @len: bytes in each
 * @full: a word did not fit
 * @cur: where options go: 0 the last match, 1 the target, -1 nowhere yet
 * @seq: the load sequence number of the extension options go to
 * @opts: the long options looked up, without "--"; an index is an id
 * @nopts: entries in @opts
 */
static struct opaque_line {
	const struct nfhp_ruleset *rs;
	char words[2][NFHP_XT_MAXLEN];
	size_t len[2];
	bool full;
	int cur;
	unsigned int seq;
	char opts[OPAQUE_MAXOPTS][OPAQUE_OPTLEN];
	unsigned int nopts;
} line;

/* --- parsing ------------------------------------------------------------ */

static void op_begin(void)
{
	line.len[0] = 0;
	line.len[1] = 0;
	line.full = false;
	line.cur = -1;
	line.seq = 0;
	line.nopts = 0;
}

static void put(int where, const char *w)
{
	size_t n = strlen(w) + 1;

	if (line.len[where] + n > NFHP_XT_MAXLEN) {
		line.full = true;
		return;
	}
	memcpy(line.words[where] + line.len[where], w, n);
	line.len[where] += n;
}

/* An extension's name: letters, digits, '_' and '-', not first. */
static bool valid_name(const char *name)
{
	const char *p;

	if (!*name || *name == '-' || strlen(name) >= OPAQUE_NAMELEN)
		return false;
	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return false;
	return true;
}

static int op_match(const char *name, bool implicit, unsigned int seq,
		    char *err, size_t errlen)
{
	size_t i;

	if (implicit) {
		for (i = 0; i < ARRAY_SIZE(proto_matches); i++)
			if (!strcmp(name, proto_matches[i]))
				break;
		if (i == ARRAY_SIZE(proto_matches))
			return -1;
	}
	if (!valid_name(name)) {
		snprintf(err, errlen,
			 "Couldn't load match `%s':No such file or directory",
			 name);
		return NFHP_EXIT_PARAM;
	}
	put(0, "-m");
	put(0, name);
	line.cur = 0;
	line.seq = seq;
	return 0;
}

static int op_target(const char *name, unsigned int seq, char *err,
		     size_t errlen)
{
	if (nfhp_chain_find(line.rs, name))
		return 0;
	if (!valid_name(name)) {
		snprintf(err, errlen,
			 "Couldn't load target `%s':No such file or directory",
			 name);
		return NFHP_EXIT_PARAM;
	}
	put(1, "-j");
	put(1, name);
	line.cur = 1;
	line.seq = seq;
	return 1;
}

/*
 * Every long option after an opaque match or target is its option, in
 * full; the parser gives it to a native match or iptables itself only
 * when they know it by its full name too (ext_lookup()).
 */
static int op_find_option(const char *name, size_t len,
			  struct nfhp_ext_opt *o)
{
	unsigned int i;

	if (line.cur < 0 || !len || len >= OPAQUE_OPTLEN)
		return 0;
	for (i = 0; i < line.nopts; i++)
		if (!strncmp(line.opts[i], name, len) && !line.opts[i][len])
			break;
	if (i == line.nopts) {
		if (i == OPAQUE_MAXOPTS)
			return 0;
		memcpy(line.opts[i], name, len);
		line.opts[i][len] = 0;
		line.nopts++;
	}
	o->id = i;
	o->has_arg = 2;		/* "=value", else the words that follow */
	o->exact = true;
	o->seq = line.seq;
	return 1;
}

static int op_option(int id, const char *arg, char **argv, int *ip,
		     bool invert, unsigned char proto, bool proto_inv,
		     char *err, size_t errlen)
{
	char w[NFHP_XT_MAXLEN];
	int where = line.cur;

	if (where < 0 || id < 0 || (unsigned int)id >= line.nopts) {
		snprintf(err, errlen, "nf-hipac-sim: no extension for option %d",
			 id);
		return NFHP_EXIT_PARAM;
	}
	if (invert)
		put(where, "!");
	if (arg) {
		if (snprintf(w, sizeof(w), "--%s=%s", line.opts[id], arg) >=
		    (int)sizeof(w))
			line.full = true;
		else
			put(where, w);
		return 0;
	}
	snprintf(w, sizeof(w), "--%s", line.opts[id]);
	put(where, w);
	while (argv[*ip] && argv[*ip][0] != '-' && strcmp(argv[*ip], "!"))
		put(where, argv[(*ip)++]);
	return 0;
}

static int op_finish(struct nfhp_rule_spec *spec, unsigned char proto,
		     bool proto_inv, char *err, size_t errlen)
{
	size_t n = line.len[0] + line.len[1];

	spec->ext_len = 0;
	if (!n)
		return 0;
	if (line.full || n > NFHP_XT_MAXLEN) {
		snprintf(err, errlen,
			 "nf-hipac: the rule's matches and target take more than %u bytes",
			 NFHP_XT_MAXLEN);
		return NFHP_EXIT_PARAM;
	}
	memcpy(spec->ext, line.words[0], line.len[0]);
	memcpy(spec->ext + line.len[0], line.words[1], line.len[1]);
	spec->ext_len = n;
	return 0;
}

static const struct nfhp_parse_ext opaque_parse = {
	.begin = op_begin,
	.match = op_match,
	.target = op_target,
	.find_option = op_find_option,
	.option = op_option,
	.finish = op_finish,
	.any_order = true,
};

/* --- the words of a rule ------------------------------------------------ */

static bool is_group(const char *w)
{
	return !strcmp(w, "-m") || !strcmp(w, "-j");
}

/*
 * The first word of @spec's extensions (@w NULL) or the one after @w;
 * NULL after the last.
 */
static const char *next_word(const struct nfhp_rule_spec *spec,
			     const char *w)
{
	const char *end = (const char *)spec->ext + spec->ext_len;

	w = w ? w + strnlen(w, end - w) + 1 : (const char *)spec->ext;
	return w < end ? w : NULL;
}

/*
 * Are @spec's extensions words as op_finish() writes them?  Count the
 * matches into *@nmatch and find the target's name (*@target, NULL for
 * none).
 */
static bool check_words(const struct nfhp_rule_spec *spec,
			unsigned int *nmatch, const char **target)
{
	const char *w;
	bool is_target;

	*nmatch = 0;
	*target = NULL;
	if (!spec->ext_len || spec->ext[spec->ext_len - 1] ||
	    !is_group((const char *)spec->ext))
		return false;
	for (w = next_word(spec, NULL); w; w = next_word(spec, w)) {
		if (!is_group(w))
			continue;
		if (*target)
			return false;	/* the target comes last */
		is_target = w[1] == 'j';
		w = next_word(spec, w);
		if (!w || !*w || *w == '-')
			return false;
		if (is_target)
			*target = w;
		else
			(*nmatch)++;
	}
	return true;
}

/* --- printing ----------------------------------------------------------- */

/* One word, quoted when nfhp_split_line() would not read it back as is. */
static void print_word(FILE *f, const char *w)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789_-.,:/+=@%!";

	if (*w && !w[strspn(w, plain)])
		fprintf(f, " %s", w);
	else
		nfhp_print_save_string(f, w);
}

static const char *find_target(const struct nfhp_rule_spec *spec)
{
	const char *w;

	for (w = next_word(spec, NULL); w; w = next_word(spec, w))
		if (!strcmp(w, "-j"))
			return w;
	return NULL;
}

/* The words up to the target's "-j", or all. */
static void opaque_save_matches(FILE *f, const struct nfhp_rule_spec *spec)
{
	const char *w;

	for (w = next_word(spec, NULL); w && strcmp(w, "-j");
	     w = next_word(spec, w))
		print_word(f, w);
}

static void opaque_save_target(FILE *f, const struct nfhp_rule_spec *spec)
{
	const char *w;

	for (w = find_target(spec); w; w = next_word(spec, w))
		print_word(f, w);
}

/* iptables -L: the matches' words, then the target's options. */
static void opaque_list(FILE *f, const struct nfhp_rule_spec *spec,
			bool numeric)
{
	const char *w = find_target(spec);

	opaque_save_matches(f, spec);
	if (w)
		w = next_word(spec, w);
	if (w)
		w = next_word(spec, w);
	for (; w; w = next_word(spec, w))
		print_word(f, w);
}

static const char *opaque_target_name(const struct nfhp_rule_spec *spec)
{
	static char name[OPAQUE_NAMELEN];
	const char *w = find_target(spec);

	w = w ? next_word(spec, w) : NULL;
	snprintf(name, sizeof(name), "%s", w ? w : "[opaque]");
	return name;
}

static const struct nfhp_print_ext opaque_print = {
	.save_matches = opaque_save_matches,
	.save_target = opaque_save_target,
	.list = opaque_list,
	.target_name = opaque_target_name,
};

/**
 * nfhp_sim_opaque_plug() - run unknown extensions as opaque ones
 * @rs: the rule set whose chains -j may name, or NULL to unplug
 */
void nfhp_sim_opaque_plug(const struct nfhp_ruleset *rs)
{
	line.rs = rs;
	nfhp_parse_set_ext(rs ? &opaque_parse : NULL);
	nfhp_print_set_ext(rs ? &opaque_print : NULL);
}

/* --- the model ---------------------------------------------------------- */

/**
 * struct opaque_rule - the extensions of a rule as the model runs them
 * @drops: the target is REJECT
 * @nmatch: entries in @match
 * @match: a hash of the words of each match
 */
struct opaque_rule {
	bool drops;
	unsigned int nmatch;
	u64 match[];
};

/* FNV-1a over [@p, @end), mixed. */
static u64 words_hash(const char *p, const char *end)
{
	u64 h = 0xcbf29ce484222325ull;

	for (; p < end; p++)
		h = (h ^ (u8)*p) * 0x100000001b3ull;
	return nfhp_sim_mix64(h);
}

static int opaque_create(void *priv, const struct nfhp_rule_spec *spec,
			 unsigned int hooks, void **ext, bool *matches,
			 const char **msg)
{
	const char *end = (const char *)spec->ext + spec->ext_len;
	const char *w, *start = NULL, *target;
	struct opaque_rule *r;
	unsigned int n;

	if (!check_words(spec, &n, &target)) {
		*msg = "nf-hipac-sim: malformed opaque extensions";
		return -EINVAL;
	}
	if (!target != (spec->action != NFHP_ACT_XT)) {
		*msg = "nf-hipac-sim: opaque target and rule action disagree";
		return -EINVAL;
	}
	r = malloc(sizeof(*r) + n * sizeof(r->match[0]));
	if (!r) {
		*msg = "out of memory";
		return -ENOMEM;
	}
	r->drops = target && !strcmp(target, "REJECT");
	r->nmatch = 0;
	/* A match's words run from its "-m" to the next "-m" or "-j". */
	for (w = next_word(spec, NULL); w; w = next_word(spec, w)) {
		if (!is_group(w))
			continue;
		if (start)
			r->match[r->nmatch++] = words_hash(start, w);
		start = w[1] == 'm' ? w : NULL;
		w = next_word(spec, w);		/* its name */
	}
	if (start)
		r->match[r->nmatch++] = words_hash(start, end);
	*matches = r->nmatch > 0;
	*ext = r;
	return 0;
}

static void opaque_destroy(void *priv, void *ext)
{
	free(ext);
}

static enum nfhp_ext_result opaque_match(const void *ext, void *pkt)
{
	const struct opaque_rule *r = ext;
	const struct nfhp_sim_pkt *p = pkt;
	unsigned int i;

	for (i = 0; i < r->nmatch; i++)
		if (nfhp_sim_mix64(p->hash ^ r->match[i]) >> 63)
			return NFHP_EXT_NOMATCH;
	return NFHP_EXT_MATCH;
}

static u32 opaque_target(const void *ext, void *pkt)
{
	const struct opaque_rule *r = ext;

	return r->drops ? OPAQUE_NF_DROP : NFHP_EXT_CONTINUE;
}

static bool opaque_stateless(const void *ext)
{
	return true;
}

const struct nfhp_ext_ops nfhp_sim_opaque_ops = {
	.create = opaque_create,
	.destroy = opaque_destroy,
	.match = opaque_match,
	.target = opaque_target,
	.stateless = opaque_stateless,
};
