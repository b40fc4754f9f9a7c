/* dlx._dlx._check_callbacks(): C functions for the reference producer of `python -m dlx check consumer`
 * (python/dlx/check/_capsule.py, Export).
 *
 * A consumer may drop a capsule it refused while its own exception is pending. A capsule destructor or a
 * deleter written in Python (a ctypes callback) would then run Python code under that exception, and
 * lose it or turn it into a SystemError that the checker would blame on the consumer. These run no Python
 * code: the destructors follow the python_spec (call the deleter of a "dltensor" / "dltensor_versioned"
 * capsule; the sloppy one also of a "used_" one, as a careless producer does), and the deleters only count,
 * in the int64 that manager_ctx points to, and free nothing (the checker owns the memory). */
#include "internal.h" /* Python.h first, as CPython requires */

#include <string.h>

static void count_versioned(DLManagedTensorVersioned *m) {
  __atomic_fetch_add((int64_t *)m->manager_ctx, 1, __ATOMIC_SEQ_CST); /* any thread, GIL or not */
}

static void count_legacy(DLManagedTensor *m) { __atomic_fetch_add((int64_t *)m->manager_ctx, 1, __ATOMIC_SEQ_CST); }

static void destroy(PyObject *cap, int sloppy) {
  const char *name = PyCapsule_GetName(cap);
  if (name == NULL) return; /* never NULL for the checker's capsules; nothing set an error */
  const int used = strncmp(name, "used_", 5) == 0;
  if (used && !sloppy) return;
  void *p = PyCapsule_GetPointer(cap, name);
  if (p == NULL) return;
  if (strcmp(name + (used ? 5 : 0), "dltensor_versioned") == 0) {
    DLManagedTensorVersioned *m = p;
    if (m->deleter) m->deleter(m);
  } else {
    DLManagedTensor *m = p;
    if (m->deleter) m->deleter(m);
  }
}

static void destroy_honest(PyObject *cap) { destroy(cap, 0); }
static void destroy_sloppy(PyObject *cap) { destroy(cap, 1); }

static PyObject *check_callbacks(PyObject *self, PyObject *unused) {
  (void)self;
  (void)unused;
  return Py_BuildValue("(KKKK)", (unsigned long long)(uintptr_t)destroy_honest,
                       (unsigned long long)(uintptr_t)destroy_sloppy, (unsigned long long)(uintptr_t)count_versioned,
                       (unsigned long long)(uintptr_t)count_legacy);
}

PyMethodDef dlx__py_check_methods[] = {
    {"_check_callbacks", check_callbacks, METH_NOARGS,
     "_check_callbacks() -> (destructor, sloppy destructor, versioned deleter, legacy deleter) addresses: "
     "C callbacks of dlx.check's reference producer (src/pyext/check.c)"},
    {NULL, NULL, 0, NULL},
};
