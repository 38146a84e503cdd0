// A private struct passed to a helper by pointer as an out-parameter
// (Rodinia's cfd: `compute_velocity(density, momentum, &velocity)`), written
// through `->` and `(*p).`, read back; beside a float out-parameter. Vulkan
// passes the struct `inout`.
// @kernel flux
// @global 500
// @local 64
// @arg buffer float 500 random 0.5 4
// @arg buffer float 500 random -3 3
// @arg buffer float 500 output
// @arg value int 500
typedef struct {
  float x, y, z;
} float3s;

void velocity(float density, float momentum, float3s *v) {
  v->x = momentum / density;
  v->y = momentum * density;
  (*v).z = v->x - v->y;
}

void square(float *r, float a) { *r = a * a; }

__kernel void flux(__global const float *d, __global const float *m, __global float *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  float3s v;
  velocity(d[i], m[i], &v);
  float s;
  square(&s, v.z);
  out[i] = v.x + 2.0f * v.y + s;
}
