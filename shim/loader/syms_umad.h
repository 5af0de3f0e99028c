/* SPDX-License-Identifier: MIT */
/*
 * libibumad (umad_*, libibumad.so.3): every public function symbol that
 * umad.h and umad_str.h declare, one row each; the row format is that of
 * shim/loader/syms_ibverbs.h.  Upstream, umad int functions return a negative
 * errno, except umad_register2() and umad_sort_ca_device_list() (positive);
 * the *_str() functions return a string ("<unknown>" upstream, "unknown"
 * here when the library is missing), umad_size() 0.
 */
#ifndef VS_SYMS_UMAD_H
#define VS_SYMS_UMAD_H

#define VS_IBUMAD_NODES(N)                                      \
	N(IBUMAD_1_0, "IBUMAD_1.0", 15) \
	N(IBUMAD_1_1, "IBUMAD_1.1", 26) \
	N(IBUMAD_1_2, "IBUMAD_1.2", 30) \
	N(IBUMAD_1_3, "IBUMAD_1.3", 53) \
	N(IBUMAD_1_4, "IBUMAD_1.4", 56)

/* In every supported header set (rdma-core >= 33). */
#define VS_IBUMAD_BASE(X) \
	X(IBUMAD_1_0, umad_addr_dump, void, (ib_mad_addr_t *addr), (addr), VOID, "addr=in") \
	X(IBUMAD_1_0, umad_attribute_str, const char *, (uint8_t mgmt_class, __be16 attr_id), (mgmt_class, attr_id), STR, "return=str") \
	X(IBUMAD_1_0, umad_class_str, const char *, (uint8_t mgmt_class), (mgmt_class), STR, "return=str") \
	X(IBUMAD_1_0, umad_close_port, int, (int portid), (portid), NEGERR, "") \
	X(IBUMAD_1_0, umad_common_mad_status_str, const char *, (__be16 status), (status), STR, "return=str") \
	X(IBUMAD_1_0, umad_debug, int, (int level), (level), NEGERR, "fails=never") \
	X(IBUMAD_1_0, umad_done, int, (void), (), NEGERR, "fails=never") \
	X(IBUMAD_1_0, umad_dump, void, (void *umad), (umad), VOID, "umad=buf") \
	X(IBUMAD_1_0, umad_get_ca, int, (const char *ca_name, umad_ca_t *ca), (ca_name, ca), NEGERR, "ca_name=str ca=out") \
	X(IBUMAD_1_0, umad_get_ca_portguids, int, (const char *ca_name, __be64 *portguids, int max), (ca_name, portguids, max), NEGERR, "ca_name=str portguids=out,count=max") \
	X(IBUMAD_1_0, umad_get_cas_names, int, (char (*cas)[UMAD_CA_NAME_LEN], int max), (cas, max), NEGERR, "cas=out,count=max") \
	X(IBUMAD_1_0, umad_get_fd, int, (int portid), (portid), NEGERR, "fails=never") \
	X(IBUMAD_1_0, umad_get_issm_path, int, (const char *ca_name, int portnum, char *path, int max), (ca_name, portnum, path, max), NEGERR, "ca_name=str path=out,bytes=max") \
	X(IBUMAD_1_0, umad_get_mad, void *, (void *umad), (umad), PTR, "umad=buf return=buf fails=never") \
	X(IBUMAD_1_0, umad_get_mad_addr, ib_mad_addr_t *, (void *umad), (umad), PTR, "umad=buf return=buf fails=never") \
	X(IBUMAD_1_0, umad_get_pkey, int, (void *umad), (umad), NEGERR, "umad=buf fails=never") \
	X(IBUMAD_1_0, umad_get_port, int, (const char *ca_name, int portnum, umad_port_t *port), (ca_name, portnum, port), NEGERR, "ca_name=str port=out") \
	X(IBUMAD_1_0, umad_init, int, (void), (), NEGERR, "") \
	X(IBUMAD_1_0, umad_method_str, const char *, (uint8_t mgmt_class, uint8_t method), (mgmt_class, method), STR, "return=str") \
	X(IBUMAD_1_0, umad_open_port, int, (const char *ca_name, int portnum), (ca_name, portnum), NEGERR, "ca_name=str") \
	X(IBUMAD_1_0, umad_poll, int, (int portid, int timeout_ms), (portid, timeout_ms), NEGERR, "") \
	X(IBUMAD_1_0, umad_recv, int, (int portid, void *umad, int *length, int timeout_ms), (portid, umad, length, timeout_ms), NEGERR, "umad=buf length=inout") \
	X(IBUMAD_1_0, umad_register, int, (int portid, int mgmt_class, int mgmt_version, uint8_t rmpp_version, long method_mask[16 / sizeof(long)]), (portid, mgmt_class, mgmt_version, rmpp_version, method_mask), NEGERR, "method_mask=in") \
	X(IBUMAD_1_0, umad_register2, int, (int port_fd, struct umad_reg_attr *attr, uint32_t *agent_id), (port_fd, attr, agent_id), ERRNO, "attr=in agent_id=out") \
	X(IBUMAD_1_0, umad_register_oui, int, (int portid, int mgmt_class, uint8_t rmpp_version, uint8_t oui[3], long method_mask[16 / sizeof(long)]), (portid, mgmt_class, rmpp_version, oui, method_mask), NEGERR, "oui=in method_mask=in") \
	X(IBUMAD_1_0, umad_release_ca, int, (umad_ca_t *ca), (ca), NEGERR, "ca=free") \
	X(IBUMAD_1_0, umad_release_port, int, (umad_port_t *port), (port), NEGERR, "port=free") \
	X(IBUMAD_1_0, umad_sa_mad_status_str, const char *, (__be16 status), (status), STR, "return=str") \
	X(IBUMAD_1_0, umad_send, int, (int portid, int agentid, void *umad, int length, int timeout_ms, int retries), (portid, agentid, umad, length, timeout_ms, retries), NEGERR, "umad=buf") \
	X(IBUMAD_1_0, umad_set_addr, int, (void *umad, int dlid, int dqp, int sl, int qkey), (umad, dlid, dqp, sl, qkey), NEGERR, "umad=buf fails=never") \
	X(IBUMAD_1_0, umad_set_addr_net, int, (void *umad, __be16 dlid, __be32 dqp, int sl, __be32 qkey), (umad, dlid, dqp, sl, qkey), NEGERR, "umad=buf fails=never") \
	X(IBUMAD_1_0, umad_set_grh, int, (void *umad, void *mad_addr), (umad, mad_addr), NEGERR, "umad=buf mad_addr=in fails=never") \
	X(IBUMAD_1_0, umad_set_pkey, int, (void *umad, int pkey_index), (umad, pkey_index), NEGERR, "umad=buf fails=never") \
	X(IBUMAD_1_0, umad_size, size_t, (void), (), ZERO, "fails=never") \
	X(IBUMAD_1_0, umad_status, int, (void *umad), (umad), NEGERR, "umad=buf fails=never") \
	X(IBUMAD_1_0, umad_unregister, int, (int portid, int agentid), (portid, agentid), NEGERR, "") \
	X(IBUMAD_1_1, umad_free_ca_device_list, void, (struct umad_device_node *head), (head), VOID, "head=free") \
	X(IBUMAD_1_1, umad_get_ca_device_list, struct umad_device_node *, (void), (), PTR, "return=buf") \
	X(IBUMAD_1_2, umad_sort_ca_device_list, int, (struct umad_device_node **head, size_t size), (head, size), ERRNO, "head=inout")

#define VS_IBUMAD_LIST_1_3(X) \
	X(IBUMAD_1_3, umad_open_smi_port, int, (const char *ca_name, int portnum), (ca_name, portnum), NEGERR, "ca_name=str")

#define VS_IBUMAD_LIST_1_4(X) \
	X(IBUMAD_1_4, umad_get_smi_gsi_pair_by_ca_name, int, (const char *devname, uint8_t portnum, struct umad_ca_pair *ca_pair, unsigned int enforce_smi), (devname, portnum, ca_pair, enforce_smi), NEGERR, "devname=str ca_pair=out") \
	X(IBUMAD_1_4, umad_get_smi_gsi_pairs, int, (struct umad_ca_pair *cas, size_t max), (cas, max), NEGERR, "cas=out,count=max")

#define VS_IBUMAD_SYMBOLS(X) \
	VS_IBUMAD_BASE(X) VS_ON_IBUMAD_1_3(X) VS_ON_IBUMAD_1_4(X)

#endif /* VS_SYMS_UMAD_H */
