// SPDX-License-Identifier: Apache-2.0
/* Opens libcuda.so.1 at run time, resolves the symbol table and calls cuInit;
 * each way this can fail gets its own reason for `anygpu list`. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agpu_dl.h"
#include "cuda_internal.h"

/* The file the dynamic linker loaded for `library`, or "" when it will not say. */
static void agpu_cuda_loaded_path(void *library, char *path, size_t capacity) {
  struct link_map *map = NULL;
  path[0] = '\0';
  if (dlinfo(library, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name)
    snprintf(path, capacity, "%s", map->l_name);
}

static void agpu_cuda_explain_not_found(agpu_backend *backend) {
  char tried[sizeof backend->reason];
  snprintf(tried, sizeof tried, "%s", backend->reason); /* agpu_dl_open_first's list */
  static const char prefix[] =
      "the NVIDIA driver is not installed: libcuda.so.1 not found (dlopen: ";
  /* Cut to fit: the first dlerror() leads the list. */
  snprintf(backend->reason, sizeof backend->reason, "%s%.*s)", prefix,
           (int)(sizeof backend->reason - sizeof prefix - 2), tried);
}

/* Why cuInit failed, for backend->reason. */
static void agpu_cuda_explain_init(agpu_backend *backend, const agpu_cuda_api *api,
                                   agpu_cu_result result) {
  const char *name = agpu_cuda_result_name(api, result);
  const char *path = api->path[0] ? api->path : backend->library;
  char *reason = backend->reason;
  size_t capacity = sizeof backend->reason;
  switch (result) {
    case AGPU_CUDA_ERROR_STUB_LIBRARY:
      snprintf(reason, capacity,
               "cuInit: %s (%d): %s is the CUDA toolkit's stub libcuda: a build-time stub was "
               "found at run time, usually through LD_LIBRARY_PATH (the real libcuda.so.1 comes "
               "with the NVIDIA driver)",
               name, (int)result, path);
      return;
    case AGPU_CUDA_ERROR_NO_DEVICE: {
      const char *visible = getenv("CUDA_VISIBLE_DEVICES");
      snprintf(reason, capacity,
               "cuInit: %s (%d): the NVIDIA driver (%s) sees no CUDA device%s%s%s", name,
               (int)result, path, visible ? " (CUDA_VISIBLE_DEVICES=" : "", visible ? visible : "",
               visible ? ")" : "");
      return;
    }
    case 35: /* cudaErrorInsufficientDriver, the runtime API's name for it */
    case AGPU_CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER:
    case AGPU_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case AGPU_CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
      snprintf(reason, capacity,
               "cuInit: %s (%d): the NVIDIA driver (%s) does not match this system: the kernel "
               "module and libcuda differ in version, or the driver is too old (see `anygpu "
               "doctor`)",
               name, (int)result, path);
      return;
    default: {
      const char *text = agpu_cuda_result_text(api, result);
      snprintf(reason, capacity, "cuInit: %s (%d)%s%s (%s)", name, (int)result, text[0] ? ": " : "",
               text, path);
      return;
    }
  }
}

agpu_cuda_api *agpu_cuda_load(agpu_backend *backend) {
  static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
  void *library = agpu_dl_open_first(backend, names, sizeof names / sizeof names[0]);
  if (!library) {
    agpu_cuda_explain_not_found(backend);
    return NULL;
  }
  agpu_cuda_api *api = agpu_dl_api_new(backend, library, sizeof *api);
  if (!api) return NULL;
  api->library = library;
  agpu_cuda_loaded_path(library, api->path, sizeof api->path);
  const agpu_dl_symbol symbols[] = {
#define AGPU_CUDA_SYMBOL(field, symbol, optional_, parameters) \
  {#symbol, (void **)&api->field, optional_},
      AGPU_CUDA_SYMBOLS(AGPU_CUDA_SYMBOL)
#undef AGPU_CUDA_SYMBOL
  };
  /* The library stays loaded on failure, as a working backend keeps it. */
  if (!agpu_dl_load_symbols(backend, library, symbols, sizeof symbols / sizeof symbols[0])) {
    size_t used = strlen(backend->reason);
    snprintf(backend->reason + used, sizeof backend->reason - used, " (%s)", api->path);
    free(api);
    return NULL;
  }
  agpu_cu_result result = api->cuInit(0);
  if (result != AGPU_CUDA_SUCCESS) {
    agpu_cuda_explain_init(backend, api, result);
    free(api);
    return NULL;
  }
  if (api->cuDriverGetVersion(&api->driver_version) != AGPU_CUDA_SUCCESS) api->driver_version = 0;
  return api;
}
