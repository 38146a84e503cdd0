// SPDX-License-Identifier: Apache-2.0
/* hipError_t: its name and description for messages (from the runtime, with
 * a table of our own for runtimes without hipGetErrorName), and the anygpu
 * status each maps to. */
#include <string.h>

#include "hip_internal.h"

typedef struct agpu_hip_error_entry {
  agpu_hipError_t code;
  const char *name;
} agpu_hip_error_entry;

static const agpu_hip_error_entry agpu_hip_errors[] = {
    {AGPU_hipSuccess, "hipSuccess"},
    {AGPU_hipErrorInvalidValue, "hipErrorInvalidValue"},
    {AGPU_hipErrorOutOfMemory, "hipErrorOutOfMemory"},
    {AGPU_hipErrorNotInitialized, "hipErrorNotInitialized"},
    {AGPU_hipErrorDeinitialized, "hipErrorDeinitialized"},
    {AGPU_hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration"},
    {AGPU_hipErrorInsufficientDriver, "hipErrorInsufficientDriver"},
    {AGPU_hipErrorInvalidDeviceFunction, "hipErrorInvalidDeviceFunction"},
    {AGPU_hipErrorNoDevice, "hipErrorNoDevice"},
    {AGPU_hipErrorInvalidDevice, "hipErrorInvalidDevice"},
    {AGPU_hipErrorInvalidImage, "hipErrorInvalidImage"},
    {AGPU_hipErrorInvalidContext, "hipErrorInvalidContext"},
    {AGPU_hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu"},
    {AGPU_hipErrorInvalidKernelFile, "hipErrorInvalidKernelFile"},
    {AGPU_hipErrorSharedObjectInitFailed, "hipErrorSharedObjectInitFailed"},
    {AGPU_hipErrorInvalidHandle, "hipErrorInvalidHandle"},
    {AGPU_hipErrorNotFound, "hipErrorNotFound"},
    {AGPU_hipErrorNotReady, "hipErrorNotReady"},
    {AGPU_hipErrorIllegalAddress, "hipErrorIllegalAddress"},
    {AGPU_hipErrorLaunchOutOfResources, "hipErrorLaunchOutOfResources"},
    {AGPU_hipErrorLaunchTimeOut, "hipErrorLaunchTimeOut"},
    {AGPU_hipErrorLaunchFailure, "hipErrorLaunchFailure"},
    {AGPU_hipErrorNotSupported, "hipErrorNotSupported"},
    {AGPU_hipErrorUnknown, "hipErrorUnknown"},
};

const char *agpu_hip_error_name(const agpu_hip_api *api, agpu_hipError_t error) {
  const char *name = api && api->hipGetErrorName ? api->hipGetErrorName(error) : NULL;
  if (name && name[0]) return name;
  for (size_t i = 0; i < sizeof agpu_hip_errors / sizeof agpu_hip_errors[0]; i++)
    if (agpu_hip_errors[i].code == error) return agpu_hip_errors[i].name;
  return "hipError?";
}

const char *agpu_hip_error_string(const agpu_hip_api *api, agpu_hipError_t error) {
  const char *text = api && api->hipGetErrorString ? api->hipGetErrorString(error) : NULL;
  return text ? text : "";
}

static const agpu_status_map agpu_hip_statuses[] = {
    {AGPU_hipSuccess, AGPU_SUCCESS},
    {AGPU_hipErrorOutOfMemory, AGPU_ERROR_OUT_OF_DEVICE_MEMORY},
    {AGPU_hipErrorNoDevice, AGPU_ERROR_BACKEND_UNAVAILABLE},
    {AGPU_hipErrorInsufficientDriver, AGPU_ERROR_BACKEND_UNAVAILABLE},
    {AGPU_hipErrorInvalidImage, AGPU_ERROR_BUILD_FAILED},
    {AGPU_hipErrorNoBinaryForGpu, AGPU_ERROR_BUILD_FAILED},
    {AGPU_hipErrorInvalidKernelFile, AGPU_ERROR_BUILD_FAILED},
    {AGPU_hipErrorSharedObjectInitFailed, AGPU_ERROR_BUILD_FAILED},
    {AGPU_hipErrorNotFound, AGPU_ERROR_NOT_FOUND},
    {AGPU_hipErrorInvalidConfiguration, AGPU_ERROR_INVALID_LAUNCH},
    {AGPU_hipErrorLaunchOutOfResources, AGPU_ERROR_INVALID_LAUNCH},
    {AGPU_hipErrorIllegalAddress, AGPU_ERROR_DEVICE_LOST},
    {AGPU_hipErrorLaunchFailure, AGPU_ERROR_DEVICE_LOST},
    {AGPU_hipErrorLaunchTimeOut, AGPU_ERROR_DEVICE_LOST},
    {AGPU_hipErrorNotSupported, AGPU_ERROR_UNSUPPORTED},
};

agpu_status agpu_hip_status(agpu_hipError_t error) {
  return agpu_status_lookup(agpu_hip_statuses,
                            sizeof agpu_hip_statuses / sizeof agpu_hip_statuses[0], error,
                            AGPU_ERROR_BACKEND);
}

agpu_status agpu_hip_fail(const agpu_hip_api *api, const char *call, agpu_hipError_t error) {
  const char *name = agpu_hip_error_name(api, error);
  const char *text = agpu_hip_error_string(api, error);
  bool same = !text[0] || strcmp(text, name) == 0; /* some runtimes give the name twice */
  return agpu_error_set(agpu_hip_status(error), "hip: %s failed: %s (%d)%s%s", call, name,
                        (int)error, same ? "" : ": ", same ? "" : text);
}

agpu_status agpu_hip_use(const agpu_hip_device *device) {
  agpu_hipError_t error = device->api->hipSetDevice(device->ordinal);
  return error == AGPU_hipSuccess ? AGPU_SUCCESS
                                  : agpu_hip_fail(device->api, "hipSetDevice", error);
}
