// A private pointer assigned one of two buffers in two branches, then read
// and written through (Rodinia's heartwall: `d_unique_d_Row = d_endoRow;`
// or `= d_epiRow;` by the group's index): Vulkan keeps which buffer beside
// the offset and picks the buffer at each access.
// @kernel pick
// @global 500
// @local 64
// @arg buffer int 1200 random -1000 1000
// @arg buffer int 1200 random -1000 1000
// @arg buffer int 1200 inout random -5 5
// @arg buffer int 1200 inout random -5 5
// @arg buffer int 500 output
// @arg value int 500
__kernel void pick(__global const int *endo, __global const int *epi, __global int *endo_out,
                   __global int *epi_out, __global int *out, int n) {
  int g = get_global_id(0);
  __global const int *row;
  __global int *loc;
  if (get_group_id(0) % 3 == 1) {
    row = endo;
    loc = endo_out;
  } else {
    row = epi + 2;
    loc = epi_out + 1;
  }
  if (g >= n) return;
  loc[g] = row[g] - row[0];
  *(loc + 600 + g) += g;
  out[g] = loc[g] + (g % 2 ? row[g + 1] : 7);
}
