// switch with fall-through, default in the middle, nested switch, break out of
// a switch inside a loop, and case labels that are constant expressions.
// @kernel switches
// @global 600
// @local 64
// @arg buffer int 600 random -3 12
// @arg buffer int 600 output
// @arg value uint 600
#define BASE 4
__kernel void switches(__global const int *in, __global int *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int x = in[i], r = 0;
  switch (x) {
    case 0:
      r = 100;
      break;
    case 1:
    case 2:
      r = 200 + x;
      /* fall through */
    case 3:
      r += 10;
      break;
    default:
      r = -1;
      break;
    case BASE + 1:
      switch (i % 3) {
        case 0:
          r = 500;
          break;
        default:
          r = 501;
      }
      break;
    case BASE * 2:
      r = 800;
  }
  int loops = 0;
  for (int k = 0; k < 10; k++) {
    switch (k) {
      case 4:
        loops += 40;
        break; /* leaves the switch, not the loop */
      default:
        loops++;
    }
  }
  out[i] = r * 1000 + loops;
}
