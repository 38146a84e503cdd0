// SPDX-License-Identifier: Apache-2.0
/* Which device a program gets: $ANYGPU_DEVICE, the default-best rule, and
 * on hybrid machines (an integrated and a discrete GPU) which one wins, why,
 * and how to pick the other. */
#include <stdio.h>
#include <string.h>

#include "doctor.h"

static const char *why_default(const agpu_device_info *device) {
  switch (device->type) {
    case AGPU_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete GPUs rank first, through their native backend (CUDA, HIP), then OpenCL, "
             "then Vulkan";
    case AGPU_DEVICE_TYPE_INTEGRATED_GPU:
      return "no discrete GPU is exposed, and integrated GPUs rank next";
    case AGPU_DEVICE_TYPE_CPU:
      return "no GPU is exposed through any backend, so a CPU device is used (among CPU "
             "devices those whose backend builds kernels come first, then the built-in backend, "
             "OpenCL, Vulkan)";
    default:
      return "it ranks best among the exposed devices";
  }
}

static void check_anygpu_device(doctor_context *context) {
  const char *value = doctor_getenv("ANYGPU_DEVICE");
  if (!value || !*value) return;
  uint32_t count = 0;
  agpu_status status = agpu_device_select_all(value, NULL, 0, &count);
  doctor_finding *finding;
  if (status != AGPU_SUCCESS || count == 0) {
    finding = doctor_add(context, DOCTOR_ERROR, "selection.anygpu_device",
                         "ANYGPU_DEVICE=%s selects no device: programs that take the default "
                         "device fail",
                         value);
    doctor_evidence(context, finding, "agpu_device_select: %s",
                    context->default_error[0] ? context->default_error : agpu_last_error());
    doctor_fix(context, finding,
               "Set it to a selector that matches (anygpu list shows them: opencl:0, phys:0, "
               "*:gpu), or unset it.");
    return;
  }
  finding = doctor_add(context, DOCTOR_INFO, "selection.anygpu_device",
                       "ANYGPU_DEVICE=%s selects %u device%s; the first is %s", value, count,
                       count == 1 ? "" : "s",
                       context->has_default_device ? context->default_device.selector : "?");
  doctor_fix(context, finding, "Unset ANYGPU_DEVICE to get the best device.");
}

static void check_default(doctor_context *context) {
  if (!context->has_default_device) return;
  const agpu_device_info *device = &context->default_device;
  const char *variable = doctor_getenv("ANYGPU_DEVICE");
  bool chosen = variable && *variable;
  doctor_finding *finding =
      doctor_add(context, DOCTOR_INFO, "selection.default", "The default device is %s (%s, %s): %s",
                 device->selector, device->name, agpu_device_type_name(device->type),
                 chosen ? "ANYGPU_DEVICE chose it" : why_default(device));
  doctor_evidence(context, finding, "agpu_device_select(NULL) -> %s", device->selector);
  doctor_fix(context, finding,
             "Pick another with ANYGPU_DEVICE (a backend:index, phys:N, pci:ADDRESS or *:gpu "
             "selector), or pass a selector to agpu_device_select.");
}

typedef struct hybrid_gpu {
  const char *address; /* NULL when no PCI address is known */
  uint32_t vendor_id;
  int physical;
} hybrid_gpu;

static void describe_gpu(const doctor_context *context, const hybrid_gpu *gpu, const char *kind,
                         char *out, size_t capacity) {
  char vendor_text[32];
  const char *vendor = doctor_vendor_name(gpu->vendor_id, vendor_text, sizeof vendor_text);
  bool vowel = strchr("aeiou", kind[0]) != NULL;
  int length = doctor_format(out, capacity, "%s %s %s GPU", vowel ? "an" : "a", kind, vendor);
  if (length < 0 || (size_t)length >= capacity) return;
  if (gpu->address)
    length += doctor_format(out + length, capacity - (size_t)length, " at %s", gpu->address);
  if (length < 0 || (size_t)length >= capacity) return;
  if (gpu->physical >= 0)
    doctor_format(out + length, capacity - (size_t)length, " (%s)",
                  context->physical[gpu->physical].id);
  else
    doctor_format(out + length, capacity - (size_t)length, " (not exposed by any API)");
}

static void check_hybrid(doctor_context *context) {
  hybrid_gpu integrated = {NULL, 0, -1}, discrete = {NULL, 0, -1};
  bool has_integrated = false, has_discrete = false;
  for (uint32_t i = 0; i < context->pci_count; i++) {
    const doctor_pci_device *gpu = &context->pci[i];
    if (gpu->display_only) continue;
    hybrid_gpu entry = {gpu->address, gpu->vendor_id, gpu->physical};
    if (gpu->kind == DOCTOR_GPU_INTEGRATED && !has_integrated) {
      integrated = entry;
      has_integrated = true;
    } else if (gpu->kind == DOCTOR_GPU_DISCRETE && !has_discrete) {
      discrete = entry;
      has_discrete = true;
    }
  }
  for (uint32_t i = 0; i < context->physical_count; i++) {
    const agpu_physical_device_info *group = &context->physical[i];
    hybrid_gpu entry = {group->has_pci ? group->pci : NULL, group->vendor_id, (int)i};
    if (group->type == AGPU_DEVICE_TYPE_INTEGRATED_GPU && !has_integrated) {
      integrated = entry;
      has_integrated = true;
    } else if (group->type == AGPU_DEVICE_TYPE_DISCRETE_GPU && !has_discrete) {
      discrete = entry;
      has_discrete = true;
    }
  }
  if (!has_integrated || !has_discrete) return;
  char integrated_text[160], discrete_text[160];
  describe_gpu(context, &integrated, "integrated", integrated_text, sizeof integrated_text);
  describe_gpu(context, &discrete, "discrete", discrete_text, sizeof discrete_text);
  doctor_finding *finding = doctor_add(
      context, DOCTOR_INFO, "selection.hybrid",
      "Hybrid system: %s and %s. anygpu's default is the discrete GPU, because discrete GPUs rank "
      "first%s",
      integrated_text, discrete_text,
      discrete.physical >= 0 ? ""
                             : "; it is not exposed now, so the default falls to the next "
                               "best device");
  if (context->has_default_device)
    doctor_evidence(context, finding, "agpu_device_select(NULL) -> %s (%s)",
                    context->default_device.selector,
                    agpu_device_type_name(context->default_device.type));
  if (integrated.physical >= 0)
    doctor_fix(context, finding, "To use the integrated GPU: ANYGPU_DEVICE=%s (or '*:integrated').",
               context->physical[integrated.physical].id);
  else if (integrated.address)
    doctor_fix(context, finding,
               "To use the integrated GPU once a driver exposes it: ANYGPU_DEVICE=pci:%s (or "
               "'*:integrated').",
               integrated.address);
  else
    doctor_fix(context, finding, "To use the integrated GPU: ANYGPU_DEVICE='*:integrated'.");
  doctor_fix(context, finding,
             "Graphics programs choose separately: DRI_PRIME=1 (Mesa) renders on the other GPU; "
             "__NV_PRIME_RENDER_OFFLOAD=1 __GLX_VENDOR_LIBRARY_NAME=nvidia (and "
             "__VK_LAYER_NV_optimus=NVIDIA_only for Vulkan) on the NVIDIA one.");
}

void doctor_check_selection(doctor_context *context) {
  check_anygpu_device(context);
  check_default(context);
  check_hybrid(context);
}
