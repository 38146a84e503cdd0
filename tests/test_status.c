// SPDX-License-Identifier: Apache-2.0
/* Status names and the thread-local message. */
#include <pthread.h>

#include "agpu_test.h"

static void status_names_are_distinct_and_named(void) {
  for (int a = 0; a < AGPU_STATUS_COUNT_; a++) {
    const char *name = agpu_status_name((agpu_status)a);
    CHECK(strncmp(name, "AGPU_", 5) == 0);
    for (int b = 0; b < a; b++) CHECK(strcmp(name, agpu_status_name((agpu_status)b)) != 0);
  }
  CHECK(strcmp(agpu_status_name(AGPU_SUCCESS), "AGPU_SUCCESS") == 0);
  CHECK(strcmp(agpu_status_name(AGPU_ERROR_OUT_OF_RANGE), "AGPU_ERROR_OUT_OF_RANGE") == 0);
  CHECK(strcmp(agpu_status_name((agpu_status)-1), "AGPU_STATUS_UNKNOWN") == 0);
  CHECK(strcmp(agpu_status_name(AGPU_STATUS_COUNT_), "AGPU_STATUS_UNKNOWN") == 0);
}

static void version_matches_header(void) {
  CHECK(strcmp(agpu_version(), AGPU_VERSION_STRING) == 0);
}

static void null_arguments_give_messages(void) {
  CHECK_STATUS(agpu_device_count(NULL), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("agpu_device_count");
  CHECK_STATUS(agpu_device_get_info(NULL, NULL), AGPU_ERROR_INVALID_HANDLE);
  CHECK_MESSAGE("device is NULL");
  CHECK_STATUS(agpu_buffer_release(NULL), AGPU_ERROR_INVALID_HANDLE);
  CHECK_MESSAGE("agpu_buffer_release: buffer is NULL");
  agpu_device_info info;
  int not_a_device = 0;
  CHECK_STATUS(agpu_device_get_info((agpu_device *)&not_a_device, &info),
               AGPU_ERROR_INVALID_HANDLE);
  CHECK_MESSAGE("is not an anygpu device");
  uint32_t count = 0;
  CHECK_OK(agpu_device_count(&count));
  agpu_device *device = NULL;
  CHECK_STATUS(agpu_device_get(count, &device), AGPU_ERROR_INVALID_ARGUMENT);
  CHECK_MESSAGE("out of range");
  CHECK(device == NULL);
}

static void *other_thread(void *arg) {
  (void)arg;
  /* A fresh thread starts with an empty message, then gets its own. */
  int empty = agpu_last_error()[0] == '\0';
  agpu_buffer_release(NULL);
  return (void *)(intptr_t)(empty && strstr(agpu_last_error(), "agpu_buffer_release"));
}

static void message_is_per_thread(void) {
  agpu_device_count(NULL);
  pthread_t thread;
  void *result = NULL;
  CHECK(pthread_create(&thread, NULL, other_thread, NULL) == 0);
  CHECK(pthread_join(thread, &result) == 0);
  CHECK(result != NULL);
  CHECK_MESSAGE("agpu_device_count"); /* this thread's message is untouched */
}

int main(void) {
  RUN(status_names_are_distinct_and_named);
  RUN(version_matches_header);
  RUN(null_arguments_give_messages);
  RUN(message_is_per_thread);
  return agpu_test_finish();
}
