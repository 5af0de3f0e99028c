/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: vs_endpoint_to_str on every bit pattern of the struct
 * (and every buffer length up to 255): defined, terminated, and it calls
 * a struct invalid exactly when vs_endpoint_to_bytes refuses it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <verbshim.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vs_endpoint ep;
	uint8_t wire[VS_ENDPOINT_WIRE_SIZE];
	char text[256];
	size_t len;
	bool refused;

	if (size < sizeof(ep) + 1)
		return 0;
	memcpy(&ep, data, sizeof(ep));
	len = data[sizeof(ep)];
	memset(text, 0x7f, sizeof(text));
	vs_endpoint_to_str(&ep, text, len);
	if (len && !memchr(text, 0, len))
		abort(); /* not terminated within len */
	if (len < sizeof(text) && text[len] != 0x7f)
		abort(); /* wrote past len */
	vs_endpoint_to_str(&ep, text, sizeof(text));
	refused = vs_endpoint_to_bytes(&ep, wire) != 0;
	if (refused != (strstr(text, "[invalid: ") != NULL)) {
		fprintf(stderr, "to_str and to_bytes disagree: %s / %s\n", text,
			vs_last_error()->message);
		abort();
	}
	return 0;
}
