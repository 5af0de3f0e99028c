/* SPDX-License-Identifier: MIT */
/*
 * librdmacm (rdma_* and rsockets): every public function symbol, one row
 * each; the row format is that of shim/loader/syms_ibverbs.h.  Upstream, every int
 * function of librdmacm returns -1 and sets errno.
 */
#ifndef VS_SYMS_RDMACM_H
#define VS_SYMS_RDMACM_H

#define VS_RDMACM_NODES(N)                                                     \
	N(RDMACM_1_0, "RDMACM_1.0", 13)                                        \
	N(RDMACM_1_1, "RDMACM_1.1", 16)                                        \
	N(RDMACM_1_2, "RDMACM_1.2", 23)                                        \
	N(RDMACM_1_3, "RDMACM_1.3", 31)                                        \
	N(RDMACM_1_4, "RDMACM_1.4", 60)                                        \
	N(RDMACM_1_5, "RDMACM_1.5", 65)

#define VS_RDMACM_BASE(X)                                                      \
	X(RDMACM_1_0, rdma_create_event_channel, struct rdma_event_channel *, (void), (), PTR, "return=h") \
	X(RDMACM_1_0, rdma_destroy_event_channel, void, (struct rdma_event_channel *channel), (channel), VOID, "channel=end") \
	X(RDMACM_1_0, rdma_create_id, int, (struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context, enum rdma_port_space ps), (channel, id, context, ps), NEG1, "channel=h id=hout context=buf") \
	X(RDMACM_1_0, rdma_destroy_id, int, (struct rdma_cm_id *id), (id), NEG1, "id=end") \
	X(RDMACM_1_0, rdma_bind_addr, int, (struct rdma_cm_id *id, struct sockaddr *addr), (id, addr), NEG1, "id=h addr=in") \
	X(RDMACM_1_0, rdma_resolve_addr, int, (struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr, int timeout_ms), (id, src_addr, dst_addr, timeout_ms), NEG1, "id=h src_addr=in dst_addr=in") \
	X(RDMACM_1_0, rdma_resolve_route, int, (struct rdma_cm_id *id, int timeout_ms), (id, timeout_ms), NEG1, "id=h") \
	X(RDMACM_1_0, rdma_create_qp, int, (struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr), (id, pd, qp_init_attr), NEG1, "id=h pd=h qp_init_attr=inout") \
	X(RDMACM_1_0, rdma_create_qp_ex, int, (struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *qp_init_attr), (id, qp_init_attr), NEG1, "id=h qp_init_attr=inout") \
	X(RDMACM_1_0, rdma_destroy_qp, void, (struct rdma_cm_id *id), (id), VOID, "id=h,ends=qp,ends=send_cq,ends=recv_cq,ends=send_cq_channel,ends=recv_cq_channel") \
	X(RDMACM_1_0, rdma_connect, int, (struct rdma_cm_id *id, struct rdma_conn_param *conn_param), (id, conn_param), NEG1, "id=h conn_param=in") \
	X(RDMACM_1_0, rdma_listen, int, (struct rdma_cm_id *id, int backlog), (id, backlog), NEG1, "id=h") \
	X(RDMACM_1_0, rdma_accept, int, (struct rdma_cm_id *id, struct rdma_conn_param *conn_param), (id, conn_param), NEG1, "id=h conn_param=in") \
	X(RDMACM_1_0, rdma_reject, int, (struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len), (id, private_data, private_data_len), NEG1, "id=h private_data=buf") \
	X(RDMACM_1_0, rdma_notify, int, (struct rdma_cm_id *id, enum ibv_event_type event), (id, event), NEG1, "id=h") \
	X(RDMACM_1_0, rdma_disconnect, int, (struct rdma_cm_id *id), (id), NEG1, "id=h") \
	X(RDMACM_1_0, rdma_get_cm_event, int, (struct rdma_event_channel *channel, struct rdma_cm_event **event), (channel, event), NEG1, "channel=h event=hout") \
	X(RDMACM_1_0, rdma_ack_cm_event, int, (struct rdma_cm_event *event), (event), NEG1, "event=end fails=null") \
	X(RDMACM_1_0, rdma_get_src_port, __be16, (struct rdma_cm_id *id), (id), ZERO, "id=h fails=never") \
	X(RDMACM_1_0, rdma_get_dst_port, __be16, (struct rdma_cm_id *id), (id), ZERO, "id=h fails=never") \
	X(RDMACM_1_0, rdma_join_multicast, int, (struct rdma_cm_id *id, struct sockaddr *addr, void *context), (id, addr, context), NEG1, "id=h addr=in context=buf") \
	X(RDMACM_1_0, rdma_leave_multicast, int, (struct rdma_cm_id *id, struct sockaddr *addr), (id, addr), NEG1, "id=h addr=in") \
	X(RDMACM_1_0, rdma_get_devices, struct ibv_context **, (int *num_devices), (num_devices), CUSTOM, "num_devices=out return=buf") \
	X(RDMACM_1_0, rdma_free_devices, void, (struct ibv_context **list), (list), VOID, "list=free") \
	X(RDMACM_1_0, rdma_event_str, const char *, (enum rdma_cm_event_type event), (event), STR, "return=str") \
	X(RDMACM_1_0, rdma_set_option, int, (struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen), (id, level, optname, optval, optlen), NEG1, "id=h optval=buf") \
	X(RDMACM_1_0, rdma_migrate_id, int, (struct rdma_cm_id *id, struct rdma_event_channel *channel), (id, channel), NEG1, "id=h channel=h") \
	X(RDMACM_1_0, rdma_getaddrinfo, int, (const char *node, const char *service, const struct rdma_addrinfo *hints, struct rdma_addrinfo **res), (node, service, hints, res), NEG1, "node=str service=str hints=in res=out") \
	X(RDMACM_1_0, rdma_freeaddrinfo, void, (struct rdma_addrinfo *res), (res), VOID, "res=free") \
	X(RDMACM_1_0, rdma_get_request, int, (struct rdma_cm_id *listen, struct rdma_cm_id **id), (listen, id), NEG1, "listen=h id=hout") \
	X(RDMACM_1_0, rdma_create_ep, int, (struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr), (id, res, pd, qp_init_attr), NEG1, "id=hout res=in pd=h qp_init_attr=inout") \
	X(RDMACM_1_0, rdma_destroy_ep, void, (struct rdma_cm_id *id), (id), VOID, "id=end,ends=qp,ends=srq,ends=send_cq,ends=recv_cq,ends=send_cq_channel,ends=recv_cq_channel") \
	X(RDMACM_1_0, rdma_create_srq, int, (struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_srq_init_attr *attr), (id, pd, attr), NEG1, "id=h pd=h attr=inout") \
	X(RDMACM_1_0, rdma_create_srq_ex, int, (struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr), (id, attr), NEG1, "id=h attr=inout") \
	X(RDMACM_1_0, rdma_destroy_srq, void, (struct rdma_cm_id *id), (id), VOID, "id=h,ends=srq,ends=send_cq,ends=recv_cq,ends=send_cq_channel,ends=recv_cq_channel") \
	X(RDMACM_1_1, rdma_join_multicast_ex, int, (struct rdma_cm_id *id, struct rdma_cm_join_mc_attr_ex *mc_join_attr, void *context), (id, mc_join_attr, context), NEG1, "id=h mc_join_attr=in context=buf") \
	X(RDMACM_1_2, rdma_establish, int, (struct rdma_cm_id *id), (id), NEG1, "id=h") \
	X(RDMACM_1_2, rdma_init_qp_attr, int, (struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr, int *qp_attr_mask), (id, qp_attr, qp_attr_mask), NEG1, "id=h qp_attr=out qp_attr_mask=out") \
	X(RDMACM_1_3, rdma_set_local_ece, int, (struct rdma_cm_id *id, struct ibv_ece *ece), (id, ece), NEG1, "id=h ece=in") \
	X(RDMACM_1_3, rdma_get_remote_ece, int, (struct rdma_cm_id *id, struct ibv_ece *ece), (id, ece), NEG1, "id=h ece=out") \
	X(RDMACM_1_3, rdma_reject_ece, int, (struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len), (id, private_data, private_data_len), NEG1, "id=h private_data=buf")

/* rsockets: a family of its own, in archive members of its own (a program
 * with its own rclose() and no rsockets links as it does with -lrdmacm). */
#define VS_RSOCKET_BASE(X)                                                     \
	X(RDMACM_1_0, rsocket, int, (int domain, int type, int protocol), (domain, type, protocol), NEG1, "") \
	X(RDMACM_1_0, rbind, int, (int socket, const struct sockaddr *addr, socklen_t addrlen), (socket, addr, addrlen), NEG1, "addr=in,bytes=addrlen") \
	X(RDMACM_1_0, rlisten, int, (int socket, int backlog), (socket, backlog), NEG1, "") \
	X(RDMACM_1_0, raccept, int, (int socket, struct sockaddr *addr, socklen_t *addrlen), (socket, addr, addrlen), NEG1, "addr=out,bytes=*addrlen addrlen=inout") \
	X(RDMACM_1_0, rconnect, int, (int socket, const struct sockaddr *addr, socklen_t addrlen), (socket, addr, addrlen), NEG1, "addr=in,bytes=addrlen") \
	X(RDMACM_1_0, rshutdown, int, (int socket, int how), (socket, how), NEG1, "") \
	X(RDMACM_1_0, rclose, int, (int socket), (socket), NEG1, "") \
	X(RDMACM_1_0, rrecv, ssize_t, (int socket, void *buf, size_t len, int flags), (socket, buf, len, flags), NEG1, "buf=buf") \
	X(RDMACM_1_0, rrecvfrom, ssize_t, (int socket, void *buf, size_t len, int flags, struct sockaddr *src_addr, socklen_t *addrlen), (socket, buf, len, flags, src_addr, addrlen), NEG1, "buf=buf src_addr=out,bytes=*addrlen addrlen=inout") \
	X(RDMACM_1_0, rrecvmsg, ssize_t, (int socket, struct msghdr *msg, int flags), (socket, msg, flags), NEG1, "msg=inout") \
	X(RDMACM_1_0, rsend, ssize_t, (int socket, const void *buf, size_t len, int flags), (socket, buf, len, flags), NEG1, "buf=buf") \
	X(RDMACM_1_0, rsendto, ssize_t, (int socket, const void *buf, size_t len, int flags, const struct sockaddr *dest_addr, socklen_t addrlen), (socket, buf, len, flags, dest_addr, addrlen), NEG1, "buf=buf dest_addr=in,bytes=addrlen") \
	X(RDMACM_1_0, rsendmsg, ssize_t, (int socket, const struct msghdr *msg, int flags), (socket, msg, flags), NEG1, "msg=in") \
	X(RDMACM_1_0, rread, ssize_t, (int socket, void *buf, size_t count), (socket, buf, count), NEG1, "buf=buf") \
	X(RDMACM_1_0, rreadv, ssize_t, (int socket, const struct iovec *iov, int iovcnt), (socket, iov, iovcnt), NEG1, "iov=in,count=iovcnt") \
	X(RDMACM_1_0, rwrite, ssize_t, (int socket, const void *buf, size_t count), (socket, buf, count), NEG1, "buf=buf") \
	X(RDMACM_1_0, rwritev, ssize_t, (int socket, const struct iovec *iov, int iovcnt), (socket, iov, iovcnt), NEG1, "iov=in,count=iovcnt") \
	X(RDMACM_1_0, rpoll, int, (struct pollfd *fds, nfds_t nfds, int timeout), (fds, nfds, timeout), NEG1, "fds=inout,count=nfds") \
	X(RDMACM_1_0, rselect, int, (int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds, struct timeval *timeout), (nfds, readfds, writefds, exceptfds, timeout), NEG1, "readfds=inout writefds=inout exceptfds=inout timeout=in") \
	X(RDMACM_1_0, rgetpeername, int, (int socket, struct sockaddr *addr, socklen_t *addrlen), (socket, addr, addrlen), NEG1, "addr=out,bytes=*addrlen addrlen=inout") \
	X(RDMACM_1_0, rgetsockname, int, (int socket, struct sockaddr *addr, socklen_t *addrlen), (socket, addr, addrlen), NEG1, "addr=out,bytes=*addrlen addrlen=inout") \
	X(RDMACM_1_0, rsetsockopt, int, (int socket, int level, int optname, const void *optval, socklen_t optlen), (socket, level, optname, optval, optlen), NEG1, "optval=buf") \
	X(RDMACM_1_0, rgetsockopt, int, (int socket, int level, int optname, void *optval, socklen_t *optlen), (socket, level, optname, optval, optlen), NEG1, "optval=buf optlen=inout") \
	X(RDMACM_1_0, rfcntl, int, (int socket, int cmd, ...), (socket, cmd), CUSTOM, "") \
	X(RDMACM_1_0, riomap, off_t, (int socket, void *buf, size_t len, int prot, int flags, off_t offset), (socket, buf, len, prot, flags, offset), NEG1, "buf=buf") \
	X(RDMACM_1_0, riounmap, int, (int socket, void *buf, size_t len), (socket, buf, len), NEG1, "buf=buf") \
	X(RDMACM_1_0, riowrite, size_t, (int socket, const void *buf, size_t count, off_t offset, int flags), (socket, buf, count, offset, flags), NEG1, "buf=buf")

#define VS_RDMACM_LIST_1_4(X)                                                  \
	X(RDMACM_1_4, rdma_resolve_addrinfo, int, (struct rdma_cm_id *id, const char *node, const char *service, const struct rdma_addrinfo *hints), (id, node, service, hints), NEG1, "id=h node=str service=str hints=in") \
	X(RDMACM_1_4, rdma_query_addrinfo, int, (struct rdma_cm_id *id, struct rdma_addrinfo **info), (id, info), NEG1, "id=h info=out") \
	X(RDMACM_1_4, rdma_write_cm_event, int, (struct rdma_cm_id *id, enum rdma_cm_event_type event, int status, uint64_t arg), (id, event, status, arg), NEG1, "id=h")

#define VS_RDMACM_LIST_1_5(X)                                                  \
	X(RDMACM_1_5, repoll_create, int, (int flags), (flags), NEG1, "") \
	X(RDMACM_1_5, repoll_ctl, int, (int epfd, int op, int fd, struct epoll_event *event), (epfd, op, fd, event), NEG1, "event=in") \
	X(RDMACM_1_5, repoll_wait, int, (int epfd, struct epoll_event *events, int maxevents, int timeout), (epfd, events, maxevents, timeout), NEG1, "events=out,count=maxevents")

/* The table holds both families; each has its own drop-in object. */
#define VS_RDMACM_CM_SYMBOLS(X) VS_RDMACM_BASE(X) VS_ON_RDMACM_1_4(X)
#define VS_RDMACM_RSOCKET_SYMBOLS(X) VS_RSOCKET_BASE(X) VS_ON_RDMACM_1_5(X)
#define VS_RDMACM_SYMBOLS(X)                                                   \
	VS_RDMACM_CM_SYMBOLS(X) VS_RDMACM_RSOCKET_SYMBOLS(X)

#endif /* VS_SYMS_RDMACM_H */
