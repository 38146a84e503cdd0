/* The HIP backend: for now it only says whether the machine has the
 * library; the implementation is a separate issue. */
#include "agpu_dl.h"

static const char *const agpu_hip_libraries[] = {"libamdhip64.so.6", "libamdhip64.so.5",
                                                 "libamdhip64.so", "/opt/rocm/lib/libamdhip64.so"};

static agpu_status agpu_hip_init(agpu_backend *backend) {
  return agpu_dl_probe_unimplemented(
      backend, agpu_hip_libraries, sizeof agpu_hip_libraries / sizeof agpu_hip_libraries[0], "HIP");
}

const agpu_backend_ops agpu_hip_backend_ops = {
    .kind = AGPU_BACKEND_HIP,
    .name = "hip",
    .init = agpu_hip_init,
};
