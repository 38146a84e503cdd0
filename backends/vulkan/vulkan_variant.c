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
/* The base entry's kernel emitted again, from the program's parse, with
 * `mask` by address. */
static agpu_status agpu_vk_variant_build(agpu_kernel *kernel, agpu_vk_kernel_entry *base,
                                         uint64_t mask, agpu_vk_kernel_entry **out) {
  agpu_vk_device *device = agpu_vk_device_of(kernel->program->device);
  agpu_parsed *parsed = base->program->parsed;
  const agpu_kernel_signature *signature =
      agpu_signatures_find(agpu_parsed_signatures(parsed), base->name);
  agpu_vk_kernel_entry *v = calloc(1, sizeof *v);
  if (!v) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  pthread_mutex_init(&v->lock, NULL);
  v->by_address = mask;
  v->program = base->program;
  const kl_glsl_layout *layout = NULL;
  char *log = NULL;
  agpu_status status = signature ? agpu_parsed_emit_glsl(parsed, base->name, mask, "the variant",
                                                         NULL, &layout, &log)
                                 : AGPU_ERROR_INTERNAL;
  if (status != AGPU_SUCCESS)
    status = agpu_error_set(AGPU_ERROR_INTERNAL,
                            "agpu_launch: internal error: kernel '%s' built, but its variant with "
                            "buffers by address does not (please report it):\n%s",
                            base->name, log ? log : "");
  free(log);
  if (status == AGPU_SUCCESS) status = agpu_vk_describe_kernel(signature, layout, v);
  uint32_t *words = NULL;
  size_t size = 0;
  if (status == AGPU_SUCCESS)
    status = agpu_vk_kernel_spirv(kernel->program, parsed, signature, mask, &words, &size);
  if (status == AGPU_SUCCESS) status = agpu_vk_kernel_objects(device, v, words, size);
  free(words);
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
  uint64_t mask = base->by_address; /* what goes by address anyway (too many buffers) */
  for (uint32_t i = 0; i < nargs; i++) {
    if (base->layout[i].kind != KL_GLSL_PARAM_BUFFER) continue;
    uint32_t element = base->layout[i].element_size ? base->layout[i].element_size : 1;
    bool translated = base->program && base->program->parsed; /* not native SPIR-V */
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
  if (mask == base->by_address) return AGPU_SUCCESS;
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
