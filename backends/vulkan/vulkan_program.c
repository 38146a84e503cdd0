// SPDX-License-Identifier: Apache-2.0
/* agpu_program_build on Vulkan: the portable source goes through the
 * translator to GLSL 4.50 (one shader per kernel, kernels/glsl_layout.h)
 * and glslang to SPIR-V, which the kernel cache keeps; a kernel that needs
 * a feature the device lacks is refused here, naming both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_cache.h"
#include "glsl_layout.h"
#include "translate.h"
#include "vulkan_build.h"
#include "vulkan_internal.h"
#include "agpu_signature.h"
#ifdef AGPU_HAVE_GLSLANG
#include "spirv.h"
#endif

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
      {KL_GLSL_NEEDS_FLOAT_CONTROLS,
       "IEEE infinities and NaNs in shaders (Vulkan 1.2 float controls, "
       "shaderSignedZeroInfNanPreserveFloat32)"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if ((needs & names[i].bit) && !(has & names[i].bit)) return names[i].what;
  return NULL;
}

/* The public signature and the GLSL layout of one kernel. */
agpu_status agpu_vk_describe_kernel(kl_context *ctx, const kl_function *fn,
                                    const kl_glsl_layout *layout, agpu_vk_kernel_entry *entry) {
  agpu_copy_text(entry->name, sizeof entry->name, fn->name);
  entry->has_required_work_group_size = fn->has_required_work_group_size;
  memcpy(entry->required_work_group_size, fn->required_work_group_size,
         sizeof entry->required_work_group_size);
  uint32_t count = (uint32_t)layout->param_count;
  entry->param_count = count;
  entry->params = calloc(count ? count : 1, sizeof *entry->params);
  entry->layout = calloc(count ? count : 1, sizeof *entry->layout);
  if (!entry->params || !entry->layout)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  uint32_t i = 0;
  for (const kl_variable *p = fn->params; p && i < count; p = p->next, i++) {
    agpu_param_from_variable(ctx, p, &entry->params[i]);
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
  entry->static_local_bytes = fn->local_memory_bytes;
  return AGPU_SUCCESS;
}

static agpu_status agpu_vk_build_failed(agpu_program *program, kl_context *ctx, agpu_status status,
                                        const char *what, const char *kernel) {
  const char *text = kl_diagnostics_text(ctx);
  free(program->build_log);
  program->build_log = agpu_strdup(text ? text : "");
  return agpu_error_set(status, "agpu_program_build: %s%s%s%s for %s:\n%s", what,
                        kernel ? " (kernel '" : "", kernel ? kernel : "", kernel ? "')" : "",
                        program->device->info.selector, text ? text : "");
}

#ifdef AGPU_HAVE_GLSLANG
agpu_status agpu_vk_kernel_spirv(agpu_program *program, kl_context *ctx, const kl_program *parsed,
                                 const kl_function *fn, const char *options, uint64_t by_address,
                                 const uint32_t **words, size_t *size, void **owned) {
  const agpu_device_info *info = &program->device->info;
  /* A required work-group size past the device's limits cannot make a
   * pipeline (glslang refuses the shader): say the limit, as cpu:0 does. */
  if (fn->has_required_work_group_size) {
    const uint32_t *r = fn->required_work_group_size;
    uint64_t items = (uint64_t)r[0] * r[1] * r[2];
    for (int d = 0; d < 3; d++)
      if (r[d] > info->max_work_item_sizes[d])
        return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                              "agpu_program_build: kernel '%s' requires work-groups of %ux%ux%u "
                              "(reqd_work_group_size): %u in dimension %d exceeds %s's limit of "
                              "%zu",
                              fn->name, r[0], r[1], r[2], r[d], d, info->selector,
                              (size_t)info->max_work_item_sizes[d]);
    if (items > info->max_work_group_size)
      return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                            "agpu_program_build: kernel '%s' requires work-groups of %ux%ux%u "
                            "(reqd_work_group_size): %llu work-items exceed %s's limit of %zu",
                            fn->name, r[0], r[1], r[2], (unsigned long long)items, info->selector,
                            (size_t)info->max_work_group_size);
  }
  const char *preprocessed = kl_preprocessed_text(ctx);
  agpu_cache_key key;
  agpu_cache_key_fields fields = {
      .source = preprocessed ? preprocessed : "",
      .options = options,
      .translator_version = KL_TRANSLATOR_VERSION,
      .backend = "vulkan",
      .target = "spirv-1.3",
      .device_name = info->name,
      .driver_version = info->driver_version,
  };
  char hex[AGPU_CACHE_KEY_HEX_SIZE];
  agpu_cache_key_begin(&key, &fields);
  agpu_cache_key_add_string(&key, "kernel", fn->name);
  agpu_cache_key_add_u64(&key, "fp64", info->fp64);
  agpu_cache_key_add_u64(&key, "fp16", info->fp16);
  /* the traits the GLSL depends on beyond the device's name and driver */
  const kl_device_traits traits = kl_context_traits(ctx);
  agpu_cache_key_add_u64(&key, "fused_fma_float", traits.fused_fma_float);
  agpu_cache_key_add_u64(&key, "f64_rounding_exact", traits.f64_rounding_exact);
  if (by_address) agpu_cache_key_add_u64(&key, "by_address", by_address);
  bool have_key = agpu_cache_key_final(&key, hex) == AGPU_SUCCESS;
  *owned = NULL;
  if (have_key && agpu_cache_lookup(hex, owned, size) == AGPU_SUCCESS) {
    if (*size >= 20 && *size % 4 == 0 && ((const uint32_t *)*owned)[0] == KL_SPIRV_MAGIC) {
      *words = *owned;
      return AGPU_SUCCESS;
    }
    free(*owned); /* not SPIR-V: compile again */
    *owned = NULL;
  }
  const char *glsl = kl_emit_glsl_variant(ctx, parsed, fn, by_address, NULL);
  if (!glsl)
    return agpu_vk_build_failed(program, ctx, AGPU_ERROR_UNSUPPORTED,
                                "the GLSL emitter cannot translate this kernel", fn->name);
  size_t count = 0;
  const char *log = NULL;
  *words = kl_compile_glsl_to_spirv(ctx, glsl, &count, &log);
  if (!*words && log && !strncmp(log, KL_GLSLANG_NO_MEMORY, strlen(KL_GLSLANG_NO_MEMORY)))
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY,
                          "agpu_program_build: out of host memory compiling kernel '%s' to "
                          "SPIR-V: %s",
                          fn->name, log);
  if (!*words)
    return agpu_error_set(AGPU_ERROR_INTERNAL,
                          "agpu_program_build: internal error: glslang rejects the GLSL the "
                          "translator made for kernel '%s' (please report it):\n%s",
                          fn->name, log ? log : "");
  *size = count * sizeof **words;
  if (have_key) agpu_cache_store(hex, *words, *size); /* never fails the build */
  return AGPU_SUCCESS;
}
#endif

static void agpu_vk_program_free(agpu_vk_device *device, agpu_vk_program *vp) {
  if (!vp) return;
  for (uint32_t i = 0; i < vp->kernel_count; i++) {
    agpu_vk_variants_destroy(device, &vp->kernels[i]);
    agpu_vk_kernel_entry_destroy(device, &vp->kernels[i]);
  }
  free(vp->kernels);
  free(vp->source);
  free(vp->source_name);
  free(vp->options);
  for (uint32_t i = 0; i < vp->include_dir_count; i++) free(vp->include_dirs[i]);
  free(vp->include_dirs);
  free(vp);
}

kl_translate_options agpu_vk_translate_options(agpu_device *device, const char *source_name,
                                               const char *options) {
  const agpu_device_info *info = &device->info;
  return (kl_translate_options){
      .source_name = source_name,
      .build_options = options ? options : "",
      .traits = {.fp64 = info->fp64,
                 .fp16 = info->fp16,
                 .int64 = info->int64,
                 /* GPUs compile GLSL fma to their fused instruction; lavapipe
                  * (a CPU device) splits it into a multiply and an add */
                 .fused_fma_float = info->type != AGPU_DEVICE_TYPE_CPU,
                 .f64_rounding_exact = agpu_vk_f64_rounding_exact(device)},
  };
}

#ifdef AGPU_HAVE_GLSLANG
/* Keeps what building a by-address variant needs (vulkan_variant.c). */
static agpu_status agpu_vk_keep_source(agpu_vk_program *vp, const agpu_program_desc *desc) {
  size_t size = desc->source_size ? desc->source_size : strlen(desc->source);
  vp->source = malloc(size + 1);
  vp->source_name = desc->source_name ? agpu_strdup(desc->source_name) : NULL;
  vp->options = agpu_strdup(desc->options ? desc->options : "");
  if (!vp->source || (desc->source_name && !vp->source_name) || !vp->options)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  memcpy(vp->source, desc->source, size);
  vp->source[size] = '\0';
  vp->source_size = size;
  if (desc->include_dir_count) {
    vp->include_dirs = calloc(desc->include_dir_count, sizeof *vp->include_dirs);
    if (!vp->include_dirs)
      return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
    for (uint32_t i = 0; i < desc->include_dir_count; i++, vp->include_dir_count++)
      if (!(vp->include_dirs[i] = agpu_strdup(desc->include_dirs[i])))
        return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  }
  return AGPU_SUCCESS;
}
#endif

agpu_status agpu_vk_program_build(agpu_program *program, const agpu_program_desc *desc) {
#ifndef AGPU_HAVE_GLSLANG
  (void)desc;
  return agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                        "agpu_program_build: %s needs GLSL compiled to SPIR-V, and anygpu was "
                        "built without glslang (install glslang-dev and reconfigure)",
                        program->device->info.selector);
#else
  agpu_vk_device *device = agpu_vk_device_of(program->device);
  const agpu_device_info *info = &program->device->info;
  kl_context *ctx = kl_context_create();
  agpu_vk_program *vp = calloc(1, sizeof *vp);
  if (!ctx || !vp) {
    kl_context_destroy(ctx);
    free(vp);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
  }
  kl_translate_options options =
      agpu_vk_translate_options(program->device, desc->source_name, desc->options);
  options.include_dirs = desc->include_dirs;
  options.include_dir_count = (int)desc->include_dir_count;
  agpu_status status = agpu_vk_keep_source(vp, desc);
  if (status != AGPU_SUCCESS) goto done;
  kl_program *parsed = kl_parse_program(ctx, desc->source, desc->source_size, &options);
  if (!parsed) {
    status = agpu_vk_build_failed(program, ctx, AGPU_ERROR_BUILD_FAILED,
                                  "the kernel source did not compile", NULL);
    goto done;
  }
  const char *warnings = kl_diagnostics_text(ctx);
  if (warnings && *warnings) program->build_log = agpu_strdup(warnings);
  uint32_t count = 0;
  for (const kl_function *fn = parsed->functions; fn; fn = fn->next)
    count += fn->is_kernel && fn->body;
  vp->kernels = calloc(count ? count : 1, sizeof *vp->kernels);
  if (!vp->kernels) {
    status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "vulkan: out of host memory");
    goto done;
  }
  for (const kl_function *fn = parsed->functions; fn && status == AGPU_SUCCESS; fn = fn->next) {
    if (!fn->is_kernel || !fn->body) continue;
    const kl_glsl_layout *layout = kl_glsl_layout_of(ctx, parsed, fn);
    if (!layout) {
      status = agpu_vk_build_failed(program, ctx, AGPU_ERROR_UNSUPPORTED,
                                    "the GLSL emitter cannot translate this kernel", fn->name);
      break;
    }
    const char *missing = agpu_vk_missing_feature(layout->capabilities, device->capabilities);
    if (missing) {
      status = agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                              "agpu_program_build: kernel '%s' needs %s, which %s (%s) lacks",
                              fn->name, missing, info->selector, info->name);
      break;
    }
    if (fn->local_memory_bytes > info->local_mem_bytes) {
      status = agpu_error_set(AGPU_ERROR_UNSUPPORTED,
                              "agpu_program_build: kernel '%s' needs %u bytes of shared memory "
                              "for its __local arrays; %s (%s) has %llu",
                              fn->name, fn->local_memory_bytes, info->selector, info->name,
                              (unsigned long long)info->local_mem_bytes);
      break;
    }
    agpu_vk_kernel_entry *entry = &vp->kernels[vp->kernel_count++];
    pthread_mutex_init(&entry->lock, NULL);
    entry->program = vp;
    status = agpu_vk_describe_kernel(ctx, fn, layout, entry);
    const uint32_t *words = NULL;
    size_t size = 0;
    void *owned = NULL;
    if (status == AGPU_SUCCESS)
      status = agpu_vk_kernel_spirv(program, ctx, parsed, fn, options.build_options, 0, &words,
                                    &size, &owned);
    if (status == AGPU_SUCCESS) status = agpu_vk_kernel_objects(device, entry, words, size);
    free(owned);
  }
  if (status == AGPU_SUCCESS) status = agpu_vk_check_validation(device, "agpu_program_build");

done:
  if (status == AGPU_SUCCESS)
    program->native = vp;
  else
    agpu_vk_program_free(device, vp);
  kl_context_destroy(ctx);
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
