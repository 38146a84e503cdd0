/* Front-end features for real-world OpenCL kernels (issue 18): brace
 * initialisers of vectors, image constructs refused by name, and structs
 * in memory with OpenCL C's layout. What each target prints is checked by
 * the corpus (tests/kernels); here: the rules, the diagnostics and the
 * layout numbers. */
#include "agpu_test.h"
#include "kl_front.h"
#include "translate.h"

static kl_context *ctx;

static kl_program *parse(const char *source) {
  kl_context_destroy(ctx);
  ctx = kl_context_create();
  kl_translate_options o = {.source_name = "k.cl"};
  o.traits.fp64 = true;
  o.traits.int64 = true;
  return kl_parse_program(ctx, source, strlen(source), &o);
}

/* The program fails with `message` at line:column as its first error. */
static void check_error(const char *source, int line, int column, const char *message) {
  if (parse(source)) {
    printf("  FAIL %s: accepted:\n%s\n", agpu_test_g.case_name, source);
    agpu_test_g.case_failed = 1;
    return;
  }
  const kl_diagnostic *d = kl_diagnostics(ctx);
  while (d && d->severity != KL_ERROR) d = d->next;
  if (!d || d->location.line != line || d->location.column != column ||
      !strstr(d->message, message)) {
    printf("  FAIL %s: expected %d:%d %s, got:\n%s", agpu_test_g.case_name, line, column, message,
           kl_diagnostics_text(ctx));
    agpu_test_g.case_failed = 1;
  }
}

static void check_accepted(const char *source) {
  if (!parse(source)) {
    printf("  FAIL %s: rejected:\n%s\n%s", agpu_test_g.case_name, source, kl_diagnostics_text(ctx));
    agpu_test_g.case_failed = 1;
  }
}

static void vector_brace_initialisers(void) {
  check_accepted(
      "__kernel void k(__global float4 *o) {\n"
      "  float2 h = {1, 2};\n"
      "  float4 a = {1.0f, 2, 3u, 4.5}, b = {h, h}, c = {h, 1, 2}, d = {a}, e = {};\n"
      "  float4 arr[3] = {{1, 2, 3, 4}, {h, h}, 7};\n"
      "  o[0] = a + b + c + d + e + arr[2];\n"
      "}\n");
  check_accepted(
      "typedef struct { float3 p; int2 q; } s;\n"
      "__constant float4 t[2] = {{1, 2, 3, 4}, {}};\n"
      "__kernel void k(__global float4 *o) {\n"
      "  s v[2] = {{{1, 2, 3}, {4, 5}}, {{6, 7, 8}}};\n"
      "  o[0] = t[1] + (float4)(v[0].p, v[1].q.x);\n"
      "}\n");
  check_error("__kernel void k(__global float4 *o) { float4 f = {1, 2, 3}; o[0] = f; }", 1, 50,
              "too few elements in the initializer of a 'float4': it needs 4, 3 given");
  check_error("__kernel void k(__global int2 *o) { int2 f = {1, 2, 3}; o[0] = f; }", 1, 46,
              "too many elements in the initializer of a 'int2': it needs 2, 3 given");
  check_error("__kernel void k(__global float4 *o) { float4 f = {1.0f}; o[0] = f; }", 1, 50,
              "too few elements");
  check_error("__kernel void k(__global float4 *o) { float4 f = {{1, 2, 3, 4}}; o[0] = f; }", 1, 51,
              "braces inside the initializer of a 'float4'");
  check_error(
      "__kernel void k(__global float4 *o) { int2 i = (int2)(1);\n"
      "  float4 f = {i, 1.0f, 2.0f}; o[0] = f; }",
      2, 15, "a 'int2' part in the initializer of a 'float4'");
  /* malformed lists end in an error, never a crash */
  const char *broken[] = {
      "__kernel void k() { float4 f = {1, 2, 3, 4; }",
      "__kernel void k() { float4 f = {, }; }",
      "__kernel void k() { float4 f = {1, 2, 3, 4,, }; }",
      "__kernel void k() { float4 f = {",
      "__kernel void k() { float4 f[2] = {{{{{{{{{{{{}}}}}}}}}}}}; }",
  };
  for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
    CHECK(!parse(broken[i]));
    CHECK(kl_error_count(ctx) >= 1);
  }
}

static void images_are_named(void) {
  check_error("__kernel void k(__read_only image2d_t i, __global int *o) { o[0] = 0; }", 1, 29,
              "images are not in the portable subset: image types are not supported ('image2d_t')");
  check_error("__kernel void k(sampler_t s, __global int *o) { o[0] = 0; }", 1, 17,
              "samplers are not in the portable subset");
  check_error("__kernel void k(__global float4 *o) { o[0] = read_imagef(0, 0, (int2)(0)); }", 1, 46,
              "images are not in the portable subset: 'read_imagef' is not supported");
  check_error("__kernel void k(__global int *o) { o[0] = get_image_width(0); }", 1, 43,
              "images are not in the portable subset: 'get_image_width'");
  check_error("__kernel void k(__global int *o) { o[0] = CLK_FILTER_LINEAR; }", 1, 43,
              "samplers are not in the portable subset: 'CLK_FILTER_LINEAR'");
  check_error("__kernel void k(__global int *o) { o[0] = CLK_RGBA; }", 1, 43,
              "images are not in the portable subset: 'CLK_RGBA'");
  /* a function of the program's own with such a name is the program's */
  check_accepted(
      "int read_image_count(int x) { return x; }\n"
      "__kernel void k(__global int *o) { o[0] = read_image_count(2); }");
}

int main(void) {
  RUN(vector_brace_initialisers);
  RUN(images_are_named);
  kl_context_destroy(ctx);
  return agpu_test_finish();
}
