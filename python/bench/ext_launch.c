// SPDX-License-Identifier: Apache-2.0
/* The cost of the foreign call alone, for docs/python.md ("Why ctypes"): a
 * CPython extension whose one function calls agpu_launch with arguments given
 * as integers (addresses), as a C extension binding would. Built and timed by
 * ffi_cost.py; not part of the package. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "anygpu.h"
static PyObject *launch(PyObject *self, PyObject *const *args, Py_ssize_t n) {
  /* queue, kernel, dims, global, local, nargs, args: all as integers (addresses) */
  void *p[7];
  for (int i = 0; i < 7; i++) p[i] = args[i] == Py_None ? NULL : PyLong_AsVoidPtr(args[i]);
  int st = agpu_launch(p[0], p[1], (uint32_t)(uintptr_t)p[2], p[3], p[4], (uint32_t)(uintptr_t)p[5], p[6]);
  return PyLong_FromLong(st);
}
static PyMethodDef m[] = {{"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, ""}, {0}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "ext_launch", 0, -1, m};
PyMODINIT_FUNC PyInit_ext_launch(void) { return PyModule_Create(&mod); }
