// SPDX-License-Identifier: Apache-2.0
/* agpu_program_build on the CPU backend: the portable source goes through
 * the translator (kernels/) to host C, which the system C compiler turns
 * into a shared object (cpu_compile.c); the object is cached on disk by a
 * key of everything that decides its bytes, so that a second build of the
 * same source is a parse, a lookup and a dlopen. */
#include <stdio.h>
#include <stdlib.h>

#include "agpu_cache.h"
#include "agpu_handle.h"
#include "cpu_internal.h"
#include "agpu_signature.h"
#include "translate.h"

#if defined(__x86_64__)
#define AGPU_CPU_TARGET "c-x86_64"
#elif defined(__aarch64__)
#define AGPU_CPU_TARGET "c-aarch64"
#else
#define AGPU_CPU_TARGET "c-host"
#endif

/* The kernels' signatures, from the AST. */
static agpu_status agpu_cpu_describe_kernels(kl_context *ctx, const kl_program *parsed,
                                             agpu_cpu_program *program) {
  uint32_t count = 0;
  for (const kl_function *fn = parsed->functions; fn; fn = fn->next)
    if (fn->is_kernel && fn->body) count++;
  program->kernels = calloc(count ? count : 1, sizeof *program->kernels);
  if (!program->kernels)
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
  for (const kl_function *fn = parsed->functions; fn; fn = fn->next) {
    if (!fn->is_kernel || !fn->body) continue;
    agpu_cpu_kernel_entry *entry = &program->kernels[program->kernel_count++];
    agpu_copy_text(entry->name, sizeof entry->name, fn->name);
    entry->has_required_work_group_size = fn->has_required_work_group_size;
    memcpy(entry->required_work_group_size, fn->required_work_group_size,
           sizeof entry->required_work_group_size);
    uint32_t params = 0;
    for (const kl_variable *p = fn->params; p; p = p->next) params++;
    entry->param_count = params;
    entry->params = calloc(params ? params : 1, sizeof *entry->params);
    if (!entry->params)
      return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
    uint32_t i = 0;
    for (const kl_variable *p = fn->params; p; p = p->next, i++) {
      agpu_param_from_variable(ctx, p, &entry->params[i]);
    }
  }
  return AGPU_SUCCESS;
}

static agpu_status agpu_cpu_build_failed(agpu_program *program, kl_context *ctx, const char *what) {
  const char *text = kl_diagnostics_text(ctx);
  free(program->build_log);
  program->build_log = agpu_strdup(text ? text : "");
  return agpu_error_set(AGPU_ERROR_BUILD_FAILED, "agpu_program_build: %s for %s:\n%s", what,
                        program->device->info.selector, text ? text : "");
}

agpu_status agpu_cpu_program_build(agpu_program *program, const agpu_program_desc *desc) {
  const char *identity = agpu_cpu_compiler_identity();
  if (!identity) return AGPU_ERROR_UNSUPPORTED;
  kl_context *ctx = kl_context_create();
  if (!ctx) return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
  kl_translate_options options;
  memset(&options, 0, sizeof options);
  options.source_name = desc->source_name;
  options.include_dirs = desc->include_dirs;
  options.include_dir_count = (int)desc->include_dir_count;
  options.build_options = desc->options ? desc->options : "";
  options.traits.fp64 = true;
  options.traits.int64 = true;
  options.traits.fp16 = false;
  agpu_status status = AGPU_SUCCESS;
  agpu_cpu_program *cpu = NULL;
  kl_program *parsed = kl_parse_program(ctx, desc->source, desc->source_size, &options);
  if (!parsed) {
    status = agpu_cpu_build_failed(program, ctx, "the kernel source did not compile");
    goto done;
  }
  const char *warnings = kl_diagnostics_text(ctx);
  if (warnings && *warnings) program->build_log = agpu_strdup(warnings);

  cpu = calloc(1, sizeof *cpu);
  if (!cpu) {
    status = agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "cpu: out of host memory");
    goto done;
  }
  atomic_init(&cpu->references, 1);
  status = agpu_cpu_describe_kernels(ctx, parsed, cpu);
  if (status != AGPU_SUCCESS) goto done;

  /* the cache */
  const char *preprocessed = kl_preprocessed_text(ctx);
  agpu_cache_key key;
  agpu_cache_key_fields fields = {
      .source = preprocessed ? preprocessed : desc->source,
      .source_size = preprocessed ? strlen(preprocessed) : desc->source_size,
      .options = options.build_options,
      .translator_version = KL_TRANSLATOR_VERSION,
      .backend = "cpu",
      .target = AGPU_CPU_TARGET,
      .device_name = program->device->info.name,
      .driver_version = program->device->info.driver_version,
  };
  char hex[AGPU_CACHE_KEY_HEX_SIZE];
  agpu_cache_key_begin(&key, &fields);
  agpu_cache_key_add_string(&key, "compiler", identity);
  agpu_cache_key_add_u64(&key, "abi", KL_C_ABI_VERSION);
  bool have_key = agpu_cache_key_final(&key, hex) == AGPU_SUCCESS;
  void *cached = NULL;
  size_t cached_size = 0;
  uint8_t recorded[AGPU_SHA256_DIGEST_SIZE];
  if (have_key && agpu_cache_lookup_digest(hex, &cached, &cached_size, recorded) == AGPU_SUCCESS) {
    agpu_status loaded = agpu_cpu_load(cached, cached_size, recorded, &cpu->object);
    free(cached);
    if (loaded == AGPU_SUCCESS && agpu_cpu_program_bind(cpu) == AGPU_SUCCESS) {
      cpu->from_cache = true;
      goto done;
    }
    agpu_cpu_unload(&cpu->object); /* a bad entry: build again */
  }

  const char *c_source = kl_emit_c(ctx, parsed);
  if (!c_source) {
    status = agpu_cpu_build_failed(program, ctx, "the CPU backend cannot run this kernel");
    goto done;
  }
  char *log = NULL;
  status = agpu_cpu_compile(c_source, strlen(c_source), have_key, &cpu->object, &log);
  free(log);
  if (status != AGPU_SUCCESS) goto done;
  status = agpu_cpu_program_bind(cpu);
  if (status == AGPU_SUCCESS && have_key && cpu->object.bytes)
    agpu_cache_store(hex, cpu->object.bytes, cpu->object.size); /* never fails the build */
  free(cpu->object.bytes);
  cpu->object.bytes = NULL;

done:
  if (status == AGPU_SUCCESS) {
    program->native = cpu;
  } else if (cpu) {
    agpu_cpu_program_unref(cpu);
  }
  kl_context_destroy(ctx);
  return status;
}

/* For the tests (not in anygpu.h): the SHA-256 of the shared object a CPU
 * program runs, and whether it came from the cache. */
AGPU_API agpu_status agpu_cpu_program_digest(const agpu_program *program,
                                             char hex[AGPU_SHA256_HEX_SIZE], bool *from_cache);
AGPU_API agpu_status agpu_cpu_program_digest(const agpu_program *handle,
                                             char hex[AGPU_SHA256_HEX_SIZE], bool *from_cache) {
  void *object = NULL; /* the public handle is encoded: resolve it (api/handle.c) */
  agpu_status status = agpu_handle_lookup(handle, AGPU_OBJECT_PROGRAM, "agpu_cpu_program_digest",
                                          "program", &object);
  if (status != AGPU_SUCCESS) return status;
  const agpu_program *program = object;
  if (!hex || !program->device || program->device->info.backend != AGPU_BACKEND_CPU ||
      !program->native)
    return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                          "agpu_cpu_program_digest: not a program built on the CPU backend");
  const agpu_cpu_program *cpu = program->native;
  agpu_sha256_hex(cpu->object.digest, hex);
  if (from_cache) *from_cache = cpu->from_cache;
  return AGPU_SUCCESS;
}
