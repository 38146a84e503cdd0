// Found while writing corpus kernel 126 (issue 18, pointers in structs). A
// loop that continues a count left by a data-dependent loop runs once on
// lavapipe (Mesa 22.3.6, LLVM 15, 256-bit llvmpipe) when the work-group has
// fewer than 8 work-items (the width of its SIMD vectors): out[8] is -5 and
// out[9..15] keep their old values. cpu:0 and opencl:0 write -5 to
// out[8..15]. The GLSL and SPIR-V anygpu emits are right (spirv-val; the
// same GLSL written by hand and compiled by glslangValidator fails the same
// way); with 8 or more work-items in the group, or with one lane active in
// a group of 8 (`if (lid == 0)`), or with the second loop written as
// `for (t = 0; t < 16; t++) if (t >= z) ...`, lavapipe agrees.
//   anygpu run tests/fuzz/known-driver-bugs/lavapipe-loop-after-loop-small-group.cl \
//     --kernel walk --global 1 --local 1 --arg buf:int:9:fill=0 --arg buf:int:16:fill=7 --device vulkan:0
__kernel void walk(__global int *next, __global int *out) {
  for (int k = 0; k < 8; k++) next[k] = k + 1;
  next[8] = -1;
  int z = 0;
  for (int q = next[0]; q != -1; q = next[q]) out[z++] = q;
  for (; z < 16; z++) out[z] = -5;
}
