// SPDX-License-Identifier: Apache-2.0
/* Opens the OpenCL ICD loader at run time and resolves the symbol table. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "agpu_dl.h"
#include "opencl_internal.h"

agpu_cl_api *agpu_cl_load(agpu_backend *backend) {
  static const char *const names[] = {"libOpenCL.so.1", "libOpenCL.so"};
  void *library = agpu_dl_open_first(backend, names, sizeof names / sizeof names[0]);
  if (!library) return NULL;

  agpu_cl_api *api = agpu_dl_api_new(backend, library, sizeof *api);
  if (!api) return NULL;
  api->library = library;
  const agpu_dl_symbol symbols[] = {
#define AGPU_CL_SYMBOL(name, optional_) {#name, (void **)&api->name, optional_},
      AGPU_OPENCL_SYMBOLS(AGPU_CL_SYMBOL)
#undef AGPU_CL_SYMBOL
  };
  if (!agpu_dl_load_symbols(backend, library, symbols, sizeof symbols / sizeof symbols[0])) {
    dlclose(library);
    free(api);
    return NULL;
  }
  return api;
}
