// A private byte array read as wider integers through a cast pointer
// (SHOC's md5 passes `(uint *)key` of a `uchar key[8]` to its hash): in a
// helper and directly, as uint, int and ushort, signed bytes included, and
// after the bytes change. Little-endian, as every device here is. Vulkan
// packs the bytes into the wider elements where they are read.
// @kernel words
// @global 500
// @local 64
// @arg buffer uint 500 random 0 4294967295
// @arg buffer uint 1000 output
// @arg buffer int 500 output
// @arg value int 500
uint fnv(const uint *w, int count) {
  uint h = 2166136261u;
  for (int k = 0; k < count; k++) h = (h ^ w[k]) * 16777619u;
  return h;
}

__kernel void words(__global const uint *seeds, __global uint *hashes, __global int *sums,
                    int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  uchar key[8];
  char signed_bytes[4];
  uint s = seeds[i];
  for (int k = 0; k < 8; k++) key[k] = (uchar)(s >> (k * 5));
  for (int k = 0; k < 4; k++) signed_bytes[k] = (char)(s >> (k * 8 + 3));
  hashes[2 * i] = fnv((uint *)key, 2);
  key[3] ^= 0x5a;
  const ushort *halves = (const ushort *)key;
  hashes[2 * i + 1] = ((const uint *)key)[1] + halves[1] * 3u + halves[3];
  sums[i] = *(int *)signed_bytes + ((short *)signed_bytes)[1];
}
