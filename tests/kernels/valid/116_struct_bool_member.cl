// A struct in a __global buffer with a bool member (Rodinia's b+tree:
// `bool is_leaf` in `struct knode`): one byte, as clang, CUDA and C lay it
// out (a warning asks the host to match; GLSL declares it uint8_t); written
// and read back through the buffer.
// @kernel mark
// @global 300
// @local 64
// @arg buffer int 300*4 inout fill 0
// @arg buffer int 300 random -50 50
// @arg buffer int 300 output
// @arg value int 300
typedef struct knode {
  int key;
  bool is_leaf;
  bool has_parent;
  short depth;
  int count;
} knode;

__kernel void mark(__global knode *nodes, __global const int *keys, __global int *out, int n) {
  int i = get_global_id(0);
  if (i >= n) return;
  nodes[i].key = keys[i];
  nodes[i].is_leaf = keys[i] > 0;
  nodes[i].has_parent = (keys[i] & 1) != 0;
  nodes[i].depth = (short)(keys[i] / 3);
  nodes[i].count = nodes[i].is_leaf ? keys[i] * 2 : -keys[i];
  out[i] = nodes[i].is_leaf + 2 * nodes[i].has_parent + (int)sizeof(knode);
}
