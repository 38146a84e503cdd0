// SPDX-License-Identifier: Apache-2.0
/* anygpu._speedups: the launch in C, and DLPack capsules (docs/python.md, "The
 * launch path").
 *
 * KernelBase is anygpu.Kernel's C base (class Kernel(KernelBase, Resource)), and
 * its tp_call is the whole launch: k(global_size, local_size, *args, queue=None)
 * checks each argument against the kernel's signature and writes it into the
 * kernel's agpu_arg array, writes the geometry, and calls agpu_launch with the
 * GIL released, in one C call from Python. An argument that is the same object
 * as at the last launch is not written again (a buffer's handle is still checked
 * to be live). The forms the C side takes itself are those that cannot fail
 * the Python checks: a live Buffer on the kernel's device with the parameter's
 * dtype, a NumPy scalar of the parameter's own type, a Python int that fits an
 * integer parameter, a Python float for a float or double; plain ints and tuples
 * for the geometry. Every other form (and so every error) goes to the Python
 * code of anygpu/launch.py: the parameter's _Slot.put, Kernel._set_geometry,
 * Kernel._bad_count, Kernel._call_by_name for parameters given by name, the
 * object's _h() for a released kernel, buffer or queue, and errors.check for a
 * failed launch; so the exceptions and their messages are the Python code's.
 * agpu_launch comes as an address from the ctypes-loaded library, so that both
 * use the one libanygpu loaded (this module links nothing). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef int (*launch_fn)(void *queue, void *kernel, uint32_t dims, const size_t *global,
                         const size_t *local, uint32_t nargs, const void *args);

enum { SLOT_PYTHON, SLOT_BUFFER, SLOT_SCALAR };

/* One parameter: how its argument is checked and written into its agpu_arg. */
typedef struct {
  int kind;          /* SLOT_*: SLOT_PYTHON forms all go to the Python slot's put() */
  char dkind;        /* SLOT_SCALAR: 'i', 'u' or 'f' */
  int itemsize;      /* SLOT_SCALAR: 1, 2, 4 or 8 */
  long long imin;    /* SLOT_SCALAR, 'i' and 'u': the range a Python int must fit */
  unsigned long long imax;
  unsigned char *arg; /* this parameter's agpu_arg */
  PyObject *put;     /* the Python slot's put(arg): checks, raises, writes */
  PyObject *slot;    /* the Python _Slot, for its .last after a put */
  PyObject *type;    /* SLOT_SCALAR: the NumPy scalar type taken as it is */
  PyObject *dtype;   /* SLOT_BUFFER: the dtype a buffer must have (None: any) */
  PyObject *last;    /* the argument the agpu_arg holds now, or NULL */
} Slot;

/* anygpu.Kernel's C base: Kernel(KernelBase, Resource). Calling a kernel is
 * tp_call below: the arguments checked against the signature and written, and
 * agpu_launch called, in one C call; the forms it does not take itself go to
 * the Python slot's put() (which raises the documented errors). */
typedef struct {
  PyObject_HEAD
  PyObject *handle; /* Resource._handle: an int, or None once released */
  void *kernel;     /* the handle's address */
  launch_fn launch;
  unsigned char *args;
  size_t *global, *local;
  uint32_t nargs, dims;
  int local_null, ready;
  Py_ssize_t buffer_offset, size_offset, value_offset; /* in agpu_arg */
  Slot *slots;
  PyObject *device;                   /* the kernel's Device: a buffer on it passes */
  PyObject *geo_global, *geo_local;   /* the geometry written, when cacheable, or NULL */
  PyObject *owner;                    /* keeps the ctypes arrays alive */
} KernelBase;

static PyObject *str_handle, *str_device, *str_dtype, *str_last, *str_h, *str_queue,
    *str_call_by_name, *str_set_geometry, *str_bad_count;
static PyObject *buffer_type; /* anygpu.Buffer */
static PyObject *check_fn;    /* anygpu.errors.check */

static void *as_address(PyObject *o) {
  return o == Py_None ? NULL : PyLong_AsVoidPtr(o);
}

static void forget_geometry(KernelBase *self) {
  Py_CLEAR(self->geo_global);
  Py_CLEAR(self->geo_local);
}

static void clear_slots(KernelBase *self) {
  Slot *s = self->slots;
  uint32_t n = self->nargs;
  self->slots = NULL;
  self->nargs = 0;
  self->ready = 0;
  for (uint32_t i = 0; s && i < n; i++) {
    Py_CLEAR(s[i].put);
    Py_CLEAR(s[i].slot);
    Py_CLEAR(s[i].type);
    Py_CLEAR(s[i].dtype);
    Py_CLEAR(s[i].last);
  }
  PyMem_Free(s);
}

static int kb_traverse(KernelBase *self, visitproc visit, void *arg) {
  Py_VISIT(self->handle);
  Py_VISIT(self->device);
  Py_VISIT(self->geo_global);
  Py_VISIT(self->geo_local);
  Py_VISIT(self->owner);
  for (uint32_t i = 0; self->slots && i < self->nargs; i++) {
    Py_VISIT(self->slots[i].put);
    Py_VISIT(self->slots[i].slot);
    Py_VISIT(self->slots[i].type);
    Py_VISIT(self->slots[i].dtype);
    Py_VISIT(self->slots[i].last);
  }
  return 0;
}

static int kb_clear(KernelBase *self) {
  clear_slots(self);
  forget_geometry(self);
  Py_CLEAR(self->device);
  Py_CLEAR(self->owner);
  Py_CLEAR(self->handle);
  self->kernel = NULL;
  return 0;
}

static void kb_dealloc(KernelBase *self) {
  PyObject_GC_UnTrack(self);
  kb_clear(self);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *kb_get_handle(KernelBase *self, void *unused) {
  (void)unused;
  if (!self->handle) {
    PyErr_SetString(PyExc_AttributeError, "_handle");
    return NULL;
  }
  Py_INCREF(self->handle);
  return self->handle;
}

static int kb_set_handle(KernelBase *self, PyObject *value, void *unused) {
  (void)unused;
  if (!value) value = Py_None; /* del k._handle: released */
  void *kernel = as_address(value);
  if (PyErr_Occurred()) return -1;
  Py_INCREF(value);
  Py_XSETREF(self->handle, value);
  self->kernel = kernel;
  if (!kernel) { /* released: the arguments it held go */
    for (uint32_t i = 0; self->slots && i < self->nargs; i++) Py_CLEAR(self->slots[i].last);
    forget_geometry(self);
  }
  return 0;
}

/* _setup(launch, args, global_, local, slots, specs, device, owner, offsets):
 * specs holds one tuple a parameter, (kind, dkind, itemsize, imin, imax, type, dtype,
 * arg_address); offsets is (buffer, size, value) in agpu_arg. */
static PyObject *kb_setup(KernelBase *self, PyObject *const *a, Py_ssize_t n) {
  if (n != 9 || !PyList_Check(a[4]) || !PyTuple_Check(a[5]) || !PyTuple_Check(a[8]) ||
      PyList_GET_SIZE(a[4]) != PyTuple_GET_SIZE(a[5]) || PyTuple_GET_SIZE(a[8]) != 3) {
    PyErr_SetString(PyExc_TypeError, "_setup(launch, args, global_, local, slots, specs, "
                                     "device, owner, offsets)");
    return NULL;
  }
  if (self->ready) { /* the slots may be in use by a call below us */
    PyErr_SetString(PyExc_RuntimeError, "_setup: this kernel is set up already");
    return NULL;
  }
  launch_fn launch = (launch_fn)as_address(a[0]);
  unsigned char *args = as_address(a[1]);
  size_t *global = as_address(a[2]), *local = as_address(a[3]);
  Py_ssize_t offs[3];
  for (int i = 0; i < 3; i++) offs[i] = PyLong_AsSsize_t(PyTuple_GET_ITEM(a[8], i));
  if (PyErr_Occurred()) return NULL;
  if (!launch || !global || !local) {
    PyErr_SetString(PyExc_ValueError, "_setup: a null address");
    return NULL;
  }
  Py_ssize_t nargs = PyTuple_GET_SIZE(a[5]);
  Slot *slots = PyMem_Calloc(nargs ? (size_t)nargs : 1, sizeof(Slot));
  if (!slots) return PyErr_NoMemory();
  for (Py_ssize_t i = 0; i < nargs; i++) {
    PyObject *spec = PyTuple_GET_ITEM(a[5], i), *slot = PyList_GET_ITEM(a[4], i);
    int kind, itemsize;
    const char *dkind;
    long long imin;
    unsigned long long imax;
    PyObject *type, *dtype, *address;
    if (!PyArg_ParseTuple(spec, "isiLKOOO", &kind, &dkind, &itemsize, &imin, &imax, &type,
                          &dtype, &address))
      goto fail;
    Slot *s = &slots[i];
    s->kind = kind;
    s->dkind = dkind[0];
    s->itemsize = itemsize;
    s->imin = imin;
    s->imax = imax;
    s->arg = as_address(address);
    if (PyErr_Occurred()) goto fail;
    s->put = PyObject_GetAttrString(slot, "put");
    if (!s->put) goto fail;
    Py_INCREF(slot);
    s->slot = slot;
    Py_INCREF(type);
    s->type = type;
    Py_INCREF(dtype);
    s->dtype = dtype;
    if (!s->arg || (kind == SLOT_SCALAR && !strchr("iuf", s->dkind)) ||
        (kind == SLOT_SCALAR && itemsize != 1 && itemsize != 2 && itemsize != 4 &&
         itemsize != 8) || (kind == SLOT_SCALAR && s->dkind == 'f' && itemsize < 4)) {
      PyErr_SetString(PyExc_ValueError, "_setup: a bad parameter");
      goto fail;
    }
    continue;
  fail:
    for (Py_ssize_t j = 0; j <= i; j++) {
      Py_CLEAR(slots[j].put);
      Py_CLEAR(slots[j].slot);
      Py_CLEAR(slots[j].type);
      Py_CLEAR(slots[j].dtype);
    }
    PyMem_Free(slots);
    return NULL;
  }
  clear_slots(self);
  forget_geometry(self);
  self->launch = launch;
  self->args = args;
  self->global = global;
  self->local = local;
  self->slots = slots;
  self->nargs = (uint32_t)nargs;
  self->buffer_offset = offs[0];
  self->size_offset = offs[1];
  self->value_offset = offs[2];
  Py_INCREF(a[6]);
  Py_XSETREF(self->device, a[6]);
  Py_INCREF(a[7]);
  Py_XSETREF(self->owner, a[7]);
  self->ready = 1;
  Py_RETURN_NONE;
}

/* An int or a tuple of ints only: a list could change between calls. */
static int cacheable(PyObject *o) { return PyLong_CheckExact(o) || PyTuple_CheckExact(o); }

static int same(PyObject *a, PyObject *b) {
  if (a == b) return 1;
  if (!b || Py_TYPE(a) != Py_TYPE(b)) return 0;
  int eq = PyObject_RichCompareBool(a, b, Py_EQ);
  if (eq < 0) {
    PyErr_Clear();
    return 0;
  }
  return eq;
}

/* A size or a tuple of 1 to 3 sizes, as plain ints >= 0, into out; the number of
 * dimensions, or 0 for any other form (the Python road checks those). */
static int plain_sizes(PyObject *o, size_t *out) {
  if (PyLong_CheckExact(o)) {
    size_t v = PyLong_AsSize_t(o);
    if (v == (size_t)-1 && PyErr_Occurred()) {
      PyErr_Clear();
      return 0;
    }
    out[0] = v;
    return 1;
  }
  if (!PyTuple_CheckExact(o)) return 0;
  Py_ssize_t n = PyTuple_GET_SIZE(o);
  if (n < 1 || n > 3) return 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *s = PyTuple_GET_ITEM(o, i);
    if (!PyLong_CheckExact(s)) return 0;
    out[i] = PyLong_AsSize_t(s);
    if (out[i] == (size_t)-1 && PyErr_Occurred()) {
      PyErr_Clear();
      return 0;
    }
  }
  return (int)n;
}

/* The geometry into the kernel's arrays: at once for plain ints and tuples, else
 * through Kernel._set_geometry (which checks and raises). 0, or -1 with an error. */
static int put_geometry(KernelBase *self, PyObject *global, PyObject *local) {
  if (self->geo_global && same(global, self->geo_global) &&
      (local == Py_None ? self->geo_local == Py_None : same(local, self->geo_local)))
    return 0;
  forget_geometry(self);
  size_t g[3], l[3];
  int gd = plain_sizes(global, g), ld = local == Py_None ? -1 : plain_sizes(local, l);
  if (gd && (ld == -1 || ld == gd)) {
    memcpy(self->global, g, (size_t)gd * sizeof(size_t));
    if (ld > 0) memcpy(self->local, l, (size_t)ld * sizeof(size_t));
    self->dims = (uint32_t)gd;
    self->local_null = ld == -1;
  } else { /* lists, NumPy integers, errors: the Python road, which writes or raises */
    PyObject *r = PyObject_CallMethodObjArgs((PyObject *)self, str_set_geometry, global, local,
                                             NULL);
    if (!r) return -1;
    unsigned int dims;
    int local_null;
    int ok = PyArg_ParseTuple(r, "Ip", &dims, &local_null);
    Py_DECREF(r);
    if (!ok) return -1;
    self->dims = dims;
    self->local_null = local_null;
  }
  if (cacheable(global) && (local == Py_None || cacheable(local))) {
    Py_INCREF(global);
    Py_INCREF(local);
    self->geo_global = global;
    self->geo_local = local;
  }
  return 0;
}

/* obj._handle as an address; NULL (no error) for None, i.e. released. */
static int live_handle(PyObject *obj, void **out) {
  PyObject *h = PyObject_GetAttr(obj, str_handle);
  if (!h) return -1;
  *out = h == Py_None ? NULL : PyLong_AsVoidPtr(h);
  Py_DECREF(h);
  return PyErr_Occurred() ? -1 : 0;
}

/* obj._h(), which raises InvalidHandleError for a released object: -1 */
static int raise_released(PyObject *obj) {
  PyObject *r = PyObject_CallMethodNoArgs(obj, str_h);
  if (!r) return -1;
  Py_DECREF(r); /* not released after all (another thread?): the Python road */
  PyErr_SetString(PyExc_RuntimeError, "anygpu: a handle changed during a launch");
  return -1;
}

/* A buffer on the kernel's device with the parameter's dtype, as the Python
 * check would pass it: 1 written, 0 for the Python road, -1 an error. */
static int put_buffer(KernelBase *self, Slot *s, PyObject *arg) {
  if (!buffer_type || !PyObject_TypeCheck(arg, (PyTypeObject *)buffer_type)) return 0;
  void *h;
  if (live_handle(arg, &h)) return -1;
  if (!h) return 0;
  PyObject *dev = PyObject_GetAttr(arg, str_device);
  if (!dev) return -1;
  Py_DECREF(dev); /* the buffer holds it */
  if (dev != self->device) return 0;
  if (s->dtype != Py_None) {
    PyObject *dt = PyObject_GetAttr(arg, str_dtype);
    if (!dt) return -1;
    Py_DECREF(dt);
    if (dt != s->dtype) return 0;
  }
  memcpy(s->arg + self->buffer_offset, &h, sizeof h);
  return 1;
}

/* A NumPy scalar of the parameter's own type, or a Python int it holds (not a
 * bool) or a Python float for a float parameter, as Slot._put_scalar takes them:
 * 1 written, 0 for the Python road, -1 an error. */
static int put_scalar(KernelBase *self, Slot *s, PyObject *arg) {
  unsigned char *value = s->arg + self->value_offset;
  PyTypeObject *t = Py_TYPE(arg);
  int own = (PyObject *)t == s->type;
  if (s->dkind == 'f') {
    if (!own && t != &PyFloat_Type) return 0;
    double d = PyFloat_AsDouble(arg);
    if (d == -1.0 && PyErr_Occurred()) return -1;
    if (s->itemsize == 4) {
      float f = (float)d;
      memcpy(value, &f, 4);
    } else {
      memcpy(value, &d, 8);
    }
  } else {
    PyObject *v;
    if (own) {
      v = PyNumber_Index(arg);
      if (!v) return -1;
    } else if (t == &PyLong_Type) {
      Py_INCREF(arg);
      v = arg;
    } else {
      return 0;
    }
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    unsigned long long u;
    if (x == -1 && PyErr_Occurred()) {
      Py_DECREF(v);
      return -1;
    }
    if (overflow > 0) { /* above LLONG_MAX: a uint64 */
      u = PyLong_AsUnsignedLongLong(v);
      if (u == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_DECREF(v);
        return 0;
      }
      if (u > s->imax) {
        Py_DECREF(v);
        return 0;
      }
    } else if (overflow < 0 || x < s->imin || (x > 0 && (unsigned long long)x > s->imax)) {
      Py_DECREF(v);
      return 0; /* does not fit: the Python road says so */
    } else {
      u = (unsigned long long)x;
    }
    Py_DECREF(v);
    /* the native representation, as ctypes writes it (modulo 2^bits) */
    switch (s->itemsize) {
      case 1: { uint8_t b = (uint8_t)u; memcpy(value, &b, 1); break; }
      case 2: { uint16_t b = (uint16_t)u; memcpy(value, &b, 2); break; }
      case 4: { uint32_t b = (uint32_t)u; memcpy(value, &b, 4); break; }
      default: memcpy(value, &u, 8); break;
    }
  }
  uint32_t size = (uint32_t)s->itemsize;
  memcpy(s->arg + self->size_offset, &size, sizeof size);
  return 1;
}

/* The Python slot's put(arg): its checks raise; what it wrote stays written. */
static int put_python(Slot *s, PyObject *arg) {
  PyObject *r = PyObject_CallOneArg(s->put, arg);
  if (!r) return -1;
  Py_DECREF(r);
  PyObject *last = PyObject_GetAttr(s->slot, str_last);
  if (!last) return -1;
  if (last == arg) Py_XSETREF(s->last, last); /* a form that stays as written: remembered */
  else Py_DECREF(last);
  return 0;
}

/* k(global_size, local_size=None, *args, queue=None, **by_name) */
static PyObject *kb_call(KernelBase *self, PyObject *targs, PyObject *kwargs) {
  Py_ssize_t n = PyTuple_GET_SIZE(targs);
  PyObject *queue = Py_None;
  if (kwargs && PyDict_GET_SIZE(kwargs)) {
    PyObject *q = PyDict_GetItemWithError(kwargs, str_queue);
    if (!q && PyErr_Occurred()) return NULL;
    if (!q || PyDict_GET_SIZE(kwargs) != 1) /* by name: Kernel._call_by_name, then here */
      goto by_name;
    queue = q;
  }
  if (n < 2) goto by_name; /* local_size left out, or global_size missing */
  if (!self->ready) {
    PyErr_SetString(PyExc_RuntimeError, "anygpu: a kernel that was never set up");
    return NULL;
  }
  if (!self->kernel) { /* released: InvalidHandleError */
    raise_released((PyObject *)self);
    return NULL;
  }
  if ((uint32_t)(n - 2) != self->nargs) {
    PyObject *r = PyObject_CallMethodObjArgs((PyObject *)self, str_bad_count, targs, NULL);
    Py_XDECREF(r);
    if (r) PyErr_SetString(PyExc_RuntimeError, "anygpu: _bad_count returned");
    return NULL;
  }
  for (uint32_t i = 0; i < self->nargs; i++) {
    Slot *s = &self->slots[i];
    PyObject *arg = PyTuple_GET_ITEM(targs, i + 2);
    if (arg == s->last) {
      if (s->kind == SLOT_BUFFER) { /* the same buffer: still live? */
        void *h;
        if (live_handle(arg, &h)) return NULL;
        if (!h) {
          raise_released(arg);
          return NULL;
        }
      }
      continue;
    }
    Py_CLEAR(s->last);
    int done = 0;
    if (s->kind == SLOT_BUFFER) done = put_buffer(self, s, arg);
    else if (s->kind == SLOT_SCALAR) done = put_scalar(self, s, arg);
    if (done < 0) return NULL;
    if (done) {
      Py_INCREF(arg);
      Py_XSETREF(s->last, arg); /* (Python code that ran meanwhile may have set it) */
    } else if (put_python(s, arg)) {
      return NULL;
    }
  }
  if (put_geometry(self, PyTuple_GET_ITEM(targs, 0), PyTuple_GET_ITEM(targs, 1))) return NULL;
  void *q = NULL;
  if (queue != Py_None) {
    if (live_handle(queue, &q)) return NULL;
    if (!q) {
      raise_released(queue);
      return NULL;
    }
  }
  void *kernel = self->kernel;
  if (!kernel) { /* released by Python code that ran during the checks */
    raise_released((PyObject *)self);
    return NULL;
  }
  int status;
  Py_BEGIN_ALLOW_THREADS
  status = self->launch(q, kernel, self->dims, self->global, self->local_null ? NULL : self->local,
                        self->nargs, self->args);
  Py_END_ALLOW_THREADS
  if (status) { /* errors.check: the exception with agpu_last_error()'s text */
    PyObject *st = PyLong_FromLong(status);
    if (!st) return NULL;
    PyObject *r = check_fn ? PyObject_CallOneArg(check_fn, st) : NULL;
    Py_DECREF(st);
    if (!r) {
      if (!PyErr_Occurred()) PyErr_Format(PyExc_RuntimeError, "agpu_launch: status %d", status);
      return NULL;
    }
    Py_DECREF(r);
  }
  Py_RETURN_NONE;
by_name: {
    PyObject *fn = PyObject_GetAttr((PyObject *)self, str_call_by_name);
    if (!fn) return NULL;
    PyObject *r = PyObject_Call(fn, targs, kwargs);
    Py_DECREF(fn);
    return r;
  }
}

static PyObject *configure(PyObject *module, PyObject *const *a, Py_ssize_t n) {
  (void)module;
  if (n != 2) {
    PyErr_SetString(PyExc_TypeError, "configure(buffer_type, check)");
    return NULL;
  }
  Py_INCREF(a[0]);
  Py_XSETREF(buffer_type, a[0]);
  Py_INCREF(a[1]);
  Py_XSETREF(check_fn, a[1]);
  Py_RETURN_NONE;
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
    {"configure", (PyCFunction)(void (*)(void))configure, METH_FASTCALL,
     "configure(buffer_type, check): anygpu.Buffer and anygpu.errors.check"},
    {NULL, NULL, 0, NULL}};

static PyMethodDef kb_methods[] = {
    {"_setup", (PyCFunction)(void (*)(void))kb_setup, METH_FASTCALL,
     "_setup(launch, args, global_, local, slots, specs, device, owner, offsets)"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef kb_getset[] = {
    {"_handle", (getter)kb_get_handle, (setter)kb_set_handle, "the native handle, or None", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject KernelBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "anygpu._speedups.KernelBase",
    .tp_basicsize = sizeof(KernelBase),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "anygpu.Kernel's launch in C (docs/python.md, \"The launch path\")",
    .tp_new = PyType_GenericNew,
    .tp_call = (ternaryfunc)kb_call,
    .tp_traverse = (traverseproc)kb_traverse,
    .tp_clear = (inquiry)kb_clear,
    .tp_dealloc = (destructor)kb_dealloc,
    .tp_methods = kb_methods,
    .tp_getset = kb_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "_speedups", .m_doc = "anygpu's launch path in C", .m_size = -1,
    .m_methods = module_methods};

static PyObject *intern(const char *s) { return PyUnicode_InternFromString(s); }

PyMODINIT_FUNC PyInit__speedups(void) {
  if (PyType_Ready(&KernelBaseType) < 0) return NULL;
  if (!(str_handle = intern("_handle")) || !(str_device = intern("_device")) ||
      !(str_dtype = intern("dtype")) || !(str_last = intern("last")) || !(str_h = intern("_h")) ||
      !(str_queue = intern("queue")) || !(str_call_by_name = intern("_call_by_name")) ||
      !(str_set_geometry = intern("_set_geometry")) || !(str_bad_count = intern("_bad_count")))
    return NULL;
  PyObject *m = PyModule_Create(&module);
  if (!m) return NULL;
  Py_INCREF(&KernelBaseType);
  if (PyModule_AddObject(m, "KernelBase", (PyObject *)&KernelBaseType) < 0) {
    Py_DECREF(&KernelBaseType);
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
