/* SPDX-License-Identifier: MIT */
/*
 * The connection manager's teardown events on rxe, produced on demand
 * (docs/API.md, "Connection manager", failures explained):
 *  - timewait: after a disconnect each side's id gets
 *    RDMA_CM_EVENT_TIMEWAIT_EXIT (not a failure: err 0, the id stays
 *    DISCONNECTED), within 10 s;
 *  - device removal: a second rxe device on a dummy netdev of its own
 *    (made here, through RDMA netlink; rxe0 is never touched), a listener,
 *    a client and its accepted peer connected on it, then the netdev
 *    deleted: each id gets RDMA_CM_EVENT_DEVICE_REMOVAL explained as
 *    ENODEV, FAILED, and everything closes cleanly.
 * RDMA_CM_EVENT_ADDR_CHANGE (raised by the kernel on a bonding fail-over
 * only) is produced by cm_addr_change.c, on a bond of its own.
 */
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/vs_cm_rig.h"

#define RM_NETDEV "vsrm0"
/*
 * The provider's name first: rxe of rdma-core 17.1 and 22.4 knows its
 * devices by a name that starts with "rxe" (providers/rxe/rxe.c:
 * VERBS_NAME_MATCH("rxe"); 28.0 on also by the kernel's driver id), and
 * libibverbs lists no device no provider claims: librdmacm then finds no
 * device for the address.
 */
#define RM_DEV (iwarp ? "siw_vsrm" : "rxe_vsrm")
#define RM_IP "192.168.79.1"

static const char *ip;
static bool iwarp;

static void test_timewait(void)
{
	struct vs_t_cm_pair p;
	struct vs_cm_event ev;
	uint64_t t0;

	vs_t_cm_pair_connect(&p, ip);
	VS_OK(vs_cm_disconnect(p.c));
	t0 = vs_t_now_ms();
	vs_t_cm_next_type(p.s, RDMA_CM_EVENT_DISCONNECTED, 5000, &ev);
	VS_OK(vs_cm_disconnect(p.s));
	if (iwarp) {
		/* iw_cm has no time-wait state: the disconnect ends it */
		vs_t_cm_next_type(p.c, RDMA_CM_EVENT_DISCONNECTED, 5000, &ev);
		VS_ASSERT_EQ(ev.err, ECONNRESET); /* as every DISCONNECTED */
		VS_ASSERT_EQ(vs_cm_state(p.c), VS_CM_DISCONNECTED);
		VS_ASSERT_EQ(vs_cm_state(p.s), VS_CM_DISCONNECTED);
		printf("timewait: iWARP has none (iw_cm); both sides DISCONNECTED "
		       "%llu ms after the disconnect\n",
		       (unsigned long long)(vs_t_now_ms() - t0));
		vs_t_cm_pair_close(&p);
		return;
	}
	vs_t_cm_next_type(p.c, RDMA_CM_EVENT_TIMEWAIT_EXIT, 10000, &ev);
	printf("timewait: the client's TIMEWAIT_EXIT %llu ms after its disconnect\n",
	       (unsigned long long)(vs_t_now_ms() - t0));
	VS_ASSERT_STREQ(ev.name, "RDMA_CM_EVENT_TIMEWAIT_EXIT");
	VS_ASSERT_EQ(ev.err, 0);
	VS_ASSERT_PTR_EQ(ev.id, p.c);
	VS_ASSERT_EQ(ev.state, VS_CM_DISCONNECTED);
	vs_t_cm_next_type(p.s, RDMA_CM_EVENT_TIMEWAIT_EXIT, 10000, &ev);
	VS_ASSERT_EQ(ev.err, 0);
	VS_ASSERT_EQ(vs_cm_state(p.s), VS_CM_DISCONNECTED);
	printf("timewait: the server's %llu ms after\n",
	       (unsigned long long)(vs_t_now_ms() - t0));
	vs_t_cm_pair_close(&p);
}

/*
 * A second device of the provider under test, made before this process's
 * first CM call: librdmacm before rdma-core 32 (17.1, 22.4, 28.0) lists
 * the devices once, then (cma.c: ucma_init; sync_devices_list came in
 * 32), and a device added after it is "No such device" to rdma_bind_addr.
 */
static void device_add(void)
{
	vs_t_sh("ip link add " RM_NETDEV " type dummy && ip addr add " RM_IP "/24 dev "
	   RM_NETDEV " && ip link set " RM_NETDEV " up");
	vs_t_rdma_link_add(RM_DEV, iwarp ? "siw" : "rxe", RM_NETDEV);
	if (iwarp)
		vs_t_port_wait_active(RM_DEV);
	else
		vs_t_rxe_wait_gid(RM_DEV, RM_IP);
}

static void test_device_removal(void)
{
	struct stat st;
	char path[128];
	struct vs_t_cm_pair p;
	struct vs_cm_id *ids[3];
	uint64_t t0;
	pid_t del;
	int status;

	vs_t_cm_pair_connect(&p, RM_IP);
	ids[0] = p.c;
	ids[1] = p.s;
	ids[2] = p.l;
	/*
	 * The netdev goes, and rxe unregisters its device with it.  `ip link
	 * del` waits until the device lets the netdev go, which is when the
	 * last user of the device has closed it: not waited for here.
	 */
	t0 = vs_t_now_ms();
	del = fork();
	VS_ASSERT(del >= 0);
	if (!del) {
		execlp("ip", "ip", "link", "del", RM_NETDEV, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 3; i++) {
		struct vs_cm_event ev;

		vs_t_cm_next_type(ids[i], RDMA_CM_EVENT_DEVICE_REMOVAL, 10000, &ev);
		printf("device removal: %s after %llu ms: %s\n", ev.name,
		       (unsigned long long)(vs_t_now_ms() - t0), vs_t_err());
		VS_ASSERT_EQ(ev.err, ENODEV);
		VS_ASSERT_EQ(ev.state, VS_CM_FAILED);
		VS_ASSERT_EQ(vs_cm_state(ids[i]), VS_CM_FAILED);
		VS_ASSERT_STREQ(vs_last_error()->call, "vs_cm_next");
		VS_ASSERT(strstr(vs_last_error()->message, "the RDMA device was removed"));
	}
	vs_t_cm_pair_close(&p);
	/*
	 * librdmacm may keep the device's context open to the process's end
	 * (then `ip link del` finishes when this test exits).
	 */
	t0 = vs_t_now_ms();
	while (waitpid(del, &status, WNOHANG) == 0 && vs_t_now_ms() - t0 < 3000)
		usleep(100000);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s", RM_DEV);
	printf("device removal: every id closed; %s\n",
	       stat(path, &st) ?
	       "the device is gone" :
	       "the device stays until this process ends (librdmacm keeps its context)");
}

int main(void)
{
	ip = getenv("VS_RXE_IP");
	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	setvbuf(stdout, NULL, _IOLBF, 0); /* a timeout's log shows how far it got */
	if (geteuid())
		VS_FAIL("the VM runs tests as root; here euid %d", (int)geteuid());
	iwarp = vs_t_iwarp();
	device_add();
	test_timewait();
	test_device_removal();
	printf("ok\n");
	return 0;
}
