// SPDX-License-Identifier: Apache-2.0
/* The process's rank on its node, from the launcher's variables: what the
 * "@local" selector suffix picks a device by (api/selector.c). No MPI library
 * is involved: Open MPI's mpirun, MPICH's Hydra, Slurm's srun and PMI
 * launchers each export the rank on the node to every process they start. */
#include <ctype.h>
#include <stdlib.h>

#include "agpu_core.h"

/* In the order they are tried: the first one set (and not empty) wins. */
static const char *const agpu_local_rank_variables[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK", /* Open MPI's mpirun and prterun */
    "MPI_LOCALRANKID",            /* MPICH's and Intel MPI's Hydra */
    "SLURM_LOCALID",              /* Slurm's srun */
    "PMI_LOCAL_RANK",             /* PMI-1/PMIx launchers (MVAPICH, Cray PALS) */
};

AGPU_API agpu_status agpu_local_rank(uint32_t *rank, const char **variable) {
  if (!rank) return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT, "agpu_local_rank: rank is NULL");
  *rank = 0;
  if (variable) *variable = NULL;
  for (size_t i = 0; i < sizeof agpu_local_rank_variables / sizeof *agpu_local_rank_variables;
       i++) {
    const char *name = agpu_local_rank_variables[i];
    const char *value = getenv(name);
    if (!value || !*value) continue;
    uint64_t number = 0;
    const char *p = value;
    while (isdigit((unsigned char)*p) && number <= UINT32_MAX)
      number = number * 10 + (uint64_t)(*p++ - '0');
    if (p == value || *p || number > UINT32_MAX)
      return agpu_error_set(AGPU_ERROR_INVALID_ARGUMENT,
                            "%s='%.40s' is not a node-local rank (expected a number from 0)", name,
                            value);
    *rank = (uint32_t)number;
    if (variable) *variable = name;
    return AGPU_SUCCESS;
  }
  return AGPU_SUCCESS; /* no launcher: rank 0 */
}
