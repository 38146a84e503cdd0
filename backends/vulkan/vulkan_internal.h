// SPDX-License-Identifier: Apache-2.0
/* What the Vulkan backend's files share: the run-time symbol table, the
 * native state behind each core handle, and the error helpers. */
#ifndef AGPU_VULKAN_INTERNAL_H
#define AGPU_VULKAN_INTERNAL_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "agpu_backend.h"

/* Resolved with vkGetInstanceProcAddr(NULL, ...) before an instance exists. */
#define AGPU_VULKAN_GLOBAL_SYMBOLS(X)              \
  X(vkCreateInstance, false)                       \
  X(vkEnumerateInstanceExtensionProperties, false) \
  X(vkEnumerateInstanceLayerProperties, false)     \
  X(vkEnumerateInstanceVersion, true)

/* X(name, optional): every other entry point, resolved through the instance
 * (the loader's trampolines dispatch device calls). The optional ones belong
 * to extensions and are used only where the device or instance has them. */
#define AGPU_VULKAN_INSTANCE_SYMBOLS(X)              \
  X(vkDestroyInstance, false)                        \
  X(vkEnumeratePhysicalDevices, false)               \
  X(vkGetPhysicalDeviceProperties, false)            \
  X(vkGetPhysicalDeviceProperties2, false)           \
  X(vkGetPhysicalDeviceFeatures2, false)             \
  X(vkGetPhysicalDeviceMemoryProperties, false)      \
  X(vkGetPhysicalDeviceMemoryProperties2, false)     \
  X(vkGetPhysicalDeviceQueueFamilyProperties, false) \
  X(vkEnumerateDeviceExtensionProperties, false)     \
  X(vkCreateDebugUtilsMessengerEXT, true)            \
  X(vkDestroyDebugUtilsMessengerEXT, true)           \
  X(vkCreateDevice, false)                           \
  X(vkDestroyDevice, false)                          \
  X(vkGetDeviceQueue, false)                         \
  X(vkDeviceWaitIdle, false)                         \
  X(vkQueueSubmit, false)                            \
  X(vkAllocateMemory, false)                         \
  X(vkFreeMemory, false)                             \
  X(vkMapMemory, false)                              \
  X(vkUnmapMemory, false)                            \
  X(vkCreateBuffer, false)                           \
  X(vkDestroyBuffer, false)                          \
  X(vkGetBufferMemoryRequirements, false)            \
  X(vkBindBufferMemory, false)                       \
  X(vkCreateShaderModule, false)                     \
  X(vkDestroyShaderModule, false)                    \
  X(vkCreatePipelineCache, false)                    \
  X(vkDestroyPipelineCache, false)                   \
  X(vkGetPipelineCacheData, false)                   \
  X(vkCreateComputePipelines, false)                 \
  X(vkDestroyPipeline, false)                        \
  X(vkCreatePipelineLayout, false)                   \
  X(vkDestroyPipelineLayout, false)                  \
  X(vkCreateDescriptorSetLayout, false)              \
  X(vkDestroyDescriptorSetLayout, false)             \
  X(vkCreateDescriptorPool, false)                   \
  X(vkDestroyDescriptorPool, false)                  \
  X(vkResetDescriptorPool, false)                    \
  X(vkAllocateDescriptorSets, false)                 \
  X(vkUpdateDescriptorSets, false)                   \
  X(vkCreateCommandPool, false)                      \
  X(vkDestroyCommandPool, false)                     \
  X(vkAllocateCommandBuffers, false)                 \
  X(vkFreeCommandBuffers, false)                     \
  X(vkResetCommandBuffer, false)                     \
  X(vkBeginCommandBuffer, false)                     \
  X(vkEndCommandBuffer, false)                       \
  X(vkCreateFence, false)                            \
  X(vkDestroyFence, false)                           \
  X(vkWaitForFences, false)                          \
  X(vkResetFences, false)                            \
  X(vkGetFenceStatus, false)                         \
  X(vkCreateQueryPool, false)                        \
  X(vkDestroyQueryPool, false)                       \
  X(vkGetQueryPoolResults, false)                    \
  X(vkCmdResetQueryPool, false)                      \
  X(vkCmdWriteTimestamp, false)                      \
  X(vkCmdBindPipeline, false)                        \
  X(vkCmdBindDescriptorSets, false)                  \
  X(vkCmdPushConstants, false)                       \
  X(vkCmdPushDescriptorSetKHR, true)                 \
  X(vkCmdDispatch, false)                            \
  X(vkCmdDispatchBase, false)                        \
  X(vkGetBufferDeviceAddress, true)                  \
  X(vkCmdPipelineBarrier, false)                     \
  X(vkCmdCopyBuffer, false)                          \
  X(vkCmdFillBuffer, false)                          \
  X(vkCmdUpdateBuffer, false)

/* backend->native: the library, the instance and the messenger; read-only
 * after init except the validation log, which has its own lock. */
typedef struct agpu_vk_api {
  void *library;
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
#define AGPU_VK_API_FIELD(name, optional) PFN_##name name;
  AGPU_VULKAN_GLOBAL_SYMBOLS(AGPU_VK_API_FIELD)
  AGPU_VULKAN_INSTANCE_SYMBOLS(AGPU_VK_API_FIELD)
#undef AGPU_VK_API_FIELD
  VkInstance instance;
  uint32_t instance_version;
  bool validation;
  VkDebugUtilsMessengerEXT messenger;
  pthread_mutex_t log_lock;
  _Atomic uint64_t messages; /* validation warnings and errors so far */
  char last_message[2048];
} agpu_vk_api;

/* One block of VkDeviceMemory that buffers share (vulkan_suballoc.c). */
typedef struct agpu_vk_range {
  VkDeviceSize offset, size;
} agpu_vk_range;

typedef struct agpu_vk_block {
  VkDeviceMemory memory;
  VkDeviceSize size, used;
  uint32_t type_index;
  void *mapped;        /* host-visible blocks stay mapped */
  agpu_vk_range *free; /* free ranges, sorted by offset, coalesced */
  uint32_t free_count, free_capacity;
  bool dedicated; /* holds one buffer larger than a block */
} agpu_vk_block;

typedef struct agpu_vk_allocation {
  agpu_vk_block *block;
  VkDeviceSize offset, size;
} agpu_vk_allocation;

typedef struct agpu_vk_device agpu_vk_device;
typedef struct agpu_vk_deferred agpu_vk_deferred;

/* device->native. Everything but the locked parts is read-only after init. */
struct agpu_vk_device {
  const agpu_vk_api *api;
  agpu_backend *backend;
  VkPhysicalDevice physical;
  VkPhysicalDeviceProperties properties;
  VkPhysicalDeviceMemoryProperties memory;
  VkDevice device;
  VkQueue queue;
  uint32_t queue_family;
  uint32_t timestamp_bits;
  float timestamp_period; /* ns per tick */
  bool push_descriptors;
  bool memory_budget;
  /* Features the kernels may need (KL_GLSL_NEEDS_*), enabled at creation. */
  unsigned capabilities;
  bool fp16;
  uint32_t heap_index;            /* the device-local heap buffers go to */
  int32_t direct_type;            /* device-local, host-visible, coherent; -1 if none */
  int32_t device_type;            /* device-local */
  int32_t staging_type;           /* host-visible, coherent */
  VkDeviceSize block_size;        /* of the sub-allocator's blocks */
  VkDeviceSize max_storage_range; /* maxStorageBufferRange, or ANYGPU_VULKAN_MAX_STORAGE_RANGE */
  bool buffer_address;          /* bufferDeviceAddress enabled: buffers over the range by address */
  uint32_t max_storage_buffers; /* maxPerStageDescriptorStorageBuffers */
  pthread_mutex_t submit_lock;  /* vkQueueSubmit on the shared VkQueue */
  pthread_mutex_t memory_lock;  /* the blocks below and heap_used */
  agpu_vk_block **blocks;
  uint32_t block_count, block_capacity;
  VkDeviceSize heap_used; /* bytes of VkDeviceMemory this process took from the heap */
  VkPipelineCache pipeline_cache;
  char pipeline_cache_key[80];   /* hex key in the kernel cache, "" if none */
  size_t pipeline_cache_saved;   /* bytes last stored there */
  uint64_t reported_messages;    /* validation messages already turned into errors */
  pthread_mutex_t deferred_lock; /* the two below */
  uint32_t batches_in_use;       /* recording or in flight, on every queue */
  agpu_vk_deferred *deferred;    /* releases waiting for batches_in_use to reach 0 */
  pthread_mutex_t probe_lock;    /* the probes' results (vulkan_probe.c) */
  int f64_rounding;              /* agpu_vk_probe_result */
};

/* What a probe of the driver found (vulkan_probe.c). */
typedef enum agpu_vk_probe_result {
  AGPU_VK_PROBE_UNKNOWN,
  AGPU_VK_PROBE_YES,
  AGPU_VK_PROBE_NO,
} agpu_vk_probe_result;

/* buffer->native */
typedef struct agpu_vk_buffer {
  VkBuffer buffer;
  agpu_vk_allocation allocation;
  void *mapped;            /* non-NULL when the memory is host-visible (direct) */
  VkDeviceAddress address; /* where device->buffer_address, else 0 */
} agpu_vk_buffer;

/* A buffer the backend uses for itself (staging, parameter blocks). */
typedef struct agpu_vk_transient {
  agpu_vk_buffer buffer;
  struct agpu_vk_transient *next;
} agpu_vk_transient;

/* One command buffer's worth of work: recorded, then submitted, then done. */
typedef struct agpu_vk_batch {
  VkCommandBuffer commands;
  VkFence fence;
  VkDescriptorPool pool; /* per batch when there are no push descriptors */
  agpu_vk_transient *transients;
  uint64_t sequence; /* set at submit */
  bool recording;    /* begun and holding commands */
  bool submitted;
  uint32_t commands_recorded;
} agpu_vk_batch;

/* queue->native */
typedef struct agpu_vk_queue {
  pthread_mutex_t lock;
  VkCommandPool pool;
  agpu_vk_batch *batches; /* batches[0] is the one being recorded */
  uint32_t batch_count, batch_capacity;
  agpu_vk_batch *open;
  uint64_t submitted, completed; /* sequence numbers */
} agpu_vk_queue;

/* event->native */
typedef struct agpu_vk_event {
  VkQueryPool queries; /* one timestamp, VK_NULL_HANDLE without timing */
  uint64_t sequence;
} agpu_vk_event;

/* One pipeline: a work-group size and the __local parameters' counts. */
typedef struct agpu_vk_pipeline {
  uint32_t local[3];
  uint32_t enqueued; /* KL_GLSL_ENQUEUED_SPEC_ID: local[0] but for a smaller last group */
  uint32_t *local_counts;
  VkPipeline pipeline;
} agpu_vk_pipeline;

/* Per kernel of a program: what the GLSL emitter's layout says, copied. */
typedef struct agpu_vk_param {
  int kind; /* kl_glsl_param_kind */
  uint32_t binding, offset, size, spec_id, element_size;
  bool by_address;         /* BUFFER: reached through its address (a variant) */
  uint32_t address_offset; /* BUFFER by address: where the address goes in the block */
} agpu_vk_param;

typedef struct agpu_vk_kernel_entry agpu_vk_kernel_entry;
typedef struct agpu_vk_program agpu_vk_program;

struct agpu_vk_kernel_entry {
  char name[128];
  agpu_kernel_param *params; /* for kernel->params */
  agpu_vk_param *layout;
  uint32_t param_count;
  uint32_t buffer_count, block_size, block_binding, local_param_count;
  uint32_t static_local_bytes; /* the kernel's own __local arrays */
  bool block_in_buffer;
  bool has_required_work_group_size;
  uint32_t required_work_group_size[3];
  VkShaderModule module;
  VkDescriptorSetLayout set_layout;
  VkPipelineLayout pipeline_layout;
  pthread_mutex_t lock; /* pipelines */
  agpu_vk_pipeline *pipelines;
  uint32_t pipeline_count, pipeline_capacity;
  /* By-address variants (vulkan_variant.c), made on first use under lock:
   * the same kernel with the buffer parameters of by_address (bit i:
   * parameter i) reached through buffer device addresses. */
  /* this entry's mask: 0 for the base entry, unless its kernel has more
   * buffers than the device binds (then the last ones go by address) */
  uint64_t by_address;
  agpu_vk_program *program;
  agpu_vk_kernel_entry *variants; /* the base entry's list */
  agpu_vk_kernel_entry *next_variant;
};

/* program->native */
struct agpu_vk_program {
  agpu_vk_kernel_entry *kernels;
  uint32_t kernel_count;
  /* The core's parse, retained: by-address variants are emitted from it
   * at launch (portable programs; NULL for native SPIR-V). */
  struct agpu_parsed *parsed;
};

static inline agpu_vk_device *agpu_vk_device_of(const agpu_device *device) {
  return (agpu_vk_device *)device->native;
}

/* vulkan_error.c */
const char *agpu_vk_result_name(VkResult result);
agpu_status agpu_vk_status(VkResult result);
/* Sets "vulkan: <call> failed: VK_NAME (code)" with the mapped status. */
agpu_status agpu_vk_fail(const char *call, VkResult result);
/* The debug-utils callback's counterpart: AGPU_ERROR_BACKEND with the
 * validation layer's last message when it said something since the last
 * check on this device, else AGPU_SUCCESS. */
agpu_status agpu_vk_check_validation(agpu_vk_device *device, const char *during);
VKAPI_ATTR VkBool32 VKAPI_CALL agpu_vk_debug_callback(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user);

/* vulkan_loader.c: NULL (with backend->reason set) when there is no library
 * or no instance. */
agpu_vk_api *agpu_vk_load(agpu_backend *backend);

/* vulkan_device.c */
agpu_status agpu_vk_enumerate(agpu_backend *backend, agpu_vk_api *api);
uint32_t agpu_vk_device_caps(agpu_device *device);
agpu_status agpu_vk_device_memory(agpu_device *device, agpu_memory_info *info);

/* vulkan_suballoc.c */
agpu_status agpu_vk_memory_alloc(agpu_vk_device *device, const VkMemoryRequirements *needs,
                                 int32_t type_index, const char *selector, agpu_vk_allocation *out);
void agpu_vk_memory_free(agpu_vk_device *device, agpu_vk_allocation *allocation);
/* A VkBuffer of `size` bytes bound to new memory of `type_index`. */
agpu_status agpu_vk_buffer_make(agpu_vk_device *device, VkDeviceSize size, int32_t type_index,
                                const char *selector, agpu_vk_buffer *out);
void agpu_vk_buffer_destroy(agpu_vk_device *device, agpu_vk_buffer *buffer);

/* vulkan_memory.c */
AGPU_DECLARE_MEMORY_OPS(agpu_vk);
agpu_status agpu_vk_buffer_map(agpu_queue *queue, agpu_buffer *buffer, size_t offset, size_t size,
                               void **ptr);
agpu_status agpu_vk_buffer_unmap(agpu_queue *queue, agpu_buffer *buffer, void *ptr);

/* vulkan_queue.c: the queue's lock is held around every recording call. */
/* The batch being recorded, with a barrier after earlier work (none before
 * a batch's first command when nothing else on the device is in use). */
agpu_status agpu_vk_queue_recording(agpu_queue *queue, agpu_vk_batch **batch);
/* Submits the batch being recorded, if any; *sequence is what to wait for. */
agpu_status agpu_vk_queue_flush(agpu_queue *queue, uint64_t *sequence);
/* Waits until `sequence` has completed, retiring batches. */
agpu_status agpu_vk_queue_wait(agpu_queue *queue, uint64_t sequence);
/* Whether the queue has nothing recorded or in flight. */
bool agpu_vk_queue_idle(agpu_queue *queue);
/* A barrier making every earlier transfer and dispatch visible to later ones. */
void agpu_vk_barrier(agpu_vk_device *device, VkCommandBuffer commands);
/* A host-visible buffer that lives until the batch completes. */
agpu_status agpu_vk_batch_transient(agpu_vk_device *device, agpu_vk_batch *batch, VkDeviceSize size,
                                    const char *selector, agpu_vk_buffer **out);

/* vulkan_program.c */
agpu_status agpu_vk_program_build(agpu_program *program, const agpu_program_desc *desc);
void agpu_vk_translate_traits(agpu_device *device, agpu_translate_traits *traits);
/* The device's double floor, ceil, trunc and roundEven are exact: probed
 * once per process on first call ($ANYGPU_VULKAN_F64_ROUNDING=soft or
 * native overrides it). False without fp64. */
bool agpu_vk_f64_rounding_exact(agpu_device *device);
AGPU_DECLARE_KERNEL_OPS(agpu_vk);

/* vulkan_deferred.c: a batch is "in use" from its first command until it
 * retires (or fails to submit). */
/* Returns how many were in use before this one. */
uint32_t agpu_vk_work_begin(agpu_vk_device *device);
void agpu_vk_work_end(agpu_vk_device *device);
/* destroy(device, object) now if no batch is in use, else when none is. */
void agpu_vk_defer(agpu_vk_device *device, void (*destroy)(agpu_vk_device *, void *), void *object);

/* vulkan_native.c */
agpu_status agpu_vk_program_create_native(agpu_program *program, agpu_native_format format,
                                          const void *data, size_t size, const char *options);

/* vulkan_pipeline.c */
/* The storage-buffer bindings an entry's shader declares: its buffers not
 * reached by address, and its parameter block when it is in a buffer. */
uint32_t agpu_vk_storage_bindings(const agpu_vk_kernel_entry *entry);
agpu_status agpu_vk_kernel_objects(agpu_vk_device *device, agpu_vk_kernel_entry *entry,
                                   const uint32_t *words, size_t size);
void agpu_vk_kernel_entry_destroy(agpu_vk_device *device, agpu_vk_kernel_entry *entry);
/* `enqueued`: the launch's local size in dimension 0, which local[0] is
 * but for a smaller last group (kernels/glsl_layout.h) */
agpu_status agpu_vk_pipeline_get(agpu_vk_device *device, agpu_vk_kernel_entry *entry,
                                 const uint32_t local[3], uint32_t enqueued,
                                 const uint32_t *local_counts, VkPipeline *pipeline);
void agpu_vk_pipeline_cache_open(agpu_vk_device *device);
void agpu_vk_pipeline_cache_save(agpu_vk_device *device);

/* vulkan_variant.c: the entry a launch uses. Buffers larger than the
 * device's storage-buffer range go by address where the device can
 * (a variant, made on first use), else the launch is refused naming the
 * parameter, its size and the limit. */
agpu_status agpu_vk_launch_entry(agpu_kernel *kernel, uint32_t nargs, const agpu_arg args[],
                                 agpu_vk_kernel_entry **entry);
void agpu_vk_variants_destroy(agpu_vk_device *device, agpu_vk_kernel_entry *entry);

/* vulkan_launch.c */

#endif /* AGPU_VULKAN_INTERNAL_H */
