// SPDX-License-Identifier: Apache-2.0
/* The MPI library for --mpi, opened at run time so that anygpu never needs
 * MPI to build or to run without --mpi. MPI's C API is the same everywhere
 * but its handles are not: Open MPI's MPI_COMM_WORLD is the address of the
 * object ompi_mpi_comm_world, MPICH's an integer constant. This supports
 * Open MPI's ABI (libmpi.so.40: Open MPI 3, 4 and 5). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpi_fleet.h"

#define MPI_INSTALL_HINT                                                           \
  "install Open MPI (Debian, Ubuntu: apt-get install openmpi-bin libopenmpi-dev; " \
  "a cluster: module load openmpi) or name its libmpi.so in ANYGPU_MPI_LIBRARY"

static void *mpi_open(mpi_library *mpi, char *error, size_t capacity) {
  static const char *const names[] = {"libmpi.so.40", "libmpi.so.20", "libmpi.so.12", "libmpi.so"};
  const char *chosen = getenv("ANYGPU_MPI_LIBRARY");
  size_t count = chosen && *chosen ? 1 : sizeof names / sizeof *names;
  for (size_t i = 0; i < count; i++) {
    const char *name = chosen && *chosen ? chosen : names[i];
    /* RTLD_GLOBAL: Open MPI's plugins (mca_*.so) resolve libmpi's symbols. */
    void *handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    if (handle) {
      snprintf(mpi->name, sizeof mpi->name, "%s", name);
      return handle;
    }
    if (i == 0)
      snprintf(error, capacity, "--mpi needs an MPI library: %s; " MPI_INSTALL_HINT, dlerror());
  }
  return NULL;
}

bool mpi_library_load(mpi_library *mpi, char *error, size_t capacity) {
  void *handle = mpi_open(mpi, error, capacity);
  if (!handle) return false;
  mpi->handle = handle;
  mpi->comm_world = dlsym(handle, "ompi_mpi_comm_world");
  mpi->type_byte = dlsym(handle, "ompi_mpi_byte");
  mpi->type_int = dlsym(handle, "ompi_mpi_int");
  if (!mpi->comm_world || !mpi->type_byte || !mpi->type_int) {
    snprintf(error, capacity,
             "--mpi: %s is not Open MPI (it has no ompi_mpi_comm_world): anygpu supports Open "
             "MPI's ABI only, not MPICH's; " MPI_INSTALL_HINT,
             mpi->name);
    return false;
  }
#define MPI_LIBRARY_RESOLVE(name_, result, parameters)                          \
  *(void **)&mpi->name_ = dlsym(handle, #name_);                                \
  if (!mpi->name_) {                                                            \
    snprintf(error, capacity, "--mpi: %s has no symbol %s", mpi->name, #name_); \
    return false;                                                               \
  }
  MPI_LIBRARY_SYMBOLS(MPI_LIBRARY_RESOLVE)
#undef MPI_LIBRARY_RESOLVE
  return true;
}
