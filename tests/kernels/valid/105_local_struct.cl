// A struct variable in __local memory, written by one work-item and read by
// all after a barrier (a real-world wavelet kernel keeps its window's
// parameters so), beside a __local array: every device against PoCL.
// @kernel k
// @global 64
// @local 16
// @arg buffer float 64 random -2 2
// @arg buffer float 64 output
// @arg value int 3
// @arg value int 5
// @tolerance ulp 4 abs 1e-6
typedef struct { int w, h; float scale; int4 box; } win;
struct FDWT { int size; float taps[3]; };
__kernel void k(__global const float *in, __global float *out, int w, int h) {
  __local win shared;
  __local struct FDWT f;
  __local float tile[16];
  uint l = get_local_id(0);
  if (l == 0) {
    shared.w = w; shared.h = h; shared.scale = 0.5f; shared.box = (int4)(1, 2, 3, 4);
    f.size = 3; f.taps[0] = 0.25f; f.taps[1] = 0.5f; f.taps[2] = 0.25f;
  }
  tile[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  float acc = 0.0f;
  for (int i = 0; i < f.size; i++) acc += f.taps[i] * tile[(l + i) % 16];
  out[get_global_id(0)] = acc * shared.scale + (float)(shared.w * shared.h + shared.box.z);
}
