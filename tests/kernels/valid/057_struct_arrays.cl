// Arrays of structs and structs holding arrays and vectors in private
// memory, struct initialisers, member access through a private pointer, and
// a struct-returning helper that takes a struct pointer.
// @kernel struct_arrays
// @global 200
// @local 32
// @arg buffer int 800 random -1000 1000
// @arg buffer int4 200 output
// @arg buffer int 200 output
// @arg value uint 200
typedef struct {
  int key;
  int values[3];
  int2 range;
} record;

record widen(const record *r) {
  record out = *r;
  out.range = (int2)(min(r->range.x, r->key), max(r->range.y, r->key));
  return out;
}

__kernel void struct_arrays(__global const int *in, __global int4 *out, __global int *sizes,
                            uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  record records[4];
  for (int k = 0; k < 4; k++) {
    record r = {in[4 * i + k], {k, k * 2, k * 3}, (int2)(0, 0)};
    records[k] = r;
  }
  record *p = &records[2];
  p->values[1] += 100;
  int total = 0;
  for (int k = 0; k < 4; k++) {
    record w = widen(&records[k]);
    total += w.range.x + w.range.y + w.values[k % 3];
  }
  out[i] = (int4)(total, records[2].values[1], p->key, records[3].range.y);
  sizes[i] = (int)sizeof(record) + (int)sizeof(records);
}
