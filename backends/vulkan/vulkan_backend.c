/* The Vulkan backend: for now it only says whether the machine has the
 * library; the implementation is a separate issue. */
#include "agpu_dl.h"

static const char *const agpu_vulkan_libraries[] = {"libvulkan.so.1", "libvulkan.so"};

static agpu_status agpu_vulkan_init(agpu_backend *backend) {
  return agpu_dl_probe_unimplemented(backend, agpu_vulkan_libraries,
                                     sizeof agpu_vulkan_libraries / sizeof agpu_vulkan_libraries[0],
                                     "Vulkan");
}

const agpu_backend_ops agpu_vulkan_backend_ops = {
    .kind = AGPU_BACKEND_VULKAN,
    .name = "vulkan",
    .init = agpu_vulkan_init,
};
