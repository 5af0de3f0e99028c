/* SPDX-License-Identifier: MIT */
/*
 * The link-layer table (rows in lib/transport/transport.h): which row a
 * port is, decided once from its device's transport and link layer.
 */
#include "transport.h"

#define ROW(ROW_, kind_, by_lid_, ethernet_, cm_only_)                        \
	[VS__LINK_##ROW_] = { .kind = kind_, .by_lid = by_lid_,               \
			      .ethernet = ethernet_, .cm_only = cm_only_ },
static const struct vs__link rows[VS__LINK_N] = { VS__LINKS(ROW) };
#undef ROW

/*
 * The device's transport says iWARP; the IB transport is InfiniBand or
 * RoCE by the port's link layer (UNSPECIFIED from old kernels means IB);
 * EFA reports neither transport nor link layer; anything else keeps only
 * whether its port is Ethernet.
 */
enum vs__link_row vs__link_of(const struct vs_context *c, uint8_t link_layer)
{
	switch (c->ctx->device->transport_type) {
	case IBV_TRANSPORT_IWARP:
		return VS__LINK_IWARP;
	case IBV_TRANSPORT_IB:
		return link_layer == IBV_LINK_LAYER_ETHERNET ? VS__LINK_ROCE :
							       VS__LINK_IB;
	case IBV_TRANSPORT_UNSPECIFIED:
		if (link_layer == IBV_LINK_LAYER_UNSPECIFIED)
			return VS__LINK_EFA;
		break;
	default:
		break;
	}
	return link_layer == IBV_LINK_LAYER_ETHERNET ? VS__LINK_OTHER_ETHERNET :
						       VS__LINK_OTHER;
}

const struct vs__link *vs__link(enum vs__link_row row)
{
	return &rows[(unsigned int)row < VS__LINK_N ? row : VS__LINK_OTHER];
}
