// Mandelbrot escape counts in 36.28 fixed point with long arithmetic, so
// that the counts are exact on every device (a float version would depend on
// whether a * b + c is contracted into an fma). Right shifts of negative
// longs are arithmetic.
// @kernel mandelbrot
// @global 70x45
// @local 16x8
// @arg buffer int 70*45 output
// @arg value uint 70
// @arg value uint 45
// @arg value int 64
#define FRACTION 28
#define ONE (1L << FRACTION)
__kernel void mandelbrot(__global int *counts, uint width, uint height, int limit) {
  uint px = get_global_id(0), py = get_global_id(1);
  if (px >= width || py >= height) return;
  long cx = -2 * ONE + (long)px * (3 * ONE / (long)width);
  long cy = -ONE + (long)py * (2 * ONE / (long)height);
  long x = 0, y = 0;
  int k = 0;
  while (k < limit) {
    long xx = (x * x) >> FRACTION, yy = (y * y) >> FRACTION;
    if (xx + yy > 4 * ONE) break;
    long xy = (x * y) >> FRACTION;
    x = xx - yy + cx;
    y = 2 * xy + cy;
    k++;
  }
  counts[py * width + px] = k;
}
