// SPDX-License-Identifier: Apache-2.0
/* Buffers larger than the storage-buffer range. A storage-buffer descriptor
 * shows a kernel at most maxStorageBufferRange bytes (128 MiB on lavapipe);
 * past it reads return zeros and writes are dropped, silently. A launch
 * that binds a larger buffer therefore uses a variant of the kernel in
 * which those parameters are reached through their buffer device address
 * (GL_EXT_buffer_reference, kl_emit_glsl_variant), made on first use for
 * each set of such parameters and kept with the kernel; a device without
 * bufferDeviceAddress, or a native SPIR-V kernel, refuses the launch naming
 * the parameter, its size and the limit. Launches within the range keep
 * the plain bindings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulkan_build.h"
#include "vulkan_internal.h"

/* Indices into a buffer are 32-bit in the GLSL target, and a driver may
 * take them as signed (Mesa extends them with their sign to 64 bits for an
 * address): a buffer of more than 2^31 elements is refused on both paths. */
#define AGPU_VK_MAX_ELEMENTS (1ull << 31)

static agpu_status agpu_vk_over_range(agpu_kernel *kernel, uint32_t index, uint64_t size,
                                      const agpu_vk_device *device, const char *why) {
  const agpu_device_info *info = &kernel->program->device->info;
  bool lowered = device->max_storage_range < device->properties.limits.maxStorageBufferRange;
  return agpu_error_set(
      AGPU_ERROR_UNSUPPORTED,
      "agpu_launch: kernel '%s' argument %u ('%s') is a buffer of %llu bytes, over the %llu bytes "
      "one storage-buffer binding shows a kernel on %s (%s%s), and %s",
      kernel->info.name, index, kernel->params[index].name, (unsigned long long)size,
      (unsigned long long)device->max_storage_range, info->selector,
      lowered ? "ANYGPU_VULKAN_MAX_STORAGE_RANGE" : "maxStorageBufferRange",
      lowered ? ", lowered from maxStorageBufferRange" : "", why);
}

#ifdef AGPU_HAVE_GLSLANG
/* The base entry's kernel built again with `mask` by address. */
static agpu_status agpu_vk_variant_build(agpu_kernel *kernel, agpu_vk_kernel_entry *base,
                                         uint64_t mask, agpu_vk_kernel_entry **out) {
  agpu_vk_device *device = agpu_vk_device_of(kernel->program->device);
  const agpu_vk_program *vp = base->program;
  kl_context *ctx = kl_context_create();
  agpu_vk_kernel_entry *v = calloc(1, sizeof *v);
  if (!ctx || !v) {
    kl_context_destroy(ctx);
    free(v);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  }
  pthread_mutex_init(&v->lock, NULL);
  v->by_address = mask;
  v->program = base->program;
  kl_translate_options options =
      agpu_vk_translate_options(kernel->program->device, vp->source_name, vp->options);
  /* The headers are read again from the same directories (a header changed
   * since the build would change the variant too). */
  options.include_dirs = (const char *const *)vp->include_dirs;
  options.include_dir_count = (int)vp->include_dir_count;
  agpu_status status = AGPU_SUCCESS;
  const kl_function *fn = NULL;
  const kl_glsl_layout *layout = NULL;
  kl_program *parsed = kl_parse_program(ctx, vp->source, vp->source_size, &options);
  for (fn = parsed ? parsed->functions : NULL; fn; fn = fn->next)
    if (fn->is_kernel && fn->body && strcmp(fn->name, base->name) == 0) break;
  if (!fn || !kl_emit_glsl_variant(ctx, parsed, fn, mask, &layout) || !layout) {
    const char *text = kl_diagnostics_text(ctx);
    status = agpu_error_set(AGPU_ERROR_INTERNAL,
                            "agpu_launch: internal error: kernel '%s' built, but its variant with "
                            "buffers by address does not (please report it):\n%s",
                            base->name, text ? text : "");
  }
  if (status == AGPU_SUCCESS) status = agpu_vk_describe_kernel(ctx, fn, layout, v);
  const uint32_t *words = NULL;
  size_t size = 0;
  void *owned = NULL;
  if (status == AGPU_SUCCESS)
    status = agpu_vk_kernel_spirv(kernel->program, ctx, parsed, fn, options.build_options, mask,
                                  &words, &size, &owned);
  if (status == AGPU_SUCCESS) status = agpu_vk_kernel_objects(device, v, words, size);
  free(owned);
  kl_context_destroy(ctx);
  if (status != AGPU_SUCCESS) {
    agpu_vk_kernel_entry_destroy(device, v);
    free(v);
    return status;
  }
  *out = v;
  return AGPU_SUCCESS;
}
#endif

agpu_status agpu_vk_launch_entry(agpu_kernel *kernel, uint32_t nargs, const agpu_arg args[],
                                 agpu_vk_kernel_entry **entry) {
  agpu_vk_device *device = agpu_vk_device_of(kernel->program->device);
  agpu_vk_kernel_entry *base = kernel->native;
  *entry = base;
  uint64_t mask = 0;
  for (uint32_t i = 0; i < nargs; i++) {
    if (base->layout[i].kind != KL_GLSL_PARAM_BUFFER) continue;
    uint32_t element = base->layout[i].element_size ? base->layout[i].element_size : 1;
    bool translated = base->program && base->program->source; /* not native SPIR-V */
    if (translated && args[i].buffer->size / element > AGPU_VK_MAX_ELEMENTS)
      return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                            "agpu_launch: kernel '%s' argument %u ('%s') is a buffer of %llu "
                            "elements of %u bytes; the GLSL target indexes buffers with 32-bit "
                            "signed element indices, so at most 2^31 (%llu) elements",
                            kernel->info.name, i, kernel->params[i].name,
                            (unsigned long long)(args[i].buffer->size / element), element,
                            (unsigned long long)AGPU_VK_MAX_ELEMENTS);
    uint64_t size = (args[i].buffer->size + 3u) & ~(uint64_t)3u;
    if (size <= device->max_storage_range) continue;
    if (!device->buffer_address)
      return agpu_vk_over_range(kernel, i, args[i].buffer->size, device,
                                "the device has no bufferDeviceAddress to reach it by address");
    if (!translated)
      return agpu_vk_over_range(kernel, i, args[i].buffer->size, device,
                                "a native SPIR-V kernel reaches its buffers through bindings only");
    if (i >= 64)
      return agpu_vk_over_range(kernel, i, args[i].buffer->size, device,
                                "only the first 64 parameters can go by address");
    mask |= 1ull << i;
  }
  if (!mask) return AGPU_SUCCESS;
#ifndef AGPU_HAVE_GLSLANG
  return agpu_error_set(AGPU_ERROR_UNSUPPORTED, "agpu_launch: built without glslang");
#else
  pthread_mutex_lock(&base->lock);
  agpu_vk_kernel_entry *found = NULL;
  for (agpu_vk_kernel_entry *v = base->variants; v && !found; v = v->next_variant)
    if (v->by_address == mask) found = v;
  agpu_status status = AGPU_SUCCESS;
  if (!found) {
    status = agpu_vk_variant_build(kernel, base, mask, &found);
    if (status == AGPU_SUCCESS) {
      found->next_variant = base->variants;
      base->variants = found;
    }
  }
  pthread_mutex_unlock(&base->lock);
  if (status == AGPU_SUCCESS) *entry = found;
  return status;
#endif
}

void agpu_vk_variants_destroy(agpu_vk_device *device, agpu_vk_kernel_entry *entry) {
  agpu_vk_kernel_entry *v = entry->variants;
  while (v) {
    agpu_vk_kernel_entry *next = v->next_variant;
    agpu_vk_kernel_entry_destroy(device, v);
    free(v);
    v = next;
  }
  entry->variants = NULL;
}
