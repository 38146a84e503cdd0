/* The CUDA backend: for now it only says whether the machine has the
 * library; the implementation is a separate issue. */
#include "agpu_dl.h"

static const char *const agpu_cuda_libraries[] = {"libcuda.so.1", "libcuda.so"};

static agpu_status agpu_cuda_init(agpu_backend *backend) {
  return agpu_dl_probe_unimplemented(backend, agpu_cuda_libraries,
                                     sizeof agpu_cuda_libraries / sizeof agpu_cuda_libraries[0],
                                     "CUDA");
}

const agpu_backend_ops agpu_cuda_backend_ops = {
    .kind = AGPU_BACKEND_CUDA,
    .name = "cuda",
    .init = agpu_cuda_init,
};
