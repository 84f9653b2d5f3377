// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the xtables fallback of the command line tools.
 *
 * Every match and target nf-hipac does not classify natively (-m limit,
 * -j REJECT, ...) is parsed, checked and printed by the system's own
 * libxtables extensions, the way iptables 1.8.9 does it in
 * iptables/xshared.c: command_match() loads a match and merges its
 * options into xt_params->opts, command_jump() a target, command_default()
 * hands an option to the extension whose option_offset range holds it,
 * and xtables_option_mfcall()/tfcall() run the final checks.  The result
 * is the payload of NFHPA_RULE_XT (include/uapi/linux/nf_hipac.h): one
 * NFHPA_XT_MATCH per match in load order, then the NFHPA_XT_TARGET, each
 * with the name the kernel knows, the revision and the bytes libxtables
 * put after the xt_entry_match or xt_entry_target header.
 *
 * libxtables reports errors through xt_params->exit_err, which must not
 * return: ours keeps the message for the parser and longjmp()s back to
 * the guard around the call, so that the CLI prints it and exits with
 * iptables' code, as it does for the native matches.
 *
 * This file is compiled against the system's kernel headers (libxtables
 * needs them), not the userspace shim, so it takes spec.h on its own.
 */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <libmnl/libmnl.h>
#include <xtables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#define __aligned(x)	__attribute__((aligned(x)))
#include "spec.h"
#include "xt_hooks.h"
#include "xt.h"

#define XT_PROG			(xt.v6 ? "ip6tables" : "iptables")
#define XT_PROG_VERSION		"1.8.9"
/* More matches than fit into NFHP_XT_MAXLEN anyway. */
#define XT_MAX_MATCHES		64
#define XT_UNSUPPORTED_REV	" [unsupported revision]"

/**
 * struct xt_state - libxtables' view of the rule being parsed
 * @matches: the loaded matches, in load order (iptables' cs->matches)
 * @target: the loaded target, or NULL
 * @fw: the entry the extensions' parsers see (only the protocol is set),
 *	IPv4's
 * @fw6: the same, IPv6's
 * @mseq: the load sequence number of each entry of @matches
 * @nmatch: entries in @matches
 * @tseq: the load sequence number of @target
 * @probe: ask the kernel which revisions it has
 * @v6: libxtables is initialised for IPv6 (ip6tables), else for IPv4
 * @ready: libxtables is initialised
 * @armed: a guarded call runs; exit_err longjmp()s to @env
 * @env: where exit_err returns to
 * @err: the message buffer of the guarded call
 * @errlen: its size
 */
struct xt_state {
	struct xtables_rule_match *matches;
	struct xtables_target *target;
	union {
		struct ipt_entry fw;
		struct ip6t_entry fw6;
	};
	unsigned int mseq[XT_MAX_MATCHES];
	unsigned int nmatch;
	unsigned int tseq;
	bool probe;
	bool v6;
	bool ready;
	bool armed;
	jmp_buf env;
	char *err;
	size_t errlen;
};

static struct xt_state xt;

static struct option xt_no_opts[] = {
	{ NULL, 0, NULL, 0 },
};

static void xt_exit_err(enum xtables_exittype status, const char *msg, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/*
 * Ask ip_tables (ip6_tables) which revisions the kernel has, as
 * libxtables does, but without loading modules; when it cannot tell (no
 * ip_tables, no CAP_NET_RAW), take the newest revision libxtables has.
 */
static int xt_compat_rev(const char *name, uint8_t rev, int opt)
{
	struct xt_get_revision r;
	socklen_t len = sizeof(r);
	int fd, ret, err;

	if (!xt.probe)
		return 1;
	fd = socket(xt.v6 ? AF_INET6 : AF_INET, SOCK_RAW | SOCK_CLOEXEC,
		    IPPROTO_RAW);
	if (fd < 0)
		return 1;
	memset(&r, 0, sizeof(r));
	snprintf(r.name, sizeof(r.name), "%s", name);
	r.revision = rev;
	ret = getsockopt(fd, xt.v6 ? IPPROTO_IPV6 : IPPROTO_IP, opt, &r, &len);
	err = errno;
	close(fd);
	if (ret >= 0)
		return 1;
	return err != ENOENT && err != EPROTONOSUPPORT;
}

static struct xtables_globals xt_globals = {
	.option_offset = 0,
	.program_name = "iptables",
	.program_version = XT_PROG_VERSION,
	.orig_opts = xt_no_opts,
	.opts = xt_no_opts,
	.exit_err = xt_exit_err,
	.compat_rev = xt_compat_rev,
};

static void xt_exit_err(enum xtables_exittype status, const char *msg, ...)
{
	int code = status >= OTHER_PROBLEM && status <= RESOURCE_PROBLEM ?
		   (int)status : PARAMETER_PROBLEM;
	va_list ap;

	va_start(ap, msg);
	if (xt.armed) {
		vsnprintf(xt.err, xt.errlen, msg, ap);
		va_end(ap);
		xt.armed = false;
		longjmp(xt.env, code);
	}
	/* Outside a guarded call: do what iptables does. */
	fprintf(stderr, "%s v%s (legacy): ", XT_PROG, XT_PROG_VERSION);
	vfprintf(stderr, msg, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

/*
 * Run @fn under the exit_err guard.  Return what @fn returns, or the exit
 * code of a libxtables error with its message in @err.
 */
static int xt_guarded(int (*fn)(void *arg), void *arg, char *err,
		      size_t errlen)
{
	int ret;

	xt.err = err;
	xt.errlen = errlen;
	ret = setjmp(xt.env);
	if (ret)
		return ret;
	xt.armed = true;
	ret = fn(arg);
	xt.armed = false;
	return ret;
}

/* --- parsing -------------------------------------------------------------- */

/* xs_init_match() / xs_init_target() of iptables */
static void xt_init_match(struct xtables_match *m)
{
	if (m->udata_size) {
		free(m->udata);
		m->udata = xtables_calloc(1, m->udata_size);
	}
	if (m->init)
		m->init(m->m);
}

static void xt_init_target(struct xtables_target *t)
{
	if (t->udata_size) {
		free(t->udata);
		t->udata = xtables_calloc(1, t->udata_size);
	}
	if (t->init)
		t->init(t->t);
}

static void xt_merge_opts(const struct xt_option_entry *x6,
			  const struct option *extra, unsigned int *offset)
{
	struct option *opts = xt_params->opts;

	if (x6)
		opts = xtables_options_xfrm(xt_params->orig_opts, opts,
					    x6, offset);
	else if (extra)
		opts = xtables_merge_options(xt_params->orig_opts, opts,
					     extra, offset);
	if (!opts && (x6 || extra))
		xtables_error(OTHER_PROBLEM, "can't alloc memory!");
	xt_params->opts = opts;
}

/* Forget the last rule's extensions, as iptables' do_parse() starts. */
static void xt_begin(void)
{
	struct xtables_match *m;
	struct xtables_target *t;

	xtables_rule_matches_free(&xt.matches);
	if (xt.target) {
		free(xt.target->t);
		xt.target->t = NULL;
		xt.target = NULL;
	}
	xtables_free_opts(1);
	xt_params->opts = xt_params->orig_opts;
	for (m = xtables_matches; m; m = m->next)
		m->mflags = 0;
	for (t = xtables_targets; t; t = t->next) {
		t->tflags = 0;
		t->used = 0;
	}
	memset(&xt.fw6, 0, sizeof(xt.fw6));
	xt.nmatch = 0;
}

struct xt_load {
	const char *name;
	bool implicit;
	unsigned int seq;
};

/* command_match(), and load_proto() for @implicit */
static int xt_do_match(void *arg)
{
	const struct xt_load *l = arg;
	struct xtables_match *m;
	size_t size;

	if (xt.nmatch == XT_MAX_MATCHES)
		xtables_error(PARAMETER_PROBLEM,
			      "nf-hipac: more than %u matches in a rule",
			      XT_MAX_MATCHES);
	m = xtables_find_match(l->name, l->implicit ? XTF_TRY_LOAD :
			       XTF_LOAD_MUST_SUCCEED, &xt.matches);
	if (!m)
		return -1;
	xt.mseq[xt.nmatch++] = l->seq;
	size = XT_ALIGN(sizeof(struct xt_entry_match)) + m->size;
	m->m = xtables_calloc(1, size);
	m->m->u.match_size = size;
	if (!m->real_name || l->implicit) {
		strcpy(m->m->u.user.name, m->name);
	} else {
		strcpy(m->m->u.user.name, m->real_name);
		if (!(m->ext_flags & XTABLES_EXT_ALIAS))
			fprintf(stderr,
				"Notice: the %s match is converted into %s match in rule listing and saving.\n",
				m->name, m->real_name);
	}
	m->m->u.user.revision = m->revision;
	xt_init_match(m);
	if (m == m->next)	/* a clone shares the options of the first */
		return 0;
	xt_merge_opts(m->x6_options, m->extra_opts, &m->option_offset);
	return 0;
}

static int xt_match(const char *name, bool implicit, unsigned int seq,
		    char *err, size_t errlen)
{
	struct xt_load l = { name, implicit, seq };

	return xt_guarded(xt_do_match, &l, err, errlen);
}

/* command_jump() */
static int xt_do_target(void *arg)
{
	const struct xt_load *l = arg;
	struct xtables_target *t;
	size_t size;

	t = xtables_find_target(l->name, XTF_TRY_LOAD);
	if (!t)
		return 0;
	if (!strcmp(t->name, "standard"))
		xtables_error(PARAMETER_PROBLEM,
			      "nf-hipac: target `%s' is not supported",
			      l->name);
	size = XT_ALIGN(sizeof(struct xt_entry_target)) + t->size;
	t->t = xtables_calloc(1, size);
	t->t->u.target_size = size;
	if (!t->real_name) {
		strcpy(t->t->u.user.name, l->name);
	} else {
		strcpy(t->t->u.user.name, t->real_name);
		if (!(t->ext_flags & XTABLES_EXT_ALIAS))
			fprintf(stderr,
				"Notice: The %s target is converted into %s target in rule listing and saving.\n",
				l->name, t->real_name);
	}
	t->t->u.user.revision = t->revision;
	xt.target = t;
	xt.tseq = l->seq;
	xt_init_target(t);
	xt_merge_opts(t->x6_options, t->extra_opts, &t->option_offset);
	return 1;
}

static int xt_target(const char *name, unsigned int seq, char *err,
		     size_t errlen)
{
	struct xt_load l = { name, false, seq };

	return xt_guarded(xt_do_target, &l, err, errlen);
}

static bool xt_owns(unsigned int offset, int c)
{
	return c >= (int)offset && c < (int)offset + 256;
}

/*
 * The extension an option number belongs to, as command_default() finds
 * it: the target first, then the first match not completed by a later
 * instance of itself.  Returns false when nobody takes it.
 */
static bool xt_owner(int c, struct xtables_rule_match **mp,
		     unsigned int *seq)
{
	struct xtables_target *t = xt.target;
	struct xtables_rule_match *p;
	unsigned int i = 0;

	*mp = NULL;
	if (t && (t->parse || t->x6_parse) && xt_owns(t->option_offset, c)) {
		*seq = xt.tseq;
		return true;
	}
	for (p = xt.matches; p; p = p->next, i++) {
		if (p->completed || (!p->match->parse && !p->match->x6_parse))
			continue;
		if (!xt_owns(p->match->option_offset, c))
			continue;
		*mp = p;
		*seq = xt.mseq[i];
		return true;
	}
	return false;
}

/* getopt_long()'s lookup in the merged table: exact, else unique prefix. */
static int xt_find_option(const char *name, size_t len,
			  struct nfhp_ext_opt *o)
{
	const struct option *opts = xt_params->opts, *p, *found = NULL;
	struct xtables_rule_match *mp;
	bool ambiguous = false;

	if (!opts)
		return 0;
	for (p = opts; p->name; p++) {
		if (strncmp(p->name, name, len))
			continue;
		if (strlen(p->name) == len) {
			found = p;
			ambiguous = false;
			break;
		}
		if (found && (found->has_arg != p->has_arg ||
			      found->val != p->val))
			ambiguous = true;
		if (!found)
			found = p;
	}
	if (ambiguous)
		return -1;
	if (!found || !xt_owner(found->val, &mp, &o->seq))
		return 0;
	o->id = found->val;
	o->has_arg = found->has_arg;
	o->exact = strlen(found->name) == len;
	return 1;
}

/* The protocol of the rule, where the extensions' parsers look for it. */
static void xt_set_proto(unsigned char proto, bool inv)
{
	if (xt.v6) {
		xt.fw6.ipv6.proto = proto;
		xt.fw6.ipv6.flags = proto ? IP6T_F_PROTO : 0;
		xt.fw6.ipv6.invflags = inv ? XT_INV_PROTO : 0;
	} else {
		xt.fw.ip.proto = proto;
		xt.fw.ip.invflags = inv ? XT_INV_PROTO : 0;
	}
}

struct xt_opt_call {
	int id;
	const char *arg;
	char **argv;
	int *ip;
	bool invert;
};

/* command_default(): the option to its extension */
static int xt_do_option(void *arg)
{
	struct xt_opt_call *oc = arg;
	struct xtables_rule_match *mp;
	unsigned int seq;

	if (!xt_owner(oc->id, &mp, &seq))
		xtables_error(PARAMETER_PROBLEM, "Unknown arg \"%s\"",
			      oc->arg ? oc->arg : "");
	optarg = (char *)oc->arg;
	optind = *oc->ip;
	if (mp)
		xtables_option_mpcall(oc->id, oc->argv, oc->invert, mp->match,
				      &xt.fw6);
	else
		xtables_option_tpcall(oc->id, oc->argv, oc->invert, xt.target,
				      &xt.fw6);
	*oc->ip = optind;
	return 0;
}

static int xt_option(int id, const char *arg, char **argv, int *ip,
		     bool invert, unsigned char proto, bool proto_inv,
		     char *err, size_t errlen)
{
	struct xt_opt_call oc = { id, arg, argv, ip, invert };

	xt_set_proto(proto, proto_inv);
	return xt_guarded(xt_do_option, &oc, err, errlen);
}

/* One NFHPA_XT_MATCH or NFHPA_XT_TARGET into @nlh, false when full. */
static bool xt_put_ext(struct nlmsghdr *nlh, size_t cap, int type,
		       const char *name, u8 rev, const void *data, size_t len)
{
	struct nlattr *nest;

	nest = mnl_attr_nest_start_check(nlh, cap, type);
	if (!nest)
		return false;
	if (!mnl_attr_put_strz_check(nlh, cap, NFHPA_XTE_NAME, name) ||
	    !mnl_attr_put_u8_check(nlh, cap, NFHPA_XTE_REVISION, rev) ||
	    !mnl_attr_put_check(nlh, cap, NFHPA_XTE_DATA, len, data))
		return false;
	mnl_attr_nest_end(nlh, nest);
	return true;
}

static bool xt_put_all(struct nlmsghdr *nlh, size_t cap)
{
	const struct xtables_rule_match *p;
	const struct xt_entry_match *m;
	const struct xt_entry_target *t;

	for (p = xt.matches; p; p = p->next) {
		m = p->match->m;
		if (!xt_put_ext(nlh, cap, NFHPA_XT_MATCH, m->u.user.name,
				m->u.user.revision, m->data,
				m->u.match_size - sizeof(*m)))
			return false;
	}
	if (!xt.target)
		return true;
	t = xt.target->t;
	return xt_put_ext(nlh, cap, NFHPA_XT_TARGET, t->u.user.name,
			  t->u.user.revision, t->data,
			  t->u.target_size - sizeof(*t));
}

/* The final checks, then the extensions into spec->ext. */
static int xt_do_finish(void *arg)
{
	struct nfhp_rule_spec *spec = arg;
	struct xtables_rule_match *p;
	union {
		struct nlmsghdr nlh;
		char buf[MNL_NLMSG_HDRLEN + NFHP_XT_MAXLEN];
	} u;
	struct nlmsghdr *nlh;
	size_t len;

	for (p = xt.matches; p; p = p->next)
		xtables_option_mfcall(p->match);
	if (xt.target)
		xtables_option_tfcall(xt.target);
	memset(&u, 0, sizeof(u));
	nlh = mnl_nlmsg_put_header(u.buf);
	if (!xt_put_all(nlh, sizeof(u.buf)))
		xtables_error(PARAMETER_PROBLEM,
			      "nf-hipac: the rule's matches and target take more than %u bytes",
			      NFHP_XT_MAXLEN);
	len = nlh->nlmsg_len - MNL_NLMSG_HDRLEN;
	memcpy(spec->ext, mnl_nlmsg_get_payload(nlh), len);
	spec->ext_len = len;
	return 0;
}

static int xt_finish(struct nfhp_rule_spec *spec, unsigned char proto,
		     bool proto_inv, char *err, size_t errlen)
{
	int ret;

	spec->ext_len = 0;
	if (!xt.matches && !xt.target)
		return 0;
	xt_set_proto(proto, proto_inv);
	ret = xt_guarded(xt_do_finish, spec, err, errlen);
	/* The rule is in spec->ext now; see xt_print() for why to let go. */
	xt_begin();
	return ret;
}

static const struct nfhp_parse_ext xt_parse_ops = {
	.begin = xt_begin,
	.match = xt_match,
	.target = xt_target,
	.find_option = xt_find_option,
	.option = xt_option,
	.finish = xt_finish,
};

/* --- printing ------------------------------------------------------------- */

/**
 * struct xt_ext - one NFHPA_XT_MATCH or NFHPA_XT_TARGET, decoded
 * @type: NFHPA_XT_MATCH or NFHPA_XT_TARGET
 * @name: the extension's name
 * @rev: its revision
 * @data: its data
 * @len: bytes at @data
 */
struct xt_ext {
	int type;
	const char *name;
	u8 rev;
	const void *data;
	size_t len;
};

static int xt_ext_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, NFHPA_XTE_MAX) < 0)
		return MNL_CB_OK;
	if (type == NFHPA_XTE_NAME &&
	    (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0 ||
	     mnl_attr_get_payload_len(attr) > XT_EXTENSION_MAXNAMELEN))
		return MNL_CB_ERROR;
	if (type == NFHPA_XTE_REVISION &&
	    mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
		return MNL_CB_ERROR;
	tb[type] = attr;
	return MNL_CB_OK;
}

static bool xt_ext_decode(const struct nlattr *attr, struct xt_ext *e)
{
	const struct nlattr *tb[NFHPA_XTE_MAX + 1] = {};

	e->type = mnl_attr_get_type(attr);
	if (e->type != NFHPA_XT_MATCH && e->type != NFHPA_XT_TARGET)
		return false;
	if (mnl_attr_parse_nested(attr, xt_ext_attr_cb, tb) < 0 ||
	    !tb[NFHPA_XTE_NAME] || !tb[NFHPA_XTE_REVISION] ||
	    !tb[NFHPA_XTE_DATA])
		return false;
	e->name = mnl_attr_get_str(tb[NFHPA_XTE_NAME]);
	e->rev = mnl_attr_get_u8(tb[NFHPA_XTE_REVISION]);
	e->data = mnl_attr_get_payload(tb[NFHPA_XTE_DATA]);
	e->len = mnl_attr_get_payload_len(tb[NFHPA_XTE_DATA]);
	return true;
}

/*
 * The header and data of an extension, as the kernel would hand them to
 * iptables; at least as long as the extension expects (@size), so that a
 * short attribute cannot make its printer read beyond.
 */
static void *xt_entry(const struct xt_ext *e, size_t hdr, int size)
{
	size_t len = e->len;
	struct xt_entry_match *m;

	if (size > 0 && XT_ALIGN((size_t)size) > len)
		len = XT_ALIGN((size_t)size);
	m = xtables_calloc(1, hdr + len);
	m->u.match_size = hdr + e->len;
	snprintf(m->u.user.name, sizeof(m->u.user.name), "%s", e->name);
	m->u.user.revision = e->rev;
	memcpy(m->data, e->data, e->len);
	return m;
}

/**
 * union xt_ip - the IP part of a rule, as the extensions' printers see it
 * @v4: iptables' struct ipt_ip
 * @v6: ip6tables' struct ip6t_ip6
 */
union xt_ip {
	struct ipt_ip v4;
	struct ip6t_ip6 v6;
};

/* Protocol @proto (inverted with @inv) into @ip, of the family set up. */
static void xt_ip_proto(union xt_ip *ip, u8 proto, bool inv)
{
	if (xt.v6) {
		ip->v6.proto = proto;
		ip->v6.flags |= IP6T_F_PROTO;
		if (inv)
			ip->v6.invflags |= XT_INV_PROTO;
	} else {
		ip->v4.proto = proto;
		if (inv)
			ip->v4.invflags |= XT_INV_PROTO;
	}
}

/* The IP part the printers see: the rule's protocol and fragment flag. */
static void xt_rule_ip(const struct nfhp_rule_spec *spec, union xt_ip *ip)
{
	unsigned int i;

	memset(ip, 0, sizeof(*ip));
	for (i = 0; i < spec->nmatch && i < NFHP_DIM_MAX; i++) {
		const struct nfhp_dim_match *m = &spec->m[i];

		if (m->dim == NFHP_DIM_PROTO) {
			xt_ip_proto(ip, (u8)m->ranges[0].lo, m->invert);
		} else if (m->dim == NFHP_DIM_FRAG && !xt.v6) {
			ip->v4.flags |= IPT_F_FRAG;
			if (m->invert)
				ip->v4.invflags |= IPT_INV_FRAG;
		}
	}
}

/* print_match_save() of iptables-save */
static void xt_save_match(const struct xt_ext *e, const union xt_ip *ip)
{
	struct xtables_match *match, *mt;
	struct xt_entry_match *m;

	match = xtables_find_match(e->name, XTF_TRY_LOAD, NULL);
	if (!match) {
		fprintf(stderr, "Error: Can't find library for match `%s'\n",
			e->name);
		printf(" -m %s", e->name);
		return;
	}
	mt = xtables_find_match_revision(e->name, XTF_TRY_LOAD, match,
					 e->rev);
	m = xt_entry(e, sizeof(*m), mt ? mt->size : 0);
	if (mt && mt->save) {
		printf(" -m %s", mt->alias ? mt->alias(m) : e->name);
		mt->save(ip, m);
	} else if (match->save) {
		printf(XT_UNSUPPORTED_REV);
	}
	free(m);
}

/* print_match() of iptables -L */
static void xt_list_match(const struct xt_ext *e, const union xt_ip *ip,
			  bool numeric)
{
	struct xtables_match *match, *mt;
	struct xt_entry_match *m;

	match = xtables_find_match(e->name, XTF_TRY_LOAD, NULL);
	if (!match) {
		printf("UNKNOWN match `%s' ", e->name);
		return;
	}
	mt = xtables_find_match_revision(e->name, XTF_TRY_LOAD, match,
					 e->rev);
	m = xt_entry(e, sizeof(*m), mt ? mt->size : 0);
	if (mt && mt->print)
		mt->print(ip, m, numeric);
	else if (match->print)
		printf("%s%s ", match->name, XT_UNSUPPORTED_REV);
	else
		printf("%s ", e->name);
	free(m);
}

static struct xtables_target *xt_find_target(const struct xt_ext *e,
					     bool *unsupported)
{
	struct xtables_target *target, *tt;

	*unsupported = false;
	target = xtables_find_target(e->name, XTF_TRY_LOAD);
	if (!target)
		return NULL;
	tt = xtables_find_target_revision(e->name, XTF_TRY_LOAD, target,
					  e->rev);
	if (tt)
		return tt;
	*unsupported = true;
	return target;
}

/* The target part of print_rule4() of iptables-save */
static void xt_save_target(const struct xt_ext *e, const union xt_ip *ip)
{
	struct xtables_target *target;
	struct xt_entry_target *t;
	bool unsupported;

	target = xt_find_target(e, &unsupported);
	if (!target) {
		fprintf(stderr, "Can't find library for target `%s'\n",
			e->name);
		printf(" -j %s", e->name);
		return;
	}
	t = xt_entry(e, sizeof(*t), unsupported ? 0 : target->size);
	printf(" -j %s", target->alias ? target->alias(t) : e->name);
	if (unsupported)
		printf(XT_UNSUPPORTED_REV);
	else if (target->save)
		target->save(ip, t);
	free(t);
}

/* The target part of print_firewall() of iptables -L */
static void xt_list_target(const struct xt_ext *e, const union xt_ip *ip,
			   bool numeric)
{
	struct xtables_target *target;
	struct xt_entry_target *t;
	bool unsupported;

	target = xt_find_target(e, &unsupported);
	if (!target || unsupported) {
		if (e->len)
			printf("[%zu bytes of unknown target data] ", e->len);
		return;
	}
	t = xt_entry(e, sizeof(*t), target->size);
	if (target->print)
		target->print(ip, t, numeric);
	free(t);
}

enum xt_print_what {
	XT_SAVE_MATCHES,
	XT_SAVE_TARGET,
	XT_LIST,
	XT_LIST_NUMERIC,
};

struct xt_print_call {
	const struct nfhp_rule_spec *spec;
	int what;
};

static void xt_print_one(const struct xt_ext *e, const union xt_ip *ip,
			 int what)
{
	bool target = e->type == NFHPA_XT_TARGET;

	switch (what) {
	case XT_SAVE_MATCHES:
		if (!target)
			xt_save_match(e, ip);
		break;
	case XT_SAVE_TARGET:
		if (target)
			xt_save_target(e, ip);
		break;
	default:
		if (target)
			xt_list_target(e, ip, what == XT_LIST_NUMERIC);
		else
			xt_list_match(e, ip, what == XT_LIST_NUMERIC);
	}
}

static int xt_do_print(void *arg)
{
	const struct xt_print_call *pc = arg;
	const struct nfhp_rule_spec *spec = pc->spec;
	const struct nlattr *attr;
	union xt_ip ip;
	struct xt_ext e;
	size_t len = spec->ext_len;

	if (len > sizeof(spec->ext))
		len = sizeof(spec->ext);
	xt_rule_ip(spec, &ip);
	mnl_attr_for_each_payload((const void *)spec->ext, len) {
		if (!xt_ext_decode(attr, &e)) {
			fprintf(stderr, "nf-hipac: malformed extension in a rule\n");
			continue;
		}
		xt_print_one(&e, &ip, pc->what);
	}
	return 0;
}

/*
 * Run the printing @fn guarded.  The extensions print to stdout with
 * printf(): point stdout at @f while they run, so that their output lands
 * between ours, in order, whether @f is stdout or a memory stream.
 * Return false when libxtables gave up with an error (reported).
 */
static bool xt_print_to(FILE *f, int (*fn)(void *arg), void *arg)
{
	FILE *saved = stdout;
	char err[256];
	bool ok = true;

	/*
	 * xtables_find_match() hands out a clone of a match that a parsed
	 * rule still holds (its ->m is set): drop what a failed parse left.
	 */
	xt_begin();
	stdout = f;
	if (xt_guarded(fn, arg, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", XT_PROG, err);
		ok = false;
	}
	stdout = saved;
	return ok;
}

static void xt_print(FILE *f, const struct nfhp_rule_spec *spec, int what)
{
	struct xt_print_call pc = { spec, what };

	if (spec->ext_len)
		xt_print_to(f, xt_do_print, &pc);
}

static void xt_save_matches_hook(FILE *f, const struct nfhp_rule_spec *spec)
{
	xt_print(f, spec, XT_SAVE_MATCHES);
}

static void xt_save_target_hook(FILE *f, const struct nfhp_rule_spec *spec)
{
	xt_print(f, spec, XT_SAVE_TARGET);
}

static void xt_list_hook(FILE *f, const struct nfhp_rule_spec *spec,
			 bool numeric)
{
	xt_print(f, spec, numeric ? XT_LIST_NUMERIC : XT_LIST);
}

/* The name of the NFHPA_XT_TARGET, the target column of iptables -L. */
static const char *xt_target_name_hook(const struct nfhp_rule_spec *spec)
{
	static char name[XT_EXTENSION_MAXNAMELEN];
	const struct nlattr *attr;
	struct xt_ext e;
	size_t len = spec->ext_len;

	if (len > sizeof(spec->ext))
		len = sizeof(spec->ext);
	name[0] = 0;
	mnl_attr_for_each_payload((const void *)spec->ext, len) {
		if (xt_ext_decode(attr, &e) && e.type == NFHPA_XT_TARGET)
			snprintf(name, sizeof(name), "%s", e.name);
	}
	return name;
}

/* A library that prints revision @rev of the extension @e names. */
static bool xt_known(const struct xt_ext *e)
{
	if (e->type == NFHPA_XT_TARGET) {
		struct xtables_target *t;

		t = xtables_find_target(e->name, XTF_TRY_LOAD);
		return t && xtables_find_target_revision(e->name, XTF_TRY_LOAD,
							 t, e->rev);
	} else {
		struct xtables_match *m;

		m = xtables_find_match(e->name, XTF_TRY_LOAD, NULL);
		return m && xtables_find_match_revision(e->name, XTF_TRY_LOAD,
							m, e->rev);
	}
}

struct xt_save_call {
	const struct xt_ext *e;
	const union xt_ip *ip;
	bool known;
};

static int xt_do_save_one(void *arg)
{
	struct xt_save_call *sc = arg;

	sc->known = xt_known(sc->e);
	if (sc->known)
		xt_print_one(sc->e, sc->ip, sc->e->type == NFHPA_XT_TARGET ?
			     XT_SAVE_TARGET : XT_SAVE_MATCHES);
	return 0;
}

static bool xt_save_one_hook(FILE *f, bool target, const char *name,
			     unsigned int rev, const void *data, size_t len,
			     unsigned char proto, bool proto_inv)
{
	struct xt_ext e = {
		.type = target ? NFHPA_XT_TARGET : NFHPA_XT_MATCH,
		.name = name, .rev = rev, .data = data, .len = len,
	};
	struct xt_save_call sc = { .e = &e };
	union xt_ip ip = { };

	if (rev > 255 || strlen(name) >= XT_EXTENSION_MAXNAMELEN)
		return false;
	if (proto)
		xt_ip_proto(&ip, proto, proto_inv);
	sc.ip = &ip;
	return xt_print_to(f, xt_do_save_one, &sc) && sc.known;
}

static const struct nfhp_print_ext xt_print_ops = {
	.save_matches = xt_save_matches_hook,
	.save_target = xt_save_target_hook,
	.list = xt_list_hook,
	.target_name = xt_target_name_hook,
	.save_one = xt_save_one_hook,
};

/* --- setup ---------------------------------------------------------------- */

/**
 * nfhp_xt_setup() - initialise libxtables and plug it into parser and printer
 * @family: NFHP_FAMILY_IPV4 or NFHP_FAMILY_IPV6
 * @flags: %NFHP_XT_NO_PROBE to take the newest revision of every
 *	extension without asking the kernel (tests)
 *
 * Initialises libxtables for @family as iptables or ip6tables does, with
 * "iptables" or "ip6tables" as the program name in its messages.  The
 * extensions themselves are loaded only when a rule names them.  A
 * process works in one family: libxtables registers an extension's
 * variants of the family it was initialised for, once.
 *
 * Return: 0, or -1 when libxtables cannot be initialised (or was, for the
 * other family).
 */
int nfhp_xt_setup(u8 family, unsigned int flags)
{
	bool v6 = family == NFHP_FAMILY_IPV6;

	xt.probe = !(flags & NFHP_XT_NO_PROBE);
	if (xt.ready && xt.v6 != v6)
		return -1;
	if (!xt.ready) {
		xt.v6 = v6;
		xt_globals.program_name = XT_PROG;
		if (xtables_init_all(&xt_globals, v6 ? NFPROTO_IPV6 :
				     NFPROTO_IPV4) < 0)
			return -1;
		xt.ready = true;
	}
	nfhp_parse_set_ext(&xt_parse_ops);
	nfhp_print_set_ext(&xt_print_ops);
	return 0;
}

/**
 * nfhp_xt_fini() - unplug libxtables and free what the last rule held
 */
void nfhp_xt_fini(void)
{
	if (!xt.ready)
		return;
	nfhp_parse_set_ext(NULL);
	nfhp_print_set_ext(NULL);
	xt_begin();
	xtables_free_opts(1);
	xt_params->opts = xt_params->orig_opts;
}
