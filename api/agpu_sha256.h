// SPDX-License-Identifier: Apache-2.0
/* SHA-256 (FIPS 180-4), for cache keys and entry checksums. Exported from the
 * shared library for the tests and tools; not part of the installed API. */
#ifndef AGPU_SHA256_H
#define AGPU_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "anygpu.h"

#define AGPU_SHA256_DIGEST_SIZE 32
#define AGPU_SHA256_HEX_SIZE 65 /* 64 hex digits and a NUL */

typedef struct agpu_sha256_ctx {
  uint32_t state[8];
  uint64_t total_bytes;
  uint8_t block[64];
  size_t block_used;
} agpu_sha256_ctx;

AGPU_API void agpu_sha256_init(agpu_sha256_ctx *sha);
AGPU_API void agpu_sha256_update(agpu_sha256_ctx *sha, const void *data, size_t size);
/* Writes the digest; the context must be initialised again before reuse. */
AGPU_API void agpu_sha256_final(agpu_sha256_ctx *sha, uint8_t digest[AGPU_SHA256_DIGEST_SIZE]);

/* One shot: the digest of `size` bytes. */
AGPU_API void agpu_sha256(const void *data, size_t size, uint8_t digest[AGPU_SHA256_DIGEST_SIZE]);

/* Whether the processor's SHA instructions compress the blocks (x86 with
 * SHA-NI); the portable compression of whole 64-byte blocks, for the tests
 * to check the two against each other. */
AGPU_API bool agpu_sha256_hardware(void);
AGPU_API void agpu_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks);

/* Lowercase hex, NUL-terminated. */
AGPU_API void agpu_sha256_hex(const uint8_t digest[AGPU_SHA256_DIGEST_SIZE],
                              char hex[AGPU_SHA256_HEX_SIZE]);
/* Parses exactly 64 lowercase hex digits (the form agpu_sha256_hex writes, so
 * that one digest has one spelling); false if malformed. */
AGPU_API bool agpu_sha256_parse_hex(const char *hex, uint8_t digest[AGPU_SHA256_DIGEST_SIZE]);

#endif /* AGPU_SHA256_H */
