// SPDX-License-Identifier: GPL-2.0
/*
 * nf-hipac: the dynamic states' commands and events of the netlink
 * client (see nl_state.h and the states' part of
 * include/uapi/linux/nf_hipac.h).
 *
 * Requests go through nfhp_nl_request() and nfhp_nl_talk() of nl.c; the
 * answers are parsed the libmnl way: a callback per attribute checks its
 * type is known, validates it and stores it in tb[].  The events come on
 * a socket of their own, which asks the generic netlink controller for
 * the family's "states" group and joins it.
 */
#include "nl_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

/* --- encoding ------------------------------------------------------------ */

static void put_addr(struct nlmsghdr *nlh, u16 type, nfhp_u128 a)
{
	u32 w[4] = {
		(u32)(a >> 96), (u32)(a >> 64), (u32)(a >> 32), (u32)a,
	};

	mnl_attr_put(nlh, type, sizeof(w), w);
}

/**
 * nfhp_nl_put_state() - put NFHPA_STATE into a request
 * @nlh: the request
 * @e: the state: its flow always
 * @add: its rule, timeout, TCP flags and counters too (NFHP_CMD_STATE_ADD)
 */
void nfhp_nl_put_state(struct nlmsghdr *nlh, const struct nfhp_state_entry *e,
		       bool add)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFHPA_STATE);

	mnl_attr_put_u8(nlh, NFHPA_STATE_FAMILY, e->family);
	mnl_attr_put_u8(nlh, NFHPA_STATE_PROTO, e->proto);
	put_addr(nlh, NFHPA_STATE_SRC, e->src);
	put_addr(nlh, NFHPA_STATE_DST, e->dst);
	mnl_attr_put_u16(nlh, NFHPA_STATE_SPORT, e->sport);
	mnl_attr_put_u16(nlh, NFHPA_STATE_DPORT, e->dport);
	if (add) {
		mnl_attr_put_strz(nlh, NFHPA_STATE_CHAIN, e->chain);
		mnl_attr_put_u32(nlh, NFHPA_STATE_POS, e->pos);
		mnl_attr_put_u32(nlh, NFHPA_STATE_TIMEOUT, e->timeout);
		mnl_attr_put_u8(nlh, NFHPA_STATE_TCP_FWD, e->tcp[0]);
		mnl_attr_put_u8(nlh, NFHPA_STATE_TCP_REV, e->tcp[1]);
		mnl_attr_put_u64(nlh, NFHPA_STATE_PACKETS_FWD, e->pkts[0]);
		mnl_attr_put_u64(nlh, NFHPA_STATE_BYTES_FWD, e->bytes[0]);
		mnl_attr_put_u64(nlh, NFHPA_STATE_PACKETS_REV, e->pkts[1]);
		mnl_attr_put_u64(nlh, NFHPA_STATE_BYTES_REV, e->bytes[1]);
	}
	mnl_attr_nest_end(nlh, nest);
}

/* --- decoding ------------------------------------------------------------ */

static int top_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, NFHPA_MAX) < 0)
		return MNL_CB_OK;	/* a newer kernel's */
	if (type == NFHPA_STATE &&
	    mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
		return MNL_CB_ERROR;
	tb[type] = attr;
	return MNL_CB_OK;
}

static int state_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, NFHPA_STATE_MAX) < 0)
		return MNL_CB_OK;
	switch (type) {
	case NFHPA_STATE_FAMILY:
	case NFHPA_STATE_PROTO:
	case NFHPA_STATE_TCP_FWD:
	case NFHPA_STATE_TCP_REV:
	case NFHPA_STATE_VERDICT:
		if (mnl_attr_validate(attr, MNL_TYPE_U8) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_STATE_SRC:
	case NFHPA_STATE_DST:
		if (mnl_attr_validate2(attr, MNL_TYPE_BINARY,
				       4 * sizeof(u32)) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_STATE_SPORT:
	case NFHPA_STATE_DPORT:
		if (mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_STATE_TIMEOUT:
	case NFHPA_STATE_POS:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_STATE_PACKETS_FWD:
	case NFHPA_STATE_BYTES_FWD:
	case NFHPA_STATE_PACKETS_REV:
	case NFHPA_STATE_BYTES_REV:
		if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
			return MNL_CB_ERROR;
		break;
	case NFHPA_STATE_CHAIN:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0 ||
		    mnl_attr_get_payload_len(attr) > NFHP_CHAIN_MAXNAMELEN)
			return MNL_CB_ERROR;
		break;
	}
	tb[type] = attr;
	return MNL_CB_OK;
}

static nfhp_u128 get_addr(const struct nlattr *attr)
{
	u32 w[4];

	memcpy(w, mnl_attr_get_payload(attr), sizeof(w));
	return (nfhp_u128)w[0] << 96 | (nfhp_u128)w[1] << 64 |
	       (nfhp_u128)w[2] << 32 | w[3];
}

static u64 get_u64_or_0(const struct nlattr *attr)
{
	return attr ? mnl_attr_get_u64(attr) : 0;
}

/**
 * nfhp_nl_parse_state_msg() - read the NFHPA_STATE of a message
 * @nlh: a listing's message or an event
 * @e: filled in; what is absent is 0 ("" for the chain)
 *
 * Return: 0, or -EINVAL for a message without a flow or malformed.
 */
int nfhp_nl_parse_state_msg(const struct nlmsghdr *nlh,
			    struct nfhp_state_entry *e)
{
	const struct nlattr *top[NFHPA_MAX + 1] = {};
	const struct nlattr *tb[NFHPA_STATE_MAX + 1] = {};

	memset(e, 0, sizeof(*e));
	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), top_attr_cb,
			   top) < 0 || !top[NFHPA_STATE])
		return -EINVAL;
	if (mnl_attr_parse_nested(top[NFHPA_STATE], state_attr_cb, tb) < 0)
		return -EINVAL;
	if (!tb[NFHPA_STATE_FAMILY] || !tb[NFHPA_STATE_PROTO] ||
	    !tb[NFHPA_STATE_SRC] || !tb[NFHPA_STATE_DST])
		return -EINVAL;
	e->family = mnl_attr_get_u8(tb[NFHPA_STATE_FAMILY]);
	e->proto = mnl_attr_get_u8(tb[NFHPA_STATE_PROTO]);
	e->src = get_addr(tb[NFHPA_STATE_SRC]);
	e->dst = get_addr(tb[NFHPA_STATE_DST]);
	if (e->family != NFHP_FAMILY_IPV6 && ((e->src | e->dst) >> 32))
		return -EINVAL;
	if (tb[NFHPA_STATE_SPORT])
		e->sport = mnl_attr_get_u16(tb[NFHPA_STATE_SPORT]);
	if (tb[NFHPA_STATE_DPORT])
		e->dport = mnl_attr_get_u16(tb[NFHPA_STATE_DPORT]);
	if (tb[NFHPA_STATE_TCP_FWD])
		e->tcp[0] = mnl_attr_get_u8(tb[NFHPA_STATE_TCP_FWD]);
	if (tb[NFHPA_STATE_TCP_REV])
		e->tcp[1] = mnl_attr_get_u8(tb[NFHPA_STATE_TCP_REV]);
	if (tb[NFHPA_STATE_TIMEOUT])
		e->timeout = mnl_attr_get_u32(tb[NFHPA_STATE_TIMEOUT]);
	e->pkts[0] = get_u64_or_0(tb[NFHPA_STATE_PACKETS_FWD]);
	e->bytes[0] = get_u64_or_0(tb[NFHPA_STATE_BYTES_FWD]);
	e->pkts[1] = get_u64_or_0(tb[NFHPA_STATE_PACKETS_REV]);
	e->bytes[1] = get_u64_or_0(tb[NFHPA_STATE_BYTES_REV]);
	if (tb[NFHPA_STATE_VERDICT])
		e->verdict = mnl_attr_get_u8(tb[NFHPA_STATE_VERDICT]);
	if (tb[NFHPA_STATE_CHAIN] && tb[NFHPA_STATE_POS]) {
		strcpy(e->chain, mnl_attr_get_str(tb[NFHPA_STATE_CHAIN]));
		e->pos = mnl_attr_get_u32(tb[NFHPA_STATE_POS]);
	}
	return 0;
}

/* --- requests ------------------------------------------------------------ */

/**
 * struct list_ctx - a listing under way
 * @fn: the caller's callback
 * @data: its argument
 */
struct list_ctx {
	int (*fn)(void *data, const struct nfhp_state_entry *e);
	void *data;
};

static int list_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct list_ctx *c = data;
	struct nfhp_state_entry e;
	int ret = nfhp_nl_parse_state_msg(nlh, &e);

	return ret ? ret : c->fn(c->data, &e);
}

int nfhp_nl_state_list(struct nfhp_nl *nl, u8 family,
		       int (*fn)(void *data, const struct nfhp_state_entry *e),
		       void *data)
{
	struct nlmsghdr *nlh = nfhp_nl_request(nl, NFHP_CMD_STATE_LIST, true);
	struct list_ctx c = { .fn = fn, .data = data };
	struct nlattr *nest;

	if (family) {
		nest = mnl_attr_nest_start(nlh, NFHPA_STATE);
		mnl_attr_put_u8(nlh, NFHPA_STATE_FAMILY, family);
		mnl_attr_nest_end(nlh, nest);
	}
	return nfhp_nl_talk(nl, nlh, list_msg_cb, &c);
}

/**
 * struct get_ctx - the one state nfhp_nl_state_get() asked for
 * @e: where it goes
 * @found: it came
 */
struct get_ctx {
	struct nfhp_state_entry *e;
	bool found;
};

static int get_cb(void *data, const struct nfhp_state_entry *e)
{
	struct get_ctx *g = data;

	*g->e = *e;
	g->found = true;
	return 0;
}

int nfhp_nl_state_get(struct nfhp_nl *nl, const struct nfhp_state_entry *flow,
		      struct nfhp_state_entry *e, bool *found)
{
	struct nlmsghdr *nlh = nfhp_nl_request(nl, NFHP_CMD_STATE_LIST, true);
	struct get_ctx g = { .e = e };
	struct list_ctx c = { .fn = get_cb, .data = &g };
	int ret;

	nfhp_nl_put_state(nlh, flow, false);
	ret = nfhp_nl_talk(nl, nlh, list_msg_cb, &c);
	*found = !ret && g.found;
	return ret;
}

int nfhp_nl_state_del(struct nfhp_nl *nl, const struct nfhp_state_entry *e)
{
	struct nlmsghdr *nlh = nfhp_nl_request(nl, NFHP_CMD_STATE_DEL, false);

	nfhp_nl_put_state(nlh, e, false);
	return nfhp_nl_talk(nl, nlh, NULL, NULL);
}

int nfhp_nl_state_flush(struct nfhp_nl *nl, u8 family, const char *chain,
			u32 pos)
{
	struct nlmsghdr *nlh = nfhp_nl_request(nl, NFHP_CMD_STATE_FLUSH, false);
	struct nlattr *nest;

	if (family || chain) {
		nest = mnl_attr_nest_start(nlh, NFHPA_STATE);
		if (family)
			mnl_attr_put_u8(nlh, NFHPA_STATE_FAMILY, family);
		if (chain) {
			mnl_attr_put_strz(nlh, NFHPA_STATE_CHAIN, chain);
			mnl_attr_put_u32(nlh, NFHPA_STATE_POS, pos);
		}
		mnl_attr_nest_end(nlh, nest);
	}
	return nfhp_nl_talk(nl, nlh, NULL, NULL);
}

int nfhp_nl_state_add(struct nfhp_nl *nl, const struct nfhp_state_entry *e)
{
	struct nlmsghdr *nlh = nfhp_nl_request(nl, NFHP_CMD_STATE_ADD, false);

	nfhp_nl_put_state(nlh, e, true);
	return nfhp_nl_talk(nl, nlh, NULL, NULL);
}

/* --- events -------------------------------------------------------------- */

/* Room for a buffer of events: many a message, each under 400 bytes. */
#define NFHP_NL_MON_SIZE	65536

/**
 * struct nfhp_nl_mon - a socket of the "states" events
 * @sock: the socket
 * @family: the id of the family "nf_hipac"
 * @group: the id of its group "states"
 * @buf: what one read takes
 */
struct nfhp_nl_mon {
	struct mnl_socket *sock;
	u16 family;
	u32 group;
	char buf[NFHP_NL_MON_SIZE];
};

int nfhp_nl_mon_open(struct nfhp_nl_mon **mp)
{
	struct nfhp_nl_ids ids = { .group = NFHP_MCGRP_STATES };
	struct nfhp_nl_mon *m = calloc(1, sizeof(*m));
	int ret;

	if (!m)
		return -ENOMEM;
	m->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!m->sock) {
		free(m);
		return -errno;
	}
	ret = mnl_socket_bind(m->sock, 0, MNL_SOCKET_AUTOPID) < 0 ? -errno :
	      nfhp_nl_resolve(m->sock, m->buf, sizeof(m->buf), time(NULL),
			      &ids);
	m->family = ids.family;
	m->group = ids.group_id;
	if (!ret && mnl_socket_setsockopt(m->sock, NETLINK_ADD_MEMBERSHIP,
					  &m->group, sizeof(m->group)) < 0)
		ret = -errno;
	if (ret) {
		nfhp_nl_mon_close(m);
		return ret;
	}
	*mp = m;
	return 0;
}

int nfhp_nl_mon_read(struct nfhp_nl_mon *m,
		     int (*fn)(void *data, u8 cmd,
			       const struct nfhp_state_entry *e),
		     void *data)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)m->buf;
	struct nfhp_state_entry e;
	const struct genlmsghdr *genl;
	ssize_t len;
	int ret, n;

	len = mnl_socket_recvfrom(m->sock, m->buf, sizeof(m->buf));
	if (len < 0)
		return -errno;
	for (n = len; mnl_nlmsg_ok(nlh, n); nlh = mnl_nlmsg_next(nlh, &n)) {
		if (nlh->nlmsg_type != m->family)
			continue;
		genl = mnl_nlmsg_get_payload(nlh);
		if (genl->cmd != NFHP_CMD_STATE_NEW &&
		    genl->cmd != NFHP_CMD_STATE_DESTROY)
			continue;
		if (nfhp_nl_parse_state_msg(nlh, &e))
			continue;
		ret = fn(data, genl->cmd, &e);
		if (ret)
			return ret;
	}
	return 0;
}

void nfhp_nl_mon_close(struct nfhp_nl_mon *m)
{
	if (!m)
		return;
	if (m->sock)
		mnl_socket_close(m->sock);
	free(m);
}
