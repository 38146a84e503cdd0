// int g[4096][4096] = {{1}}: the parser once padded the 4095 missing rows
// with explicit zeros (16 million nodes, 4.8 GB, 14 s on every target).
__kernel void k(__global int *out, uint n) {
  int g[4096][4096] = {{1}};
  uint i = get_global_id(0);
  if (i < n) out[i] = g[0][i % 4096];
}
