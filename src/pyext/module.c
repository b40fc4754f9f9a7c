/* The dlx._dlx extension module: its init, which gathers the functions of each file (consumer.c,
 * create.c, create_more.c, ops.c, check.c), the submodules _cuda (cuda.c) and _oneapi (oneapi.c), the C API capsule (capi.c) and,
 * in test builds, dlx._testing (testing.c); and the strings interned for the hot paths. */
#include "internal.h" /* Python.h first, as CPython requires */
#include "reduce.h"

#include "dlx/version.h"

PyObject *dlx__py_str_dlpack, *dlx__py_str_dlpack_device, *dlx__py_str_max_version, *dlx__py_str_copy, *dlx__py_str_dl_device,
    *dlx__py_str_stream, *dlx__py_str_device, *dlx__py_str_assumed_align, *dlx__py_version_tuple,
    *dlx__py_kw_max_version;

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "dlx._dlx", "dlx: zero-copy tensor exchange through DLPack (C core).", -1,
    NULL, NULL, NULL, NULL, NULL,
};

static int intern(PyObject **slot, const char *s) {
  *slot = PyUnicode_InternFromString(s);
  return *slot ? 0 : -1;
}

PyMODINIT_FUNC PyInit__dlx(void) {
  if (intern(&dlx__py_str_dlpack, "__dlpack__") || intern(&dlx__py_str_dlpack_device, "__dlpack_device__") ||
      intern(&dlx__py_str_max_version, "max_version") ||
      intern(&dlx__py_str_copy, "copy") || intern(&dlx__py_str_dl_device, "dl_device") ||
      intern(&dlx__py_str_stream, "stream") || intern(&dlx__py_str_device, "device") ||
      intern(&dlx__py_str_assumed_align, "assumed_align"))
    return NULL;
  dlx__py_version_tuple = Py_BuildValue("(ii)", DLX_DLPACK_MAJOR, DLX_DLPACK_MINOR);
  dlx__py_kw_max_version = PyTuple_Pack(1, dlx__py_str_max_version);
  if (dlx__py_version_tuple == NULL || dlx__py_kw_max_version == NULL) return NULL;
  if (PyType_Ready(&dlx__py_tensor_type) < 0 || PyType_Ready(&dlx__py_tensor_iter_type) < 0) return NULL;
  PyObject *api = PyCapsule_New((void *)&dlx__py_exchange_api, "dlpack_exchange_api", NULL);
  if (api == NULL || PyDict_SetItemString(dlx__py_tensor_type.tp_dict, "__dlpack_c_exchange_api__", api) < 0) {
    Py_XDECREF(api);
    return NULL;
  }
  Py_DECREF(api);
  PyType_Modified(&dlx__py_tensor_type);

  PyObject *m = PyModule_Create(&module_def);
  if (m == NULL) return NULL;
  Py_INCREF(&dlx__py_tensor_type);
  if (PyModule_AddObject(m, "Tensor", (PyObject *)&dlx__py_tensor_type) < 0) goto fail;
  if (dlx__py_capi_init(m) < 0) goto fail; /* dlx._dlx._C_API, what dlx/python.h imports */
  if (PyModule_AddStringConstant(m, "__version__", DLX_VERSION_STRING) < 0) goto fail;
  Py_INCREF(dlx__py_version_tuple);
  if (PyModule_AddObject(m, "DLPACK_VERSION", dlx__py_version_tuple) < 0) goto fail;
  if (PyModule_AddFunctions(m, dlx__py_ops_methods) < 0) goto fail;
  if (PyModule_AddFunctions(m, dlx__py_index_methods) < 0) goto fail; /* dlx.compress (compress.c) */
  if (PyModule_AddFunctions(m, dlx__py_ufunc_methods) < 0) goto fail;
  if (PyModule_AddObject(m, "_op_table", dlx__py_op_table()) < 0) goto fail;
  if (PyModule_AddFunctions(m, dlx__py_reduce_methods) < 0) goto fail; /* dlx.sum & co (reduce.c) */
  if (PyModule_AddFunctions(m, dlx__py_consumer_methods) < 0 || PyModule_AddFunctions(m, dlx__py_create_methods) < 0 ||
      PyModule_AddFunctions(m, dlx__py_create_more_methods) < 0 ||
      PyModule_AddFunctions(m, dlx__py_check_methods) < 0)
    goto fail;
  if (dlx__py_cuda_init(m) < 0) goto fail;   /* dlx._dlx._cuda, what dlx.cuda wraps */
  if (dlx__py_oneapi_init(m) < 0) goto fail; /* dlx._dlx._oneapi, what dlx.oneapi wraps */
#ifdef DLX_PY_TESTING
  /* test builds only (setup.py: DLX_PY_TESTING=1) */
  if (dlx__py_testing_init(m) < 0) goto fail;
#endif
  return m;
fail:
  Py_DECREF(m);
  return NULL;
}
