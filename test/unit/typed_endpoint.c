/* SPDX-License-Identifier: MIT */
/*
 * Endpoint wire form: round trips, the exact byte layout, and rejection
 * of corrupt bytes (every single-byte corruption is either rejected or
 * re-encodes to the same bytes).
 */
#include "../common/vs_typed.h"

static struct vs_endpoint sample(enum vs_transport t)
{
	struct vs_endpoint ep;

	memset(&ep, 0, sizeof(ep));
	ep.transport = t;
	ep.flags = VS_EP_GID_VALID | VS_EP_ETHERNET;
	ep.qpn = 0x123456;
	ep.psn = 0xabcdef;
	ep.qkey = t == VS_TRANSPORT_UD ? 0x11111111 : 0;
	ep.lid = 0; /* RoCE: no LID */
	ep.port = 1;
	ep.mtu = IBV_MTU_1024;
	for (int i = 0; i < 16; i++)
		ep.gid.raw[i] = (uint8_t)(0xf0 + i);
	return ep;
}

/* InfiniBand: addressed by LID, no GID */
static struct vs_endpoint sample_ib(enum vs_transport t)
{
	struct vs_endpoint ep = sample(t);

	ep.flags = 0;
	ep.lid = 0x2a3b;
	memset(&ep.gid, 0, sizeof(ep.gid));
	return ep;
}

static void roundtrip_ep(struct vs_endpoint ep)
{
	struct vs_endpoint back;
	uint8_t wire[VS_ENDPOINT_WIRE_SIZE];

	VS_OK(vs_endpoint_to_bytes(&ep, wire));
	VS_OK(vs_endpoint_from_bytes(wire, sizeof(wire), &back));
	VS_ASSERT_EQ(back.transport, ep.transport);
	VS_ASSERT_EQ(back.flags, ep.flags);
	VS_ASSERT_EQ(back.qpn, ep.qpn);
	VS_ASSERT_EQ(back.psn, ep.psn);
	VS_ASSERT_EQ(back.qkey, ep.qkey);
	VS_ASSERT_EQ(back.lid, ep.lid);
	VS_ASSERT_EQ(back.port, ep.port);
	VS_ASSERT_EQ(back.mtu, ep.mtu);
	VS_ASSERT_EQ(back.comp_mask, 0);
	VS_ASSERT_MEMEQ(back.gid.raw, ep.gid.raw, 16);
}

static void roundtrip(enum vs_transport t)
{
	roundtrip_ep(sample(t));
	roundtrip_ep(sample_ib(t));
}

static void layout(void)
{
	struct vs_endpoint ep = sample(VS_TRANSPORT_UD);
	uint8_t w[VS_ENDPOINT_WIRE_SIZE];
	static const uint8_t head[24] = {
		'V', 'S', 1, 3, 0x00, 0x03, 0x00, 0x00,
		0x00, 0x12, 0x34, 0x56, 0x00, 0xab, 0xcd, 0xef,
		0x11, 0x11, 0x11, 0x11, 3, 1, 0, 0,
	};

	VS_OK(vs_endpoint_to_bytes(&ep, w));
	VS_ASSERT_MEMEQ(w, head, sizeof(head));
	VS_ASSERT_MEMEQ(w + 24, ep.gid.raw, 16);
	VS_ASSERT(VS_ENDPOINT_WIRE_SIZE <= 56); /* rdmacm RC private data */
}

static void corrupt(void)
{
	struct vs_endpoint ep = sample(VS_TRANSPORT_RC), out;
	uint8_t good[VS_ENDPOINT_WIRE_SIZE], w[VS_ENDPOINT_WIRE_SIZE + 8];

	VS_OK(vs_endpoint_to_bytes(&ep, good));

#define BAD(idx, val, want, text)                                             \
	do {                                                                  \
		memcpy(w, good, sizeof(good));                                \
		w[idx] = (val);                                               \
		VS_FAILS(vs_endpoint_from_bytes(w, sizeof(good), &out), want, \
			 text);                                               \
	} while (0)

	BAD(0, 'X', EINVAL, "magic");
	BAD(2, 2, EPROTO, "newer");
	BAD(2, 0, EINVAL, "version 0");
	BAD(3, 0, EINVAL, "transport 0");
	BAD(3, 5, EINVAL, "transport 5");
	BAD(5, 0x07, EINVAL, "flags 0x7");
	BAD(4, 0x80, EINVAL, "flags 0x8003");
	BAD(5, VS_EP_ETHERNET, EINVAL, "must carry a GID (GID_VALID)");
	BAD(7, 1, EINVAL, "lid 0x1 on a RoCE endpoint");
	BAD(21, 3, EINVAL, "port 3 is not 1 or 2");
	BAD(19, 1, EINVAL, "qkey 0x1 on an RC endpoint");
	BAD(8, 0x01, EINVAL, "24 bits");
	BAD(12, 0x01, EINVAL, "psn");
	BAD(20, 0, EINVAL, "mtu 0");
	BAD(20, 6, EINVAL, "mtu 6");
	BAD(21, 0, EINVAL, "port 0");
	BAD(23, 1, EINVAL, "reserved");
#undef BAD
	/* GID_VALID with an all-zero gid */
	memcpy(w, good, sizeof(good));
	memset(w + 24, 0, 16);
	VS_FAILS(vs_endpoint_from_bytes(w, sizeof(good), &out), EINVAL,
		 "gid is all zero although flags say GID_VALID");
	/* qpn 0 */
	memcpy(w, good, sizeof(good));
	memset(w + 8, 0, 4);
	VS_FAILS(vs_endpoint_from_bytes(w, sizeof(good), &out), EINVAL, "qpn");

	/* lengths */
	memcpy(w, good, sizeof(good));
	VS_FAILS(vs_endpoint_from_bytes(w, sizeof(good) - 1, &out), EINVAL,
		 "is exactly 40");
	VS_FAILS(vs_endpoint_from_bytes(w, sizeof(good) + 1, &out), EINVAL,
		 "41 bytes");
	VS_FAILS(vs_endpoint_from_bytes(w, 0, &out), EINVAL, "magic");
	VS_FAILS(vs_endpoint_from_bytes(NULL, 40, &out), EINVAL, "buf is NULL");
	VS_FAILS(vs_endpoint_from_bytes(w, 40, NULL), EINVAL, "out is NULL");

	/* a rejected parse leaves out untouched */
	memset(&out, 0x5c, sizeof(out));
	w[0] = 0;
	VS_ASSERT(vs_endpoint_from_bytes(w, 40, &out) < 0);
	VS_ASSERT_EQ(out.qpn, 0x5c5c5c5c);

	/* every single-byte corruption: rejected, or the same meaning */
	for (int i = 0; i < VS_ENDPOINT_WIRE_SIZE; i++) {
		for (int v = 0; v < 256; v++) {
			uint8_t again[VS_ENDPOINT_WIRE_SIZE];

			memcpy(w, good, sizeof(good));
			w[i] = (uint8_t)v;
			if (vs_endpoint_from_bytes(w, sizeof(good), &out))
				continue;
			VS_OK(vs_endpoint_to_bytes(&out, again));
			VS_ASSERT_MEMEQ(again, w, sizeof(again));
		}
	}
}

static void bad_structs(void)
{
	struct vs_endpoint ep = sample(VS_TRANSPORT_RC);
	uint8_t w[VS_ENDPOINT_WIRE_SIZE];

	ep.comp_mask = 1;
	VS_FAILS(vs_endpoint_to_bytes(&ep, w), EINVAL, "comp_mask");
	ep = sample(VS_TRANSPORT_RC);
	ep.qpn = 0x1000000;
	VS_FAILS(vs_endpoint_to_bytes(&ep, w), EINVAL, "24 bits");
	ep = sample(VS_TRANSPORT_RC);
	ep.transport = (enum vs_transport)9;
	VS_FAILS(vs_endpoint_to_bytes(&ep, w), EINVAL, "transport 9");
	VS_FAILS(vs_endpoint_to_bytes(NULL, w), EINVAL, "ep is NULL");
	VS_FAILS(vs_endpoint_to_bytes(&ep, NULL), EINVAL, "out is NULL");
}

static void text(void)
{
	struct vs_endpoint ep = sample(VS_TRANSPORT_RC);
	char buf[200];

	vs_endpoint_to_str(&ep, buf, sizeof(buf));
	VS_ASSERT(strstr(buf, "RC qpn 0x123456"));
	VS_ASSERT(strstr(buf, "mtu 1024"));
	VS_ASSERT(strstr(buf, "RoCE"));
	VS_ASSERT_STREQ(vs_endpoint_to_str(NULL, buf, sizeof(buf)), "(null endpoint)");
}

int main(void)
{
	roundtrip(VS_TRANSPORT_RC);
	roundtrip(VS_TRANSPORT_UC);
	roundtrip(VS_TRANSPORT_UD);
	layout();
	corrupt();
	bad_structs();
	text();
	printf("endpoint wire form: round trips, layout and corruption checks passed\n");
	return 0;
}
