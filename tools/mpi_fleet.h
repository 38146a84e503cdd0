// SPDX-License-Identifier: Apache-2.0
/* anygpu list/test/bench --mpi (docs/cluster.md): every MPI rank runs the
 * command on its own devices and rank 0 prints one combined report. MPI is
 * loaded at run time (mpi_library.c); Open MPI's ABI only. */
#ifndef ANYGPU_TOOLS_MPI_FLEET_H
#define ANYGPU_TOOLS_MPI_FLEET_H

#include <stdbool.h>
#include <stddef.h>

/* The MPI library, opened with dlopen: its functions, declared with Open
 * MPI's handle types (every handle a pointer to a predefined object). */
typedef void *mpi_handle;
#define MPI_LIBRARY_SYMBOLS(X)                                                                  \
  X(MPI_Init, int, (int *, char ***))                                                           \
  X(MPI_Finalize, int, (void))                                                                  \
  X(MPI_Comm_rank, int, (mpi_handle, int *))                                                    \
  X(MPI_Comm_size, int, (mpi_handle, int *))                                                    \
  X(MPI_Gather, int, (const void *, int, mpi_handle, void *, int, mpi_handle, int, mpi_handle)) \
  X(MPI_Gatherv, int,                                                                           \
    (const void *, int, mpi_handle, void *, const int *, const int *, mpi_handle, int,          \
     mpi_handle))

#define MPI_LIBRARY_FIELD(name, result, parameters) result(*name) parameters;
typedef struct mpi_library {
  void *handle;
  char name[128]; /* the file that loaded */
  MPI_LIBRARY_SYMBOLS(MPI_LIBRARY_FIELD)
  mpi_handle comm_world; /* &ompi_mpi_comm_world */
  mpi_handle type_byte;  /* &ompi_mpi_byte */
  mpi_handle type_int;   /* &ompi_mpi_int */
} mpi_library;
#undef MPI_LIBRARY_FIELD

/* Opens the MPI library ($ANYGPU_MPI_LIBRARY, else libmpi.so.40 and its
 * kin) and resolves its symbols. False with a one-line message in `error`
 * that says how to get it. */
bool mpi_library_load(mpi_library *mpi, char *error, size_t capacity);

/* One rank's part of the report, as gathered: NUL-terminated fields. */
enum {
  MPI_FIELD_HOST,
  MPI_FIELD_FINGERPRINT, /* one line; ranks that differ from the majority are named */
  MPI_FIELD_EXIT,        /* the command's exit status, in decimal */
  MPI_FIELD_STDERR,      /* what the command wrote to stderr */
  MPI_FIELD_LOCAL,       /* JSON: {"local_rank", "variable"} */
  MPI_FIELD_HARDWARE,    /* JSON: {"devices", "physical"} as this rank sees them */
  MPI_FIELD_WORK,        /* one line: the devices the command worked on, test's counts */
  MPI_FIELD_REPORT,      /* the command's own --json output; may be empty */
  MPI_FIELD_COUNT_
};

typedef struct mpi_rank_record {
  int rank;
  size_t bytes; /* what this rank sent */
  const char *fields[MPI_FIELD_COUNT_];
} mpi_rank_record;

/* Rank 0: prints the combined report of `count` ranks (JSON or text) and
 * returns the exit status: 0 when every rank succeeded and all agree. */
int mpi_report_print(const char *command, const mpi_library *mpi, const mpi_rank_record *ranks,
                     int count, bool json);

/* Runs `run` (a command of main.c's table, given --json; through the driver
 * guard when `guard`) on this rank with its output captured, gathers every
 * rank's to rank 0, which prints the report (JSON when `json`, else text).
 * Rank 0 returns 1 when a rank failed or the ranks disagree; the others 0. */
int mpi_fleet_run(const char *command, int (*run)(int argc, char **argv), int argc, char **argv,
                  bool json, bool guard);

#endif /* ANYGPU_TOOLS_MPI_FLEET_H */
