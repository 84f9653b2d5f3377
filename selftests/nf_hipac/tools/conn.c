// SPDX-License-Identifier: GPL-2.0
/*
 * conn.c - the two ends of lib.sh's nfhp_conn: one request, one reply.
 *
 * Both take "-n NETNS" first to run in the network namespace that "ip netns"
 * named NETNS, which saves an exec of ip(8) per end.
 *
 *	nfhp-conn server tcp|udp PORT LIFETIME [6]
 *		bind PORT (IPv6 with "6") and listen, then fork: the parent
 *		prints the child's PID and exits 0, so that the caller knows
 *		the server is ready when its command returns, with no polling;
 *		the child answers one connection or datagram with "pong" and
 *		exits, or is ended by SIGALRM after LIFETIME seconds
 *	nfhp-conn client tcp|udp DST PORT SPORT WAIT
 *		send "ping" to DST/PORT (from SPORT unless 0) and exit 0 iff
 *		"pong" comes back within WAIT seconds; an IPv6 DST makes an
 *		IPv6 socket
 *
 * With NFHP_CONN_REFUSED=1 in the environment the client exits 0 iff the
 * request is refused (a TCP reset, or an ICMP port unreachable, which a
 * connected UDP socket hears of).  Exit 1 is "no reply"; exit 2 a usage
 * or setup error.
 *
 * It replaces two python3 processes and a polling loop per check: under
 * TCG each python3 start took seconds, and each sleep(1) of the loop half
 * a second at least.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/**
 * struct conn_addr - a socket address of either family
 * @sa:		the generic view, for bind() and connect()
 * @in:		IPv4
 * @in6:	IPv6
 * @len:	the length of the family's address
 */
struct conn_addr {
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	};
	socklen_t len;
};

/* conn_addr_set - ADDR's @ip (NULL: any) and @port; 0 if @ip is bad. */
static int conn_addr_set(struct conn_addr *addr, int v6, const char *ip,
			 int port)
{
	memset(addr, 0, sizeof(*addr));
	if (v6) {
		addr->in6.sin6_family = AF_INET6;
		addr->in6.sin6_port = htons(port);
		addr->in6.sin6_addr = in6addr_any;
		addr->len = sizeof(addr->in6);
		return !ip || inet_pton(AF_INET6, ip, &addr->in6.sin6_addr) == 1;
	}
	addr->in.sin_family = AF_INET;
	addr->in.sin_port = htons(port);
	addr->in.sin_addr.s_addr = htonl(INADDR_ANY);
	addr->len = sizeof(addr->in);
	return !ip || inet_pton(AF_INET, ip, &addr->in.sin_addr) == 1;
}

/*
 * conn_socket - a socket of PROTO ("tcp" or "udp") bound to PORT, or -1.
 * The server of the check before may still hold PORT for a moment: it is
 * killed, not waited for.  So a bind waits up to 5 s for the port to come
 * free.  A UDP socket takes no SO_REUSEADDR, which would let it share the
 * port with that server, which might then receive the request.
 */
static int conn_socket(const char *proto, int v6, int port)
{
	int tcp = !strcmp(proto, "tcp");
	struct conn_addr any;
	int fd, one = 1, tries;

	fd = socket(v6 ? AF_INET6 : AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("nfhp-conn: socket");
		return -1;
	}
	if (tcp)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (!port)
		return fd;
	conn_addr_set(&any, v6, NULL, port);
	for (tries = 0; bind(fd, &any.sa, any.len) < 0; tries++) {
		if (errno != EADDRINUSE || tries == 500) {
			perror("nfhp-conn: bind");
			close(fd);
			return -1;
		}
		usleep(10000);
	}
	return fd;
}

/* conn_answer - answer one request on the listening or bound @fd. */
static int conn_answer(int fd, int tcp)
{
	struct conn_addr peer;
	char buf[16];
	int peer_fd;

	if (!tcp) {
		peer.len = sizeof(peer.in6);
		if (recvfrom(fd, buf, sizeof(buf), 0, &peer.sa, &peer.len) < 0 ||
		    sendto(fd, "pong", 4, 0, &peer.sa, peer.len) != 4)
			return 2;
		return 0;
	}
	peer_fd = accept(fd, NULL, NULL);
	if (peer_fd < 0)
		return 2;
	if (recv(peer_fd, buf, sizeof(buf), 0) < 0 ||
	    send(peer_fd, "pong", 4, MSG_NOSIGNAL) != 4) {
		close(peer_fd);
		return 2;
	}
	close(peer_fd);
	return 0;
}

/* conn_server - argv: tcp|udp PORT LIFETIME [6]. */
static int conn_server(int argc, char **argv)
{
	int tcp, v6, fd, null_fd;
	pid_t child;

	if (argc < 3)
		return 2;
	tcp = !strcmp(argv[0], "tcp");
	v6 = argc > 3 && !strcmp(argv[3], "6");
	fd = conn_socket(argv[0], v6, atoi(argv[1]));
	if (fd < 0)
		return 2;
	if (tcp && listen(fd, 8) < 0) {
		perror("nfhp-conn: listen");
		goto close_socket;
	}
	child = fork();
	if (child < 0) {
		perror("nfhp-conn: fork");
		goto close_socket;
	}
	if (child) {
		printf("%d\n", (int)child);
		return 0;
	}
	/* The caller's $(...) ends when the parent's stdout closes. */
	null_fd = open("/dev/null", O_RDWR);
	if (null_fd >= 0) {
		dup2(null_fd, STDOUT_FILENO);
		close(null_fd);
	}
	alarm(atoi(argv[2]));
	return conn_answer(fd, tcp);

close_socket:
	close(fd);
	return 2;
}

/* conn_exchange - send "ping" on @fd to @dst, 1 if "pong" came back. */
static int conn_exchange(int fd, int tcp, int refused,
			 const struct conn_addr *dst)
{
	char buf[16];
	ssize_t n;

	if (tcp || refused) {
		if (connect(fd, &dst->sa, dst->len) < 0 ||
		    send(fd, "ping", 4, MSG_NOSIGNAL) != 4)
			return -1;
		n = recv(fd, buf, sizeof(buf), 0);
	} else {
		if (sendto(fd, "ping", 4, 0, &dst->sa, dst->len) != 4)
			return -1;
		n = recvfrom(fd, buf, sizeof(buf), 0, NULL, NULL);
	}
	if (n < 0)
		return -1;
	return n == 4 && !memcmp(buf, "pong", 4);
}

/* conn_client - argv: tcp|udp DST PORT SPORT WAIT. */
static int conn_client(int argc, char **argv)
{
	const char *env = getenv("NFHP_CONN_REFUSED");
	int refused = env && !strcmp(env, "1");
	int v6, fd, pong, err;
	struct conn_addr dst;
	struct timeval wait;
	double seconds;

	if (argc < 5)
		return 2;
	v6 = strchr(argv[1], ':') != NULL;
	if (!conn_addr_set(&dst, v6, argv[1], atoi(argv[2]))) {
		fprintf(stderr, "nfhp-conn: bad address %s\n", argv[1]);
		return 2;
	}
	fd = conn_socket(argv[0], v6, atoi(argv[3]));
	if (fd < 0)
		return 2;
	/* Linux bounds connect() by the send timeout. */
	seconds = atof(argv[4]);
	wait.tv_sec = (time_t)seconds;
	wait.tv_usec = (suseconds_t)((seconds - wait.tv_sec) * 1e6);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof(wait));
	pong = conn_exchange(fd, !strcmp(argv[0], "tcp"), refused, &dst);
	err = errno;
	close(fd);
	if (pong < 0)
		return refused && err == ECONNREFUSED ? 0 : 1;
	return pong && !refused ? 0 : 1;
}

/* conn_enter_netns - move into the network namespace /run/netns/@name. */
static int conn_enter_netns(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "nfhp-conn: netns %s: %s\n", name,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 3 && !strcmp(argv[1], "-n")) {
		if (conn_enter_netns(argv[2]) < 0)
			return 2;
		argc -= 2;
		argv += 2;
	}
	if (argc > 1 && !strcmp(argv[1], "server"))
		return conn_server(argc - 2, argv + 2);
	if (argc > 1 && !strcmp(argv[1], "client"))
		return conn_client(argc - 2, argv + 2);
	fprintf(stderr, "usage: nfhp-conn [-n NETNS] server tcp|udp PORT LIFETIME [6]\n"
			"       nfhp-conn [-n NETNS] client tcp|udp DST PORT SPORT WAIT\n");
	return 2;
}
