// SPDX-License-Identifier: Apache-2.0
/* anygpu._speedups: the repeat launch in C (docs/python.md, "The launch path").
 *
 * A Launcher belongs to one anygpu.Kernel. Kernel.__call__ checks and writes the
 * arguments into the kernel's agpu_arg array in Python, then remember()s the
 * argument objects and the geometry it was given. launch() takes the next call's
 * arguments: when every one is the same object as remembered (and every buffer is
 * still live), the geometry is the same and the queue is live, it calls
 * agpu_launch at once and returns its status; otherwise it returns None and
 * Kernel.__call__ takes the checked road. agpu_launch comes as an address from
 * the ctypes-loaded library, so that both use the one libanygpu loaded (this
 * module links nothing). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef int (*launch_fn)(void *queue, void *kernel, uint32_t dims, const size_t *global,
                         const size_t *local, uint32_t nargs, const void *args);

typedef struct {
  PyObject_HEAD
  launch_fn launch;
  void *kernel, *args;
  size_t *global, *local;
  uint32_t nargs, dims;
  int local_null;
  unsigned char *is_buffer; /* nargs flags */
  PyObject *last;           /* a tuple of the remembered arguments, or NULL */
  PyObject *global_size, *local_size;
  PyObject *owner;          /* keeps the ctypes arrays behind the addresses alive */
} Launcher;

static PyObject *str_handle;

static void *as_address(PyObject *o) {
  return o == Py_None ? NULL : PyLong_AsVoidPtr(o);
}

static void forget(Launcher *self) {
  Py_CLEAR(self->last);
  Py_CLEAR(self->global_size);
  Py_CLEAR(self->local_size);
}

static int launcher_init(Launcher *self, PyObject *args, PyObject *kw) {
  PyObject *fn, *kernel, *arr, *global, *local, *flags, *owner;
  unsigned int nargs;
  static char *names[] = {"launch", "kernel", "args", "nargs", "global_", "local", "is_buffer",
                          "owner", NULL};
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOIOOSO", names, &fn, &kernel, &arr, &nargs,
                                   &global, &local, &flags, &owner))
    return -1;
  if ((Py_ssize_t)nargs != PyBytes_GET_SIZE(flags)) {
    PyErr_SetString(PyExc_ValueError, "is_buffer must hold one flag per argument");
    return -1;
  }
  self->launch = (launch_fn)as_address(fn);
  self->kernel = as_address(kernel);
  self->args = as_address(arr);
  self->global = as_address(global);
  self->local = as_address(local);
  if (PyErr_Occurred()) return -1;
  if (!self->launch || !self->global || !self->local) {
    PyErr_SetString(PyExc_ValueError, "Launcher: a null address");
    return -1;
  }
  self->nargs = nargs;
  PyMem_Free(self->is_buffer);
  self->is_buffer = PyMem_Malloc(nargs ? nargs : 1);
  if (!self->is_buffer) {
    PyErr_NoMemory();
    return -1;
  }
  memcpy(self->is_buffer, PyBytes_AS_STRING(flags), nargs);
  Py_INCREF(owner);
  Py_XSETREF(self->owner, owner);
  forget(self);
  return 0;
}

static void launcher_dealloc(Launcher *self) {
  forget(self);
  Py_CLEAR(self->owner);
  PyMem_Free(self->is_buffer);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* An int or a tuple of ints only: a list could change between calls. */
static int cacheable(PyObject *o) { return PyLong_CheckExact(o) || PyTuple_CheckExact(o); }

static int same(PyObject *a, PyObject *b) {
  if (a == b) return 1;
  if (Py_TYPE(a) != Py_TYPE(b)) return 0;
  int eq = PyObject_RichCompareBool(a, b, Py_EQ);
  if (eq < 0) {
    PyErr_Clear();
    return 0;
  }
  return eq;
}

/* remember(args: tuple, global_size, local_size, dims, local_null) */
static PyObject *launcher_remember(Launcher *self, PyObject *const *a, Py_ssize_t n) {
  if (n != 5 || !PyTuple_CheckExact(a[0]) ||
      PyTuple_GET_SIZE(a[0]) != (Py_ssize_t)self->nargs) {
    PyErr_SetString(PyExc_TypeError, "remember(args, global_size, local_size, dims, local_null)");
    return NULL;
  }
  forget(self);
  if (!cacheable(a[1]) || (a[2] != Py_None && !cacheable(a[2]))) Py_RETURN_NONE;
  long dims = PyLong_AsLong(a[3]);
  int local_null = PyObject_IsTrue(a[4]);
  if ((dims == -1 && PyErr_Occurred()) || local_null < 0) return NULL;
  self->dims = (uint32_t)dims;
  self->local_null = local_null;
  Py_INCREF(a[0]);
  Py_INCREF(a[1]);
  Py_INCREF(a[2]);
  self->last = a[0];
  self->global_size = a[1];
  self->local_size = a[2];
  Py_RETURN_NONE;
}

static PyObject *launcher_forget(Launcher *self, PyObject *unused) {
  (void)unused;
  forget(self);
  Py_RETURN_NONE;
}

/* A live handle's address from obj._handle; NULL (no error) when released. */
static int live_handle(PyObject *obj, void **out) {
  PyObject *h = PyObject_GetAttr(obj, str_handle);
  if (!h) return -1;
  *out = h == Py_None ? NULL : PyLong_AsVoidPtr(h);
  Py_DECREF(h);
  return PyErr_Occurred() ? -1 : 0;
}

/* launch(global_size, local_size, args: tuple, queue) -> status, or None to take
 * the checked road */
static PyObject *launcher_launch(Launcher *self, PyObject *const *a, Py_ssize_t n) {
  if (n != 4) {
    PyErr_SetString(PyExc_TypeError, "launch(global_size, local_size, args, queue)");
    return NULL;
  }
  PyObject *args = a[2], *last = self->last;
  if (!last || !PyTuple_CheckExact(args) || PyTuple_GET_SIZE(args) != (Py_ssize_t)self->nargs ||
      !same(a[0], self->global_size) || !same(a[1], self->local_size))
    Py_RETURN_NONE;
  for (uint32_t i = 0; i < self->nargs; i++) {
    PyObject *arg = PyTuple_GET_ITEM(args, i);
    if (arg != PyTuple_GET_ITEM(last, i)) Py_RETURN_NONE;
    if (self->is_buffer[i]) {
      void *h;
      if (live_handle(arg, &h)) return NULL;
      if (!h) Py_RETURN_NONE; /* released since: the checked road raises */
    }
  }
  void *queue = NULL;
  if (a[3] != Py_None) {
    if (live_handle(a[3], &queue)) return NULL;
    if (!queue) Py_RETURN_NONE;
  }
  int status;
  Py_BEGIN_ALLOW_THREADS
  status = self->launch(queue, self->kernel, self->dims, self->global,
                        self->local_null ? NULL : self->local, self->nargs, self->args);
  Py_END_ALLOW_THREADS
  return PyLong_FromLong(status);
}

/* ---- DLPack export (the DLPack 0.8 ABI, unversioned "dltensor" capsules) ---- */

typedef struct {
  int32_t device_type, device_id;
} DLDevice;
typedef struct {
  uint8_t code, bits;
  uint16_t lanes;
} DLDataType;
typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape, *strides;
  uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx; /* the Python object that owns the memory (a strong reference) */
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/* DLPack 1.0: what a consumer that asks for max_version >= (1, 0) gets;
 * writeable (flags 0), which the unversioned form cannot say to NumPy. */
typedef struct DLManagedTensorVersioned {
  struct {
    uint32_t major, minor;
  } version;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned *self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

static void release_owner(void *owner, void *block) {
  PyGILState_STATE gil = PyGILState_Ensure(); /* consumers may call it without the GIL */
  Py_XDECREF((PyObject *)owner);
  PyMem_RawFree(block);
  PyGILState_Release(gil);
}

static void dlpack_deleter(DLManagedTensor *t) { release_owner(t->manager_ctx, t); }
static void dlpack_deleter_versioned(DLManagedTensorVersioned *t) {
  release_owner(t->manager_ctx, t);
}

static void dlpack_capsule_destructor(PyObject *capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor")) return; /* consumed: "used_dltensor" */
  DLManagedTensor *t = PyCapsule_GetPointer(capsule, "dltensor");
  if (t && t->deleter) t->deleter(t);
}

static void dlpack_capsule_destructor_versioned(PyObject *capsule) {
  if (!PyCapsule_IsValid(capsule, "dltensor_versioned")) return;
  DLManagedTensorVersioned *t = PyCapsule_GetPointer(capsule, "dltensor_versioned");
  if (t && t->deleter) t->deleter(t);
}

/* dlpack(address, shape, code, bits, device_type, device_id, owner, versioned)
 * -> a "dltensor" (or "dltensor_versioned") capsule over C-contiguous memory
 * that `owner` keeps alive */
static PyObject *dlpack(PyObject *module, PyObject *const *a, Py_ssize_t n) {
  (void)module;
  if (n != 8 || !PyTuple_Check(a[1])) {
    PyErr_SetString(PyExc_TypeError, "dlpack(address, shape, code, bits, device_type, "
                                     "device_id, owner, versioned)");
    return NULL;
  }
  void *data = PyLong_AsVoidPtr(a[0]);
  long code = PyLong_AsLong(a[2]), bits = PyLong_AsLong(a[3]);
  long device_type = PyLong_AsLong(a[4]), device_id = PyLong_AsLong(a[5]);
  if (PyErr_Occurred()) return NULL;
  int versioned = PyObject_IsTrue(a[7]);
  if (versioned < 0) return NULL;
  Py_ssize_t ndim = PyTuple_GET_SIZE(a[1]);
  size_t head = versioned ? sizeof(DLManagedTensorVersioned) : sizeof(DLManagedTensor);
  head = (head + 7) & ~(size_t)7;
  char *block = PyMem_RawCalloc(1, head + 2 * (size_t)(ndim ? ndim : 1) * sizeof(int64_t));
  if (!block) return PyErr_NoMemory();
  int64_t *shape = (int64_t *)(block + head), *strides = shape + (ndim ? ndim : 1);
  for (Py_ssize_t i = 0; i < ndim; i++) {
    shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(a[1], i));
    if (shape[i] == -1 && PyErr_Occurred()) {
      PyMem_RawFree(block);
      return NULL;
    }
  }
  int64_t stride = 1; /* in elements, C order */
  for (Py_ssize_t i = ndim - 1; i >= 0; i--) {
    strides[i] = stride;
    stride *= shape[i];
  }
  DLTensor tensor = (DLTensor){.data = data,
                            .device = {(int32_t)device_type, (int32_t)device_id},
                            .ndim = (int32_t)ndim,
                            .dtype = {(uint8_t)code, (uint8_t)bits, 1},
                            .shape = shape,
                            .strides = strides};
  Py_INCREF(a[6]);
  PyObject *capsule;
  if (versioned) {
    DLManagedTensorVersioned *t = (DLManagedTensorVersioned *)block;
    t->version.major = 1;
    t->version.minor = 0;
    t->manager_ctx = a[6];
    t->deleter = dlpack_deleter_versioned;
    t->dl_tensor = tensor;
    capsule = PyCapsule_New(t, "dltensor_versioned", dlpack_capsule_destructor_versioned);
  } else {
    DLManagedTensor *t = (DLManagedTensor *)block;
    t->manager_ctx = a[6];
    t->deleter = dlpack_deleter;
    t->dl_tensor = tensor;
    capsule = PyCapsule_New(t, "dltensor", dlpack_capsule_destructor);
  }
  if (!capsule) release_owner(a[6], block);
  return capsule;
}

static PyMethodDef module_methods[] = {
    {"dlpack", (PyCFunction)(void (*)(void))dlpack, METH_FASTCALL,
     "dlpack(address, shape, code, bits, device_type, device_id, owner, versioned) -> capsule"},
    {NULL, NULL, 0, NULL}};

static PyMethodDef launcher_methods[] = {
    {"launch", (PyCFunction)(void (*)(void))launcher_launch, METH_FASTCALL,
     "launch(global_size, local_size, args, queue) -> status, or None on a miss"},
    {"remember", (PyCFunction)(void (*)(void))launcher_remember, METH_FASTCALL,
     "remember(args, global_size, local_size, dims, local_null)"},
    {"forget", (PyCFunction)launcher_forget, METH_NOARGS, "forget what was remembered"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject LauncherType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "anygpu._speedups.Launcher",
    .tp_basicsize = sizeof(Launcher),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The repeat launch of one kernel (docs/python.md)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)launcher_init,
    .tp_dealloc = (destructor)launcher_dealloc,
    .tp_methods = launcher_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "_speedups", .m_doc = "anygpu's launch path in C", .m_size = -1,
    .m_methods = module_methods};

PyMODINIT_FUNC PyInit__speedups(void) {
  if (PyType_Ready(&LauncherType) < 0) return NULL;
  str_handle = PyUnicode_InternFromString("_handle");
  if (!str_handle) return NULL;
  PyObject *m = PyModule_Create(&module);
  if (!m) return NULL;
  Py_INCREF(&LauncherType);
  if (PyModule_AddObject(m, "Launcher", (PyObject *)&LauncherType) < 0) {
    Py_DECREF(&LauncherType);
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
