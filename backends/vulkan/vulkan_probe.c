// SPDX-License-Identifier: Apache-2.0
/* Probes of what a Vulkan driver gets right, run once per device and
 * process on first need. Results depend on more than the driver version
 * (lavapipe's code depends on the host CPU and on GALLIUM_OVERRIDE_CPU_CAPS),
 * so they are never kept on disk; the SPIR-V built from their result is
 * keyed by it (vulkan_program.c).
 *
 * f64 rounding: lavapipe on a host without AVX-512 returns trunc(x) and
 * roundEven(x) of any double |x| >= 2^24 unchanged and roundEven(1.5) = 1,
 * while floor and ceil are right. The probe runs the device's own floor,
 * ceil, trunc and roundEven on doubles where such bugs show (halves, values
 * just past 2^24, 2^31, 2^32 and 2^52, negatives, signed zeros) and compares
 * every bit with the host's; the GLSL target computes them from the bits
 * unless all agree. The probe's own kernel is built with the exact
 * software versions disabled, through the public API, re-entering the
 * backend with a thread-local flag that stops it from probing again. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulkan_internal.h"

enum { AGPU_VK_PROBE_VALUES = 64, AGPU_VK_PROBE_FUNCTIONS = 4 };

static _Thread_local bool agpu_vk_probing;

static const char agpu_vk_rounding_source[] =
    "__kernel void probe(__global const double *x, __global double *out, uint n) {\n"
    "  uint i = get_global_id(0);\n"
    "  if (i >= n) return;\n"
    "  out[i] = floor(x[i]);\n"
    "  out[n + i] = ceil(x[i]);\n"
    "  out[2 * n + i] = trunc(x[i]);\n"
    "  out[3 * n + i] = rint(x[i]);\n"
    "}\n";

static void agpu_vk_probe_inputs(double *x) {
  static const double fixed[] = {0.5,
                                 1.5,
                                 2.5,
                                 -0.5,
                                 -1.5,
                                 -2.5,
                                 0.49999999999999994,
                                 -0.3,
                                 -0.0,
                                 0.0,
                                 16777216.5,
                                 16777217.5,
                                 -16777218.5,
                                 33554433.25,
                                 2147483648.5,
                                 -2147483649.5,
                                 4294967296.5,
                                 4294967297.75,
                                 1099511627776.5,
                                 2251799813685248.5,
                                 -2251799813685249.5,
                                 4503599627370495.5,
                                 4503599627370497.0,
                                 9007199254740993.0 * 2.0,
                                 1e300,
                                 -1e-300,
                                 123456789.123,
                                 -987654321.987};
  size_t count = sizeof fixed / sizeof fixed[0];
  memcpy(x, fixed, sizeof fixed);
  /* the rest: a fraction at every magnitude from 2^-2 to 2^52 */
  for (size_t i = count; i < AGPU_VK_PROBE_VALUES; i++) {
    int e = (int)((i - count) * 55 / (AGPU_VK_PROBE_VALUES - count)) - 2;
    double v = ldexp(1.0 + 0.6180339887498949 * (double)((i * 7) % 11) / 11.0, e);
    x[i] = (i & 1) ? -v : v;
  }
}

/* Runs the probe kernel; false if any step fails (then the caller assumes
 * the worst, which is always correct). */
static bool agpu_vk_probe_run(agpu_device *handle, const double *x, double *out) {
  agpu_program *program = NULL;
  agpu_kernel *kernel = NULL;
  agpu_buffer *in = NULL, *result = NULL;
  agpu_queue *queue = NULL;
  const uint32_t n = AGPU_VK_PROBE_VALUES;
  const size_t out_bytes = sizeof(double) * n * AGPU_VK_PROBE_FUNCTIONS;
  agpu_program_desc desc = {.source = agpu_vk_rounding_source, .source_name = "<rounding probe>"};
  bool ok = agpu_program_build(handle, &desc, &program) == AGPU_SUCCESS &&
            agpu_kernel_create(program, "probe", &kernel) == AGPU_SUCCESS &&
            agpu_queue_create(handle, &queue) == AGPU_SUCCESS &&
            agpu_buffer_create(handle, sizeof(double) * n, 0, &in) == AGPU_SUCCESS &&
            agpu_buffer_create(handle, out_bytes, 0, &result) == AGPU_SUCCESS &&
            agpu_buffer_write(queue, in, 0, sizeof(double) * n, x) == AGPU_SUCCESS;
  if (ok) {
    size_t global[1] = {n}, local[1] = {n};
    agpu_arg args[3] = {agpu_arg_buffer(in), agpu_arg_buffer(result), agpu_arg_u32(n)};
    ok = agpu_launch(queue, kernel, 1, global, local, 3, args) == AGPU_SUCCESS &&
         agpu_buffer_read(queue, result, 0, out_bytes, out) == AGPU_SUCCESS;
  }
  if (result) agpu_buffer_release(result);
  if (in) agpu_buffer_release(in);
  if (queue) agpu_queue_release(queue);
  if (kernel) agpu_kernel_release(kernel);
  if (program) agpu_program_release(program);
  return ok;
}

static bool agpu_vk_same_bits(double a, double b) {
  return memcmp(&a, &b, sizeof a) == 0;
}

static bool agpu_vk_rounding_probe(agpu_device *device) {
  double x[AGPU_VK_PROBE_VALUES], out[AGPU_VK_PROBE_VALUES * AGPU_VK_PROBE_FUNCTIONS];
  agpu_vk_probe_inputs(x);
  for (size_t i = 0; i < sizeof out / sizeof out[0]; i++) out[i] = NAN;
  agpu_vk_probing = true;
  bool ran = agpu_vk_probe_run((agpu_device *)device->object.handle, x, out);
  agpu_vk_probing = false;
  if (!ran) return false;
  for (uint32_t i = 0; i < AGPU_VK_PROBE_VALUES; i++) {
    const double *o = out;
    const uint32_t n = AGPU_VK_PROBE_VALUES;
    if (!agpu_vk_same_bits(o[i], floor(x[i])) || !agpu_vk_same_bits(o[n + i], ceil(x[i])) ||
        !agpu_vk_same_bits(o[2 * n + i], trunc(x[i])) ||
        !agpu_vk_same_bits(o[3 * n + i], nearbyint(x[i])))
      return false;
  }
  return true;
}

bool agpu_vk_f64_rounding_exact(agpu_device *device) {
  agpu_vk_device *vk = agpu_vk_device_of(device);
  if (!device->info.fp64) return false;
  if (agpu_vk_probing) return true; /* the probe's own kernel: the device's functions */
  const char *forced = getenv("ANYGPU_VULKAN_F64_ROUNDING");
  if (forced && strcmp(forced, "soft") == 0) return false;
  if (forced && strcmp(forced, "native") == 0) return true;
  pthread_mutex_lock(&vk->probe_lock);
  if (vk->f64_rounding == AGPU_VK_PROBE_UNKNOWN) {
    /* the probe's calls may set the thread's message: keep the caller's */
    char *saved = strdup(agpu_last_error());
    vk->f64_rounding = agpu_vk_rounding_probe(device) ? AGPU_VK_PROBE_YES : AGPU_VK_PROBE_NO;
    if (saved) agpu_error_set(AGPU_SUCCESS, "%s", saved);
    free(saved);
  }
  bool exact = vk->f64_rounding == AGPU_VK_PROBE_YES;
  pthread_mutex_unlock(&vk->probe_lock);
  return exact;
}
