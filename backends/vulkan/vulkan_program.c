// SPDX-License-Identifier: Apache-2.0
/* agpu_program_build on Vulkan: the portable source goes through the
 * translator to GLSL 4.50 (one shader per kernel, kernels/glsl_layout.h)
 * and glslang to SPIR-V, which the kernel cache keeps; a kernel that needs
 * a feature the device lacks is refused here, naming both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_cache.h"
#include "vulkan_build.h"

/* The first feature the kernel needs that the device lacks, or NULL. */
static const char *agpu_vk_missing_feature(unsigned needs, unsigned has) {
  static const struct {
    unsigned bit;
    const char *what;
  } names[] = {
      {KL_GLSL_NEEDS_FP64, "64-bit floats (shaderFloat64)"},
      /* before INT64, which is set with it: the reason is size_t */
      {KL_GLSL_NEEDS_SIZE64,
       "64-bit integers (shaderInt64) for size_t and ptrdiff_t, which are 64-bit in the kernel "
       "language (get_global_id and the other work-item functions return size_t; convert "
       "their results to uint where 32 bits suffice)"},
      {KL_GLSL_NEEDS_INT64, "64-bit integers (shaderInt64)"},
      {KL_GLSL_NEEDS_INT8,
       "8-bit integers (shaderInt8, storageBuffer8BitAccess, "
       "storagePushConstant8)"},
      {KL_GLSL_NEEDS_INT16,
       "16-bit integers (shaderInt16, storageBuffer16BitAccess, "
       "storagePushConstant16)"},
      {KL_GLSL_NEEDS_INT64_ATOMICS,
       "64-bit atomics (shaderBufferInt64Atomics, "
       "shaderSharedInt64Atomics)"},
      {KL_GLSL_NEEDS_FP16, "16-bit floats (shaderFloat16, storageBuffer16BitAccess)"},
      {KL_GLSL_NEEDS_BUFFER_ADDRESS,
       "buffer device addresses (bufferDeviceAddress) for pointers stored in structs"},
      {KL_GLSL_NEEDS_FLOAT_CONTROLS,
       "IEEE infinities and NaNs in shaders (Vulkan 1.2 float controls, "
       "shaderSignedZeroInfNanPreserveFloat32)"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if ((needs & names[i].bit) && !(has & names[i].bit)) return names[i].what;
  return NULL;
}

/* The public signature and the GLSL layout of one kernel. */
agpu_status agpu_vk_describe_kernel(const agpu_kernel_signature *signature,
                                    const kl_glsl_layout *layout, agpu_vk_kernel_entry *entry) {
  agpu_copy_text(entry->name, sizeof entry->name, signature->name);
  entry->has_required_work_group_size = signature->has_required_work_group_size;
  memcpy(entry->required_work_group_size, signature->required_work_group_size,
         sizeof entry->required_work_group_size);
  uint32_t count = (uint32_t)layout->param_count;
  if (count > signature->param_count) count = signature->param_count;
  entry->param_count = count;
  entry->params = calloc(count ? count : 1, sizeof *entry->params);
  entry->layout = calloc(count ? count : 1, sizeof *entry->layout);
  if (!entry->params || !entry->layout)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  if (count) memcpy(entry->params, signature->params, count * sizeof *entry->params);
  for (uint32_t i = 0; i < count; i++) {
    const kl_glsl_param *lp = &layout->params[i];
    entry->layout[i] = (agpu_vk_param){.kind = lp->kind,
                                       .binding = lp->binding,
                                       .offset = lp->offset,
                                       .size = lp->size,
                                       .spec_id = lp->spec_id,
                                       .element_size = lp->element_size,
                                       .by_address = lp->by_address,
                                       .address_offset = lp->address_offset};
  }
  entry->buffer_count = layout->buffer_count;
  entry->block_size = layout->block_size;
  entry->block_in_buffer = layout->block_in_buffer;
  entry->block_binding = layout->block_binding;
  entry->local_param_count = layout->local_param_count;
  entry->static_local_bytes = signature->local_memory_bytes;
  return AGPU_SUCCESS;
}

/* A required work-group size past the device's limits cannot make a
 * pipeline (glslang refuses the shader): say the limit, as cpu:0 does. */
static agpu_status agpu_vk_check_required_size(const agpu_device_info *info,
                                               const agpu_kernel_signature *kernel) {
  if (!kernel->has_required_work_group_size) return AGPU_SUCCESS;
  const uint32_t *r = kernel->required_work_group_size;
  uint64_t items = (uint64_t)r[0] * r[1] * r[2];
  for (int d = 0; d < 3; d++)
    if (r[d] > info->max_work_item_sizes[d])
      return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                            "agpu_program_build: kernel '%s' requires work-groups of %ux%ux%u "
                            "(reqd_work_group_size): %u in dimension %d exceeds %s's limit of %zu",
                            kernel->name, r[0], r[1], r[2], r[d], d, info->selector,
                            (size_t)info->max_work_item_sizes[d]);
  if (items > info->max_work_group_size)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "agpu_program_build: kernel '%s' requires work-groups of %ux%ux%u "
                          "(reqd_work_group_size): %llu work-items exceed %s's limit of %zu",
                          kernel->name, r[0], r[1], r[2], (unsigned long long)items, info->selector,
                          (size_t)info->max_work_group_size);
  return AGPU_SUCCESS;
}

/* The kernel-cache key of one kernel's SPIR-V. */
static bool agpu_vk_spirv_key(const agpu_device *device, const agpu_parsed *parsed,
                              const char *kernel, uint64_t by_address,
                              char hex[AGPU_CACHE_KEY_HEX_SIZE]) {
  const agpu_device_info *info = &device->info;
  const char *preprocessed = agpu_parsed_preprocessed(parsed);
  agpu_cache_key key;
  agpu_cache_key_begin_device(&key, device, "spirv-1.3", preprocessed ? preprocessed : "",
                              agpu_parsed_options(parsed));
  agpu_cache_key_add_string(&key, "kernel", kernel);
  agpu_cache_key_add_u64(&key, "fp64", info->fp64);
  agpu_cache_key_add_u64(&key, "fp16", info->fp16);
  /* the traits the GLSL depends on beyond the device's name and driver */
  const agpu_translate_traits traits = agpu_parsed_traits(parsed);
  agpu_cache_key_add_u64(&key, "fused_fma_float", traits.fused_fma_float);
  agpu_cache_key_add_u64(&key, "f64_rounding_exact", traits.f64_rounding_exact);
  if (by_address) agpu_cache_key_add_u64(&key, "by_address", by_address);
  return agpu_cache_key_final(&key, hex) == AGPU_SUCCESS;
}

/* glslang's words for one kernel's GLSL. */
static agpu_status agpu_vk_compile_spirv(agpu_program *program, agpu_parsed *parsed,
                                         const char *kernel, uint64_t by_address, uint32_t **words,
                                         size_t *size) {
  char *glsl = NULL, *log = NULL;
  const kl_glsl_layout *layout = NULL;
  agpu_status status =
      agpu_parsed_emit_glsl(parsed, kernel, by_address,
                            "the GLSL emitter cannot translate this kernel", &glsl, &layout, &log);
  if (status != AGPU_SUCCESS) {
    if (log) {
      free(program->build_log);
      program->build_log = log;
    }
    return status;
  }
  size_t count = 0;
  status = agpu_glsl_to_spirv(glsl, words, &count, &log);
  free(glsl);
  if (status == AGPU_ERROR_OUT_OF_HOST_MEMORY)
    status = agpu_error_set(
        status, "agpu_program_build: out of host memory compiling kernel '%s' to SPIR-V: %s",
        kernel, log ? log : "");
  else if (status != AGPU_SUCCESS)
    status = agpu_error_set(AGPU_ERROR_INTERNAL,
                            "agpu_program_build: internal error: glslang rejects the GLSL the "
                            "translator made for kernel '%s' (please report it):\n%s",
                            kernel, log ? log : "");
  free(log);
  if (status == AGPU_SUCCESS) *size = count * sizeof **words;
  return status;
}

agpu_status agpu_vk_kernel_spirv(agpu_program *program, agpu_parsed *parsed,
                                 const agpu_kernel_signature *kernel, uint64_t by_address,
                                 uint32_t **words, size_t *size) {
  const agpu_device_info *info = &program->device->info;
  *words = NULL;
  *size = 0;
  agpu_status status = agpu_vk_check_required_size(info, kernel);
  if (status != AGPU_SUCCESS) return status;
  char hex[AGPU_CACHE_KEY_HEX_SIZE];
  bool have_key = agpu_vk_spirv_key(program->device, parsed, kernel->name, by_address, hex);
  void *cached = NULL;
  if (have_key && agpu_cache_lookup(hex, &cached, size) == AGPU_SUCCESS) {
    if (*size >= 20 && *size % 4 == 0 && ((const uint32_t *)cached)[0] == AGPU_SPIRV_MAGIC) {
      *words = cached;
      return AGPU_SUCCESS;
    }
    free(cached); /* not SPIR-V: compile again */
  }
  status = agpu_vk_compile_spirv(program, parsed, kernel->name, by_address, words, size);
  if (status == AGPU_SUCCESS && have_key)
    agpu_cache_store(hex, *words, *size); /* never fails the build */
  return status;
}

static void agpu_vk_program_free(agpu_vk_device *device, agpu_vk_program *vp) {
  if (!vp) return;
  for (uint32_t i = 0; i < vp->kernel_count; i++) {
    agpu_vk_variants_destroy(device, &vp->kernels[i]);
    agpu_vk_kernel_entry_destroy(device, &vp->kernels[i]);
  }
  free(vp->kernels);
  agpu_parsed_release(vp->parsed);
  free(vp);
}

void agpu_vk_translate_traits(agpu_device *device, agpu_translate_traits *traits) {
  /* GPUs compile GLSL fma to their fused instruction; lavapipe (a CPU
   * device) splits it into a multiply and an add */
  traits->fused_fma_float = device->info.type != AGPU_DEVICE_TYPE_CPU;
  traits->f64_rounding_exact = agpu_vk_f64_rounding_exact(device);
}

/* Whether the device can run the kernel: its GLSL (and layout), the
 * features it needs and its shared memory; AGPU_ERROR_UNSUPPORTED saying
 * why not, which refuses this kernel alone. */
static agpu_status agpu_vk_kernel_fits(agpu_program *program, agpu_vk_program *vp,
                                       const agpu_kernel_signature *kernel,
                                       const kl_glsl_layout **layout) {
  agpu_vk_device *device = agpu_vk_device_of(program->device);
  const agpu_device_info *info = &program->device->info;
  agpu_status status =
      agpu_parsed_emit_glsl(vp->parsed, kernel->name, 0,
                            "the GLSL emitter cannot translate this kernel", NULL, layout, NULL);
  if (status != AGPU_SUCCESS) return status;
  const char *missing = agpu_vk_missing_feature((*layout)->capabilities, device->capabilities);
  if (missing)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "agpu_program_build: kernel '%s' needs %s, which %s (%s) lacks",
                          kernel->name, missing, info->selector, info->name);
  if (kernel->local_memory_bytes > info->local_mem_bytes)
    return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                          "agpu_program_build: kernel '%s' needs %u bytes of shared memory "
                          "for its __local arrays; %s (%s) has %llu",
                          kernel->name, kernel->local_memory_bytes, info->selector, info->name,
                          (unsigned long long)info->local_mem_bytes);
  return AGPU_SUCCESS;
}

/* The storage bindings a layout's shader declares (agpu_vk_storage_bindings). */
static uint32_t agpu_vk_layout_bindings(const kl_glsl_layout *layout) {
  uint32_t bindings = layout->block_in_buffer ? 1 : 0;
  for (int i = 0; i < layout->param_count; i++)
    if (layout->params[i].kind == KL_GLSL_PARAM_BUFFER && !layout->params[i].by_address) bindings++;
  return bindings;
}

/* A kernel with more buffers than the device binds per shader (Rodinia's
 * heartwall: 32 and its parameter block, where lavapipe binds 32): its last
 * buffers go by address (GL_EXT_buffer_reference), as few as make the rest
 * fit; *layout becomes that variant's. 0 when all fit, or nothing helps
 * (then the pipeline's check says why). */
static uint64_t agpu_vk_address_mask(agpu_vk_device *device, agpu_vk_program *vp,
                                     const agpu_kernel_signature *kernel,
                                     const kl_glsl_layout **layout) {
  if (agpu_vk_layout_bindings(*layout) <= device->max_storage_buffers || !device->buffer_address)
    return 0;
  uint64_t mask = 0;
  for (int i = (*layout)->param_count - 1; i >= 0; i--) {
    if ((*layout)->params[i].kind != KL_GLSL_PARAM_BUFFER || i >= 64) continue;
    mask |= 1ull << i;
    const kl_glsl_layout *variant = NULL;
    if (agpu_parsed_emit_glsl(vp->parsed, kernel->name, mask, "the variant", NULL, &variant,
                              NULL) != AGPU_SUCCESS)
      return 0;
    if (agpu_vk_layout_bindings(variant) <= device->max_storage_buffers) {
      *layout = variant;
      return mask;
    }
  }
  return 0;
}

/* One kernel that fits: its SPIR-V and pipeline objects. */
static agpu_status agpu_vk_build_kernel(agpu_program *program, agpu_vk_program *vp,
                                        const agpu_kernel_signature *kernel,
                                        const kl_glsl_layout *layout) {
  agpu_vk_device *device = agpu_vk_device_of(program->device);
  agpu_vk_kernel_entry *entry = &vp->kernels[vp->kernel_count++];
  pthread_mutex_init(&entry->lock, NULL);
  entry->program = vp;
  uint64_t mask = agpu_vk_address_mask(device, vp, kernel, &layout);
  entry->by_address = mask;
  agpu_status status = agpu_vk_describe_kernel(kernel, layout, entry);
  uint32_t *words = NULL;
  size_t size = 0;
  if (status == AGPU_SUCCESS)
    status = agpu_vk_kernel_spirv(program, vp->parsed, kernel, mask, &words, &size);
  if (status == AGPU_SUCCESS) status = agpu_vk_kernel_objects(device, entry, words, size);
  free(words);
  return status;
}

/* Every kernel that fits; one that does not is refused alone (issue 18),
 * unless none fits. */
static agpu_status agpu_vk_build_kernels(agpu_program *program, agpu_vk_program *vp) {
  const agpu_program_signatures *signatures = agpu_parsed_signatures(vp->parsed);
  agpu_status status = AGPU_SUCCESS;
  for (uint32_t i = 0; i < signatures->kernel_count && status == AGPU_SUCCESS; i++) {
    const agpu_kernel_signature *kernel = &signatures->kernels[i];
    const kl_glsl_layout *layout = NULL;
    status = agpu_vk_kernel_fits(program, vp, kernel, &layout);
    if (status == AGPU_ERROR_UNSUPPORTED)
      status = agpu_program_refuse_kernel(program, kernel->name, status, agpu_last_error());
    else if (status == AGPU_SUCCESS)
      status = agpu_vk_build_kernel(program, vp, kernel, layout);
  }
  if (status == AGPU_SUCCESS && vp->kernel_count == 0 && program->refusals)
    status = agpu_program_refused_all(program);
  return status;
}

agpu_status agpu_vk_program_build(agpu_program *program, const agpu_program_desc *desc) {
  (void)desc; /* the core parsed it: program->parsed */
#ifndef AGPU_HAVE_GLSLANG
  return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                        "agpu_program_build: %s needs GLSL compiled to SPIR-V, and anygpu was "
                        "built without glslang (install glslang-dev and reconfigure)",
                        program->device->info.selector);
#else
  agpu_vk_device *device = agpu_vk_device_of(program->device);
  agpu_vk_program *vp = calloc(1, sizeof *vp);
  if (!vp) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  vp->parsed = agpu_parsed_retain(program->parsed);
  const agpu_program_signatures *signatures = agpu_parsed_signatures(vp->parsed);
  vp->kernels =
      calloc(signatures->kernel_count ? signatures->kernel_count : 1, sizeof *vp->kernels);
  agpu_status status =
      vp->kernels ? AGPU_SUCCESS
                  : agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  if (status == AGPU_SUCCESS) status = agpu_vk_build_kernels(program, vp);
  if (status == AGPU_SUCCESS) status = agpu_vk_check_validation(device, "agpu_program_build");
  if (status == AGPU_SUCCESS)
    program->native = vp;
  else
    agpu_vk_program_free(device, vp);
  return status;
#endif
}

static void agpu_vk_program_destroy(agpu_vk_device *device, void *object) {
  agpu_vk_program_free(device, object);
}

void agpu_vk_program_release(agpu_program *program) {
  if (program->native)
    agpu_vk_defer(agpu_vk_device_of(program->device), agpu_vk_program_destroy, program->native);
  program->native = NULL;
}

agpu_status agpu_vk_kernel_create(agpu_kernel *kernel, const char *name) {
  agpu_vk_program *vp = kernel->program->native;
  const agpu_device_info *info = &kernel->program->device->info;
  for (uint32_t i = 0; i < vp->kernel_count; i++) {
    agpu_vk_kernel_entry *entry = &vp->kernels[i];
    if (strcmp(entry->name, name) != 0) continue;
    kernel->params = malloc((entry->param_count ? entry->param_count : 1) * sizeof *kernel->params);
    if (!kernel->params)
      return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
    memcpy(kernel->params, entry->params, entry->param_count * sizeof *kernel->params);
    kernel->info.param_count = entry->param_count;
    kernel->info.has_required_work_group_size = entry->has_required_work_group_size;
    memcpy(kernel->info.required_work_group_size, entry->required_work_group_size,
           sizeof entry->required_work_group_size);
    kernel->info.max_work_group_size = info->max_work_group_size;
    kernel->native = entry;
    return AGPU_SUCCESS;
  }
  agpu_error_set(AGPU_ERROR_NOT_FOUND, "agpu_kernel_create: the program on %s has no kernel '%s'",
                 info->selector, name);
  if (vp->kernel_count) agpu_error_append("; it has:");
  for (uint32_t i = 0; i < vp->kernel_count; i++) agpu_error_append(" %s", vp->kernels[i].name);
  return AGPU_ERROR_NOT_FOUND;
}

char *agpu_vk_program_kernel_names(const agpu_program *program) {
  const agpu_vk_program *vp = program->native;
  if (!vp) return NULL;
  return agpu_join_kernel_names(vp->kernel_count ? vp->kernels[0].name : NULL, vp->kernel_count,
                                sizeof *vp->kernels);
}

void agpu_vk_kernel_release(agpu_kernel *kernel) {
  kernel->native = NULL; /* the entry belongs to the program */
}
