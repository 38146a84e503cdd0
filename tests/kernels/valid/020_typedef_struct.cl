// typedef of scalars, vectors and structs; structs in private memory,
// assigned, passed to and returned from helper functions by value, and
// nested; sizeof a struct.
// @kernel particles
// @global 250
// @local 32
// @arg buffer float 1000 random -1 1
// @arg buffer float4 250 output
// @arg buffer int 250 output
// @arg value uint 250
// @arg value float 0.125
// @tolerance ulp 4 abs 1e-5
typedef float real;
typedef float2 vec2;
typedef struct {
  vec2 position;
  vec2 velocity;
} body;
typedef struct state {
  body b;
  int steps;
  real mass;
} state;

body advance(body p, real dt) {
  body next = p;
  next.position += p.velocity * dt;
  next.velocity.y -= 9.75f * dt;
  return next;
}

__kernel void particles(__global const float *in, __global float4 *out, __global int *info,
                        uint n, float dt) {
  uint i = get_global_id(0);
  if (i >= n) return;
  state s;
  s.b.position = (vec2)(in[4 * i], in[4 * i + 1]);
  s.b.velocity = (vec2)(in[4 * i + 2], in[4 * i + 3]);
  s.steps = 0;
  s.mass = 2.0f;
  state copy = s;
  for (int k = 0; k < 4; k++) {
    copy.b = advance(copy.b, dt);
    copy.steps++;
  }
  out[i] = (float4)(copy.b.position, copy.b.velocity * copy.mass);
  info[i] = copy.steps * 100 + (int)sizeof(body) + (s.steps == 0 ? 1 : 0);
}
