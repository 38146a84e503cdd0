// SPDX-License-Identifier: Apache-2.0
/* Launch validation: every launch is checked against the kernel's parameters
 * and the device's limits before the backend sees it, so that a mistake gets
 * a message naming the argument instead of a native error code or a crash. */
#include <stdio.h>
#include <stdlib.h>

#include "agpu_check.h"
#include "agpu_core.h"
#include "agpu_printf.h"
#include "agpu_trace.h"

static const char agpu_launch_name[] = "agpu_launch";

static const char *agpu_param_kind_text(agpu_param_kind kind) {
  switch (kind) {
    case AGPU_PARAM_GLOBAL_BUFFER:
      return "__global";
    case AGPU_PARAM_CONSTANT_BUFFER:
      return "__constant";
    case AGPU_PARAM_LOCAL:
      return "__local";
    case AGPU_PARAM_SCALAR:
      return "value";
    case AGPU_PARAM_UNKNOWN:
      break;
  }
  return "unknown";
}

static const char *agpu_arg_kind_text(agpu_arg_kind kind) {
  switch (kind) {
    case AGPU_ARG_BUFFER:
      return "a buffer";
    case AGPU_ARG_VALUE:
      return "a value";
    case AGPU_ARG_LOCAL:
      return "local memory";
  }
  return "an unknown argument kind";
}

/* "argument 2 ('a', float)" */
static void agpu_describe_param(const agpu_kernel *kernel, uint32_t index, char *out, size_t cap) {
  const agpu_kernel_param *param = &kernel->params[index];
  if (param->name[0] || param->type_name[0])
    snprintf(out, cap, "argument %u ('%s', %s %s)", index, param->name,
             agpu_param_kind_text(param->kind), param->type_name);
  else
    snprintf(out, cap, "argument %u", index);
}

/* The bytes an argument asks for: agpu_arg_value and agpu_arg_local keep a
 * size that does not fit `size` in value.u64 (anygpu.h). */
static uint64_t agpu_arg_bytes(const agpu_arg *arg) {
  return arg->size == UINT32_MAX && arg->value.u64 ? arg->value.u64 : arg->size;
}

/* Checks one argument; a buffer argument's handle is resolved into
 * `resolved`, the copy the backend sees. The argument is described only
 * when something is wrong: this runs on every launch. */
static agpu_status agpu_check_arg(agpu_kernel *kernel, uint32_t index, const agpu_arg *arg,
                                  agpu_arg *resolved, uint64_t *local_bytes) {
  char what[200];
#define AGPU_WHAT() (agpu_describe_param(kernel, index, what, sizeof what), what)
  const agpu_kernel_param *param = &kernel->params[index];
  const agpu_device *device = kernel->program->device;
  if ((unsigned)arg->kind > AGPU_ARG_LOCAL)
    return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH, "%s: kernel '%s' %s: unknown argument kind %d",
                          agpu_launch_name, kernel->info.name, AGPU_WHAT(), (int)arg->kind);
  agpu_arg_kind expected = arg->kind;
  switch (param->kind) {
    case AGPU_PARAM_GLOBAL_BUFFER:
    case AGPU_PARAM_CONSTANT_BUFFER:
      expected = AGPU_ARG_BUFFER;
      break;
    case AGPU_PARAM_SCALAR:
      expected = AGPU_ARG_VALUE;
      break;
    case AGPU_PARAM_LOCAL:
      expected = AGPU_ARG_LOCAL;
      break;
    case AGPU_PARAM_UNKNOWN:
      break;
  }
  if (arg->kind != expected)
    return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH, "%s: kernel '%s' %s expects %s, got %s",
                          agpu_launch_name, kernel->info.name, AGPU_WHAT(),
                          agpu_arg_kind_text(expected), agpu_arg_kind_text(arg->kind));
  switch (arg->kind) {
    case AGPU_ARG_BUFFER: {
      /* pinned: a release on another thread frees it after the launch */
      agpu_buffer *buffer;
      agpu_status status =
          agpu_lookup_buffer_pinned(arg->buffer, agpu_launch_name, "buffer", &buffer);
      if (status != AGPU_SUCCESS) {
        /* Again, to name the argument in the message (not pinned: it failed). */
        char argument[400];
        snprintf(argument, sizeof argument, "kernel '%s' %s's buffer", kernel->info.name,
                 AGPU_WHAT());
        agpu_status again = agpu_lookup_buffer(arg->buffer, agpu_launch_name, argument, &buffer);
        return again == AGPU_SUCCESS ? status : again;
      }
      if (buffer->device != device) {
        agpu_buffer_unpin(buffer);
        return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                              "%s: kernel '%s' %s: the buffer is on %s but the kernel on %s",
                              agpu_launch_name, kernel->info.name, AGPU_WHAT(),
                              buffer->device->info.selector, device->info.selector);
      }
      resolved->buffer = buffer;
      break;
    }
    case AGPU_ARG_VALUE:
      if (arg->size == 0 || arg->size > AGPU_ARG_MAX_VALUE_SIZE)
        return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                              "%s: kernel '%s' %s: value size %llu (must be 1 to %d bytes)",
                              agpu_launch_name, kernel->info.name, AGPU_WHAT(),
                              (unsigned long long)agpu_arg_bytes(arg), AGPU_ARG_MAX_VALUE_SIZE);
      if (param->size && arg->size != param->size)
        return agpu_error_set(
            AGPU_ERROR_INVALID_LAUNCH, "%s: kernel '%s' %s takes a %u-byte value, got %u bytes",
            agpu_launch_name, kernel->info.name, AGPU_WHAT(), param->size, arg->size);
      break;
    case AGPU_ARG_LOCAL:
      if (arg->size == 0)
        return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                              "%s: kernel '%s' %s: local memory size is 0", agpu_launch_name,
                              kernel->info.name, AGPU_WHAT());
      /* saturating: several sizes near 2^64 must not wrap to a small sum */
      if (__builtin_add_overflow(*local_bytes, agpu_arg_bytes(arg), local_bytes))
        *local_bytes = UINT64_MAX;
      break;
  }
#undef AGPU_WHAT
  return AGPU_SUCCESS;
}

/* Checks the arguments and resolves their buffers into `resolved`, pinned;
 * *pinned counts the leading arguments whose buffers are (whatever the
 * outcome, the caller unpins those). */
static agpu_status agpu_check_args(agpu_kernel *kernel, uint32_t nargs, const agpu_arg args[],
                                   agpu_arg resolved[], uint32_t *pinned) {
  const agpu_kernel_info *info = &kernel->info;
  if (nargs && !args)
    return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH, "%s: args is NULL with nargs %u",
                          agpu_launch_name, nargs);
  if (nargs != info->param_count) {
    char what[200] = "";
    uint32_t first = nargs < info->param_count ? nargs : info->param_count;
    if (nargs < info->param_count) agpu_describe_param(kernel, first, what, sizeof what);
    return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                          "%s: kernel '%s' takes %u arguments, %u given%s%s%s", agpu_launch_name,
                          info->name, info->param_count, nargs, what[0] ? ": " : "", what,
                          what[0] ? " is missing" : "");
  }
  uint64_t local_bytes = 0, param_bytes = 0;
  for (uint32_t i = 0; i < nargs; i++) {
    resolved[i] = args[i];
    agpu_status status = agpu_check_arg(kernel, i, &args[i], &resolved[i], &local_bytes);
    if (status != AGPU_SUCCESS) return status;
    *pinned = i + 1;
    param_bytes += args[i].kind == AGPU_ARG_VALUE ? args[i].size : 8u;
  }
  const agpu_device_info *device = &kernel->program->device->info;
  /* OpenCL's CL_DEVICE_MAX_PARAMETER_SIZE, counted as OpenCL C does: each
   * value its size, each buffer or __local pointer 8 bytes */
  if (device->max_param_bytes && param_bytes > device->max_param_bytes)
    return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                          "%s: kernel '%s' takes %llu bytes of arguments (8 per buffer or __local "
                          "pointer); %s allows %u (max_param_bytes)",
                          agpu_launch_name, info->name, (unsigned long long)param_bytes,
                          device->selector, device->max_param_bytes);
  if (device->local_mem_bytes && local_bytes > device->local_mem_bytes)
    return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                          "%s: kernel '%s' asks for %llu bytes of local memory; %s has %llu",
                          agpu_launch_name, info->name, (unsigned long long)local_bytes,
                          device->selector, (unsigned long long)device->local_mem_bytes);
  return AGPU_SUCCESS;
}

/* `size` lowered to the device's and the kernel's work-group limits. */
static size_t agpu_local_limit(const agpu_kernel *kernel, size_t size) {
  const agpu_device_info *di = &kernel->program->device->info;
  if (di->max_work_group_size && di->max_work_group_size < size) size = di->max_work_group_size;
  if (di->max_work_item_sizes[0] && di->max_work_item_sizes[0] < size)
    size = di->max_work_item_sizes[0];
  if (kernel->info.max_work_group_size && kernel->info.max_work_group_size < size)
    size = kernel->info.max_work_group_size;
  return size;
}

/* With no local size given (docs/api.md, "Launch"): the kernel's required
 * size; else, in dimension 0, a power of two suited to the device (256
 * work-items on a GPU, 64 on a CPU, at least the largest subgroup size it
 * reports, within the limits) and 1 in the others. A global size up to that
 * is one group of exactly that size. Otherwise, where the backend runs a
 * smaller last group (for this kind of program: translated or native),
 * that group holds the rest; elsewhere the largest
 * divisor of the global size up to 256 (or the preferred size, if larger;
 * within the limits). Returns whether the last group may be partial. */
static bool agpu_choose_local(const agpu_kernel *kernel, uint32_t dims, const size_t global[3],
                              size_t local[3]) {
  const agpu_kernel_info *info = &kernel->info;
  (void)dims;
  if (info->has_required_work_group_size) {
    for (uint32_t d = 0; d < 3; d++) local[d] = info->required_work_group_size[d];
    return false;
  }
  const agpu_device *device = kernel->program->device;
  const agpu_device_info *di = &device->info;
  size_t preferred = di->type == AGPU_DEVICE_TYPE_CPU ? 64 : 256;
  for (int i = 0; i < 4; i++)
    if (di->subgroup_sizes[i] > preferred) preferred = di->subgroup_sizes[i];
  size_t limit = agpu_local_limit(kernel, preferred);
  size_t size = 1;
  while (size * 2 <= limit) size *= 2;
  for (uint32_t d = 1; d < 3; d++) local[d] = 1;
  if (global[0] <= limit) {
    local[0] = global[0]; /* one group */
    return false;
  }
  local[0] = size;
  if (global[0] % size == 0) return false;
  const agpu_backend_ops *ops = device->backend->ops;
  uint32_t caps = ops->device_caps ? ops->device_caps((agpu_device *)device) : 0;
  if ((caps & AGPU_CAP_NONUNIFORM_GROUPS) &&
      (!kernel->program->from_native || (caps & AGPU_CAP_NONUNIFORM_NATIVE)))
    return true;
  /* uniform groups only: the largest divisor (250 for 1000, 1 for a prime) */
  for (size_t candidate = agpu_local_limit(kernel, preferred > 256 ? preferred : 256);
       candidate >= 1; candidate--)
    if (global[0] % candidate == 0) {
      local[0] = candidate;
      break;
    }
  return false;
}

static agpu_status agpu_check_sizes(const agpu_kernel *kernel, uint32_t dims,
                                    const size_t global[3], const size_t local[3], bool partial) {
  const agpu_device_info *device = &kernel->program->device->info;
  const agpu_kernel_info *info = &kernel->info;
  uint64_t group_items = 1;
  for (uint32_t d = 0; d < 3; d++) {
    if (global[d] == 0)
      return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                            "%s: kernel '%s': the global size in dimension %u is 0; "
                            "each dimension needs at least one work-item (unused ones: 1)",
                            agpu_launch_name, info->name, d);
    if (local[d] == 0)
      return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                            "%s: kernel '%s': the local size in dimension %u is 0; "
                            "a work-group needs at least one work-item in each dimension",
                            agpu_launch_name, info->name, d);
    if (d >= dims && (global[d] != 1 || local[d] != 1))
      return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                            "%s: kernel '%s': dimension %u is used but dims is %u",
                            agpu_launch_name, info->name, d, dims);
    if (device->max_work_item_sizes[d] && local[d] > device->max_work_item_sizes[d])
      return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                            "%s: kernel '%s': local size %zu in dimension %u exceeds %s's "
                            "limit of %u",
                            agpu_launch_name, info->name, local[d], d, device->selector,
                            device->max_work_item_sizes[d]);
    if (global[d] % local[d] && !(partial && d == 0))
      return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                            "%s: kernel '%s': global size %zu in dimension %u is not a multiple "
                            "of the local size %zu (round it up and guard the index)",
                            agpu_launch_name, info->name, global[d], d, local[d]);
    uint64_t groups = global[d] / local[d] + (global[d] % local[d] != 0);
    if (device->max_work_groups[d] && groups > device->max_work_groups[d])
      return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                            "%s: kernel '%s': global size %zu in dimension %u needs %llu "
                            "work-groups of %zu; %s allows %llu",
                            agpu_launch_name, info->name, global[d], d, (unsigned long long)groups,
                            local[d], device->selector,
                            (unsigned long long)device->max_work_groups[d]);
    if (info->has_required_work_group_size && local[d] != info->required_work_group_size[d])
      return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                            "%s: kernel '%s' requires work-groups of %ux%ux%u, got %zux%zux%zu",
                            agpu_launch_name, info->name, info->required_work_group_size[0],
                            info->required_work_group_size[1], info->required_work_group_size[2],
                            local[0], local[1], local[2]);
    group_items *= local[d];
  }
  /* Each dimension is within its limits; their product must be too: a
   * backend counts work-items and groups in size_t, where a total of 2^64
   * or more wraps (to one work-item, or none). The groups number no more
   * than the work-items, so this bounds both. */
  size_t total = global[0], rest = 0;
  if (__builtin_mul_overflow(total, global[1], &rest) ||
      __builtin_mul_overflow(rest, global[2], &total))
    return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                          "%s: kernel '%s': global size %zux%zux%zu is more work-items than a "
                          "launch can count: the product of the dimensions must be at most "
                          "2^%u - 1 (%zu)",
                          agpu_launch_name, info->name, global[0], global[1], global[2],
                          (unsigned)(sizeof(size_t) * 8), (size_t)SIZE_MAX);
  if (device->max_work_group_size && group_items > device->max_work_group_size)
    return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                          "%s: kernel '%s': work-group of %llu work-items exceeds %s's limit of %u",
                          agpu_launch_name, info->name, (unsigned long long)group_items,
                          device->selector, device->max_work_group_size);
  if (info->max_work_group_size && group_items > info->max_work_group_size)
    return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH,
                          "%s: kernel '%s': work-group of %llu work-items exceeds this kernel's "
                          "limit of %u on %s",
                          agpu_launch_name, info->name, (unsigned long long)group_items,
                          info->max_work_group_size, device->selector);
  return AGPU_SUCCESS;
}

/* Arguments up to this many are resolved on the stack. */
#define AGPU_LAUNCH_STACK_ARGS 16

AGPU_API agpu_status agpu_launch(agpu_queue *queue_handle, agpu_kernel *kernel_handle,
                                 uint32_t dims, const size_t global[], const size_t local[],
                                 uint32_t nargs, const agpu_arg args[]) {
  agpu_kernel *kernel;
  agpu_queue *queue;
  agpu_status status = agpu_lookup_kernel(kernel_handle, agpu_launch_name, "kernel", &kernel);
  if (status != AGPU_SUCCESS) return status;
  agpu_device *device = kernel->program->device;
  if (queue_handle)
    status = agpu_lookup_queue(queue_handle, agpu_launch_name, "queue", &queue);
  else
    status = agpu_device_default_queue_object(device, &queue);
  if (status != AGPU_SUCCESS) return status;
  if (queue->device != device)
    return agpu_error_set(
        AGPU_ERROR_INVALID_LAUNCH, "%s: kernel '%s' was built for %s but the queue is on %s",
        agpu_launch_name, kernel->info.name, device->info.selector, queue->device->info.selector);
  if (dims < 1 || dims > 3)
    return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH, "%s: kernel '%s': dims is %u (must be 1 to 3)",
                          agpu_launch_name, kernel->info.name, dims);
  if (!global)
    return agpu_error_set(AGPU_ERROR_INVALID_LAUNCH, "%s: kernel '%s': global is NULL",
                          agpu_launch_name, kernel->info.name);
  size_t global3[3] = {1, 1, 1}, local3[3] = {1, 1, 1};
  for (uint32_t d = 0; d < dims; d++) global3[d] = global[d];
  bool partial = false;
  if (local)
    for (uint32_t d = 0; d < dims; d++) local3[d] = local[d];
  else
    partial = agpu_choose_local(kernel, dims, global3, local3);
  status = agpu_check_sizes(kernel, dims, global3, local3, partial);
  if (status != AGPU_SUCCESS) return status;
  /* The backend gets the arguments with buffers resolved to objects. */
  agpu_arg stack[AGPU_LAUNCH_STACK_ARGS];
  agpu_arg *resolved = stack;
  /* two more for the hidden printf and check buffers */
  if (nargs + 2 > AGPU_LAUNCH_STACK_ARGS && args && nargs == kernel->info.param_count) {
    resolved = malloc((nargs + 2) * sizeof *resolved);
    if (!resolved)
      return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY,
                            "%s: out of host memory for %u arguments", agpu_launch_name, nargs);
  }
  uint32_t pinned = 0;
  status = agpu_check_args(kernel, nargs, args, resolved, &pinned);
  /* a checked launch that cannot fault runs the build without checks */
  agpu_kernel *run = kernel;
  if (status == AGPU_SUCCESS && kernel->proof &&
      agpu_check_proof_holds(kernel->proof, global3, local3, resolved, nargs)) {
    agpu_kernel *unchecked = agpu_kernel_unchecked(kernel);
    if (unchecked) run = unchecked;
  }
  agpu_printf_launch *printing = NULL;
  uint32_t hidden = 0;
  if (status == AGPU_SUCCESS && (run->printf || run->checks))
    status = agpu_printf_prepare(queue, run, resolved, nargs, &resolved[nargs], &hidden, &printing);
  if (status == AGPU_SUCCESS) {
    agpu_trace_span span;
    AGPU_TRACE_BEGIN(&span, queue);
    status = agpu_error_prefix(
        device->backend->ops->launch(queue, run, dims, global3, local3, nargs + hidden, resolved),
        agpu_launch_name);
    AGPU_TRACE_END(&span, status, .kind = AGPU_TRACE_LAUNCH, .device = device, .queue = queue,
                   .name = kernel->info.name, .dims = dims, .global = global3, .local = local3,
                   .bounds = kernel->checks ? (run != kernel ? 2 : 1) : 0);
  }
  if (printing) agpu_printf_launched(queue, printing, status);
  for (uint32_t i = 0; i < pinned; i++)
    if (resolved[i].kind == AGPU_ARG_BUFFER) agpu_buffer_unpin(resolved[i].buffer);
  if (resolved != stack) free(resolved);
  return status;
}
