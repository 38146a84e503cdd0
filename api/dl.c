// SPDX-License-Identifier: Apache-2.0
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "agpu_dl.h"

static void agpu_copy_string(char *dst, size_t cap, const char *src) {
  snprintf(dst, cap, "%s", src ? src : "");
}

void *agpu_dl_open_first(agpu_backend *backend, const char *const names[], size_t count) {
  for (size_t i = 0; i < count; i++) {
    void *library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    const char *error = library ? "" : dlerror();
    if (backend->attempt_count < AGPU_MAX_LOAD_ATTEMPTS) {
      agpu_load_attempt *attempt = &backend->attempts[backend->attempt_count++];
      agpu_copy_string(attempt->name, sizeof attempt->name, names[i]);
      agpu_copy_string(attempt->error, sizeof attempt->error, error);
    }
    if (library) {
      agpu_copy_string(backend->library, sizeof backend->library, names[i]);
      return library;
    }
  }
  /* The first error is the one people need; the fallbacks usually fail the
   * same way, so only their names follow. */
  char *reason = backend->reason;
  size_t cap = sizeof backend->reason;
  int used = snprintf(reason, cap, "%s", backend->attempt_count ? backend->attempts[0].error : "");
  for (uint32_t i = 1; i < backend->attempt_count && used >= 0 && (size_t)used < cap; i++)
    used += snprintf(reason + used, cap - (size_t)used, "%s%s", i == 1 ? " (also tried: " : ", ",
                     backend->attempts[i].name);
  if (backend->attempt_count > 1 && used >= 0 && (size_t)used < cap)
    snprintf(reason + used, cap - (size_t)used, ")");
  return NULL;
}

bool agpu_dl_load_symbols(agpu_backend *backend, void *library, const agpu_dl_symbol symbols[],
                          size_t count) {
  for (size_t i = 0; i < count; i++) {
    dlerror();
    *symbols[i].slot = dlsym(library, symbols[i].name);
    if (!*symbols[i].slot && !symbols[i].optional) {
      snprintf(backend->reason, sizeof backend->reason, "%s has no symbol %s (too old a driver?)",
               backend->library, symbols[i].name);
      return false;
    }
  }
  return true;
}

agpu_status agpu_dl_probe_unimplemented(agpu_backend *backend, const char *const names[],
                                        size_t count, const char *api_name) {
  void *library = agpu_dl_open_first(backend, names, count);
  if (library) {
    snprintf(backend->reason, sizeof backend->reason,
             "%s loads, but this build of anygpu has no %s backend yet", backend->library,
             api_name);
    /* Left loaded, as a working backend would keep it: vendor runtimes such
     * as ROCm 5's libamdhip64 leak at dlclose, and LeakSanitizer then blames
     * whatever library is mapped at the same address next. */
  }
  backend->available = false;
  return AGPU_SUCCESS;
}

void *agpu_dl_api_new(agpu_backend *backend, void *library, size_t size) {
  void *api = calloc(1, size);
  if (!api) {
    dlclose(library);
    snprintf(backend->reason, sizeof backend->reason, "%s: out of host memory",
             backend->descriptor->name);
  }
  return api;
}
