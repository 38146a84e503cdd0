// Hashing with unsigned wrap-around arithmetic (defined for unsigned types):
// murmur3's 32-bit finaliser, FNV-1a over bytes, and xorshift64*.
// @kernel hashes
// @global 1000
// @local 64
// @arg buffer uint 1000 random 0 0xffffffff
// @arg buffer uint 1000 output
// @arg buffer uint 1000 output
// @arg buffer ulong 1000 output
// @arg value uint 1000
uint murmur_mix(uint h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

uint fnv1a(uint value) {
  uint hash = 2166136261u;
  for (int k = 0; k < 4; k++) {
    hash ^= (value >> (8 * k)) & 0xffu;
    hash *= 16777619u;
  }
  return hash;
}

__kernel void hashes(__global const uint *in, __global uint *murmur, __global uint *fnv,
                     __global ulong *xorshift, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  murmur[i] = murmur_mix(in[i] + i);
  fnv[i] = fnv1a(in[i]);
  ulong x = ((ulong)in[i] << 32) | (in[i] ^ 0xdeadbeefu) | 1;
  for (int k = 0; k < 8; k++) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
  }
  xorshift[i] = x * 0x2545F4914F6CDD1DUL;
}
