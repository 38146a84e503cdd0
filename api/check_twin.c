// SPDX-License-Identifier: Apache-2.0
/* A bounds-checked program's twin: the same source and options built
 * without checks, made at the first launch that a kernel's proof shows in
 * bounds (api/check_proof.c) and used for every such launch after it. A
 * launch the host proves cannot fault then runs exactly the code an
 * unchecked build runs; any other launch runs checked. ANYGPU_CHECK_PROOFS=off
 * runs every launch checked (docs/debugging.md, "What it costs"). */
#include <stdlib.h>
#include <string.h>

#include "agpu_check.h"
#include "agpu_core.h"

typedef struct agpu_check_twin {
  pthread_mutex_t lock;
  agpu_program_desc desc; /* its strings the twin's own */
  char *source, *source_name, *options;
  char **include_dirs;
  agpu_program *program; /* NULL until the first proven launch */
  bool failed;           /* it did not build: every launch runs checked */
} agpu_check_twin;

static bool agpu_check_proofs_enabled(void) {
  const char *proofs = getenv("ANYGPU_CHECK_PROOFS");
  return !proofs || (strcmp(proofs, "off") != 0 && strcmp(proofs, "0") != 0);
}

/* The options without -anygpu-check=bounds (each whole word of it). */
static char *agpu_options_unchecked(const char *options) {
  char *copy = agpu_strdup(options ? options : "");
  if (copy) agpu_options_take(copy, AGPU_PROGRAM_CHECK_BOUNDS);
  return copy;
}

void agpu_check_twin_release(agpu_check_twin *twin) {
  if (!twin) return;
  if (twin->program) agpu_program_unreference(twin->program);
  for (uint32_t i = 0; i < twin->desc.include_dir_count; i++) free(twin->include_dirs[i]);
  free(twin->include_dirs);
  free(twin->source);
  free(twin->source_name);
  free(twin->options);
  pthread_mutex_destroy(&twin->lock);
  free(twin);
}

static bool agpu_check_twin_copy(agpu_check_twin *twin, const agpu_program_desc *desc) {
  size_t size = desc->source_size ? desc->source_size : strlen(desc->source);
  twin->source = malloc(size + 1);
  twin->source_name = agpu_strdup(desc->source_name ? desc->source_name : "<source>");
  twin->options = agpu_options_unchecked(desc->options);
  twin->include_dirs = calloc((size_t)desc->include_dir_count + 1, sizeof *twin->include_dirs);
  if (!twin->source || !twin->source_name || !twin->options || !twin->include_dirs) return false;
  memcpy(twin->source, desc->source, size);
  twin->source[size] = '\0';
  for (uint32_t i = 0; i < desc->include_dir_count; i++) {
    if (!(twin->include_dirs[i] = agpu_strdup(desc->include_dirs[i]))) return false;
    twin->desc.include_dir_count = i + 1;
  }
  twin->desc.source = twin->source;
  twin->desc.source_size = size;
  twin->desc.source_name = twin->source_name;
  twin->desc.options = twin->options;
  twin->desc.include_dirs = (const char *const *)twin->include_dirs;
  return true;
}

agpu_status agpu_check_twin_prepare(agpu_program *program, const agpu_program_desc *desc) {
  if (!program->checks || !agpu_check_proofs_enabled()) return AGPU_SUCCESS;
  bool any = false;
  for (uint32_t i = 0; i < program->checks->proof_count; i++)
    any |= !program->checks->proofs[i].never;
  if (!any) return AGPU_SUCCESS;
  agpu_check_twin *twin = calloc(1, sizeof *twin);
  if (twin) pthread_mutex_init(&twin->lock, NULL);
  if (!twin || !agpu_check_twin_copy(twin, desc)) {
    agpu_check_twin_release(twin);
    return agpu_error_set(AGPU_ERROR_OUT_OF_HOST_MEMORY, "agpu_program_build: out of host memory");
  }
  program->twin = twin;
  return AGPU_SUCCESS;
}

/* Under the twin's lock: the kernel's twin, built with the program first
 * where this is the first proven launch. */
static agpu_kernel *agpu_check_twin_kernel(agpu_check_twin *twin, agpu_kernel *kernel) {
  if (!twin->program && !twin->failed) {
    agpu_status status =
        agpu_program_build_object(kernel->program->device, &twin->desc, false, &twin->program);
    twin->failed = status != AGPU_SUCCESS || twin->program->checks;
  }
  agpu_kernel *made = NULL;
  if (twin->failed || agpu_kernel_make(twin->program, kernel->info.name, &made) != AGPU_SUCCESS)
    return NULL;
  if (made->info.param_count != kernel->info.param_count) { /* not the same kernel: never */
    agpu_kernel_destroy(made);
    return NULL;
  }
  return made;
}

agpu_kernel *agpu_kernel_unchecked(agpu_kernel *kernel) {
  agpu_kernel *twin = atomic_load_explicit(&kernel->unchecked, memory_order_acquire);
  agpu_check_twin *t = kernel->program->twin;
  if (twin || !t || atomic_load_explicit(&kernel->unchecked_failed, memory_order_relaxed))
    return twin;
  pthread_mutex_lock(&t->lock);
  twin = atomic_load_explicit(&kernel->unchecked, memory_order_acquire);
  if (!twin && !atomic_load(&kernel->unchecked_failed)) {
    twin = agpu_check_twin_kernel(t, kernel);
    if (twin)
      atomic_store_explicit(&kernel->unchecked, twin, memory_order_release);
    else
      atomic_store(&kernel->unchecked_failed, true);
  }
  pthread_mutex_unlock(&t->lock);
  return twin;
}
