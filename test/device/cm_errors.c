/* SPDX-License-Identifier: MIT */
/*
 * Every failure of the connection manager explained, and explained right:
 * each cause made for real on rxe, the errno the kernel gives for it
 * checked, and the record's words checked against the cause (docs/API.md,
 * "Connection manager", the table of failures; lib/cm/cm_addr_errors.c):
 *  - listen on a port in use: the any-address twice (EADDRNOTAVAIL: the
 *    kernel's answer with the any-address on a side), the device's address
 *    under an any-address listener (EADDRNOTAVAIL), the device's address
 *    twice (EADDRINUSE); each message names the port in use;
 *  - listen on an address of no netdev (EADDRNOTAVAIL: "not an address of
 *    this machine"), on one of a netdev without rxe (ENODEV);
 *  - resolve from a source address that is not this machine's;
 *  - resolve with no IP route (ENETUNREACH, returned at once); with a
 *    neighbour that never answers ARP (ADDR_ERROR, ETIMEDOUT); through a
 *    netdev without an RDMA device (ADDR_ERROR, ENODEV);
 *  - connect to a port nobody listens on (REJECTED, reason 8) and to an
 *    address nobody answers at (UNREACHABLE, ETIMEDOUT, or the connect's
 *    own limit): each within its limit;
 *  - timeouts of vs_cm_get_request, vs_cm_next and vs_cm_rc_serve:
 *    recorded with what was waited for, how long and the listener.
 */
#include <unistd.h>

#include "../common/vs_cm_rig.h"

/* Netdevs of this test: an ARP one nobody answers on, a NOARP one without rxe. */
#define ARP_DEV "vserr0"
#define ARP_NET "10.98.0"
#define NORXE_DEV "vserr1"
#define NORXE_NET "10.97.0"

static const char *ip;

static void expect_msg(const char *what, const char *needle)
{
	const char *m = vs_last_error()->message;

	printf("  %-34s %s\n", what, vs_t_err());
	if (!strstr(m, needle))
		VS_FAIL("%s: message \"%s\" lacks \"%s\"", what, m, needle);
}

static void test_ports_in_use(void)
{
	struct vs_cm_id *any, *dev, *id = (struct vs_cm_id *)&id;
	char port[16], in_use[64];

	/* the any-address, then again: EADDRNOTAVAIL, the port named */
	VS_OK(vs_cm_listen(NULL, "0", NULL, &any));
	snprintf(port, sizeof(port), "%u", vs_cm_port(any));
	snprintf(in_use, sizeof(in_use), "port %s is in use", port);
	VS_FAILS(vs_cm_listen(NULL, port, NULL, &id), EADDRNOTAVAIL, in_use);
	VS_ASSERT_PTR_EQ(id, NULL);
	VS_ASSERT_STREQ(vs_last_error()->verb, "rdma_bind_addr");
	VS_ASSERT(!strstr(vs_last_error()->message, "not an address"));
	expect_msg("listen any twice", "any-address");
	/* the device's address under it: covered by the any-address */
	VS_FAILS(vs_cm_listen(ip, port, NULL, &id), EADDRNOTAVAIL, in_use);
	expect_msg("listen ip under any", "of the any-address, which covers");
	VS_OK(vs_cm_close(any));
	/* the port is free again */
	VS_OK(vs_cm_listen(ip, port, NULL, &dev));
	/* the same address and port: EADDRINUSE */
	VS_FAILS(vs_cm_listen(ip, port, NULL, &id), EADDRINUSE, in_use);
	expect_msg("listen ip twice", "in use on that address");
	VS_FAILS(vs_cm_listen(NULL, port, NULL, &id), EADDRNOTAVAIL, in_use);
	expect_msg("listen any over ip", "any-address");
	VS_OK(vs_cm_close(dev));
}

static void test_not_here(void)
{
	struct vs_cm_id *id = (struct vs_cm_id *)&id;

	VS_FAILS(vs_cm_listen("192.168.77.250", "7471", NULL, &id), EADDRNOTAVAIL,
		 "192.168.77.250:7471: not an address of this machine");
	expect_msg("listen on another's address", "no netdev has it");
	VS_ASSERT_PTR_EQ(id, NULL);
	VS_FAILS(vs_cm_listen(NORXE_NET ".1", "7471", NULL, &id), ENODEV,
		 "no RDMA device is on its netdev");
	expect_msg("listen on a netdev without rxe", NORXE_NET ".1:7471");
	VS_FAILS(vs_cm_resolve(ip, "7471", &(struct vs_cm_config){
		.src = "192.168.77.250" }, &id), EADDRNOTAVAIL,
		"cannot bind the source of a resolve to 192.168.77.250:0: not an "
		"address of this machine");
	expect_msg("resolve from another's address", "192.168.77.250");
}

static void test_resolve_errors(void)
{
	struct vs_cm_id *id = (struct vs_cm_id *)&id;
	uint64_t t0;

	/* no route at all: rdma_resolve_addr says so at once */
	t0 = vs_t_now_ms();
	VS_FAILS(vs_cm_resolve("10.255.255.1", "7471", &(struct vs_cm_config){
		.timeout_ms = 1000 }, &id), ENETUNREACH, "no IP route to it");
	VS_ASSERT_STREQ(vs_last_error()->verb, "rdma_resolve_addr");
	VS_ASSERT(vs_t_now_ms() - t0 < 1000);
	expect_msg("resolve, no route", "10.255.255.1");

	/* a subnet whose neighbours never answer ARP: ADDR_ERROR, ETIMEDOUT */
	t0 = vs_t_now_ms();
	VS_FAILS(vs_cm_resolve(ARP_NET ".2", "7471", &(struct vs_cm_config){
		.timeout_ms = 1000 }, &id), ETIMEDOUT,
		"nobody answered ARP / neighbour discovery");
	VS_ASSERT(vs_t_now_ms() - t0 < 1000 + 2000);
	expect_msg("resolve, no ARP answer", "RDMA_CM_EVENT_ADDR_ERROR");

	/* a route through a netdev without rxe (NOARP: resolved at once) */
	VS_FAILS(vs_cm_resolve(NORXE_NET ".2", "7471", &(struct vs_cm_config){
		.timeout_ms = 1000 }, &id), ENODEV, "netdev with no RDMA device");
	expect_msg("resolve, netdev without rxe", "RDMA_CM_EVENT_ADDR_ERROR");
}

static void test_connect_errors(void)
{
	struct vs_cm_id *l, *id = (struct vs_cm_id *)&id;
	char port[16];
	uint64_t t0;
	int ret;

	/* nobody listens on that port: the peer's CM rejects, reason 8 */
	VS_OK(vs_cm_listen(ip, "0", NULL, &l));
	snprintf(port, sizeof(port), "%u", vs_cm_port(l));
	VS_OK(vs_cm_close(l));
	/* iWARP: the TCP connect inside rdma_connect is refused */
	VS_FAILS(vs_cm_rc_client(ip, port, NULL, &(struct vs_cm_conn_config){
		.timeout_ms = 4000 }, NULL, &id), ECONNREFUSED,
		vs_t_iwarp() ? "refused: nobody listens on that port there" :
		"reason 8: invalid service id: nobody listens on that port there");
	expect_msg("connect, no listener", port);

	/* siw's connect blocks in the kernel until TCP gives up (~130 s) */
	if (vs_t_iwarp()) {
		printf("  %-34s not on iWARP (siw's connect blocks until TCP gives up)\n",
		       "connect, nobody there");
		return;
	}
	/* nobody at that address (rxe's NOARP subnet): no answer in time */
	t0 = vs_t_now_ms();
	ret = vs_cm_rc_client("192.168.77.99", "7471", NULL,
			      &(struct vs_cm_conn_config){ .timeout_ms = 2000 },
			      NULL, &id);
	VS_ASSERT_EQ(ret, -ETIMEDOUT);
	VS_ASSERT_EQ(vs_last_error()->err, ETIMEDOUT);
	VS_ASSERT(vs_t_now_ms() - t0 < 2000 + 2000 + 2000);
	expect_msg("connect, nobody there", "192.168.77.99:7471");
}

static void test_timeouts(void)
{
	struct vs_cm_id *l, *c = (struct vs_cm_id *)&c;
	struct vs_cm_event ev;
	char want[96];

	VS_OK(vs_cm_listen(ip, "0", NULL, &l));
	snprintf(want, sizeof(want), "listening on %s:%u", ip, vs_cm_port(l));
	VS_FAILS(vs_cm_get_request(l, 100, &c), ETIMEDOUT,
		 "no connection request within 100 ms");
	expect_msg("get_request timeout", want);
	VS_ASSERT_PTR_EQ(c, NULL);
	VS_FAILS(vs_cm_next(l, 100, &ev), ETIMEDOUT, "no CM event within 100 ms");
	expect_msg("next timeout", "LISTENING");
	VS_FAILS(vs_cm_rc_serve(l, &(struct vs_cm_conn_config){ .timeout_ms = 100 },
				NULL, &c), ETIMEDOUT,
		 "no connection request within 100 ms");
	VS_ASSERT_STREQ(vs_last_error()->call, "vs_cm_rc_serve");
	expect_msg("rc_serve timeout", want);
	/* a poll's "none yet" is no failure: nothing recorded */
	vs_clear_error();
	VS_ASSERT_EQ(vs_cm_next(l, 0, &ev), -EAGAIN);
	VS_ASSERT_EQ(vs_cm_get_request(l, 0, &c), -EAGAIN);
	VS_ASSERT_EQ(vs_last_error()->err, 0);
	VS_OK(vs_cm_close(l));
}

int main(void)
{
	ip = getenv("VS_RXE_IP");
	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	vs_t_sh("ip link add " ARP_DEV " type dummy && ip link set " ARP_DEV
		" arp on && ip addr add " ARP_NET ".1/24 dev " ARP_DEV
		" && ip link set " ARP_DEV " up");
	vs_t_sh("ip link add " NORXE_DEV " type dummy && ip addr add " NORXE_NET
		".1/24 dev " NORXE_DEV " && ip link set " NORXE_DEV " up");
	test_ports_in_use();
	test_not_here();
	test_resolve_errors();
	vs_t_sh("ip link del " ARP_DEV " && ip link del " NORXE_DEV);
	test_connect_errors();
	test_timeouts();
	printf("ok\n");
	return 0;
}
