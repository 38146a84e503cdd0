// SPDX-License-Identifier: Apache-2.0
/* The OpenCL C emitter: every corpus kernel's normalised OpenCL C is
 * rebuilt on PoCL (opencl:0) through agpu_program_create_native, and a few
 * kernels run from both the original and the emitted source must give the
 * same bytes. */
#include "agpu_test.h"
#include "emit_common.h"

static agpu_program *native_program(agpu_device *device, const char *text, bool quiet) {
  agpu_program *program = NULL;
  agpu_status s = agpu_program_create_native(device, AGPU_NATIVE_OPENCL_C, text, strlen(text), NULL, &program);
  if (s != AGPU_SUCCESS && !quiet) printf("  build failed: %s\n", agpu_last_error());
  return s == AGPU_SUCCESS ? program : NULL;
}

static void corpus_rebuilds_on_pocl(void) {
  REQUIRE_DEVICE(device, "opencl");
  int count = 0;
  emit_source *sources = emit_corpus(&count);
  if (count == 0) SKIP("no corpus in %s/valid", AGPU_KERNELS_DIR);
  int built = 0, failed = 0, skipped = 0;
  for (int i = 0; i < count; i++) {
    kl_context *ctx = kl_context_create();
    kl_program *program = emit_parse(ctx, sources[i].name, sources[i].text, sources[i].length, sources[i].options,
                                     sources[i].needs_fp16);
    const char *text = program ? kl_emit_opencl(ctx, program) : NULL;
    if (!text) {
      printf("  %s: %s", sources[i].name, kl_diagnostics_text(ctx));
      failed++;
    } else {
      agpu_program *built_program = native_program(device, text, sources[i].needs_fp16);
      if (built_program) {
        built++;
        agpu_program_release(built_program);
      } else if (sources[i].needs_fp16) {
        skipped++; /* PoCL here has no cl_khr_fp16 */
      } else {
        printf("  %s: the emitted OpenCL C does not build:\n%s\n", sources[i].name, text);
        failed++;
      }
    }
    kl_context_destroy(ctx);
  }
  printf("  %d of %d corpus files rebuild on opencl:0; %d need fp16 the device lacks; %d failed\n", built, count,
         skipped, failed);
  CHECK(failed == 0);
  emit_free_corpus(sources, count);
}

static const char diff_source[] =
    "int twice(__global const int *p, int k) { return p[k] * 2; }\n"
    "void accumulate(__local float *s, size_t l, float v) { s[l] += v; }\n"
    "__kernel void integers(__global const int *in, __global int *out, int shift) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int x = in[i], y = in[(i + 1) % 64] | 1;\n"
    "  out[8 * i + 0] = x / y + x % y;\n"
    "  out[8 * i + 1] = (x << (shift + i)) ^ (x >> (shift + 31));\n"
    "  out[8 * i + 2] = (int)abs(x) + (int)abs_diff(x, y) + rotate(x, (int)i) + clz(x) + popcount(y);\n"
    "  out[8 * i + 3] = convert_int_sat((float)x * 1e6f) + (int)convert_uchar_sat(x) + (int)convert_short_sat(x * 1000);\n"
    "  out[8 * i + 4] = mul_hi(x, y) + add_sat(x, 0x7fffffff) + sub_sat(x, y) + hadd(x, y) + rhadd(x, y);\n"
    "  uchar c = (uchar)x; c += 200; char d = (char)y; d *= 3;\n"
    "  out[8 * i + 5] = c + d + ((uint)x > (uint)y) + (x < y) + twice(in, (int)(i & 7));\n"
    "  long l = (long)x * y; ulong u = (ulong)l;\n"
    "  out[8 * i + 6] = (int)(l >> 7) + (int)(u >> 40) + (int)(l % 1000);\n"
    "  int4 v = (int4)(x, y, -x, -y); v = v.wzyx * (int4)(1, 2, 3, 4) + (v > 0) + select(v, -v, v < 0);\n"
    "  out[8 * i + 7] = v.x + v.y + v.z + v.w + any(v > 100) + all(v != 0);\n"
    "}\n"
    "__kernel void floats(__global const float4 *in, __global float4 *out, __local float *s, float k) {\n"
    "  size_t i = get_global_id(0), l = get_local_id(0);\n"
    "  float4 v = in[i];\n"
    "  v.xy = v.yx * k;\n"
    "  v = clamp(v, -10.0f, 10.0f) + mix(v, v.wzyx, 0.25f) + fabs(v) + floor(v) + fmax(v, 0.5f);\n"
    "  s[l] = dot(v, v);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t step = get_local_size(0) / 2; step > 0; step /= 2) {\n"
    "    if (l < step) accumulate(s, l, s[l + step]);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  out[i] = v + (float4)(s[0], as_float(as_int(k) + 1), convert_float(convert_int_rte(v.z)), sqrt(fabs(v.w)));\n"
    "}\n";

static void emitted_source_gives_the_same_results(void) {
  REQUIRE_DEVICE(device, "opencl");
  kl_context *ctx = kl_context_create();
  kl_program *program = emit_parse(ctx, "diff.cl", diff_source, strlen(diff_source), NULL, false);
  const char *emitted = program ? kl_emit_opencl(ctx, program) : NULL;
  CHECK(emitted != NULL);
  if (!emitted) {
    printf("%s", kl_diagnostics_text(ctx));
    kl_context_destroy(ctx);
    return;
  }
  agpu_program *original = native_program(device, diff_source, false);
  agpu_program *normalised = native_program(device, emitted, false);
  CHECK(original && normalised);
  if (!original || !normalised) printf("%s\n", emitted);
  enum { N = 64 };
  int32_t ints[N];
  float floats[4 * N];
  uint64_t seed = 7;
  for (int i = 0; i < N; i++) ints[i] = (int32_t)agpu_test_rand(&seed) >> (i % 20);
  for (int i = 0; i < 4 * N; i++) floats[i] = agpu_test_randf(&seed, -20.0f, 20.0f);
  agpu_program *programs[2] = {original, normalised};
  int32_t int_out[2][8 * N];
  float float_out[2][4 * N];
  for (int p = 0; p < 2 && original && normalised; p++) {
    agpu_kernel *ki = NULL, *kf = NULL;
    CHECK_OK(agpu_kernel_create(programs[p], "integers", &ki));
    CHECK_OK(agpu_kernel_create(programs[p], "floats", &kf));
    agpu_buffer *bin = NULL, *bout = NULL, *fin = NULL, *fout = NULL;
    CHECK_OK(agpu_buffer_create(device, sizeof ints, 0, &bin));
    CHECK_OK(agpu_buffer_create(device, sizeof int_out[0], 0, &bout));
    CHECK_OK(agpu_buffer_create(device, sizeof floats, 0, &fin));
    CHECK_OK(agpu_buffer_create(device, sizeof float_out[0], 0, &fout));
    if (!ki || !kf || !bin || !bout || !fin || !fout) return;
    CHECK_OK(agpu_buffer_write(NULL, bin, 0, sizeof ints, ints));
    CHECK_OK(agpu_buffer_write(NULL, fin, 0, sizeof floats, floats));
    size_t global = N, local = 16;
    agpu_arg iargs[] = {agpu_arg_buffer(bin), agpu_arg_buffer(bout), agpu_arg_i32(3)};
    CHECK_OK(agpu_launch(NULL, ki, 1, &global, &local, 3, iargs));
    agpu_arg fargs[] = {agpu_arg_buffer(fin), agpu_arg_buffer(fout), agpu_arg_local(local * sizeof(float)),
                        agpu_arg_f32(1.5f)};
    CHECK_OK(agpu_launch(NULL, kf, 1, &global, &local, 4, fargs));
    CHECK_OK(agpu_buffer_read(NULL, bout, 0, sizeof int_out[0], int_out[p]));
    CHECK_OK(agpu_buffer_read(NULL, fout, 0, sizeof float_out[0], float_out[p]));
    agpu_buffer_release(bin);
    agpu_buffer_release(bout);
    agpu_buffer_release(fin);
    agpu_buffer_release(fout);
    agpu_kernel_release(ki);
    agpu_kernel_release(kf);
  }
  if (original && normalised) {
    CHECK(memcmp(int_out[0], int_out[1], sizeof int_out[0]) == 0);
    CHECK(memcmp(float_out[0], float_out[1], sizeof float_out[0]) == 0);
  }
  if (original) agpu_program_release(original);
  if (normalised) agpu_program_release(normalised);
  kl_context_destroy(ctx);
}

int main(void) {
  RUN(corpus_rebuilds_on_pocl);
  RUN(emitted_source_gives_the_same_results);
  return agpu_test_finish();
}
