// SPDX-License-Identifier: Apache-2.0
/* An ordinary shared library with nothing of any vendor's API in it. The
 * doctor tests copy it under a vendor library's name (libcuda.so.535.104.05)
 * to give that name a version without a vendor's driver on the machine. */
int doctor_test_library_marker(void);

int doctor_test_library_marker(void) {
  return 42;
}
