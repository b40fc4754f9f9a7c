/* tests/errors_catalogue.c - the C half of docs/errors.md: one input per dlx_status that triggers it
 * through the public API, the call, and the message dlx_last_error() gives.
 *
 *   errors_catalogue                  print the rows: | `DLX_ERR_X` | value | `call` | input | message |,
 *                                     then the more inputs' rows: | `id` | `call` | input | `DLX_ERR_X` | message |
 *   errors_catalogue --check FILE     exit 1 unless FILE (docs/errors.md) has exactly these rows for
 *                                     every status 1 .. DLX_STATUS_COUNT-1 (ctest errors_catalogue_doc)
 *
 * Besides one trigger per status, more inputs (the reductions' bad inputs) get a row each in a second table,
 * keyed by an id that the Python half shares.
 * Each trigger is also a test: it must fail with exactly its status and leave a non-empty message, or
 * the program exits 1. scripts/gen_errors.sh appends the Python half (python/tests/errors_catalogue.py).
 * Inputs are deterministic: fake data addresses (import never dereferences data) and no heap pointers,
 * so the messages are the same on every machine and build. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlx/dlx.h"
#include "dlx/dynlayout.h"
#include "dlx/ops.h"
#include "dlx/tensor.h"
#include "dlx/viewops.h"

/* ---- inputs shared by the triggers ------------------------------------------------------------------ */

static int64_t g_shape[2] = {2, 3};
static int64_t g_strides[2] = {3, 1};

/* A 2x3 row-major float32 DLTensor at a fake, 64-byte aligned host address. */
static DLTensor tensor_2x3(void) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = (void *)(uintptr_t)0x10000;
  t.device.device_type = kDLCPU;
  t.ndim = 2;
  t.dtype = DLX_DTYPE_FLOAT32;
  t.shape = g_shape;
  t.strides = g_strides;
  return t;
}

static dlx_import_spec any_spec(void) {
  dlx_import_spec s = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY, DLX_DLPACK_VERSION_NUM(1, 3), 0};
  return s;
}

static dlx_status import(DLTensor t, dlx_import_spec spec) {
  dlx_view v;
  return dlx_view_from_dltensor(&v, &t, &spec);
}

static dlx_view view_2x3(void) {
  DLTensor t = tensor_2x3();
  dlx_import_spec spec = any_spec();
  dlx_view v;
  memset(&v, 0, sizeof v);
  if (dlx_view_from_dltensor(&v, &t, &spec) != DLX_OK) {
    fprintf(stderr, "errors_catalogue: the base view does not import: %s\n", dlx_last_error());
    exit(1);
  }
  return v;
}

/* ---- one trigger per status --------------------------------------------------------------------------- */

static dlx_status t_null_argument(void) {
  DLTensor t = tensor_2x3();
  dlx_import_spec spec = any_spec();
  return dlx_view_from_dltensor(NULL, &t, &spec);
}
static dlx_status t_invalid_argument(void) {
  DLDevice d;
  return dlx_device_for(DLX_MEMSPACE_ANY, 0, &d);
}
static dlx_status t_rank(void) {
  DLTensor t = tensor_2x3();
  t.ndim = 65;
  return import(t, any_spec());
}
static dlx_status t_dtype_mismatch(void) {
  dlx_import_spec spec = any_spec();
  spec.dtype = DLX_DTYPE_FLOAT64;
  return import(tensor_2x3(), spec);
}
static dlx_status t_invalid_dtype(void) { return dlx_dtype_check(DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 24, 1)); }
static dlx_status t_device_mismatch(void) {
  dlx_import_spec spec = any_spec();
  spec.memspace = DLX_MEMSPACE_DEVICE;
  return import(tensor_2x3(), spec);
}
static dlx_status t_invalid_device(void) {
  DLTensor t = tensor_2x3();
  t.device.device_type = (DLDeviceType)99;
  return import(t, any_spec());
}
static dlx_status t_null_data(void) {
  DLTensor t = tensor_2x3();
  t.data = NULL;
  return import(t, any_spec());
}
static dlx_status t_null_shape(void) {
  DLTensor t = tensor_2x3();
  t.shape = NULL;
  return import(t, any_spec());
}
static dlx_status t_negative_extent(void) {
  int64_t shape[2] = {2, -3};
  DLTensor t = tensor_2x3();
  t.shape = shape;
  return import(t, any_spec());
}
static dlx_status t_null_strides(void) {
  DLTensor t = tensor_2x3();
  t.strides = NULL;
  return import(t, any_spec());
}
static dlx_status t_bad_stride(void) {
  int64_t strides[2] = {3, -1};
  DLTensor t = tensor_2x3();
  t.strides = strides;
  dlx_import_spec spec = any_spec();
  spec.layout = DLX_LAYOUT_STRIDE;
  return import(t, spec);
}
static dlx_status t_layout_mismatch(void) {
  int64_t strides[2] = {1, 2}; /* column-major */
  DLTensor t = tensor_2x3();
  t.strides = strides;
  dlx_import_spec spec = any_spec();
  spec.layout = DLX_LAYOUT_RIGHT;
  return import(t, spec);
}
static dlx_status t_misaligned(void) {
  DLTensor t = tensor_2x3();
  t.data = (void *)(uintptr_t)0x10002;
  return import(t, any_spec());
}
static dlx_status t_overflow(void) {
  int64_t shape[2] = {INT64_C(1) << 62, 4};
  DLTensor t = tensor_2x3();
  t.shape = shape;
  return import(t, any_spec());
}
static dlx_status t_unsupported(void) {
  int64_t shape[1] = {4}, index[1] = {1};
  dlx_view v;
  DLDevice cpu = {kDLCPU, 0};
  dlx_status st = dlx_view_init(&v, (void *)(uintptr_t)0x10000, DLX_DTYPE_FLOAT4_E2M1FN, cpu, 1, shape, NULL);
  if (st != DLX_OK) return st;
  void *p;
  return dlx_view_element_ptr(&v, index, &p);
}
static dlx_status t_out_of_memory(void) {
  /* 2^63 - 1 bytes: the largest span a view may have (one more byte is OVERFLOW), and more than any
   * allocator can give */
  int64_t shape[1] = {INT64_MAX};
  dlx_tensor *t = NULL;
  DLDevice cpu = {kDLCPU, 0};
  dlx_status st = dlx_tensor_empty(&t, 1, shape, DLX_DTYPE_INT8, cpu);
  dlx_tensor_release(t);
  return st;
}
static dlx_status t_version(void) {
  DLManagedTensorVersioned m;
  memset(&m, 0, sizeof m);
  m.version.major = 2;
  m.dl_tensor = tensor_2x3();
  dlx_import_spec spec = any_spec();
  dlx_view v;
  return dlx_view_from_managed_versioned(&v, &m, &spec);
}
static dlx_status t_parse(void) {
  DLDataType dt;
  return dlx_dtype_parse("float", &dt);
}
static dlx_status t_buffer_too_small(void) {
  char buf[4];
  return dlx_dtype_format(DLX_DTYPE_FLOAT32, buf, sizeof buf);
}
static dlx_status t_index(void) {
  dlx_view v = view_2x3(), out;
  return dlx_view_index(&v, 0, 5, &out);
}
static dlx_status t_broadcast(void) {
  const int64_t a[2] = {2, 3}, b[1] = {4};
  const int64_t *shapes[2] = {a, b};
  const int32_t ndims[2] = {2, 1};
  int32_t nd;
  int64_t out[DLX_MAX_NDIM];
  return dlx_broadcast_shapes(2, ndims, shapes, &nd, out);
}
static dlx_status t_deduction(void) {
  const int64_t strides[3] = {1, 1, 1};
  int32_t dim;
  return dlx_layout_leading_dim(3, strides, &dim);
}
static dlx_status t_read_only(void) {
  static float data[6];
  DLDevice cpu = {kDLCPU, 0};
  dlx_view v, value;
  dlx_scalar_buf buf;
  dlx_status st = dlx_view_init(&v, data, DLX_DTYPE_FLOAT32, cpu, 2, g_shape, NULL);
  if (st == DLX_OK) st = dlx_scalar_view(&value, &buf, DLX_DTYPE_FLOAT32, 1.0, 0.0);
  if (st != DLX_OK) return st;
  v.flags |= DLX_VIEW_READ_ONLY;
  return dlx_fill(&v, &value);
}

/* ---- more inputs: the reductions' bad inputs, each a row of the second table ------------------------ */

/* op over axes of a 2x3 float32 view at a fake address, into out (shape, dtype, address given). */
static dlx_status reduce_2x3(dlx_reduce_op op, int32_t naxes, const int32_t *axes, int32_t ond, const int64_t *oshape,
                             DLDataType odt, uintptr_t oaddr) {
  dlx_view a = view_2x3(), out;
  DLDevice cpu = {kDLCPU, 0};
  dlx_status st = dlx_view_init(&out, (void *)oaddr, odt, cpu, ond, oshape, NULL);
  if (st != DLX_OK) return st;
  return dlx_reduce(op, &out, &a, naxes, axes, 0);
}
static const int64_t g_two[1] = {2}, g_three[1] = {3};
static dlx_status r_axis(void) {
  return reduce_2x3(DLX_REDUCE_SUM, 1, (const int32_t[]){2}, 1, g_two, DLX_DTYPE_FLOAT32, 0x20000);
}
static dlx_status r_repeated(void) {
  return reduce_2x3(DLX_REDUCE_SUM, 2, (const int32_t[]){1, -1}, 1, g_two, DLX_DTYPE_FLOAT32, 0x20000);
}
static dlx_status r_out_shape(void) {
  return reduce_2x3(DLX_REDUCE_SUM, 1, (const int32_t[]){1}, 1, g_three, DLX_DTYPE_FLOAT32, 0x20000);
}
static dlx_status r_out_dtype(void) {
  return reduce_2x3(DLX_REDUCE_ARGMAX, 1, (const int32_t[]){1}, 1, g_two, DLX_DTYPE_FLOAT32, 0x20000);
}
static dlx_status r_overlap(void) {
  return reduce_2x3(DLX_REDUCE_SUM, 1, (const int32_t[]){0}, 1, g_three, DLX_DTYPE_FLOAT32, 0x10008);
}
static dlx_status r_empty(void) {
  dlx_view a = view_2x3(), out;
  a.shape[1] = 0;
  DLDevice cpu = {kDLCPU, 0};
  dlx_status st = dlx_view_init(&out, (void *)(uintptr_t)0x20000, DLX_DTYPE_FLOAT32, cpu, 1, g_two, NULL);
  if (st != DLX_OK) return st;
  return dlx_reduce(DLX_REDUCE_MAX, &out, &a, 1, (const int32_t[]){1}, 0);
}
static dlx_status r_dtype(void) {
  dlx_view a = view_2x3(), out;
  a.dtype = DLX_DTYPE_INT128;
  DLDevice cpu = {kDLCPU, 0};
  dlx_status st = dlx_view_init(&out, (void *)(uintptr_t)0x20000, DLX_DTYPE_INT128, cpu, 0, NULL, NULL);
  if (st != DLX_OK) return st;
  return dlx_reduce(DLX_REDUCE_SUM, &out, &a, DLX_REDUCE_ALL_AXES, NULL, 0);
}

typedef struct extra {
  const char *id; /* the row's key, shared with the Python half */
  dlx_status status;
  const char *call;
  const char *input;
  dlx_status (*fn)(void);
} extra;

#define REDUCE "dlx_reduce(op, &out, &a, naxes, axes, keepdims)"
static const extra g_extra[] = {
    {"reduce.axis", DLX_ERR_INDEX, REDUCE, "a 2x3 float32 a, axes {2}", r_axis},
    {"reduce.repeated_axis", DLX_ERR_INVALID_ARGUMENT, REDUCE, "axes {1, -1}", r_repeated},
    {"reduce.out_shape", DLX_ERR_INVALID_ARGUMENT, REDUCE, "sum over axes {1} of a 2x3 a into out of shape (3)",
     r_out_shape},
    {"reduce.out_dtype", DLX_ERR_DTYPE_MISMATCH, REDUCE, "argmax into a float32 out", r_out_dtype},
    {"reduce.out_overlap", DLX_ERR_INVALID_ARGUMENT, REDUCE, "out over a's elements 2..4", r_overlap},
    {"reduce.empty", DLX_ERR_INVALID_ARGUMENT, REDUCE, "max over axes {1} of a 2x0 a", r_empty},
    {"reduce.no_kernel", DLX_ERR_UNSUPPORTED, REDUCE, "sum of an int128 a", r_dtype},
};
#define N_EXTRA (sizeof g_extra / sizeof g_extra[0])

typedef struct trigger {
  dlx_status status;
  const char *call;  /* the public function, as the doc shows it */
  const char *input; /* what about its arguments makes it fail */
  dlx_status (*fn)(void);
} trigger;

#define IMPORT "dlx_view_from_dltensor(&v, &t, &spec)"
static const trigger g_triggers[] = {
    {DLX_ERR_NULL_ARGUMENT, "dlx_view_from_dltensor(NULL, &t, &spec)", "out is NULL", t_null_argument},
    {DLX_ERR_INVALID_ARGUMENT, "dlx_device_for(DLX_MEMSPACE_ANY, 0, &dev)", "a memory space with no device",
     t_invalid_argument},
    {DLX_ERR_RANK, IMPORT, "t.ndim = 65", t_rank},
    {DLX_ERR_DTYPE_MISMATCH, IMPORT, "a float32 tensor, spec.dtype = DLX_DTYPE_FLOAT64", t_dtype_mismatch},
    {DLX_ERR_INVALID_DTYPE, "dlx_dtype_check(dt)", "dt = (kDLFloat, 24 bits, 1 lane)", t_invalid_dtype},
    {DLX_ERR_DEVICE_MISMATCH, IMPORT, "a kDLCPU tensor, spec.memspace = DLX_MEMSPACE_DEVICE", t_device_mismatch},
    {DLX_ERR_INVALID_DEVICE, IMPORT, "t.device.device_type = 99", t_invalid_device},
    {DLX_ERR_NULL_DATA, IMPORT, "a 2x3 tensor with t.data = NULL", t_null_data},
    {DLX_ERR_NULL_SHAPE, IMPORT, "t.ndim = 2, t.shape = NULL", t_null_shape},
    {DLX_ERR_NEGATIVE_EXTENT, IMPORT, "t.shape = (2, -3)", t_negative_extent},
    {DLX_ERR_NULL_STRIDES, IMPORT, "a DLPack 1.3 rank-2 tensor with t.strides = NULL", t_null_strides},
    {DLX_ERR_BAD_STRIDE, IMPORT, "t.strides = (3, -1), spec.layout = DLX_LAYOUT_STRIDE", t_bad_stride},
    {DLX_ERR_LAYOUT_MISMATCH, IMPORT, "column-major t.strides = (1, 2), spec.layout = DLX_LAYOUT_RIGHT",
     t_layout_mismatch},
    {DLX_ERR_MISALIGNED, IMPORT, "float32 data at address 0x10002", t_misaligned},
    {DLX_ERR_OVERFLOW, IMPORT, "t.shape = (2^62, 4)", t_overflow},
    {DLX_ERR_UNSUPPORTED, "dlx_view_element_ptr(&v, index, &p)", "a packed float4_e2m1fn view, index (1)",
     t_unsupported},
    {DLX_ERR_OUT_OF_MEMORY, "dlx_tensor_empty(&t, 1, shape, DLX_DTYPE_INT8, cpu)",
     "shape (2^63 - 1): 2^63 - 1 bytes", t_out_of_memory},
    {DLX_ERR_VERSION, "dlx_view_from_managed_versioned(&v, &m, &spec)", "m.version.major = 2", t_version},
    {DLX_ERR_PARSE, "dlx_dtype_parse(name, &dt)", "name = \"float\"", t_parse},
    {DLX_ERR_BUFFER_TOO_SMALL, "dlx_dtype_format(DLX_DTYPE_FLOAT32, buf, cap)", "cap = 4", t_buffer_too_small},
    {DLX_ERR_INDEX, "dlx_view_index(&v, 0, 5, &out)", "a 2x3 view", t_index},
    {DLX_ERR_BROADCAST, "dlx_broadcast_shapes(2, ndims, shapes, &nd, out)", "shapes (2, 3) and (4)", t_broadcast},
    {DLX_ERR_DEDUCTION, "dlx_layout_leading_dim(3, strides, &dim)", "strides (1, 1, 1)", t_deduction},
    {DLX_ERR_READ_ONLY, "dlx_fill(&v, &one)", "v.flags has DLX_VIEW_READ_ONLY", t_read_only},
    /* no trigger: the status exists for the CUDA backend, and this build has no device runtime */
    {DLX_ERR_BACKEND, NULL, NULL, NULL},
};
#define N_TRIGGERS (sizeof g_triggers / sizeof g_triggers[0])

/* Markdown cell text: a '|' would end the cell, a newline the row. */
static void cell(char *out, size_t cap, const char *s) {
  size_t o = 0;
  for (; *s && o + 3 < cap; ++s) {
    if (*s == '|') out[o++] = '\\';
    out[o++] = (*s == '\n' || *s == '\r') ? ' ' : *s;
  }
  out[o] = '\0';
}

/* The row of trigger k into buf; 0, or -1 when the trigger misbehaves (reported on stderr). */
static int make_row(size_t k, char *buf, size_t cap) {
  const trigger *tr = &g_triggers[k];
  char name[64], call[256], input[256], msg[1200];
  snprintf(name, sizeof name, "DLX_ERR_%s", dlx_status_name(tr->status));
  if (tr->fn == NULL) {
    snprintf(buf, cap, "| `%s` | %d | (none) | no trigger until the CUDA backend | only a failed device runtime "
             "call returns it, and this build has no device runtime |",
             name, (int)tr->status);
    return 0;
  }
  dlx_clear_error();
  dlx_status st = tr->fn();
  if (st != tr->status || dlx_last_error()[0] == '\0') {
    fprintf(stderr, "errors_catalogue: %s with %s returned %s (message \"%s\"), expected %s with a message\n",
            tr->call, tr->input, dlx_status_name(st), dlx_last_error(), dlx_status_name(tr->status));
    return -1;
  }
  cell(call, sizeof call, tr->call);
  cell(input, sizeof input, tr->input);
  cell(msg, sizeof msg, dlx_last_error());
  snprintf(buf, cap, "| `%s` | %d | `%s` | %s | %s |", name, (int)tr->status, call, input, msg);
  return 0;
}

/* The row of more input k: | `id` | `call` | input | `DLX_ERR_X` | message |. */
static int make_extra_row(size_t k, char *buf, size_t cap) {
  const extra *e = &g_extra[k];
  char call[256], input[256], msg[1200];
  dlx_clear_error();
  const dlx_status st = e->fn();
  if (st != e->status || dlx_last_error()[0] == '\0') {
    fprintf(stderr, "errors_catalogue: %s (%s) returned %s (message \"%s\"), expected %s with a message\n", e->id,
            e->input, dlx_status_name(st), dlx_last_error(), dlx_status_name(e->status));
    return -1;
  }
  cell(call, sizeof call, e->call);
  cell(input, sizeof input, e->input);
  cell(msg, sizeof msg, dlx_last_error());
  snprintf(buf, cap, "| `%s` | `%s` | %s | `DLX_ERR_%s` | %s |", e->id, call, input, dlx_status_name(e->status), msg);
  return 0;
}

/* Every status 1 .. COUNT-1 has exactly one trigger. */
static int check_complete(void) {
  int bad = 0;
  for (int s = 1; s < (int)DLX_STATUS_COUNT; ++s) {
    int n = 0;
    for (size_t k = 0; k < N_TRIGGERS; ++k) n += (int)g_triggers[k].status == s;
    if (n != 1) {
      fprintf(stderr, "errors_catalogue: status %s has %d triggers (want 1)\n", dlx_status_name((dlx_status)s), n);
      bad = 1;
    }
  }
  return bad;
}

#define N_ROWS (N_TRIGGERS + N_EXTRA)

static int check_doc(const char *path, char rows[][2048]) {
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, "errors_catalogue: cannot open %s\n", path);
    return 1;
  }
  static char line[8192];
  bool seen[N_ROWS] = {false};
  int bad = 0, status_rows = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    /* status rows, and the more inputs' rows (| `id` | ...), which the C half knows all of */
    if (strncmp(line, "| `", 3) != 0) continue;
    status_rows += strncmp(line, "| `DLX_ERR_", 11) == 0;
    bool matched = false;
    for (size_t k = 0; k < N_ROWS; ++k) {
      size_t len = strlen(rows[k]);
      /* the C cells open the row; the Python cells follow */
      if (strncmp(line, rows[k], len) == 0 && (line[len] == ' ' || line[len] == '\n' || line[len] == '\0')) {
        if (seen[k]) fprintf(stderr, "errors_catalogue: %s: row repeated: %s", path, line), bad = 1;
        seen[k] = matched = true;
      }
    }
    if (!matched) fprintf(stderr, "errors_catalogue: %s: stale row: %s", path, line), bad = 1;
  }
  fclose(f);
  for (size_t k = 0; k < N_ROWS; ++k)
    if (!seen[k]) fprintf(stderr, "errors_catalogue: %s lacks the row\n  %s\n", path, rows[k]), bad = 1;
  if (bad) fprintf(stderr, "errors_catalogue: %s is out of date: run scripts/gen_errors.sh\n", path);
  else printf("%s: %d status rows and %d more, all current\n", path, status_rows, (int)N_EXTRA);
  return bad;
}

int main(int argc, char **argv) {
  static char rows[N_ROWS][2048];
  int bad = check_complete();
  for (size_t k = 0; k < N_TRIGGERS; ++k) bad |= make_row(k, rows[k], sizeof rows[k]) != 0;
  for (size_t k = 0; k < N_EXTRA; ++k) bad |= make_extra_row(k, rows[N_TRIGGERS + k], sizeof rows[0]) != 0;
  if (bad) return 1;
  if (argc == 3 && strcmp(argv[1], "--check") == 0) return check_doc(argv[2], rows);
  if (argc != 1) {
    fprintf(stderr, "usage: %s [--check docs/errors.md]\n", argv[0]);
    return 2;
  }
  for (size_t k = 0; k < N_ROWS; ++k) printf("%s\n", rows[k]);
  return 0;
}
