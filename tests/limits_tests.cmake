# SPDX-License-Identifier: Apache-2.0
# The limits sweep (tests/test_limits.c) on every backend: each limit the
# device reports, launched just below, at and just above, each correct
# element by element or refused naming the limit. CUDA and HIP devices are
# swept where present, else the test is skipped with the backend's reason.
# The Vulkan runs have the validation layer on (silent is part of passing);
# the lowered ones make the by-address path (and, without buffer device
# addresses, the refusal) run on 1 MiB buffers.
add_executable(test_limits ${CMAKE_CURRENT_LIST_DIR}/test_limits.c)
target_link_libraries(test_limits PRIVATE anygpu)
target_include_directories(test_limits PRIVATE ${CMAKE_SOURCE_DIR}/tests)
set(AGPU_LIMITS_ENV ANYGPU_CACHE_DIR=${CMAKE_BINARY_DIR}/kernel-cache)
set(AGPU_LIMITS_VULKAN_ENV ${AGPU_LIMITS_ENV} ANYGPU_VULKAN_VALIDATION=1
    LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan-vulkan-drivers.supp:print_suppressions=0)
foreach(selector cpu:0 opencl:0 vulkan:0 cuda:0 hip:0)
  string(REPLACE ":0" "" backend ${selector})
  set(env ${AGPU_LIMITS_ENV})
  if(backend STREQUAL "vulkan")
    set(env ${AGPU_LIMITS_VULKAN_ENV})
  endif()
  add_test(NAME test_limits_${backend} COMMAND test_limits ${selector})
  set_tests_properties(test_limits_${backend} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                       LABELS limits ENVIRONMENT "${env}")
endforeach()
# The lowered runs take only the cases the range decides (the others are
# the plain run's): by address, then refused without buffer device
# addresses, then by address through pooled descriptor sets and through
# staging buffers.
set(AGPU_LIMITS_RANGE_CASES buffer_range,buffer_range_mixed,parameter_block,launch_bytes)
set(AGPU_LIMITS_LOWERED ANYGPU_VULKAN_MAX_STORAGE_RANGE=1048576)
foreach(run lowered no_address lowered_no_push_descriptors lowered_no_direct_memory)
  set(cases ${AGPU_LIMITS_RANGE_CASES})
  set(extra)
  if(run STREQUAL "no_address")
    set(cases offsets_32bit,${cases})
    set(extra ANYGPU_VULKAN_NO_BUFFER_ADDRESS=1)
  elseif(run STREQUAL "lowered_no_push_descriptors")
    set(extra ANYGPU_VULKAN_NO_PUSH_DESCRIPTORS=1)
  elseif(run STREQUAL "lowered_no_direct_memory")
    set(cases offsets_32bit,${cases})
    set(extra ANYGPU_VULKAN_NO_DIRECT_MEMORY=1)
  endif()
  add_test(NAME test_limits_vulkan_${run} COMMAND test_limits vulkan:0 ${cases})
  set_tests_properties(test_limits_vulkan_${run} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                       LABELS "limits;vulkan" ENVIRONMENT
                       "${AGPU_LIMITS_VULKAN_ENV};${AGPU_LIMITS_LOWERED};${extra}")
endforeach()

# Corpus kernels through the by-address path: with the range lowered to 4
# bytes every buffer of them goes by address (atomics, structs, vload/vstore,
# restrict and volatile pointers, doubles, wide vectors, pointer casts). The
# whole corpus passes so (77 kernels, about 75 s here); these few stay in the
# suite.
foreach(stem 043_global_atomics 057_struct_arrays 019_vload_vstore 023_pointer_qualifiers
             033_fp64_math 016_vector_arithmetic 109_pointer_cast_vectors
             112_pointer_cast_structs)
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/kernels/valid/${stem}.cl)
    add_test(NAME test_limits_corpus_by_address_${stem}
             COMMAND test_corpus ${CMAKE_CURRENT_LIST_DIR}/kernels --device vulkan:0 --kernel ${stem})
    set_tests_properties(test_limits_corpus_by_address_${stem} PROPERTIES SKIP_RETURN_CODE 77
                         TIMEOUT 300 LABELS "limits;vulkan;corpus"
                         ENVIRONMENT "${AGPU_LIMITS_VULKAN_ENV};ANYGPU_VULKAN_MAX_STORAGE_RANGE=4"
                         SKIP_REGULAR_EXPRESSION "--device 'vulkan:0' selects nothing")
  endif()
endforeach()
