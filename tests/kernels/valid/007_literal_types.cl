// The types of literals: suffixes, hex literals that do not fit int, decimal
// literals that do not fit int, character literals, and comparisons that
// convert to unsigned.
// @kernel literal_types
// @global 40
// @local 8
// @arg buffer int 40 output 16
// @arg buffer uint 40 random 1 100
// @arg buffer int 40 output
__kernel void literal_types(__global int *sizes, __global const uint *in, __global int *mixed) {
  uint i = get_global_id(0);
  if (i == 0) {
    sizes[0] = sizeof(1);
    sizes[1] = sizeof(1u);
    sizes[2] = sizeof(1l);
    sizes[3] = sizeof(1ul);
    sizes[4] = sizeof(0x7fffffff);  /* int */
    sizes[5] = sizeof(0x80000000);  /* uint: a hex literal takes the first type that fits */
    sizes[6] = sizeof(2147483648);  /* long: a decimal literal without u stays signed */
    sizes[7] = sizeof(0x100000000); /* long */
    sizes[8] = sizeof('a');         /* int */
    sizes[9] = sizeof(1.0f);
    sizes[10] = -1 < 0u;          /* 0: -1 converts to UINT_MAX */
    sizes[11] = -1 < 0;           /* 1 */
    sizes[12] = -1L < 0u;         /* 1: long holds every uint */
    sizes[13] = 0x80000000 > 0;   /* 1 */
    sizes[14] = (int)(010 + 0x10); /* octal 8 + 16 */
    sizes[15] = 'A' + '\n';
  }
  if (i < 40) mixed[i] = (int)(in[i] - 50u > 20u) + (int)((int)in[i] - 50 > 20) * 2;
}
