// Two case labels with one value: reported at the second label's value.
// @error 8:10 duplicate case value
__kernel void k(__global int *out) {
  switch (out[0]) {
    case 1:
      out[1] = 1;
      break;
    case 1:
      out[1] = 2;
      break;
  }
}
