// if/else chains, for, while and do-while loops with break and continue,
// nested loops, and early return.
// @kernel control_flow
// @global 555
// @local 64
// @arg buffer uint 555 random 1 100000
// @arg buffer int 555 output
// @arg buffer int 555 output
// @arg buffer int 555 output
// @arg value uint 555
__kernel void control_flow(__global const uint *in, __global int *collatz, __global int *digits,
                           __global int *primes, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  uint x = in[i];
  int steps = 0;
  while (x != 1) { /* Collatz-like; at most 1000 steps */
    if (x % 2 == 0)
      x /= 2;
    else if (x % 3 == 0)
      x = x / 3 + 1;
    else
      x = 3 * x + 1;
    if (++steps > 1000) break;
  }
  collatz[i] = steps;
  uint y = in[i];
  int count = 0;
  do {
    y /= 10;
    count++;
  } while (y);
  digits[i] = count;
  int found = 0;
  for (uint candidate = 2; candidate < 60; candidate++) {
    bool prime = true;
    for (uint d = 2; d * d <= candidate; d++) {
      if (candidate % d == 0) {
        prime = false;
        break;
      }
    }
    if (!prime) continue;
    if (in[i] % candidate == 0) found++;
  }
  primes[i] = found;
}
