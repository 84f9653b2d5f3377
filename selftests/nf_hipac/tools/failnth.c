// SPDX-License-Identifier: GPL-2.0
/*
 * failnth.so: an LD_PRELOAD shim that injects kernel allocation failures
 * (CONFIG_FAULT_INJECTION, failslab) into exactly one netlink send of the
 * program it is loaded into, for selftests/nf_hipac/failslab.sh.
 *
 * genetlink handles a request synchronously inside sendmsg(), so the
 * allocations the module makes for it are made by the sending task, and
 * /proc/thread-self/fail-nth can aim at them: writing N there makes the
 * task's N-th fault-injection check from then on fail.
 *
 *	NFHP_FAILNTH_SEND=M	aim at the M-th send()/sendto()/sendmsg()
 *	NFHP_FAILNTH_N=N	fail the N-th allocation check inside it
 *	NFHP_FAILNTH_REPORT=F	write to F: "injected" if the N-th check
 *				happened (and failed), "short" if the send
 *				made fewer than N checks; F is not written if
 *				the program never made M sends
 *				and, on a line of its own, "reply lost" if a
 *				receive after the aimed send failed with
 *				ENOBUFS: the kernel could not allocate its
 *				answer (netlink_ack() sets that socket error,
 *				and its skb's data allocation fails without a
 *				report, __GFP_NOWARN)
 *	NFHP_FAILNTH_TASK=1	instead: set /proc/thread-self/make-it-fail
 *				around every send, so that failslab's own
 *				task-filter/probability/times settings apply
 *				to the sends only
 *
 * Build: gcc -shared -fPIC -o failnth.so failnth.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static unsigned long fn_sends;
/* The aimed send is done: a failed receive may be its lost answer. */
static int fn_aimed_done;

/* Write a string to a /proc file; returns 0 or -1. */
static int fn_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return ret;
}

static unsigned long fn_env(const char *name)
{
	const char *v = getenv(name);

	return v ? strtoul(v, NULL, 10) : 0;
}

/*
 * The fail-nth file of this thread, opened before arming: opening it
 * afterwards would itself count down (and maybe fail).
 */
static int fn_fd = -1;

/* Arm before the send; returns 1 if this send is the aimed one. */
static int fn_arm(void)
{
	unsigned long m = fn_env("NFHP_FAILNTH_SEND");
	char n[32];

	fn_sends++;
	if (fn_env("NFHP_FAILNTH_TASK")) {
		fn_write("/proc/thread-self/make-it-fail", "1");
		return 2;
	}
	if (!m || fn_sends != m)
		return 0;
	snprintf(n, sizeof(n), "%lu", fn_env("NFHP_FAILNTH_N"));
	fn_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fn_fd < 0 || write(fn_fd, n, strlen(n)) != (ssize_t)strlen(n)) {
		perror("failnth: /proc/thread-self/fail-nth");
		_exit(99);
	}
	return 1;
}

/* Disarm after the send and report whether the failure was injected. */
static void fn_disarm(int armed)
{
	const char *report = getenv("NFHP_FAILNTH_REPORT");
	char buf[32] = "";
	ssize_t n;
	FILE *f;

	if (armed == 2) {
		fn_write("/proc/thread-self/make-it-fail", "0");
		return;
	}
	if (!armed)
		return;
	fn_aimed_done = 1;
	/* "0": the countdown reached the N-th check, which failed. */
	n = pread(fn_fd, buf, sizeof(buf) - 1, 0);
	if (pwrite(fn_fd, "0", 1, 0) != 1)
		perror("failnth: disarm");
	close(fn_fd);
	if (!report)
		return;
	f = fopen(report, "w");
	if (f) {
		fputs(n > 0 && strtol(buf, NULL, 10) == 0 ? "injected\n" :
		      "short\n", f);
		fclose(f);
	}
}

ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	static ssize_t (*real)(int, const void *, size_t, int);
	int armed;
	ssize_t ret;

	if (!real)
		real = dlsym(RTLD_NEXT, "send");
	armed = fn_arm();
	ret = real(fd, buf, len, flags);
	fn_disarm(armed);
	return ret;
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags,
	       const struct sockaddr *to, socklen_t tolen)
{
	static ssize_t (*real)(int, const void *, size_t, int,
			       const struct sockaddr *, socklen_t);
	int armed;
	ssize_t ret;

	if (!real)
		real = dlsym(RTLD_NEXT, "sendto");
	armed = fn_arm();
	ret = real(fd, buf, len, flags, to, tolen);
	fn_disarm(armed);
	return ret;
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	static ssize_t (*real)(int, const struct msghdr *, int);
	int armed;
	ssize_t ret;

	if (!real)
		real = dlsym(RTLD_NEXT, "sendmsg");
	armed = fn_arm();
	ret = real(fd, msg, flags);
	fn_disarm(armed);
	return ret;
}

/* After the aimed send, note a receive that failed with ENOBUFS. */
static void fn_received(ssize_t ret)
{
	const char *report = getenv("NFHP_FAILNTH_REPORT");
	int saved = errno;
	FILE *f;

	if (ret >= 0 || saved != ENOBUFS || !fn_aimed_done || !report)
		return;
	f = fopen(report, "a");
	if (f) {
		fputs("reply lost\n", f);
		fclose(f);
	}
	errno = saved;
}

ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	static ssize_t (*real)(int, void *, size_t, int);
	ssize_t ret;

	if (!real)
		real = dlsym(RTLD_NEXT, "recv");
	ret = real(fd, buf, len, flags);
	fn_received(ret);
	return ret;
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
		 struct sockaddr *from, socklen_t *fromlen)
{
	static ssize_t (*real)(int, void *, size_t, int, struct sockaddr *,
			       socklen_t *);
	ssize_t ret;

	if (!real)
		real = dlsym(RTLD_NEXT, "recvfrom");
	ret = real(fd, buf, len, flags, from, fromlen);
	fn_received(ret);
	return ret;
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	static ssize_t (*real)(int, struct msghdr *, int);
	ssize_t ret;

	if (!real)
		real = dlsym(RTLD_NEXT, "recvmsg");
	ret = real(fd, msg, flags);
	fn_received(ret);
	return ret;
}
