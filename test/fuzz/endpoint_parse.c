/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: vs_endpoint_from_bytes on any bytes.  What it accepts
 * must be well-formed by the one set of rules: it re-encodes to the same
 * bytes, and vs_endpoint_to_str does not call it invalid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <verbshim.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vs_endpoint ep;
	uint8_t again[VS_ENDPOINT_WIRE_SIZE];
	char text[256];

	if (vs_endpoint_from_bytes(data, size, &ep))
		return 0;
	if (vs_endpoint_to_bytes(&ep, again) || size != sizeof(again) ||
	    memcmp(again, data, sizeof(again))) {
		fprintf(stderr, "accepted bytes do not re-encode: %s\n",
			vs_last_error()->message);
		abort();
	}
	vs_endpoint_to_str(&ep, text, sizeof(text));
	if (strstr(text, "[invalid")) {
		fprintf(stderr, "accepted endpoint printed as invalid: %s\n", text);
		abort();
	}
	return 0;
}
