// bool in private memory, the logical operators with short-circuit
// evaluation, and the conversion of comparisons to int (1 or 0 for scalars).
// @kernel bool_logic
// @global 777
// @local 64
// @arg buffer int 777 random -50 50
// @arg buffer int 777 random -50 50
// @arg buffer int 777 output
// @arg buffer int 777 output
// @arg value uint 777
__kernel void bool_logic(__global const int *a, __global const int *b, __global int *flags,
                         __global int *counted, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  bool positive = a[i] > 0;
  bool small = b[i] > -10 && b[i] < 10;
  bool either = positive || small;
  bool exactly_one = positive != small;
  int calls = 0;
  /* The right operand is evaluated only when needed. */
  bool guarded = (a[i] != 0) && (b[i] / a[i] > 1 || (calls = 1) != 0);
  flags[i] = (int)positive | (int)small << 1 | (int)either << 2 | (int)exactly_one << 3 |
             (int)guarded << 4 | (!positive) << 5;
  counted[i] = calls + (a[i] == b[i]) + (a[i] < b[i]) * 10;
}
