// Structs from an included header: a nested struct and arrays in a struct
// passed by value, an array of structs with 3-vectors and small members in
// __global memory (read), results written member by member.
// box_t: lo 0, hi 16, id 32, kind 34; 48 bytes. config_t: 32 bytes.
// @kernel header_structs
// @global 120
// @local 16
// @arg buffer int 120*12 random -50 50
// @arg buffer int4 120 output
// @arg value int8 0x3f000000 -1082130432 0x3e800000 0x40000000 3 5 7 0x10
// @arg value uint 120
#include "headers/kl_particles.h"

__kernel void header_structs(__global const box_t *boxes, __global int4 *out, config_t cfg,
                             uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  box_t b = boxes[i];
  int3 size = b.hi - b.lo;
  int volume = size.x * size.y + size.z * cfg.counts[i % 3];
  float x = cfg.grid.origin.x + cfg.grid.spacing[0] * (float)b.lo.x;
  float y = cfg.grid.origin.y + cfg.grid.spacing[1] * (float)b.lo.y;
  out[i] = (int4)(volume, (int)b.id + (int)b.kind, convert_int_rtz(x * 4.0f),
                  convert_int_rtz(y * 4.0f) ^ (int)cfg.flags);
}
