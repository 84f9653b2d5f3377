/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The netlink client of lib/nl.c against a fake kernel, for the tests that
 * run the tools as they are (test_set_restore.c, test_counters_cli.c).
 *
 * lib/nl.c is compiled into the test with libmnl's socket calls and
 * recv() replaced: what it sends goes to fake_kernel(), which each test
 * defines, and what that pushes waits in an answer queue for recv().
 * Include this first, in place of lib/nl.c.
 */
#ifndef _NFHP_FAKE_NL_H
#define _NFHP_FAKE_NL_H

#define mnl_socket_open		fake_socket_open
#define mnl_socket_setsockopt	fake_socket_setsockopt
#define mnl_socket_bind		fake_socket_bind
#define mnl_socket_get_portid	fake_socket_get_portid
#define mnl_socket_get_fd	fake_socket_get_fd
#define mnl_socket_close	fake_socket_close
#define mnl_socket_sendto	fake_socket_sendto
#define mnl_socket_recvfrom	fake_socket_recvfrom
#define recv			fake_recv

#include "../lib/nl.c"

#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <unistd.h>

#define FAKE_FAMILY	0x42
#define FAKE_FD		1000
#define FAKE_ANSWERS	1024

/* One request of lib/nl.c: written down, done, answered (by push()). */
static void fake_kernel(const struct nlmsghdr *req);

/**
 * struct fake_answers - the datagrams waiting for recv()
 * @lock: held around fake_kernel() too: the sender thread of batches
 *	talks to the fake kernel as well
 * @answer: from @head to @tail
 * @len: their lengths
 * @head: the next to read
 * @tail: the next free slot
 */
static struct fake_answers {
	pthread_mutex_t lock;
	void *answer[FAKE_ANSWERS];
	size_t len[FAKE_ANSWERS];
	unsigned int head, tail;
} fq = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void push(const struct nlmsghdr *nlh)
{
	void *p = malloc(nlh->nlmsg_len);

	if (!p || fq.tail - fq.head == FAKE_ANSWERS) {
		free(p);
		return;
	}
	memcpy(p, nlh, nlh->nlmsg_len);
	fq.answer[fq.tail % FAKE_ANSWERS] = p;
	fq.len[fq.tail % FAKE_ANSWERS] = nlh->nlmsg_len;
	fq.tail++;
}

/* The answers not read, dropped: a fresh kernel has none. */
static void fake_answers_drop(void)
{
	while (fq.head != fq.tail)
		free(fq.answer[fq.head++ % FAKE_ANSWERS]);
}

static char ans[NFHP_NL_RECV_SIZE];

static struct nlmsghdr *reply(const struct nlmsghdr *req, u8 cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(ans);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

	nlh->nlmsg_type = req->nlmsg_type;
	nlh->nlmsg_seq = req->nlmsg_seq;
	if (req->nlmsg_flags & NLM_F_DUMP)
		nlh->nlmsg_flags = NLM_F_MULTI;
	g->cmd = cmd;
	return nlh;
}

/* The acknowledgement, or the error with the kernel's message @msg. */
static void ack(const struct nlmsghdr *req, int err, const char *msg)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(ans);
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	if (!err && !(req->nlmsg_flags & NLM_F_ACK))
		return;
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED;
	nlh->nlmsg_seq = req->nlmsg_seq;
	e->error = err;
	e->msg = *req;
	if (err && msg) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	}
	push(nlh);
}

static void dump_done(const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(ans);
	int *code = mnl_nlmsg_put_extra_header(nlh, sizeof(*code));

	nlh->nlmsg_type = NLMSG_DONE;
	nlh->nlmsg_seq = req->nlmsg_seq;
	*code = 0;
	push(nlh);
}

static int index_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;

	tb[mnl_attr_get_type(attr)] = attr;
	return MNL_CB_OK;
}

static const char *str(const struct nlattr *a)
{
	return a ? mnl_attr_get_str(a) : NULL;
}

/* --- the socket calls of lib/nl.c ----------------------------------------- */

static char fake_sock;

struct mnl_socket *fake_socket_open(int bus)
{
	return (struct mnl_socket *)&fake_sock;
}

int fake_socket_setsockopt(const struct mnl_socket *nl, int type, void *buf,
			   socklen_t len)
{
	return 0;
}

int fake_socket_bind(struct mnl_socket *nl, unsigned int groups, pid_t pid)
{
	return 0;
}

unsigned int fake_socket_get_portid(const struct mnl_socket *nl)
{
	return 4242;
}

int fake_socket_get_fd(const struct mnl_socket *nl)
{
	return FAKE_FD;
}

int fake_socket_close(struct mnl_socket *nl)
{
	return 0;
}

ssize_t fake_socket_sendto(const struct mnl_socket *nl, const void *buf,
			   size_t len)
{
	const struct nlmsghdr *nlh = buf;
	int left = len;

	pthread_mutex_lock(&fq.lock);
	for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left))
		fake_kernel(nlh);
	pthread_mutex_unlock(&fq.lock);
	return len;
}

ssize_t fake_recv(int fd, void *buf, size_t len, int flags)
{
	ssize_t n = -1;

	pthread_mutex_lock(&fq.lock);
	if (fq.head == fq.tail) {
		/* A blocking read of nothing would hang the real one. */
		errno = flags & MSG_DONTWAIT ? EAGAIN : ETIMEDOUT;
	} else {
		void *p = fq.answer[fq.head % FAKE_ANSWERS];

		n = fq.len[fq.head % FAKE_ANSWERS];
		memcpy(buf, p, (size_t)n < len ? (size_t)n : len);
		free(p);
		fq.head++;
	}
	pthread_mutex_unlock(&fq.lock);
	return n;
}

ssize_t fake_socket_recvfrom(const struct mnl_socket *nl, void *buf,
			     size_t len)
{
	return fake_recv(FAKE_FD, buf, len, 0);
}

/* --- running the tools ---------------------------------------------------- */

static char text[16384];	/* what the tool printed */
static char errs[4096];		/* and what it said on stderr */

/* What the file @fd holds, from its start, into @to; @fd closed. */
static void slurp(int fd, char *to, size_t size)
{
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	n = read(fd, to, size - 1);
	to[n > 0 ? n : 0] = '\0';
	close(fd);
}

/*
 * Run @fn (a tool's main) with the words of @cmdline, @input as its
 * standard input; what it prints goes to text[] if @out (else stays on
 * the TAP output), its standard error to errs[], on one line
 * ("first|second").  Return: its exit code.
 */
static int fake_run(int (*fn)(int argc, char **argv), const char *cmdline,
		    const char *input, bool out)
{
	char in[] = "/tmp/nfhp_fake_nl.in.XXXXXX";
	char ou[] = "/tmp/nfhp_fake_nl.out.XXXXXX";
	char er[] = "/tmp/nfhp_fake_nl.err.XXXXXX";
	int ifd = mkstemp(in), ofd = mkstemp(ou), efd = mkstemp(er);
	int saved[3], argc, ret, i;
	char words[512], *argv[32];

	/* Open, they live on; gone, they leave nothing behind in /tmp. */
	unlink(in);
	unlink(ou);
	unlink(er);
	snprintf(words, sizeof(words), "%s", cmdline);
	argc = nfhp_split_line(words, argv, 31);
	argv[argc] = NULL;
	if (write(ifd, input, strlen(input)) != (ssize_t)strlen(input))
		return -1;
	lseek(ifd, 0, SEEK_SET);
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < 3; i++)
		saved[i] = dup(i);
	dup2(ifd, 0);
	if (out)
		dup2(ofd, 1);
	dup2(efd, 2);
	clearerr(stdin);
	optind = 0;
	ret = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < 3; i++) {
		dup2(saved[i], i);
		close(saved[i]);
	}
	clearerr(stdin);
	close(ifd);
	if (out)
		slurp(ofd, text, sizeof(text));
	else
		close(ofd);
	slurp(efd, errs, sizeof(errs));
	for (i = strlen(errs); i && errs[i - 1] == '\n'; i--)
		errs[i - 1] = '\0';
	for (i = 0; errs[i]; i++)
		if (errs[i] == '\n')
			errs[i] = '|';
	return ret;
}

#endif /* _NFHP_FAKE_NL_H */
