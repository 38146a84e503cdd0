/* What the core's files share: the registry and handle checks. */
#ifndef AGPU_CORE_H
#define AGPU_CORE_H

#include "agpu_backend.h"

/* Loads every backend and enumerates devices, once; later calls are free. */
void agpu_registry_init(void);
agpu_backend *agpu_registry_backend(agpu_backend_kind kind);
uint32_t agpu_registry_device_count(void);
agpu_device *agpu_registry_device(uint32_t index);
bool agpu_registry_owns_device(const agpu_device *device);

/* Handle checks: each returns AGPU_SUCCESS or AGPU_ERROR_INVALID_HANDLE with
 * a message naming the function and the argument. */
agpu_status agpu_check_device(const agpu_device *device, const char *function);
agpu_status agpu_check_object(const void *handle, agpu_object_type type, const char *function,
                              const char *argument);

/* NULL queue means the device's default queue; a queue of another device is
 * refused. */
agpu_status agpu_resolve_queue(agpu_queue **queue, agpu_device *device, const char *function);

/* Allocation bookkeeping shown by agpu_device_memory. */
void agpu_device_account_alloc(agpu_device *device, uint64_t bytes);
void agpu_device_account_free(agpu_device *device, uint64_t bytes);

#endif /* AGPU_CORE_H */
