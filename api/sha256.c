// SPDX-License-Identifier: Apache-2.0
/* SHA-256 as specified in FIPS 180-4, section 6.2. */
#include "agpu_sha256.h"

static const uint32_t agpu_sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, unsigned n) {
  return (x >> n) | (x << (32 - n));
}

static inline uint32_t load_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline void store_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

#define BIG_SIGMA0(x) (rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22))
#define BIG_SIGMA1(x) (rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25))
#define SMALL_SIGMA0(x) (rotr(x, 7) ^ rotr(x, 18) ^ ((x) >> 3))
#define SMALL_SIGMA1(x) (rotr(x, 17) ^ rotr(x, 19) ^ ((x) >> 10))
#define CH(x, y, z) (((x) & (y)) ^ (~(x) & (z)))
#define MAJ(x, y, z) (((x) & (y)) ^ ((x) & (z)) ^ ((y) & (z)))

/* One round, with the working variables renamed instead of shifted: eight
 * rounds in a row bring the names back to where they started. */
#define ROUND(a, b, c, d, e, f, g, h, t)                                        \
  do {                                                                          \
    uint32_t t1_ = (h) + BIG_SIGMA1(e) + CH(e, f, g) + agpu_sha256_k[t] + w[t]; \
    (d) += t1_;                                                                 \
    (h) = t1_ + BIG_SIGMA0(a) + MAJ(a, b, c);                                   \
  } while (0)

static void agpu_sha256_compress(uint32_t state[8], const uint8_t block[64]) {
  uint32_t w[64];
  for (int t = 0; t < 16; t++) w[t] = load_be32(block + 4 * t);
  for (int t = 16; t < 64; t++) {
    w[t] = w[t - 16] + SMALL_SIGMA0(w[t - 15]) + w[t - 7] + SMALL_SIGMA1(w[t - 2]);
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int t = 0; t < 64; t += 8) {
    ROUND(a, b, c, d, e, f, g, h, t);
    ROUND(h, a, b, c, d, e, f, g, t + 1);
    ROUND(g, h, a, b, c, d, e, f, t + 2);
    ROUND(f, g, h, a, b, c, d, e, t + 3);
    ROUND(e, f, g, h, a, b, c, d, t + 4);
    ROUND(d, e, f, g, h, a, b, c, t + 5);
    ROUND(c, d, e, f, g, h, a, b, t + 6);
    ROUND(b, c, d, e, f, g, h, a, t + 7);
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

AGPU_API void agpu_sha256_init(agpu_sha256_ctx *sha) {
  static const uint32_t initial[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(sha->state, initial, sizeof initial);
  sha->total_bytes = 0;
  sha->block_used = 0;
}

AGPU_API void agpu_sha256_update(agpu_sha256_ctx *sha, const void *data, size_t size) {
  const uint8_t *p = data;
  sha->total_bytes += size;
  if (sha->block_used > 0) {
    size_t take = 64 - sha->block_used;
    if (take > size) take = size;
    memcpy(sha->block + sha->block_used, p, take);
    sha->block_used += take;
    p += take;
    size -= take;
    if (sha->block_used < 64) return;
    agpu_sha256_compress(sha->state, sha->block);
    sha->block_used = 0;
  }
  for (; size >= 64; p += 64, size -= 64) agpu_sha256_compress(sha->state, p);
  if (size > 0) memcpy(sha->block, p, size);
  sha->block_used = size;
}

AGPU_API void agpu_sha256_final(agpu_sha256_ctx *sha, uint8_t digest[AGPU_SHA256_DIGEST_SIZE]) {
  uint64_t bits = sha->total_bytes * 8;
  sha->block[sha->block_used++] = 0x80;
  if (sha->block_used > 56) {
    memset(sha->block + sha->block_used, 0, 64 - sha->block_used);
    agpu_sha256_compress(sha->state, sha->block);
    sha->block_used = 0;
  }
  memset(sha->block + sha->block_used, 0, 56 - sha->block_used);
  store_be32(sha->block + 56, (uint32_t)(bits >> 32));
  store_be32(sha->block + 60, (uint32_t)bits);
  agpu_sha256_compress(sha->state, sha->block);
  for (int i = 0; i < 8; i++) store_be32(digest + 4 * i, sha->state[i]);
}

AGPU_API void agpu_sha256(const void *data, size_t size, uint8_t digest[AGPU_SHA256_DIGEST_SIZE]) {
  agpu_sha256_ctx sha;
  agpu_sha256_init(&sha);
  agpu_sha256_update(&sha, data, size);
  agpu_sha256_final(&sha, digest);
}

AGPU_API void agpu_sha256_hex(const uint8_t digest[AGPU_SHA256_DIGEST_SIZE],
                              char hex[AGPU_SHA256_HEX_SIZE]) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < AGPU_SHA256_DIGEST_SIZE; i++) {
    hex[2 * i] = digits[digest[i] >> 4];
    hex[2 * i + 1] = digits[digest[i] & 15];
  }
  hex[2 * AGPU_SHA256_DIGEST_SIZE] = '\0';
}

static int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

AGPU_API bool agpu_sha256_parse_hex(const char *hex, uint8_t digest[AGPU_SHA256_DIGEST_SIZE]) {
  if (!hex) return false;
  for (int i = 0; i < AGPU_SHA256_DIGEST_SIZE; i++) {
    int high = hex_digit_value(hex[2 * i]);
    if (high < 0) return false;
    int low = hex_digit_value(hex[2 * i + 1]);
    if (low < 0) return false;
    digest[i] = (uint8_t)(high << 4 | low);
  }
  return hex[2 * AGPU_SHA256_DIGEST_SIZE] == '\0';
}
