// sizeof and vec_step of every scalar and of vector types (3-vectors are the
// size of 4-vectors), and of a struct with padding.
// @kernel sizes
// @global 1
// @local 1
// @arg buffer int 32 output 28
typedef struct {
  char c;
  int i;
  short s;
} padded;

__kernel void sizes(__global int *out) {
  int k = 0;
  out[k++] = sizeof(char);
  out[k++] = sizeof(uchar);
  out[k++] = sizeof(short);
  out[k++] = sizeof(ushort);
  out[k++] = sizeof(int);
  out[k++] = sizeof(uint);
  out[k++] = sizeof(long);
  out[k++] = sizeof(ulong);
  out[k++] = sizeof(float);
  out[k++] = sizeof(bool) > 0;
  out[k++] = sizeof(char2);
  out[k++] = sizeof(char3);
  out[k++] = sizeof(short4);
  out[k++] = sizeof(int8);
  out[k++] = sizeof(long16);
  out[k++] = sizeof(float3);
  out[k++] = sizeof(float16);
  out[k++] = sizeof(uchar16);
  out[k++] = vec_step(char2);
  out[k++] = vec_step(int3);
  out[k++] = vec_step(float4);
  out[k++] = vec_step(ulong8);
  out[k++] = vec_step(int);
  out[k++] = sizeof(padded);
  out[k++] = __alignof__(padded) == 4;
  out[k++] = sizeof(int[5]);
  out[k++] = CHAR_BIT;
  out[27] = k; /* 27 entries before this one */
}
