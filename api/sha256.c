// SPDX-License-Identifier: Apache-2.0
/* SHA-256 as specified in FIPS 180-4, section 6.2; on x86 processors with
 * the SHA extensions (SHA-NI) their instructions compress the blocks, about
 * four times as fast: a 1 MB OpenCL program binary from the kernel cache is
 * checked in about 0.5 ms instead of 2.5 (docs/cache.md). */
#include <stdatomic.h>

#include "agpu_sha256.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define AGPU_SHA256_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

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

AGPU_API void agpu_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks) {
  for (; blocks > 0; blocks--, data += 64) agpu_sha256_compress(state, data);
}

#ifdef AGPU_SHA256_X86
/* The rounds four at a time with SHA256RNDS2 (two rounds each) and the
 * message schedule with SHA256MSG1/MSG2, as in Intel's description of the
 * extensions. The state is kept as ABEF and CDGH, the order the instructions
 * take. */
__attribute__((target("sha,sse4.1,ssse3"))) static void agpu_sha256_blocks_ni(uint32_t state[8],
                                                                              const uint8_t *data,
                                                                              size_t blocks) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);    /* CDAB */
  __m128i state1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B); /* EFGH */
  __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);                                      /* ABEF */
  state1 = _mm_blend_epi16(state1, tmp, 0xF0);                                           /* CDGH */
  for (; blocks > 0; blocks--, data += 64) {
    __m128i abef = state0, cdgh = state1, w[4];
    for (int g = 0; g < 16; g++) { /* words 4g .. 4g+3 */
      if (g < 4) {
        w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), byte_swap);
      } else { /* w[g % 4] holds words 4(g-4) ..; the others g-3, g-2, g-1 */
        __m128i next = _mm_sha256msg1_epu32(w[g % 4], w[(g + 1) % 4]);
        next = _mm_add_epi32(next, _mm_alignr_epi8(w[(g + 3) % 4], w[(g + 2) % 4], 4));
        w[g % 4] = _mm_sha256msg2_epu32(next, w[(g + 3) % 4]);
      }
      __m128i message =
          _mm_add_epi32(w[g % 4], _mm_loadu_si128((const __m128i *)&agpu_sha256_k[4 * g]));
      state1 = _mm_sha256rnds2_epu32(state1, state0, message);
      state0 = _mm_sha256rnds2_epu32(state0, state1, _mm_shuffle_epi32(message, 0x0E));
    }
    state0 = _mm_add_epi32(state0, abef);
    state1 = _mm_add_epi32(state1, cdgh);
  }
  tmp = _mm_shuffle_epi32(state0, 0x1B);       /* FEBA */
  state1 = _mm_shuffle_epi32(state1, 0xB1);    /* DCHG */
  state0 = _mm_blend_epi16(tmp, state1, 0xF0); /* DCBA */
  state1 = _mm_alignr_epi8(state1, tmp, 8);    /* HGFE */
  _mm_storeu_si128((__m128i *)&state[0], state0);
  _mm_storeu_si128((__m128i *)&state[4], state1);
}

/* CPUID: SHA (leaf 7, EBX bit 29), SSSE3 and SSE4.1 (leaf 1, ECX bits 9, 19). */
static bool agpu_sha256_cpu_has_ni(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19))) return false;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
}
#endif

AGPU_API bool agpu_sha256_hardware(void) {
#ifdef AGPU_SHA256_X86
  static atomic_int known; /* 0 not yet asked, 1 no, 2 yes: every thread finds the same */
  int value = atomic_load_explicit(&known, memory_order_relaxed);
  if (value == 0) {
    value = agpu_sha256_cpu_has_ni() ? 2 : 1;
    atomic_store_explicit(&known, value, memory_order_relaxed);
  }
  return value == 2;
#else
  return false;
#endif
}

static void agpu_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
#ifdef AGPU_SHA256_X86
  if (agpu_sha256_hardware()) {
    agpu_sha256_blocks_ni(state, data, blocks);
    return;
  }
#endif
  agpu_sha256_blocks_portable(state, data, blocks);
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
    agpu_sha256_blocks(sha->state, sha->block, 1);
    sha->block_used = 0;
  }
  agpu_sha256_blocks(sha->state, p, size / 64);
  p += size / 64 * 64;
  size %= 64;
  if (size > 0) memcpy(sha->block, p, size);
  sha->block_used = size;
}

AGPU_API void agpu_sha256_final(agpu_sha256_ctx *sha, uint8_t digest[AGPU_SHA256_DIGEST_SIZE]) {
  uint64_t bits = sha->total_bytes * 8;
  sha->block[sha->block_used++] = 0x80;
  if (sha->block_used > 56) {
    memset(sha->block + sha->block_used, 0, 64 - sha->block_used);
    agpu_sha256_blocks(sha->state, sha->block, 1);
    sha->block_used = 0;
  }
  memset(sha->block + sha->block_used, 0, 56 - sha->block_used);
  store_be32(sha->block + 56, (uint32_t)(bits >> 32));
  store_be32(sha->block + 60, (uint32_t)bits);
  agpu_sha256_blocks(sha->state, sha->block, 1);
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
