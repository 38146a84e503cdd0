// A private array per work-item, sorted by insertion sort (loops with
// data-dependent trip counts), then its median and spread stored.
// @kernel sort_windows
// @global 321
// @local 64
// @arg buffer int 330 random -1000000 1000000
// @arg buffer int2 321 output
// @arg value uint 321
#define WINDOW 9
__kernel void sort_windows(__global const int *in, __global int2 *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int window[WINDOW];
  for (int k = 0; k < WINDOW; k++) window[k] = in[i + k];
  for (int k = 1; k < WINDOW; k++) {
    int value = window[k], j = k - 1;
    while (j >= 0 && window[j] > value) {
      window[j + 1] = window[j];
      j--;
    }
    window[j + 1] = value;
  }
  out[i] = (int2)(window[WINDOW / 2], window[WINDOW - 1] - window[0]);
}
