/* SPDX-License-Identifier: MIT */
/*
 * Completion timestamps in ns: the conversion of hardware clock cycles
 * with the device's hca_core_clock (kHz) must be floor(cycles * 1e6 / khz)
 * exactly, without overflowing where that fits in 64 bits, and 0 when
 * the clock rate is unknown.  (rxe has no timestamps; the VM test checks
 * that it refuses them.)
 */
#include "../common/vs_typed.h"

static uint64_t reference(uint64_t cycles, uint64_t khz)
{
	return (uint64_t)((unsigned __int128)cycles * 1000000u / khz);
}

int main(void)
{
	static const uint64_t rates[] = { 1, 1000, 156250, 1000000, 2000000,
					  3123457, 1000000007 };
	uint64_t x = 0x9e3779b97f4a7c15ull;

	VS_ASSERT_EQ(vs__cycles_to_ns(12345, 0), 0);
	VS_ASSERT_EQ(vs__cycles_to_ns(156250000, 156250), 1000000000ull);
	VS_ASSERT_EQ(vs__cycles_to_ns(1, 156250), 6);
	VS_ASSERT_EQ(vs__cycles_to_ns(UINT64_MAX, 1000000), UINT64_MAX);
	VS_ASSERT_EQ(vs__cycles_to_ns(UINT64_MAX, 2000000), UINT64_MAX / 2);
	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		for (int i = 0; i < 20000; i++) {
			uint64_t c, want;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			c = x >> (i % 64);
			if ((unsigned __int128)c * 1000000u / rates[r] > UINT64_MAX)
				continue; /* ns beyond 64 bits: not representable */
			want = reference(c, rates[r]);
			if (vs__cycles_to_ns(c, rates[r]) != want)
				VS_FAIL("%llu cycles at %llu kHz: %llu ns, expected %llu",
					(unsigned long long)c,
					(unsigned long long)rates[r],
					(unsigned long long)vs__cycles_to_ns(c, rates[r]),
					(unsigned long long)want);
		}
	}
	return 0;
}
