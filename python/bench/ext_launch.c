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
/* A launch that does nothing: Kernel's launch address pointed here times the binding alone. */
static agpu_status noop_launch(agpu_queue *q, agpu_kernel *k, uint32_t dims, const size_t *g,
                               const size_t *l, uint32_t nargs, const agpu_arg *args) {
  (void)q, (void)k, (void)dims, (void)g, (void)l, (void)nargs, (void)args;
  return 0;
}
static PyObject *noop_address(PyObject *self, PyObject *unused) {
  return PyLong_FromVoidPtr((void *)noop_launch);
}
static PyMethodDef m[] = {{"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL, ""},
                          {"noop_address", noop_address, METH_NOARGS, ""}, {0}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "ext_launch", 0, -1, m};
PyMODINIT_FUNC PyInit_ext_launch(void) { return PyModule_Create(&mod); }
