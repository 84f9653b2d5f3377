/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nl_fuzz: what nl_fuzz.c (requests, mutations, sockets) and nl_fuzz_set.c
 * (the named-set commands) share.
 */
#ifndef NL_FUZZ_H
#define NL_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

/* Room for the biggest request we build, mutations included. */
#define FZ_MSG_MAX	(48 * 1024)
/* The netlink and genetlink headers of a request. */
#define FZ_GENL_HDRLEN	(MNL_NLMSG_HDRLEN + \
			 MNL_ALIGN(sizeof(struct genlmsghdr)))

/**
 * struct fz_sock - one fuzzing socket
 * @nl: the socket, NULL while closed
 * @portid: its port id
 * @seq: sequence number of the last request
 * @txn: a transaction is (probably) open on it
 */
struct fz_sock {
	struct mnl_socket *nl;
	uint32_t portid;
	uint32_t seq;
	bool txn;
};

/* nl_fuzz.c */
uint64_t rnd(void);
uint32_t below(uint32_t n);
bool one_in(uint32_t n);
uint64_t rnd_value(void);
void rnd_bytes(void *p, size_t n);
bool room(const struct nlmsghdr *nlh, size_t n);
struct nlmsghdr *put_header(char *buf, uint8_t cmd, uint16_t flags);
unsigned int send_req(struct fz_sock *s, struct nlmsghdr *nlh,
		      unsigned int len, int *err);

/* nl_fuzz_set.c */
bool fz_set_cmd(uint8_t cmd);
uint8_t fz_pick_set_cmd(void);
struct nlmsghdr *fz_build_set(char *buf, uint8_t cmd);
void fz_put_setm(struct nlmsghdr *nlh, uint8_t family);
void fz_put_set_soup(struct nlmsghdr *nlh, unsigned int depth);
void fz_put_set_huge(struct nlmsghdr *nlh);
bool fz_set_errno_ok(uint8_t cmd, int err);
void fz_set_expect(const struct nlmsghdr *req, bool valid);
void fz_set_answer(const struct nlmsghdr *nlh);
bool fz_set_done(int err, bool overrun);
int fz_set_reset(struct fz_sock *s, bool strict);
void fz_set_report(void);

#endif /* NL_FUZZ_H */
