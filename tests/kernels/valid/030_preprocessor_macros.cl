// Object-like and function-like macros, nested expansion, # (stringizing,
// seen through sizeof) and ## (token pasting into identifiers and numbers),
// #undef and redefinition, and a multi-line macro.
// @kernel macros
// @global 300
// @local 32
// @arg buffer int 300 random -1000 1000
// @arg buffer int 300 output
// @arg value uint 300
#define SCALE 3
#define TWICE(x) ((x) + (x))
#define APPLY(f, x) f(x)
#define STRINGIZE(x) #x
#define PASTE(a, b) a##b
#define MAKE_GETTER(name, value) \
  int get_##name(void) { return value; }
MAKE_GETTER(seven, 7)
MAKE_GETTER(forty_two, 42)

#define OFFSET 10
int offset_before(void) { return OFFSET; }
#undef OFFSET
#define OFFSET 20

__kernel void macros(__global const int *in, __global int *out, uint n) {
  uint i = get_global_id(0);
  if (i >= n) return;
  int PASTE(local_, value) = in[i];
  int r = APPLY(TWICE, local_value * SCALE) + PASTE(1, 5);
  r += (int)sizeof(STRINGIZE(hello world)); /* "hello world": 12 bytes */
  r += get_seven() * get_forty_two() + offset_before() * 1000 + OFFSET * 100000;
  out[i] = r;
}
