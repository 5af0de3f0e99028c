// SPDX-License-Identifier: MIT
/*
 * A fake provider: a stub libibverbs (rdma-core 44 node set) whose one
 * device, fake0, hands out working objects, so the typed API can be
 * driven end to end on the host (test/unit/typed_misuse.c).  Every
 * object is malloc'ed and freed on destroy, so a library that touches a
 * destroyed object is caught by ASan and valgrind.  The context is a
 * legacy one (no verbs_context): CQs and QPs take the legacy paths.
 *
 * Sends complete at once (a completion per signaled WR on the send CQ),
 * receives are only counted.  vs_stub_wc_error fails one WR to come
 * (the rest of its post flushed, the QP in ERR); vs_stub_hold_sends
 * holds send completions back until vs_stub_release_sends().
 * VS_FAKE_EFA_PORT=1 (or VS_FAKE_EFA=1) makes the device look like an EFA
 * one (node, transport and link layer unspecified, no LID;
 * stub_fake_efa.c is the libefa); VS_FAKE_VENDOR
 * sets the vendor_id (0xffffff: rxe, so the library applies its quirks);
 * VS_FAKE_IBDEV_PATH its ibdev_path (a directory dressed as its sysfs;
 * default /nonexistent);
 * VS_FAKE_GID_SLOTS the GID table's size (fake_gid).  VS_FAKE_LINK=ib
 * makes the port an InfiniBand one (fake_ib_port: LID, SM LID, IB GIDs;
 * VS_FAKE_LID its LID, 0: no subnet manager yet).  vs_stub_fail
 * makes one named verb fail
 * once with an errno (destroys and deallocs return it, creates return
 * NULL with errno); vs_stub_live counts the objects alive per kind.
 * Linked with stub_ibverbs.o, whose weak generic bodies cover the rest.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <net/if.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "stub.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

/* The verb named here fails once with err. */
VS_STUB_EXPORT struct {
	char verb[48];
	int err;
} vs_stub_fail;

enum { LIVE_CTX, LIVE_PD, LIVE_MR, LIVE_CQ, LIVE_QP, LIVE_SRQ, LIVE_AH, LIVE_N };
/* Objects alive per kind: ctx, pd, mr, cq, qp, srq, ah. */
VS_STUB_EXPORT int vs_stub_live[LIVE_N];
/* Receives accepted so far (QPs and SRQs). */
VS_STUB_EXPORT long vs_stub_recvs;
/* The last ibv_modify_qp toward each state (its mask and attributes). */
VS_STUB_EXPORT struct {
	int mask[IBV_QPS_ERR + 1];
	struct ibv_qp_attr attr[IBV_QPS_ERR + 1];
} vs_stub_modify;
/* The attributes of the last ibv_create_ah. */
VS_STUB_EXPORT struct ibv_ah_attr vs_stub_last_ah;

static int fails(const char *verb)
{
	if (strcmp(vs_stub_fail.verb, verb))
		return 0;
	vs_stub_fail.verb[0] = 0;
	return vs_stub_fail.err ? vs_stub_fail.err : EIO;
}

static struct ibv_device fake_device = {
	.node_type = IBV_NODE_CA,
	.transport_type = IBV_TRANSPORT_IB,
	.name = "fake0",
	.dev_name = "uverbs0",
	.ibdev_path = "/nonexistent",
};
static struct ibv_device *fake_list[] = { &fake_device, NULL };

#define FAKE_CQ_RING 1024

/* One CQ type for both kinds: an ibv_cq_ex starts with an ibv_cq's fields. */
struct fake_cq {
	struct ibv_cq_ex ex;
	struct ibv_wc ring[FAKE_CQ_RING];
	unsigned int head, tail;
	struct ibv_wc cur; /* the current completion of a start/next poll */
	/* a provider's poll lock: start_poll to end_poll, and ibv_poll_cq */
	pthread_mutex_t lock;
	/* completion events: armed by req_notify, one event per arming */
	int armed;
	unsigned int reported, acked;
};

/*
 * A completion channel: a socket pair carrying the fake_cq pointer of
 * each event (SOCK_SEQPACKET: whole events, and recv(MSG_DONTWAIT) takes
 * one without sleeping whatever the fd's O_NONBLOCK).  As in the kernel,
 * an event is counted as reported to its CQ when it is taken off the
 * queue, under the queue's lock (evlock), and a CQ's destroy drops its
 * queued events under that lock, so every event is either dropped or
 * counted; as libibverbs does, the destroy then waits until the events
 * counted are acknowledged: for ever there, 2 s here, then it aborts
 * naming the count.
 */
struct fake_channel {
	struct ibv_comp_channel ch; /* ch.fd: the read end */
	int wfd;
	int cqs;
	pthread_mutex_t evlock;
};

#define FAKE_MAX_BATCH 256

struct fake_qp {
	struct ibv_qp_ex ex; /* ex.qp_base is the ibv_qp */
	int sq_sig_all;
	int extended;
	/* the WRs of an open ibv_wr_* batch */
	struct ibv_wc pending[FAKE_MAX_BATCH];
	int signaled[FAKE_MAX_BATCH];
	unsigned int n;
};

struct fake_ctx {
	struct verbs_context v; /* v.context is the ibv_context */
};

static uint32_t next_qpn = 0x100;
static uint32_t next_key = 0x1000;

/* VS_FAKE_EFA_PORT=1 or VS_FAKE_EFA=1: fake0 looks like an EFA device. */
static bool fake_efa_port(void)
{
	const char *p = getenv("VS_FAKE_EFA_PORT"), *e = getenv("VS_FAKE_EFA");

	return (p && !strcmp(p, "1")) || (e && !strcmp(e, "1"));
}

VS_STUB_EXPORT struct ibv_device **ibv_get_device_list(int *num_devices)
{
	const char *sysfs = getenv("VS_FAKE_IBDEV_PATH");

	vs_stub_record("ibv_get_device_list");
	/* VS_FAKE_IBDEV_PATH: a directory dressed as the device's sysfs */
	snprintf(fake_device.ibdev_path, sizeof(fake_device.ibdev_path), "%s",
		 sysfs ? sysfs : "/nonexistent");
	/* as efa's: node and transport unspecified (the kind is EFA) */
	fake_device.node_type = fake_efa_port() ? IBV_NODE_UNSPECIFIED : IBV_NODE_CA;
	fake_device.transport_type = fake_efa_port() ? IBV_TRANSPORT_UNSPECIFIED :
						       IBV_TRANSPORT_IB;
	if (num_devices)
		*num_devices = 1;
	return fake_list;
}

VS_STUB_EXPORT void ibv_free_device_list(struct ibv_device **list)
{
	vs_stub_record("ibv_free_device_list");
}

VS_STUB_EXPORT const char *ibv_get_device_name(struct ibv_device *device)
{
	int err = fails("ibv_get_device_name");

	/* what a drop-in whose symbol is missing returns */
	if (err) {
		errno = err;
		return NULL;
	}
	return device->name;
}

VS_STUB_EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
	return 0;
}

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct fake_cq *f = (struct fake_cq *)cq;
	int got = 0;

	pthread_mutex_lock(&f->lock);
	while (got < n && f->tail != f->head) {
		wc[got++] = f->ring[f->tail % FAKE_CQ_RING];
		f->tail++;
	}
	pthread_mutex_unlock(&f->lock);
	return got;
}

static int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	int err = fails("ibv_req_notify_cq");

	vs_stub_record("ibv_req_notify_cq");
	if (err)
		return err;
	__atomic_store_n(&((struct fake_cq *)cq)->armed, 1, __ATOMIC_RELEASE);
	return 0;
}

static void complete(struct ibv_cq *cq, const struct ibv_wc *wc)
{
	struct fake_cq *f = (struct fake_cq *)cq;

	/* from the posting thread while others poll and arm (race tests) */
	pthread_mutex_lock(&f->lock);
	if (f->head - f->tail < FAKE_CQ_RING)
		f->ring[f->head++ % FAKE_CQ_RING] = *wc;
	pthread_mutex_unlock(&f->lock);
	if (cq->channel && __atomic_exchange_n(&f->armed, 0, __ATOMIC_ACQ_REL)) {
		struct fake_channel *c = (struct fake_channel *)cq->channel;

		if (write(c->wfd, &f, sizeof(f)) != sizeof(f))
			abort();
	}
}

VS_STUB_EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct fake_channel *c;
	int fds[2], err = fails("ibv_create_comp_channel");

	vs_stub_record("ibv_create_comp_channel");
	if (err) {
		errno = err;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds)) {
		free(c);
		return NULL;
	}
	pthread_mutex_init(&c->evlock, NULL);
	c->ch.context = context;
	c->ch.fd = fds[0];
	c->wfd = fds[1];
	return &c->ch;
}

VS_STUB_EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct fake_channel *c = (struct fake_channel *)channel;
	int err = fails("ibv_destroy_comp_channel");

	vs_stub_record("ibv_destroy_comp_channel");
	if (err)
		return err;
	if (c->cqs)
		return EBUSY;
	close(c->ch.fd);
	close(c->wfd);
	pthread_mutex_destroy(&c->evlock);
	free(c);
	return 0;
}

/*
 * While set, an event read returns that many microseconds late: a reader
 * preempted between its read and what it does next (test/unit/race_channel.c).
 */
VS_STUB_EXPORT int vs_stub_cq_event_delay_us;

VS_STUB_EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel,
				    struct ibv_cq **cq, void **cq_context)
{
	struct fake_channel *c = (struct fake_channel *)channel;
	struct pollfd p = { .fd = channel->fd, .events = POLLIN };
	struct fake_cq *f;
	int delay;

	vs_stub_record("ibv_get_cq_event");
	for (;;) {
		ssize_t n;

		pthread_mutex_lock(&c->evlock);
		n = recv(channel->fd, &f, sizeof(f), MSG_DONTWAIT);
		if (n == sizeof(f))
			__atomic_add_fetch(&f->reported, 1, __ATOMIC_ACQ_REL);
		pthread_mutex_unlock(&c->evlock);
		if (n == sizeof(f))
			break;
		if (n >= 0 || errno != EAGAIN)
			return -1;
		/* as a read: EAGAIN on a non-blocking fd, else sleep for one */
		if (fcntl(channel->fd, F_GETFL) & O_NONBLOCK)
			return -1;
		if (poll(&p, 1, -1) < 0)
			return -1;
	}
	delay = __atomic_load_n(&vs_stub_cq_event_delay_us, __ATOMIC_RELAXED);
	if (delay)
		usleep((useconds_t)delay);
	*cq = ibv_cq_ex_to_cq(&f->ex);
	*cq_context = f->ex.cq_context;
	return 0;
}

VS_STUB_EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	vs_stub_record("ibv_ack_cq_events");
	__atomic_add_fetch(&((struct fake_cq *)cq)->acked, nevents, __ATOMIC_ACQ_REL);
}

/* Drops f's queued events from its channel (the kernel does at destroy). */
static void drop_events(struct fake_cq *f)
{
	struct fake_channel *c = (struct fake_channel *)f->ex.channel;
	struct fake_cq *q[256];
	int n = 0;

	while (n < 256 && recv(c->ch.fd, &q[n], sizeof(q[n]), MSG_DONTWAIT) ==
				  sizeof(q[n]))
		if (q[n] != f)
			n++;
	for (int i = 0; i < n; i++)
		if (write(c->wfd, &q[i], sizeof(q[i])) != sizeof(q[i]))
			abort();
}

/*
 * When armed, the WR after the next `skip` ones completes with `status`
 * (signaled or not) and the rest of its post with IBV_WC_WR_FLUSH_ERR;
 * the QP goes to ERR.
 */
VS_STUB_EXPORT struct {
	int armed;
	int skip;
	int status;
} vs_stub_wc_error;
/* While set, send completions wait for vs_stub_release_sends(). */
VS_STUB_EXPORT int vs_stub_hold_sends;

#define FAKE_HELD 1024
static struct {
	struct ibv_cq *cq;
	struct ibv_wc wc;
} held[FAKE_HELD];
static int nheld;

/* Delivers the held send completions, in order. */
VS_STUB_EXPORT void vs_stub_release_sends(void)
{
	for (int i = 0; i < nheld; i++)
		complete(held[i].cq, &held[i].wc);
	nheld = 0;
}

/* A WR of a post is done: its completion, if any (*flush: the rest fail). */
static void send_done(struct ibv_qp *qp, struct ibv_wc *wc, int signaled,
		      int *flush)
{
	if (*flush) {
		wc->status = IBV_WC_WR_FLUSH_ERR;
		signaled = 1;
	} else if (vs_stub_wc_error.armed && vs_stub_wc_error.skip-- == 0) {
		vs_stub_wc_error.armed = 0;
		wc->status = vs_stub_wc_error.status;
		wc->vendor_err = 0x42;
		signaled = 1;
		*flush = 1;
		qp->state = IBV_QPS_ERR;
	}
	if (!signaled)
		return;
	if (vs_stub_hold_sends && nheld < FAKE_HELD) {
		held[nheld].cq = qp->send_cq;
		held[nheld++].wc = *wc;
		return;
	}
	complete(qp->send_cq, wc);
}

static enum ibv_wc_opcode wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	default:
		return IBV_WC_SEND;
	}
}

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad)
{
	struct fake_qp *f = (struct fake_qp *)qp; /* ex.qp_base is first */
	int flush = 0;

	for (; wr; wr = wr->next) {
		uint32_t len = 0;

		if ((qp->state != IBV_QPS_RTS && !flush) || wr->num_sge < 0 ||
		    wr->num_sge > 16 ||
		    (wr->num_sge && !wr->sg_list)) {
			*bad = wr;
			return EINVAL;
		}
		for (int i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length; /* ASan: the list is alive */
		{
			struct ibv_wc wc = {
				.wr_id = wr->wr_id,
				.status = IBV_WC_SUCCESS,
				.opcode = wc_opcode(wr->opcode),
				.byte_len = len,
				.qp_num = qp->qp_num,
			};

			send_done(qp, &wc, f->sq_sig_all ||
				  (wr->send_flags & IBV_SEND_SIGNALED), &flush);
		}
	}
	return 0;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	for (; wr; wr = wr->next) {
		if (qp->state == IBV_QPS_RESET || (wr->num_sge && !wr->sg_list)) {
			*bad = wr;
			return EINVAL;
		}
		for (int i = 0; i < wr->num_sge; i++)
			(void)*(volatile uint32_t *)&wr->sg_list[i].length;
		vs_stub_recvs++;
	}
	return 0;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad)
{
	for (; wr; wr = wr->next) {
		if (wr->num_sge && !wr->sg_list) {
			*bad = wr;
			return EINVAL;
		}
		vs_stub_recvs++;
	}
	return 0;
}

static struct ibv_cq_ex *fake_create_cq_ex(struct ibv_context *context,
					   struct ibv_cq_init_attr_ex *attr);
static struct ibv_qp *fake_create_qp_ex(struct ibv_context *context,
					struct ibv_qp_init_attr_ex *attr);

VS_STUB_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	const char *ext = getenv("VS_FAKE_EXTENDED");
	struct fake_ctx *f;
	struct ibv_context *c;
	int err = fails("ibv_open_device");

	vs_stub_record("ibv_open_device");
	if (err) {
		errno = err;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	c = &f->v.context;
	c->device = device;
	c->ops.poll_cq = fake_poll_cq;
	c->ops.req_notify_cq = fake_req_notify_cq;
	c->ops.post_send = fake_post_send;
	c->ops.post_recv = fake_post_recv;
	c->ops.post_srq_recv = fake_post_srq_recv;
	c->cmd_fd = c->async_fd = -1;
	if (ext && !strcmp(ext, "1")) {
		f->v.sz = sizeof(f->v);
		f->v.create_cq_ex = fake_create_cq_ex;
		f->v.create_qp_ex = fake_create_qp_ex;
		c->abi_compat = __VERBS_ABI_IS_EXTENDED;
	}
	vs_stub_live[LIVE_CTX]++;
	return c;
}

VS_STUB_EXPORT int ibv_close_device(struct ibv_context *c)
{
	int err = fails("ibv_close_device");

	vs_stub_record("ibv_close_device");
	if (err) {
		errno = err;
		return -1;
	}
	free((char *)c - offsetof(struct fake_ctx, v.context));
	vs_stub_live[LIVE_CTX]--;
	return 0;
}

VS_STUB_EXPORT int ibv_query_device(struct ibv_context *context,
				    struct ibv_device_attr *attr)
{
	vs_stub_record("ibv_query_device");
	memset(attr, 0, sizeof(*attr));
	attr->phys_port_cnt = 1;
	attr->vendor_id = 0x02c9;
	if (getenv("VS_FAKE_VENDOR")) /* 0xffffff: rxe, and its quirks */
		attr->vendor_id = (uint32_t)strtoul(getenv("VS_FAKE_VENDOR"), NULL, 0);
	attr->max_qp = 64;
	attr->max_qp_wr = 256;
	attr->max_sge = 4;
	attr->max_cq = 64;
	attr->max_cqe = 1024;
	attr->max_mr = 64;
	attr->max_pd = 64;
	attr->max_qp_rd_atom = 4;
	attr->max_qp_init_rd_atom = 4;
	attr->atomic_cap = IBV_ATOMIC_HCA;
	attr->max_srq = 8;
	attr->max_srq_wr = 256;
	attr->max_srq_sge = 4;
	attr->max_ah = 64;
	return 0;
}

static uint32_t fake_gid_slots(void)
{
	const char *v = getenv("VS_FAKE_GID_SLOTS");
	unsigned long n = v ? strtoul(v, NULL, 0) : 0;

	return n > 3 && n <= 4096 ? (uint32_t)n : 3;
}

/* VS_FAKE_LINK=ib: the port is an InfiniBand one (else RoCE-like). */
static int fake_ib(void)
{
	const char *v = getenv("VS_FAKE_LINK");

	return v && !strcmp(v, "ib");
}

/*
 * An InfiniBand port as a subnet manager left it: LID VS_FAKE_LID (0x11
 * when unset; 0 is a port no SM has configured yet: state INIT), SM LID
 * 0x1, active MTU 2048 of 4096, 4X EDR; GIDs in fake_gid.
 */
static void fake_ib_port(struct ibv_port_attr *attr)
{
	const char *v = getenv("VS_FAKE_LID");

	attr->link_layer = IBV_LINK_LAYER_INFINIBAND;
	attr->lid = v ? (uint16_t)strtoul(v, NULL, 0) : 0x11;
	attr->state = attr->lid ? IBV_PORT_ACTIVE : IBV_PORT_INIT;
	attr->sm_lid = attr->lid ? 0x1 : 0;
	attr->lmc = 0;
	attr->active_mtu = IBV_MTU_2048;
	attr->max_mtu = IBV_MTU_4096;
	attr->active_speed = 32; /* EDR */
	attr->active_width = 2;  /* 4x */
}

VS_STUB_EXPORT int ibv_query_port(struct ibv_context *context, uint8_t port,
				  struct _compat_ibv_port_attr *compat)
{
	struct ibv_port_attr *attr = (struct ibv_port_attr *)compat;

	vs_stub_record("ibv_query_port");
	if (port != 1)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->state = IBV_PORT_ACTIVE;
	attr->max_mtu = IBV_MTU_4096;
	attr->active_mtu = IBV_MTU_1024;
	attr->gid_tbl_len = (int)fake_gid_slots();
	attr->link_layer = IBV_LINK_LAYER_ETHERNET;
	if (fake_efa_port())
		attr->link_layer = IBV_LINK_LAYER_UNSPECIFIED; /* as efa's */
	attr->active_speed = 4;
	attr->active_width = 1;
	if (fake_ib())
		fake_ib_port(attr);
	return 0;
}

/*
 * GID 0 link-local (RoCE v1), 1 ::ffff:10.0.0.1 (RoCE v2, on lo), 2 empty;
 * with VS_FAKE_GID_SLOTS=N (> 3) the table has N slots and 3..N-1 hold
 * ::ffff:10.0.I/256.I%256 (RoCE v2, on lo).  On an InfiniBand port
 * (VS_FAKE_LINK=ib): 0 the port GID, the default subnet prefix fe80::/64
 * and the port GUID; 1 the same prefix and an alias GUID; the rest empty.
 */
static int fake_gid(uint32_t index, union ibv_gid *gid)
{
	static const uint8_t guid[8] = { 0x00, 0x02, 0xc9, 0x03, 0x00, 0x11, 0x22, 0x33 };

	if (index >= fake_gid_slots())
		return -1;
	memset(gid, 0, sizeof(*gid));
	if (fake_ib()) {
		if (index > 1)
			return 0;
		gid->raw[0] = 0xfe;
		gid->raw[1] = 0x80;
		memcpy(gid->raw + 8, guid, sizeof(guid));
		gid->raw[15] += (uint8_t)index;
	} else if (index == 0) {
		gid->raw[0] = 0xfe;
		gid->raw[1] = 0x80;
		gid->raw[15] = 1;
	} else if (index == 1 || index > 2) {
		gid->raw[10] = gid->raw[11] = 0xff;
		gid->raw[12] = 10;
		gid->raw[14] = (uint8_t)(index >> 8);
		gid->raw[15] = index == 1 ? 1 : (uint8_t)index;
	}
	return 0;
}

static void fake_entry(uint32_t index, struct ibv_gid_entry *e)
{
	memset(e, 0, sizeof(*e));
	fake_gid(index, &e->gid);
	e->gid_index = index;
	e->port_num = 1;
	e->gid_type = index ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_ROCE_V1;
	e->ndev_ifindex = if_nametoindex("lo");
	if (fake_ib()) { /* IB GIDs: no type beyond IB, no netdev */
		e->gid_type = IBV_GID_TYPE_IB;
		e->ndev_ifindex = 0;
	}
}

VS_STUB_EXPORT int ibv_query_gid(struct ibv_context *context, uint8_t port,
				 int index, union ibv_gid *gid)
{
	vs_stub_record("ibv_query_gid");
	if (port != 1 || index < 0 || fake_gid((uint32_t)index, gid)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* the max_entries of the last four _ibv_query_gid_table calls, and their count */
VS_STUB_EXPORT size_t vs_stub_gid_table_asks[4];
VS_STUB_EXPORT int vs_stub_gid_table_nasks;

VS_STUB_EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *context,
					    struct ibv_gid_entry *entries,
					    size_t max_entries, uint32_t flags,
					    size_t entry_size)
{
	size_t n = 0;

	vs_stub_record("_ibv_query_gid_table");
	vs_stub_gid_table_asks[vs_stub_gid_table_nasks++ % 4] = max_entries;
	for (uint32_t i = 0; i < fake_gid_slots(); i++) {
		if (i == 2 || (fake_ib() && i > 1)) /* empty */
			continue;
		if (n == max_entries) /* as the kernel: more in use than asked for */
			return -EINVAL;
		fake_entry(i, &entries[n++]);
	}
	return (ssize_t)n;
}

VS_STUB_EXPORT int _ibv_query_gid_ex(struct ibv_context *context,
				     uint32_t port_num, uint32_t gid_index,
				     struct ibv_gid_entry *entry, uint32_t flags,
				     size_t entry_size)
{
	vs_stub_record("_ibv_query_gid_ex");
	if (port_num != 1 || gid_index > 1)
		return ENODATA;
	fake_entry(gid_index, entry);
	return 0;
}

VS_STUB_EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd;
	int err = fails("ibv_alloc_pd");

	vs_stub_record("ibv_alloc_pd");
	if (err) {
		errno = err;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	pd->context = context;
	vs_stub_live[LIVE_PD]++;
	return pd;
}

VS_STUB_EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	int err = fails("ibv_dealloc_pd");

	vs_stub_record("ibv_dealloc_pd");
	if (err)
		return err;
	(void)*(volatile void **)&pd->context; /* ASan: still alive */
	free(pd);
	vs_stub_live[LIVE_PD]--;
	return 0;
}

static struct ibv_mr *fake_reg(struct ibv_pd *pd, void *addr, size_t length)
{
	struct ibv_mr *mr;
	int err = fails("ibv_reg_mr");

	vs_stub_record("ibv_reg_mr");
	if (err) {
		errno = err;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	/* race_trace registers from many threads */
	mr->lkey = __atomic_fetch_add(&next_key, 2, __ATOMIC_RELAXED);
	mr->rkey = mr->lkey + 1;
	__atomic_add_fetch(&vs_stub_live[LIVE_MR], 1, __ATOMIC_RELAXED);
	return mr;
}

VS_STUB_EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr,
					 size_t length, int access)
{
	return fake_reg(pd, addr, length);
}

VS_STUB_EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr,
					       size_t length, uint64_t iova,
					       unsigned int access)
{
	return fake_reg(pd, addr, length);
}

/* dmabuf MRs (IBVERBS_1.12): refused as a provider without them refuses
 * (rxe: EOPNOTSUPP) unless VS_FAKE_DMABUF=1; then an open fd registers. */
VS_STUB_EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd,
						uint64_t offset, size_t length,
						uint64_t iova, int fd, int access)
{
	struct ibv_mr *mr;

	if (!getenv("VS_FAKE_DMABUF")) {
		vs_stub_record("ibv_reg_dmabuf_mr");
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (fcntl(fd, F_GETFD) < 0) {
		vs_stub_record("ibv_reg_dmabuf_mr");
		errno = EBADF;
		return NULL;
	}
	/* libibverbs' own: addr is the offset into the dmabuf, not an
	 * address anything can use; the device sees iova */
	mr = fake_reg(pd, (void *)(uintptr_t)offset, length);
	(void)iova;
	vs_stub_record("ibv_reg_dmabuf_mr");
	return mr;
}

VS_STUB_EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	int err = fails("ibv_dereg_mr");

	vs_stub_record("ibv_dereg_mr");
	if (err)
		return err;
	(void)*(volatile void **)&mr->pd;
	free(mr);
	__atomic_sub_fetch(&vs_stub_live[LIVE_MR], 1, __ATOMIC_RELAXED);
	return 0;
}

static struct fake_cq *new_cq(struct ibv_context *context, int cqe,
			      void *cq_context, struct ibv_comp_channel *channel)
{
	struct fake_cq *f;
	int err = fails("ibv_create_cq");

	vs_stub_record("ibv_create_cq");
	if (err) {
		errno = err;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	pthread_mutex_init(&f->lock, NULL);
	f->ex.context = context;
	f->ex.channel = channel;
	f->ex.cq_context = cq_context;
	if (channel)
		((struct fake_channel *)channel)->cqs++;
	f->ex.cqe = cqe;
	vs_stub_live[LIVE_CQ]++;
	return f;
}

VS_STUB_EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
					    void *cq_context,
					    struct ibv_comp_channel *channel,
					    int comp_vector)
{
	struct fake_cq *f = new_cq(context, cqe, cq_context, channel);

	return f ? ibv_cq_ex_to_cq(&f->ex) : NULL;
}

/* The extended CQ: start/next pop a completion, the readers read it. */
static int cqx_next(struct ibv_cq_ex *ex)
{
	struct fake_cq *f = (struct fake_cq *)ex;

	if (f->tail == f->head)
		return ENOENT;
	f->cur = f->ring[f->tail++ % FAKE_CQ_RING];
	ex->wr_id = f->cur.wr_id;
	ex->status = f->cur.status;
	return 0;
}

/* Held from a start that found one to the end, as a provider's lock is. */
static int cqx_start(struct ibv_cq_ex *ex, struct ibv_poll_cq_attr *attr)
{
	struct fake_cq *f = (struct fake_cq *)ex;
	int ret;

	pthread_mutex_lock(&f->lock);
	ret = cqx_next(ex);
	if (ret)
		pthread_mutex_unlock(&f->lock);
	return ret;
}

static void cqx_end(struct ibv_cq_ex *ex)
{
	(void)*(volatile int *)&ex->cqe; /* ASan: the CQ is alive */
	pthread_mutex_unlock(&((struct fake_cq *)ex)->lock);
}

#define CUR(ex) (((struct fake_cq *)(ex))->cur)
static enum ibv_wc_opcode cqx_opcode(struct ibv_cq_ex *ex) { return CUR(ex).opcode; }
static uint32_t cqx_vendor_err(struct ibv_cq_ex *ex) { return CUR(ex).vendor_err; }
static uint32_t cqx_byte_len(struct ibv_cq_ex *ex) { return CUR(ex).byte_len; }
static __be32 cqx_imm(struct ibv_cq_ex *ex) { return CUR(ex).imm_data; }
static uint32_t cqx_qp_num(struct ibv_cq_ex *ex) { return CUR(ex).qp_num; }
static uint32_t cqx_src_qp(struct ibv_cq_ex *ex) { return CUR(ex).src_qp; }
static unsigned int cqx_wc_flags(struct ibv_cq_ex *ex) { return CUR(ex).wc_flags; }
static uint32_t cqx_slid(struct ibv_cq_ex *ex) { return CUR(ex).slid; }
static uint8_t cqx_sl(struct ibv_cq_ex *ex) { return CUR(ex).sl; }
static uint8_t cqx_dlid_path_bits(struct ibv_cq_ex *ex) { return CUR(ex).dlid_path_bits; }
#undef CUR

static struct ibv_cq_ex *fake_create_cq_ex(struct ibv_context *context,
					   struct ibv_cq_init_attr_ex *attr)
{
	struct fake_cq *f;

	if (attr->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS) {
		errno = EOPNOTSUPP; /* no timestamps here */
		return NULL;
	}
	f = new_cq(context, (int)attr->cqe, attr->cq_context, attr->channel);
	if (!f)
		return NULL;
	f->ex.start_poll = cqx_start;
	f->ex.next_poll = cqx_next;
	f->ex.end_poll = cqx_end;
	f->ex.read_opcode = cqx_opcode;
	f->ex.read_vendor_err = cqx_vendor_err;
	f->ex.read_byte_len = cqx_byte_len;
	f->ex.read_imm_data = cqx_imm;
	f->ex.read_qp_num = cqx_qp_num;
	f->ex.read_src_qp = cqx_src_qp;
	f->ex.read_wc_flags = cqx_wc_flags;
	f->ex.read_slid = cqx_slid;
	f->ex.read_sl = cqx_sl;
	f->ex.read_dlid_path_bits = cqx_dlid_path_bits;
	return &f->ex;
}

VS_STUB_EXPORT int ibv_destroy_cq(struct ibv_cq *cq)
{
	int err = fails("ibv_destroy_cq");

	vs_stub_record("ibv_destroy_cq");
	if (err)
		return err;
	(void)*(volatile void **)&cq->context;
	if (cq->channel) {
		struct fake_channel *c = (struct fake_channel *)cq->channel;
		struct fake_cq *f = (struct fake_cq *)cq;
		unsigned int reported;

		/* the kernel's part: queued events dropped, the rest counted */
		pthread_mutex_lock(&c->evlock);
		drop_events(f);
		reported = __atomic_load_n(&f->reported, __ATOMIC_ACQUIRE);
		pthread_mutex_unlock(&c->evlock);
		/* libibverbs': wait for their acks (2 s here) */
		for (int ms = 0; __atomic_load_n(&f->acked, __ATOMIC_ACQUIRE) !=
				 reported; ms++) {
			if (ms == 2000) {
				fprintf(stderr, "fake ibv_destroy_cq: %u completion "
					"events not acknowledged after 2 s: a real "
					"one blocks for ever\n",
					reported - f->acked);
				abort();
			}
			usleep(1000);
		}
		c->cqs--;
	}
	pthread_mutex_destroy(&((struct fake_cq *)cq)->lock);
	free(cq);
	vs_stub_live[LIVE_CQ]--;
	return 0;
}

static struct fake_qp *new_qp(struct ibv_pd *pd, struct ibv_cq *send_cq,
			      struct ibv_cq *recv_cq, struct ibv_srq *srq,
			      const struct ibv_qp_cap *cap,
			      enum ibv_qp_type type, int sq_sig_all)
{
	struct fake_qp *f;
	int err = fails("ibv_create_qp");

	vs_stub_record("ibv_create_qp");
	if (err) {
		errno = err;
		return NULL;
	}
	if (!send_cq || !recv_cq || cap->max_send_wr > 256 ||
	    cap->max_recv_wr > 256 || cap->max_send_sge > 4 ||
	    cap->max_recv_sge > 4) {
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	f->ex.qp_base.context = pd->context;
	f->ex.qp_base.pd = pd;
	f->ex.qp_base.send_cq = send_cq;
	f->ex.qp_base.recv_cq = recv_cq;
	f->ex.qp_base.srq = srq;
	f->ex.qp_base.qp_type = type;
	f->ex.qp_base.qp_num = next_qpn++;
	f->ex.qp_base.state = IBV_QPS_RESET;
	f->sq_sig_all = sq_sig_all;
	vs_stub_live[LIVE_QP]++;
	return f;
}

VS_STUB_EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
					    struct ibv_qp_init_attr *attr)
{
	struct fake_qp *f = new_qp(pd, attr->send_cq, attr->recv_cq, attr->srq,
				   &attr->cap, attr->qp_type, attr->sq_sig_all);

	return f ? &f->ex.qp_base : NULL;
}

/* The ibv_wr_* ops: WRs collect until complete, which completes them. */
static struct fake_qp *qpx(struct ibv_qp_ex *ex)
{
	return (struct fake_qp *)ex;
}

static void wr_add(struct ibv_qp_ex *ex, enum ibv_wc_opcode op)
{
	struct fake_qp *f = qpx(ex);

	if (f->n >= FAKE_MAX_BATCH)
		abort(); /* the library let a batch outgrow the queue */
	memset(&f->pending[f->n], 0, sizeof(f->pending[0]));
	f->pending[f->n].wr_id = ex->wr_id;
	f->pending[f->n].opcode = op;
	f->pending[f->n].qp_num = ex->qp_base.qp_num;
	f->signaled[f->n] = f->sq_sig_all || (ex->wr_flags & IBV_SEND_SIGNALED);
	f->n++;
}

static void wr_len(struct ibv_qp_ex *ex, uint32_t len)
{
	struct fake_qp *f = qpx(ex);

	if (f->n)
		f->pending[f->n - 1].byte_len = len;
}

static void wr_start(struct ibv_qp_ex *ex) { qpx(ex)->n = 0; }
static void wr_abort(struct ibv_qp_ex *ex) { qpx(ex)->n = 0; }
static void wr_send(struct ibv_qp_ex *ex) { wr_add(ex, IBV_WC_SEND); }
static void wr_send_imm(struct ibv_qp_ex *ex, __be32 imm) { wr_add(ex, IBV_WC_SEND); }
static void wr_write(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr)
{
	wr_add(ex, IBV_WC_RDMA_WRITE);
}
static void wr_write_imm(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr,
			 __be32 imm)
{
	wr_add(ex, IBV_WC_RDMA_WRITE);
}
static void wr_read(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr)
{
	wr_add(ex, IBV_WC_RDMA_READ);
}
static void wr_cas(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr,
		   uint64_t compare, uint64_t swap)
{
	wr_add(ex, IBV_WC_COMP_SWAP);
}
static void wr_faa(struct ibv_qp_ex *ex, uint32_t rkey, uint64_t addr,
		   uint64_t add)
{
	wr_add(ex, IBV_WC_FETCH_ADD);
}
static void wr_ud_addr(struct ibv_qp_ex *ex, struct ibv_ah *ah, uint32_t qpn,
		       uint32_t qkey)
{
	(void)*(volatile void **)&ah->pd; /* ASan: the AH is alive */
}
/* The last ibv_wr_set_sge, for tests of what the library posted. */
VS_STUB_EXPORT struct ibv_sge vs_stub_last_sge;

static void wr_sge(struct ibv_qp_ex *ex, uint32_t lkey, uint64_t addr,
		   uint32_t length)
{
	vs_stub_last_sge = (struct ibv_sge){ .addr = addr, .length = length,
					     .lkey = lkey };
	wr_len(ex, length);
}
static void wr_sge_list(struct ibv_qp_ex *ex, size_t n, const struct ibv_sge *sgl)
{
	uint32_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += sgl[i].length;
	wr_len(ex, len);
}
static void wr_inline(struct ibv_qp_ex *ex, void *addr, size_t length)
{
	uint8_t copy[1024];

	if (length > sizeof(copy))
		abort();
	if (length)
		memcpy(copy, addr, length); /* ASan: the bytes are readable */
	wr_len(ex, (uint32_t)length);
}
static void wr_inline_list(struct ibv_qp_ex *ex, size_t n,
			   const struct ibv_data_buf *bufs)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += bufs[i].length;
	wr_len(ex, (uint32_t)len);
}

static int wr_complete(struct ibv_qp_ex *ex)
{
	struct fake_qp *f = qpx(ex);
	int flush = 0;

	if (ex->qp_base.state != IBV_QPS_RTS) {
		f->n = 0;
		return EINVAL;
	}
	for (unsigned int i = 0; i < f->n; i++)
		send_done(&ex->qp_base, &f->pending[i], f->signaled[i], &flush);
	f->n = 0;
	return 0;
}

static struct ibv_qp *fake_create_qp_ex(struct ibv_context *context,
					struct ibv_qp_init_attr_ex *attr)
{
	struct fake_qp *f;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD)) {
		errno = EINVAL;
		return NULL;
	}
	f = new_qp(attr->pd, attr->send_cq, attr->recv_cq, attr->srq,
		   &attr->cap, attr->qp_type, attr->sq_sig_all);
	if (!f)
		return NULL;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		f->extended = 1;
		f->ex.wr_start = wr_start;
		f->ex.wr_complete = wr_complete;
		f->ex.wr_abort = wr_abort;
		f->ex.wr_send = wr_send;
		f->ex.wr_send_imm = wr_send_imm;
		f->ex.wr_rdma_write = wr_write;
		f->ex.wr_rdma_write_imm = wr_write_imm;
		f->ex.wr_rdma_read = wr_read;
		f->ex.wr_atomic_cmp_swp = wr_cas;
		f->ex.wr_atomic_fetch_add = wr_faa;
		f->ex.wr_set_ud_addr = wr_ud_addr;
		f->ex.wr_set_sge = wr_sge;
		f->ex.wr_set_sge_list = wr_sge_list;
		f->ex.wr_set_inline_data = wr_inline;
		f->ex.wr_set_inline_data_list = wr_inline_list;
	}
	return &f->ex.qp_base;
}

VS_STUB_EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct fake_qp *f = (struct fake_qp *)qp;

	vs_stub_record("ibv_qp_to_qp_ex");
	if (!f->extended) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return &f->ex;
}

VS_STUB_EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				 int mask)
{
	int err = fails("ibv_modify_qp");

	vs_stub_record("ibv_modify_qp");
	if (err)
		return err;
	if (!(mask & IBV_QP_STATE))
		return EINVAL;
	if ((unsigned int)attr->qp_state <= IBV_QPS_ERR) {
		vs_stub_modify.mask[attr->qp_state] = mask;
		vs_stub_modify.attr[attr->qp_state] = *attr;
	}
	qp->state = attr->qp_state;
	return 0;
}

VS_STUB_EXPORT int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
				int mask, struct ibv_qp_init_attr *init)
{
	vs_stub_record("ibv_query_qp");
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = qp->state;
	return 0;
}

VS_STUB_EXPORT int ibv_destroy_qp(struct ibv_qp *qp)
{
	int err = fails("ibv_destroy_qp");

	vs_stub_record("ibv_destroy_qp");
	if (err)
		return err;
	(void)*(volatile void **)&qp->send_cq->context; /* CQs outlive QPs */
	free(qp);
	vs_stub_live[LIVE_QP]--;
	return 0;
}

VS_STUB_EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd,
					    struct ibv_ah_attr *attr)
{
	struct ibv_ah *ah;
	int err = fails("ibv_create_ah");

	vs_stub_record("ibv_create_ah");
	if (err) {
		errno = err;
		return NULL;
	}
	vs_stub_last_ah = *attr;
	ah = calloc(1, sizeof(*ah));
	ah->context = pd->context;
	ah->pd = pd;
	vs_stub_live[LIVE_AH]++;
	return ah;
}

VS_STUB_EXPORT int ibv_destroy_ah(struct ibv_ah *ah)
{
	int err = fails("ibv_destroy_ah");

	vs_stub_record("ibv_destroy_ah");
	if (err)
		return err;
	(void)*(volatile void **)&ah->pd->context; /* the PD outlives its AHs */
	free(ah);
	vs_stub_live[LIVE_AH]--;
	return 0;
}

VS_STUB_EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
					      struct ibv_srq_init_attr *attr)
{
	struct ibv_srq *srq;
	int err = fails("ibv_create_srq");

	vs_stub_record("ibv_create_srq");
	if (err) {
		errno = err;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	srq->context = pd->context;
	srq->pd = pd;
	vs_stub_live[LIVE_SRQ]++;
	return srq;
}

VS_STUB_EXPORT int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
				  int mask)
{
	vs_stub_record("ibv_modify_srq");
	return fails("ibv_modify_srq");
}

VS_STUB_EXPORT int ibv_destroy_srq(struct ibv_srq *srq)
{
	int err = fails("ibv_destroy_srq");

	vs_stub_record("ibv_destroy_srq");
	if (err)
		return err;
	(void)*(volatile void **)&srq->pd->context;
	free(srq);
	vs_stub_live[LIVE_SRQ]--;
	return 0;
}
