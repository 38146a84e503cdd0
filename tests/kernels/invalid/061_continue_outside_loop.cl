// continue inside a switch but outside any loop.
// @error 6:7 'continue' outside a loop
__kernel void k(__global int *out) {
  switch (out[0]) {
    case 1:
      continue;
  }
}
