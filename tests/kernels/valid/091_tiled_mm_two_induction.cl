// The tiled matrix multiply of the vendor SDKs (issue 34): a for loop with two
// induction variables in one declaration (`int a = aBegin, b = bBegin`), two
// steps joined by a comma, and barriers inside. cpu:0 once kept only `a`.
// @kernel mm
// @global 48x32
// @local 16x16
// @arg buffer float 48*32 output
// @arg buffer float 32*64 random -4 4
// @arg buffer float 64*48 random -4 4
// @arg local float 256
// @arg local float 256
// @arg value int 64
// @arg value int 48
// @tolerance ulp 16 abs 1e-4
#define BS 16
__kernel void mm(__global float *C, __global float *A, __global float *B, __local float *As,
                 __local float *Bs, int wa, int wb) {
  int tx = get_local_id(0), ty = get_local_id(1);
  int aBegin = wa * BS * get_group_id(1), aEnd = aBegin + wa - 1, bBegin = BS * get_group_id(0);
  float c = 0.0f;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += BS, b += BS * wb) {
    As[ty * BS + tx] = A[a + wa * ty + tx];
    Bs[ty * BS + tx] = B[b + wb * ty + tx];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < BS; ++k) c += As[ty * BS + k] * Bs[k * BS + tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[get_global_id(1) * get_global_size(0) + get_global_id(0)] = c;
}
