// A struct kernel parameter cannot hold a pointer (OpenCL C forbids it; the
// host has no device addresses): the kernel builds such a struct itself.
// @error 7:43 a struct kernel parameter ('v') cannot hold pointers (member 'p')
typedef struct {
  __global int *p;
} holder;
__kernel void k(__global int *out, holder v) {
  out[0] = v.p[0];
}
