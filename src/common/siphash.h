/* SipHash-2-4 (Aumasson & Bernstein, "SipHash: a fast short-input PRF",
 * 2012): a keyed hash for message authentication of short inputs.  Used by
 * the server's native credentials (server_cred.c) as a MAC under a
 * per-server random key.  out is 8 bytes (sy_siphash64) or 16 bytes
 * (sy_siphash128, the 128-bit-output variant), little-endian as in the
 * reference implementation's test vectors. */
#ifndef SWITCHYARD_COMMON_SIPHASH_H
#define SWITCHYARD_COMMON_SIPHASH_H
#include <stddef.h>
#include <stdint.h>

#define SY_SIPHASH_KEY_LEN 16

void sy_siphash64(const uint8_t key[SY_SIPHASH_KEY_LEN], const void *in, size_t len,
                  uint8_t out[8]);
void sy_siphash128(const uint8_t key[SY_SIPHASH_KEY_LEN], const void *in, size_t len,
                   uint8_t out[16]);

/* Compare two MACs in time that depends only on len. */
int sy_mac_equal(const uint8_t *a, const uint8_t *b, size_t len);
#endif
