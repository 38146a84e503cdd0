// Found by fuzz_differential (seed 1004; reduced by hand). OpenCL C says
// abs(int) returns uint and abs(INT_MIN) is 2147483648u (docs/kernel-language.md),
// which the CPU backend gives. PoCL 3.1 (LLVM 15) folds abs() of a constant
// INT_MIN to poison and drops the store: out[] keeps its old contents.
//   build/tests/fuzz_differential tests/fuzz/known-driver-bugs/pocl-abs-int-min-constant.cl
// cpu:0 writes 0x80000000 everywhere; opencl:0 (PoCL) leaves the poison 0xdeadbeef.
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void fuzz(__global const uint *in, __global uint *out, __global uint *acc) {
  uint gid = (uint)get_global_id(0);
  out[gid] = abs((-2147483647 - 1));
}
