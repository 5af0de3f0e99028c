/* SPDX-License-Identifier: MIT */
/*
 * RDMA_CM_EVENT_ADDR_CHANGE on rxe, produced on demand (docs/API.md,
 * "Connection manager", failures explained).  The kernel's CM raises it
 * on a bonding fail-over only (NETDEV_BONDING_FAILOVER), to each id bound
 * to the bond whose source MAC is no longer the bond's.  So, made here:
 * an active-backup bond with fail_over_mac=active (the bond takes the MAC
 * of its active slave) over two dummy netdevs with MACs of their own, an
 * address on it and an rxe device on the bond (rxe0 and dummy0 are never
 * touched); a listener, a client and its accepted peer connected through
 * the bond's address; then the other slave made active.  Each of the
 * three ids gets RDMA_CM_EVENT_ADDR_CHANGE, once, explained as ENETRESET
 * ("the local address changed ...: reconnect"), its state kept; a
 * listener on rxe0 gets nothing; a new connection through the bond
 * carries a message; everything closes cleanly.
 *
 * The bond is made through sysfs and the `ip` calls busybox has too (the
 * release roots have busybox's ip, without bond options).  The CM part
 * runs in a child process: the parent removes the netdevs, and with them
 * the rxe device, whatever the child did (librdmacm may keep a device's
 * context open until its process ends, and the device goes only then).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/vs_cm_rig.h"

#define BOND "vsac0"
#define SLAVE1 "vsac1"
#define SLAVE2 "vsac2"
#define MAC1 "02:56:53:ac:00:01"
#define MAC2 "02:56:53:ac:00:02"
/* "rxe" first: rxe of 17.1 and 22.4 knows its devices by name (cm_truth) */
#define AC_DEV "rxe_vsac"
#define AC_IP "192.168.79.1"
#define NET "/sys/class/net/"

static pid_t parent;
static volatile sig_atomic_t stop;

static void sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		VS_FAIL("open %s: %s", path, strerror(errno));
	n = write(fd, val, strlen(val));
	if (n != (ssize_t)strlen(val))
		VS_FAIL("writing \"%s\" to %s: %s", val, path,
			n < 0 ? strerror(errno) : "short write");
	close(fd);
}

/* The file's first line, without its newline. */
static void sysfs_read(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		VS_FAIL("open %s: %s", path, strerror(errno));
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/*
 * The bond, its slaves and (with the bond) the rxe device removed:
 * idempotent, the parent's only (also at exit, on a failure path).
 */
static void teardown(void)
{
	static const char *const nets[] = { BOND, SLAVE1, SLAVE2 };
	char cmd[64], path[64];
	uint64_t t0;

	if (getpid() != parent)
		return;
	for (size_t i = 0; i < sizeof(nets) / sizeof(nets[0]); i++) {
		snprintf(path, sizeof(path), NET "%s", nets[i]);
		if (!exists(path))
			continue;
		/* rxe unregisters its device when its netdev goes */
		snprintf(cmd, sizeof(cmd), "ip link del %s", nets[i]);
		if (system(cmd))
			fprintf(stderr, "cleanup: `%s` failed\n", cmd);
	}
	t0 = vs_t_now_ms();
	while (exists("/sys/class/infiniband/" AC_DEV) && vs_t_now_ms() - t0 < 10000)
		usleep(100000);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void bond_up(void)
{
	char buf[64];

	if (!exists(NET "bonding_masters"))
		VS_FAIL("no " NET "bonding_masters: the VM has no bonding module "
			"(scripts/vm-run.sh puts it in the initramfs)");
	sysfs_write(NET "bonding_masters", "+" BOND);
	/* both only while the bond has no slave */
	sysfs_write(NET BOND "/bonding/mode", "active-backup");
	sysfs_write(NET BOND "/bonding/fail_over_mac", "active");
	vs_t_sh("ip link add " SLAVE1 " type dummy && ip link set " SLAVE1
		" address " MAC1 " && ip link add " SLAVE2 " type dummy && "
		"ip link set " SLAVE2 " address " MAC2);
	/* the first slave is the active one */
	sysfs_write(NET BOND "/bonding/slaves", "+" SLAVE1);
	sysfs_write(NET BOND "/bonding/slaves", "+" SLAVE2);
	vs_t_sh("ip addr add " AC_IP "/24 dev " BOND " && ip link set " BOND " up");
	sysfs_read(NET BOND "/bonding/active_slave", buf, sizeof(buf));
	VS_ASSERT_STREQ(buf, SLAVE1);
	sysfs_read(NET BOND "/address", buf, sizeof(buf));
	VS_ASSERT_STREQ(buf, MAC1);
	vs_t_rxe_add(AC_DEV, BOND);
}

/* The child: the connections, the fail-over, the events. */
static void run_cm(const char *rxe0_ip)
{
	struct vs_t_cm_pair p, q;
	struct vs_cm_id *other;
	struct vs_cm_event ev;
	char buf[64];
	uint64_t t0;

	vs_t_rxe_wait_gid(AC_DEV, AC_IP);
	/* an id on rxe0 (dummy0): not bound to the bond, so not told */
	VS_OK(vs_cm_listen(rxe0_ip, "0", NULL, &other));
	vs_t_cm_pair_connect(&p, AC_IP);

	struct {
		struct vs_cm_id *id;
		const char *what;
		enum vs_cm_state state;
	} ids[] = {
		{ p.c, "client", VS_CM_CONNECTED },
		{ p.s, "accepted peer", VS_CM_CONNECTED },
		{ p.l, "listener", VS_CM_LISTENING },
	};

	for (size_t i = 0; i < 3; i++)
		VS_ASSERT_EQ(vs_cm_state(ids[i].id), ids[i].state);

	/* the fail-over: the bond's MAC becomes the new active slave's */
	t0 = vs_t_now_ms();
	sysfs_write(NET BOND "/bonding/active_slave", SLAVE2);
	sysfs_read(NET BOND "/bonding/active_slave", buf, sizeof(buf));
	VS_ASSERT_STREQ(buf, SLAVE2);
	sysfs_read(NET BOND "/address", buf, sizeof(buf));
	VS_ASSERT_STREQ(buf, MAC2);

	for (size_t i = 0; i < 3; i++) {
		const struct vs_error *e;

		vs_clear_error();
		VS_OK(vs_cm_next(ids[i].id, 10000, &ev));
		e = vs_last_error();
		printf("address change: the %s's %s after %llu ms: %s\n",
		       ids[i].what, ev.name,
		       (unsigned long long)(vs_t_now_ms() - t0), vs_t_err());
		VS_ASSERT_STREQ(ev.name, "RDMA_CM_EVENT_ADDR_CHANGE");
		VS_ASSERT_EQ(ev.type, RDMA_CM_EVENT_ADDR_CHANGE);
		VS_ASSERT_PTR_EQ(ev.id, ids[i].id);
		VS_ASSERT_EQ(ev.err, ENETRESET);
		/* the kernel tears nothing down: the id keeps its state */
		VS_ASSERT_EQ(ev.state, ids[i].state);
		VS_ASSERT_EQ(vs_cm_state(ids[i].id), ids[i].state);
		VS_ASSERT_STREQ(e->call, "vs_cm_next");
		VS_ASSERT_EQ(e->err, ENETRESET);
		VS_ASSERT(strstr(e->message, "the local address changed"));
		VS_ASSERT(strstr(e->message, "RDMA_CM_EVENT_ADDR_CHANGE"));
		VS_ASSERT(strstr(e->message, "reconnect"));
		/* a listener's message names what it listens on, not a peer */
		VS_ASSERT(!strstr(e->message, "connection with") ==
			  (ids[i].state == VS_CM_LISTENING));
		if (ids[i].state == VS_CM_LISTENING)
			VS_ASSERT(strstr(e->message, "listening on " AC_IP ":"));
	}
	/* once per id, and none for the id on another netdev */
	for (size_t i = 0; i < 3; i++)
		VS_ASSERT_EQ(vs_cm_next(ids[i].id, 0, &ev), -EAGAIN);
	VS_ASSERT_EQ(vs_cm_next(other, 0, &ev), -EAGAIN);

	vs_t_cm_pair_close(&p);
	/* the advice: a new connection through the bond, on its new MAC */
	vs_t_cm_pair_connect(&q, AC_IP);
	printf("address change: a new connection through %s carried a message\n", BOND);
	vs_t_cm_pair_close(&q);
	VS_OK(vs_cm_close(other));
}

int main(void)
{
	const char *ip = getenv("VS_RXE_IP");
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t t0;
	pid_t kid;
	int status = 0;
	bool done = false;

	if (!getenv("VERBSHIM_IN_VM") || !ip)
		VS_SKIP("needs the SoftRoCE VM (VS_RXE_IP): run it with scripts/vm-run.sh");
	setvbuf(stdout, NULL, _IOLBF, 0); /* a timeout's log shows how far it got */
	if (geteuid())
		VS_FAIL("the VM runs tests as root; here euid %d", (int)geteuid());
	parent = getpid();
	/* a run killed before its cleanup left them: gone first */
	teardown();
	atexit(teardown);
	/* test/run.sh's timeout TERMs the group: clean up all the same */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	bond_up();

	kid = fork();
	VS_ASSERT(kid >= 0);
	if (!kid) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		run_cm(ip);
		exit(0);
	}
	/* the child's waits are bounded; this is the hang detector */
	t0 = vs_t_now_ms();
	while (!stop && vs_t_now_ms() - t0 < 90000) {
		pid_t r = waitpid(kid, &status, WNOHANG);

		if (r == kid) {
			done = true;
			break;
		}
		usleep(50000);
	}
	if (!done) {
		kill(kid, SIGKILL);
		waitpid(kid, &status, 0);
		VS_FAIL("the CM part %s; killed", stop ? "was interrupted" : "hung for 90 s");
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		VS_FAIL("the CM part failed (status 0x%x): see above", status);
	teardown();
	VS_ASSERT(!exists(NET BOND));
	VS_ASSERT(!exists(NET SLAVE1));
	VS_ASSERT(!exists(NET SLAVE2));
	VS_ASSERT(!exists("/sys/class/infiniband/" AC_DEV));
	printf("address change: %s, %s, %s and %s removed\n", BOND, SLAVE1, SLAVE2, AC_DEV);
	printf("ok\n");
	return 0;
}
