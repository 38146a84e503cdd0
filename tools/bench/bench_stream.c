// SPDX-License-Identifier: Apache-2.0
/* BabelStream's five kernels (copy, mul, add, triad, dot) with its
 * conventions: start values 0.1, 0.2, 0.0 and scalar 0.4; every iteration
 * runs the selected kernels in that order; the bandwidth is the bytes moved
 * over the best time of the iterations after the first; the final arrays
 * and the dot product are checked against the same sequence run on
 * scalars. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define STREAM_KERNELS 5
#define STREAM_SCALAR 0.4
#define STREAM_INIT_A 0.1
#define STREAM_INIT_B 0.2
#define STREAM_INIT_C 0.0

static const struct {
  const char *name;
  uint32_t mask;
  int weight; /* arrays read and written per element */
} stream_kernels[STREAM_KERNELS] = {
    {"copy", BENCH_COPY, 2},   {"mul", BENCH_MUL, 2}, {"add", BENCH_ADD, 3},
    {"triad", BENCH_TRIAD, 3}, {"dot", BENCH_DOT, 2},
};

typedef struct stream_state {
  bench_device *device;
  bool fp64;
  size_t real;
  uint64_t n;
  agpu_program *program;
  agpu_kernel *kernels[STREAM_KERNELS], *init;
  agpu_buffer *a, *b, *c, *sums;
  size_t local, dot_groups, dot_local;
  double *host_sums;
  double sum; /* the last dot product */
} stream_state;

static agpu_arg stream_real(const stream_state *state, double value) {
  return state->fp64 ? agpu_arg_f64(value) : agpu_arg_f32((float)value);
}

static double stream_round(const stream_state *state, double value) {
  return state->fp64 ? value : (double)(float)value;
}

/* One kernel of the sequence, launched and finished (dot: its groups' sums
 * read back and added on the host). */
static agpu_status stream_launch(stream_state *state, int k) {
  agpu_kernel *kernel = state->kernels[k];
  size_t global = (size_t)state->n, local = state->local;
  agpu_arg args[5];
  uint32_t nargs = 0;
  switch (k) {
    case 0: /* c = a */
      args[0] = agpu_arg_buffer(state->a), args[1] = agpu_arg_buffer(state->c), nargs = 2;
      break;
    case 1: /* b = scalar * c */
      args[0] = agpu_arg_buffer(state->b), args[1] = agpu_arg_buffer(state->c);
      args[2] = stream_real(state, STREAM_SCALAR), nargs = 3;
      break;
    case 2: /* c = a + b */
      args[0] = agpu_arg_buffer(state->a), args[1] = agpu_arg_buffer(state->b);
      args[2] = agpu_arg_buffer(state->c), nargs = 3;
      break;
    case 3: /* a = b + scalar * c */
      args[0] = agpu_arg_buffer(state->a), args[1] = agpu_arg_buffer(state->b);
      args[2] = agpu_arg_buffer(state->c), args[3] = stream_real(state, STREAM_SCALAR), nargs = 4;
      break;
    default: /* sum a * b */
      args[0] = agpu_arg_buffer(state->a), args[1] = agpu_arg_buffer(state->b);
      args[2] = agpu_arg_buffer(state->sums),
      args[3] = agpu_arg_local(state->dot_local * state->real);
      args[4] = agpu_arg_u32((uint32_t)state->n), nargs = 5;
      global = state->dot_groups * state->dot_local;
      local = state->dot_local;
      break;
  }
  agpu_status status = agpu_launch(state->device->queue, kernel, 1, &global, &local, nargs, args);
  if (status != AGPU_SUCCESS) return status;
  if (k != 4) return agpu_queue_finish(state->device->queue);
  /* The read waits for the kernel, as BabelStream's does. */
  size_t bytes = state->dot_groups * state->real;
  void *sums = state->host_sums;
  status = agpu_buffer_read(state->device->queue, state->sums, 0, bytes, sums);
  if (status != AGPU_SUCCESS) return status;
  double total = 0;
  for (size_t g = 0; g < state->dot_groups; g++)
    total += state->fp64 ? state->host_sums[g] : (double)((float *)sums)[g];
  state->sum = total;
  return AGPU_SUCCESS;
}

/* BabelStream's check of an array: the mean absolute error over the gold
 * value, at most 100 epsilon. Returns the relative error. */
static double stream_array_error(const stream_state *state, const void *data, double gold) {
  double error = 0;
  for (uint64_t i = 0; i < state->n; i++) {
    double value = state->fp64 ? ((const double *)data)[i] : (double)((const float *)data)[i];
    error += fabs(value - gold);
  }
  error /= (double)state->n;
  return gold != 0 ? error / fabs(gold) : error;
}

static bool stream_verify(stream_state *state, uint32_t mask, uint32_t iterations, char *why,
                          size_t why_size) {
  double a = STREAM_INIT_A, b = STREAM_INIT_B, c = STREAM_INIT_C, s = STREAM_SCALAR;
  for (uint32_t it = 0; it < iterations; it++) {
    if (mask & BENCH_COPY) c = a;
    if (mask & BENCH_MUL) b = stream_round(state, s * c);
    if (mask & BENCH_ADD) c = stream_round(state, a + b);
    if (mask & BENCH_TRIAD) a = stream_round(state, b + stream_round(state, s * c));
  }
  double eps = state->fp64 ? 2.220446049250313e-16 : 1.1920928955078125e-7;
  void *host = malloc((size_t)state->n * state->real);
  if (!host) {
    snprintf(why, why_size, "out of host memory for the check");
    return false;
  }
  const char *names[3] = {"a", "b", "c"};
  agpu_buffer *buffers[3] = {state->a, state->b, state->c};
  double golds[3] = {a, b, c};
  bool ok = true;
  for (int i = 0; i < 3 && ok; i++) {
    agpu_status status =
        agpu_buffer_read(state->device->queue, buffers[i], 0, (size_t)state->n * state->real, host);
    if (status != AGPU_SUCCESS) {
      snprintf(why, why_size, "reading %s back: %s: %s", names[i], agpu_status_name(status),
               agpu_last_error());
      ok = false;
      break;
    }
    double error = stream_array_error(state, host, golds[i]);
    if (!(error <= 100 * eps)) {
      snprintf(why, why_size,
               "verification failed: array %s: mean relative error %.3g above 100 epsilon "
               "(expected %.9g everywhere)",
               names[i], error, golds[i]);
      ok = false;
    }
  }
  free(host);
  if (ok && (mask & BENCH_DOT)) {
    double gold = a * b * (double)state->n;
    /* Every product has the same sign: the relative error of a sum of m
     * terms is at most about m epsilon. Each work-item adds its slice in
     * order, the group adds log2(local) levels, the host adds in double. */
    double per_item = ceil((double)state->n / (double)(state->dot_groups * state->dot_local));
    double levels = log2((double)state->dot_local) + 2;
    double bound = (per_item + levels) * eps * 1.01 + 100 * eps;
    double error = fabs(state->sum - gold) / fabs(gold);
    if (!(error <= bound)) {
      snprintf(why, why_size,
               "verification failed: dot product %.17g, expected %.17g (relative error %.3g, "
               "bound %.3g)",
               state->sum, gold, error, bound);
      ok = false;
    }
  }
  return ok;
}

static void stream_release(stream_state *state) {
  for (int k = 0; k < STREAM_KERNELS; k++)
    if (state->kernels[k]) agpu_kernel_release(state->kernels[k]);
  if (state->init) agpu_kernel_release(state->init);
  agpu_buffer *buffers[4] = {state->a, state->b, state->c, state->sums};
  for (int i = 0; i < 4; i++)
    if (buffers[i]) agpu_buffer_release(buffers[i]);
  if (state->program) agpu_program_release(state->program);
  free(state->host_sums);
}

void bench_stream(bench_device *device, bool fp64) {
  uint32_t mask = device->options->benches & BENCH_STREAM;
  if (!mask) return;
  const char *suffix = fp64 ? "f64" : "f32";
  bench_result *results[STREAM_KERNELS] = {0};
  size_t at[STREAM_KERNELS];
  for (int k = 0; k < STREAM_KERNELS; k++) {
    if (!(mask & stream_kernels[k].mask)) continue;
    char name[32];
    snprintf(name, sizeof name, "%s.%s", stream_kernels[k].name, suffix);
    bench_result *result =
        bench_results_add(device->results, &device->info, device->physical, name, "GB/s", false);
    if (!result) return;
    result->peak = device->info.peak_bandwidth_gb_s > 0 ? device->info.peak_bandwidth_gb_s : NAN;
    at[k] = device->results->count - 1;
  }
  /* Pointers only once every result is added: adding may move the array. */
  for (int k = 0; k < STREAM_KERNELS; k++)
    if (mask & stream_kernels[k].mask) results[k] = &device->results->items[at[k]];
  char progress[64];
  snprintf(progress, sizeof progress, "stream %s", suffix);
  bench_progress(device, progress);
  if (fp64 && !device->info.fp64) {
    for (int k = 0; k < STREAM_KERNELS; k++)
      if (results[k]) bench_skip(results[k], "the device has no fp64");
    return;
  }

  stream_state state;
  memset(&state, 0, sizeof state);
  state.device = device;
  state.fp64 = fp64;
  state.real = fp64 ? sizeof(double) : sizeof(float);
  state.n = bench_stream_elements(device, state.real, 3);
  uint32_t iterations = device->options->iterations ? device->options->iterations
                        : device->options->quick    ? 3
                                                    : 10;
  if (iterations < 2) iterations = 2; /* the first is not counted */
  char why[1024] = "";
  agpu_status status =
      bench_build(device, "bench_kernels.cl", fp64 ? "-DBENCH_FP64" : NULL, &state.program);
  if (status != AGPU_SUCCESS) {
    snprintf(why, sizeof why, "build of bench_kernels.cl: %s: %s", agpu_status_name(status),
             agpu_last_error());
    goto done;
  }
  static const char *const entries[STREAM_KERNELS] = {"stream_copy", "stream_mul", "stream_add",
                                                      "stream_triad", "stream_dot"};
  for (int k = 0; k < STREAM_KERNELS && status == AGPU_SUCCESS; k++)
    status = agpu_kernel_create(state.program, entries[k], &state.kernels[k]);
  if (status == AGPU_SUCCESS)
    status = agpu_kernel_create(state.program, "stream_init", &state.init);
  if (status != AGPU_SUCCESS) {
    snprintf(why, sizeof why, "agpu_kernel_create: %s: %s", agpu_status_name(status),
             agpu_last_error());
    goto done;
  }
  agpu_kernel *const elementwise[] = {state.kernels[0], state.kernels[1], state.kernels[2],
                                      state.kernels[3], state.init};
  state.local = bench_stream_group_size(device, elementwise, 5, state.n);
  bench_reduction_shape(device, state.kernels[4], &state.dot_groups, &state.dot_local);
  state.host_sums = calloc(state.dot_groups, sizeof(double));
  size_t bytes = (size_t)state.n * state.real;
  if (!state.host_sums) {
    snprintf(why, sizeof why, "out of host memory");
    goto done;
  }
  status = agpu_buffer_create(device->device, bytes, 0, &state.a);
  if (status == AGPU_SUCCESS) status = agpu_buffer_create(device->device, bytes, 0, &state.b);
  if (status == AGPU_SUCCESS) status = agpu_buffer_create(device->device, bytes, 0, &state.c);
  if (status == AGPU_SUCCESS)
    status = agpu_buffer_create(device->device, state.dot_groups * state.real, 0, &state.sums);
  if (status == AGPU_SUCCESS) {
    agpu_arg args[6] = {agpu_arg_buffer(state.a),           agpu_arg_buffer(state.b),
                        agpu_arg_buffer(state.c),           stream_real(&state, STREAM_INIT_A),
                        stream_real(&state, STREAM_INIT_B), stream_real(&state, STREAM_INIT_C)};
    size_t global = (size_t)state.n, local = state.local;
    status = agpu_launch(device->queue, state.init, 1, &global, &local, 6, args);
    if (status == AGPU_SUCCESS) status = agpu_queue_finish(device->queue);
  }
  if (status != AGPU_SUCCESS) {
    snprintf(why, sizeof why, "setting up %.1f MiB arrays: %s: %s", (double)bytes / 1048576.0,
             agpu_status_name(status), agpu_last_error());
    goto done;
  }

  double best[STREAM_KERNELS];
  for (int k = 0; k < STREAM_KERNELS; k++) best[k] = INFINITY;
  for (uint32_t it = 0; it < iterations && status == AGPU_SUCCESS; it++) {
    for (int k = 0; k < STREAM_KERNELS && status == AGPU_SUCCESS; k++) {
      if (!results[k]) continue;
      double start = bench_seconds();
      status = stream_launch(&state, k);
      double elapsed = bench_seconds() - start;
      if (it > 0 && elapsed < best[k]) best[k] = elapsed;
    }
  }
  if (status != AGPU_SUCCESS) {
    snprintf(why, sizeof why, "launch: %s: %s", agpu_status_name(status), agpu_last_error());
    goto done;
  }
  if (!stream_verify(&state, mask, iterations, why, sizeof why)) goto done;
  for (int k = 0; k < STREAM_KERNELS; k++) {
    if (!results[k]) continue;
    double moved = (double)stream_kernels[k].weight * (double)state.n * (double)state.real;
    results[k]->value = moved / best[k] / 1e9;
    snprintf(results[k]->note, sizeof results[k]->note,
             "%llu elements (%.0f MiB per array), best of %u iterations after the first",
             (unsigned long long)state.n, (double)bytes / 1048576.0, iterations - 1);
  }
  if (results[3] && !fp64 && device->options->native)
    bench_native(device, results[3], "triad", state.n, iterations);

done:
  if (why[0])
    for (int k = 0; k < STREAM_KERNELS; k++)
      if (results[k]) bench_fail(results[k], "%s", why);
  stream_release(&state);
}
