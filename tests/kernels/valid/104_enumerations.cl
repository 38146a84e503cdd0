// Enumerations (real-world kernels use them for lattice directions and
// flags): int constants counted on from the last given value, negative
// ones, one defined from others, an enum type as a kernel parameter, a
// variable and a switch on it.
// @kernel k
// @global 40
// @local 8
// @arg buffer int 40 output
// @arg value int 8
typedef enum { C = 0, N, S, E = 7, W, NEG = -3, AFTER, LAST = N + W * 2 } cell_dir;
enum flags { F_A = 1 << 0, F_B = 1 << 3 };
__kernel void k(__global int *out, cell_dir d) {
  size_t g = get_global_id(0);
  enum flags f = F_B;
  cell_dir local_d = (g & 1) ? S : W;
  int table[LAST + 1];
  for (int i = 0; i <= LAST; i++) table[i] = i * AFTER;
  switch (local_d) { case S: out[g] = table[S] + f; break; case W: out[g] = table[W] - NEG; break; default: out[g] = -1; }
  out[g] += d * 100 + LAST * 1000 + sizeof(cell_dir);
}
