// A private array of structs holding pointers into two buffers (chosen per
// work-item), copied whole (`s[2] = s[0]`), a member moved in place
// (`s[2].from += 2`), and a pointer variable walking from a member with a
// stride up to an end pointer (`p < end`, `p += s[k].stride`).
// @kernel gather
// @global 700
// @local 64
// @arg buffer float 700*4 random -10 10
// @arg buffer float 700*4 random 0 1
// @arg buffer float 700 output
// @arg value int 700
// @tolerance ulp 2 abs 1e-5
typedef struct {
  __global const float *from;
  int stride;
  float weight;
} source;

__kernel void gather(__global const float *a, __global const float *b, __global float *out,
                     int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  source s[3];
  s[0].from = a + i * 4;
  s[0].stride = 1;
  s[0].weight = 0.5f;
  if (i & 1)
    s[1].from = b + i * 4;
  else
    s[1].from = a + i;
  s[1].stride = 2;
  s[1].weight = -1.0f;
  s[2] = s[0];
  s[2].from += 2;
  s[2].weight = 2.0f;
  float acc = 0.0f;
  for (int k = 0; k < 3; k++) {
    __global const float *p = s[k].from;
    __global const float *end = p + 4 - (k == 2 ? 2 : 0);
    for (; p < end; p += s[k].stride) acc += *p * s[k].weight;
  }
  out[i] = acc;
}
