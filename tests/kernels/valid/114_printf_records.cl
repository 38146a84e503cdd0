// printf lowered to records in the hidden printf buffer (issue 21), in a
// helper and in the kernel, around a barrier and with vectors: the output
// buffer must match on every device (one work-item prints, so the run's log
// shows the lines), and NVRTC and hiprtc compile its translation.
// @kernel scale
// @global 300
// @local 64
// @arg buffer float 300 random -10 10
// @arg buffer float 300 output
// @arg local float 64
// @arg value uint 300
// @tolerance ulp 1
void say(uint i, float x) {
  if (i == 0) printf("corpus 114: item %u of the first group reads %.3f\n", i, x);
}

__kernel void scale(__global const float *in, __global float *out, __local float *tile, uint n) {
  uint i = get_global_id(0), l = get_local_id(0);
  tile[l] = i < n ? in[i] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  float left = tile[l == 0 ? 0 : l - 1];
  say(i, left);
  if (i == 0) printf("corpus 114: %v2f %d %s\n", (float2)(left, tile[l]), (int)n, "done");
  if (i < n) out[i] = left * 2.0f + tile[l];
}
