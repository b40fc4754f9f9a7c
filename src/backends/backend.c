/* The one place a device type meets a backend (backend.h): the rows, the wrappers that give every
 * optional entry its default, the DLPack protocol's stream rules per device type, and the device checks
 * this layer installs in the exchange layer. */
#include <inttypes.h>
#include <stddef.h>

#include "backends/backend.h"
#include "backends/module.h"
#include "backends/oneapi/oneapi_internal.h"
#include "core/error_internal.h"
#include "exchange/device_hooks.h"

#define NEEDS_CUDA "a build with CUDA (DLX_WITH_CUDA=ON)"
#define NEEDS_ROCM "a ROCm backend, which dlx does not have"

/* Whose streams order work on a device type's memory. */
typedef enum queue_rule {
  QUEUE_NONE, /* host memory: nothing dlx queues touches it out of order */
  QUEUE_OWN,  /* the streams of the memory's own device */
  QUEUE_ZERO, /* the streams of device 0 of the queue's type (DLPack labels managed memory device 0) */
} queue_rule;

/* The DLPack Python protocol's stream= values for a device type (the standard's table). */
typedef enum stream_rule {
  STREAMS_HOST, /* only None */
  STREAMS_CUDA, /* None is 1, the legacy default stream; 2 per-thread default; 0 forbidden; -1 none */
  STREAMS_ROCM, /* None and 0 the default stream; 1 and 2 forbidden; -1 none */
  STREAMS_ANY,  /* any int; dlx queues no work there */
} stream_rule;

/* Which of a row's halves come from its module (loaded at the first use of one of them). */
enum { FROM_COMPUTE = 1, FROM_MEMORY = 2, FROM_QUEUE = 4 };

typedef struct backend_row {
  int32_t device_type;
  const dlx__compute_ops *compute; /* runs ops on this memory; NULL: not in this build */
  bool host; /* host-accessible memory: the CPU's loops compute on it, with cpu:0 as its home */
  const dlx__memory_ops *memory;   /* allocates, moves and knows it; NULL: not in this build */
  queue_rule queue;
  const dlx__memory_ops *queue_mem; /* whose streams and events (QUEUE_OWN / QUEUE_ZERO) */
  /* the backend module the FROM_ halves come from (module.h), instead of the fields above */
  const dlx__module *module;
  unsigned from;
  stream_rule streams;
  /* CCCL's rule: a view's id comes from its pointer (memory->pointer_device), checked on export */
  bool check_pointer;
  /* The device type's import rule, run on a non-empty import's data; NULL: none. A property of the
   * device type's exchange protocol (the oneAPI USM protocol), not of a backend's table. */
  dlx_status (*check_import)(const void *data, DLDevice device);
  const char *needs; /* what a build needs for it, where compute or memory is missing */
} backend_row;

/* Every DLPack device type dlx can compute on, allocate or order. A new backend adds its rows here. CUDA is
 * a module (libdlx_cuda.so), loaded the first time one of its halves is needed. */
static const backend_row rows[] = {
    {.device_type = kDLCPU, .compute = &dlx__cpu_compute, .host = true, .memory = &dlx__cpu_memory,
     .queue = QUEUE_NONE, .streams = STREAMS_HOST},
    {.device_type = kDLCUDAHost, .compute = &dlx__cpu_compute, .host = true, .module = &dlx__cuda_module,
     .from = FROM_MEMORY, .queue = QUEUE_NONE, .streams = STREAMS_HOST, .needs = NEEDS_CUDA},
    {.device_type = kDLROCMHost, .compute = &dlx__cpu_compute, .host = true, .queue = QUEUE_NONE,
     .streams = STREAMS_HOST, .needs = NEEDS_ROCM},
    {.device_type = kDLCUDAManaged, .compute = &dlx__cpu_compute, .host = true, .module = &dlx__cuda_module,
     .from = FROM_MEMORY | FROM_QUEUE, .queue = QUEUE_ZERO, .streams = STREAMS_CUDA, .check_pointer = true,
     .needs = NEEDS_CUDA},
    {.device_type = kDLCUDA, .module = &dlx__cuda_module, .from = FROM_COMPUTE | FROM_MEMORY | FROM_QUEUE,
     .queue = QUEUE_OWN, .streams = STREAMS_CUDA, .check_pointer = true, .needs = NEEDS_CUDA},
    {.device_type = kDLROCM, .queue = QUEUE_OWN, .streams = STREAMS_ROCM, .needs = NEEDS_ROCM},
    /* dpctl's queues are not DLPack streams: no stream rule, and no events in dlx */
    {.device_type = kDLOneAPI, .compute = &dlx__oneapi_compute, .memory = &dlx__oneapi_memory, .queue = QUEUE_OWN,
     .streams = STREAMS_ANY, .check_pointer = true, .check_import = dlx__oneapi_check_import},
};

/* A row's halves, from its module where it says so (NULL while the module cannot be loaded). */
static const dlx__backend *row_module(const backend_row *row, unsigned what) {
  return (row->from & what) != 0 ? dlx__module_backend(row->module) : NULL;
}
static const dlx__compute_ops *row_compute(const backend_row *row) {
  if ((row->from & FROM_COMPUTE) == 0) return row->compute;
  const dlx__backend *b = row_module(row, FROM_COMPUTE);
  return b != NULL ? b->compute : NULL;
}
static const dlx__memory_ops *row_memory(const backend_row *row) {
  if ((row->from & FROM_MEMORY) == 0) return row->memory;
  const dlx__backend *b = row_module(row, FROM_MEMORY);
  return b != NULL ? b->memory : NULL;
}
static const dlx__memory_ops *row_queue(const backend_row *row) {
  if ((row->from & FROM_QUEUE) == 0) return row->queue_mem;
  const dlx__backend *b = row_module(row, FROM_QUEUE);
  return b != NULL ? b->memory : NULL;
}

/* The backends of this process: the CPU, the modules that load, oneAPI (always built: dpctl's C API is
 * loaded at run time). */
static const dlx__module *const modules[] = {&dlx__cuda_module};

int dlx__backend_count(void) {
  int n = 2;
  for (size_t i = 0; i < sizeof modules / sizeof modules[0]; ++i) n += dlx__module_backend(modules[i]) != NULL;
  return n;
}

const dlx__backend *dlx__backend_at(int i) {
  if (i == 0) return &dlx__cpu_backend;
  int k = 1;
  for (size_t j = 0; j < sizeof modules / sizeof modules[0]; ++j) {
    const dlx__backend *b = dlx__module_backend(modules[j]);
    if (b != NULL && k++ == i) return b;
  }
  return i == k ? &dlx__oneapi_backend : NULL;
}

/* ---- test hooks: per-thread replacements --------------------------------------------------------- */

static _Thread_local const dlx__compute_ops *host_override;
static _Thread_local struct {
  int32_t device_type;
  const dlx__backend *be;
  backend_row row;
} device_override;

const dlx__compute_ops *dlx__backend_override_host(const dlx__compute_ops *c) {
  const dlx__compute_ops *was = host_override;
  host_override = c;
  return was;
}

void dlx__backend_override_device(int32_t device_type, const dlx__backend *be) {
  device_override.be = be;
  device_override.device_type = device_type;
  if (be == NULL) return;
  device_override.row = (backend_row){.device_type = device_type, .compute = be->compute, .memory = be->memory,
                                      .queue = QUEUE_OWN, .queue_mem = be->memory, .streams = STREAMS_ANY};
}

static const backend_row *row_of(int32_t device_type) {
  if (DLX_UNLIKELY(device_override.be != NULL) && device_override.device_type == device_type)
    return &device_override.row;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i)
    if (rows[i].device_type == device_type) return &rows[i];
  return NULL;
}

/* ---- choosing by device ---------------------------------------------------------------------------- */

static dlx_status no_backend(const backend_row *row, DLDevice device, const char *fn, const char *what) {
  char dev[DLX_DEVICE_TEXT_CAP];
  dlx__device_text(dev, sizeof dev, device);
  const char *needs = row != NULL ? row->needs : NULL;
  /* a module that did not load says why after what the build needs */
  const char *why = row != NULL && row->module != NULL ? dlx__module_why(row->module) : "";
  const char *sep = why[0] != '\0' ? ": " : "";
  if (what != NULL) {
    if (needs != NULL)
      return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: %s is on %s, which needs %s%s%s", fn, what, dev, needs, sep,
                           why);
    return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: %s is on %s, and dlx has no backend for that memory", fn,
                         what, dev);
  }
  if (needs != NULL)
    return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: cannot allocate on %s, which needs %s%s%s", fn, dev, needs, sep,
                         why);
  return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: cannot allocate on %s: dlx has no backend for that memory",
                       fn, dev);
}

dlx_status dlx__backend_compute(DLDevice device, const char *fn, const char *what, const dlx__compute_ops **out,
                                DLDevice *home) {
  const backend_row *row = row_of((int32_t)device.device_type);
  const dlx__compute_ops *c = row != NULL ? row_compute(row) : NULL;
  if (c == NULL) return no_backend(row, device, fn, what != NULL ? what : "an operand");
  *out = row->host && host_override != NULL ? host_override : c;
  /* all host-accessible memory is one address space to the CPU's loops */
  if (home != NULL) *home = row->host ? (DLDevice){kDLCPU, 0} : device;
  return DLX_OK;
}

dlx_status dlx__backend_memory(DLDevice device, const char *fn, const dlx__memory_ops **out) {
  const backend_row *row = row_of((int32_t)device.device_type);
  const dlx__memory_ops *m = row != NULL ? row_memory(row) : NULL;
  if (m == NULL) return no_backend(row, device, fn, NULL);
  *out = m;
  return DLX_OK;
}

const dlx__memory_ops *dlx__memory_of_type(int32_t device_type) {
  const backend_row *row = row_of(device_type);
  return row != NULL ? row_memory(row) : NULL;
}

const char *dlx__backend_module_why(int32_t device_type) {
  const backend_row *row = row_of(device_type);
  return row != NULL && row->module != NULL ? dlx__module_why(row->module) : "";
}

const dlx__memory_ops *dlx__backend_mover(DLDevice a, DLDevice b) {
  const backend_row *ra = row_of((int32_t)a.device_type), *rb = row_of((int32_t)b.device_type);
  const dlx__memory_ops *ma = ra != NULL ? row_memory(ra) : NULL, *mb = rb != NULL ? row_memory(rb) : NULL;
  if (ma != NULL && ma->copy != NULL) return ma;
  if (mb != NULL && mb->copy != NULL) return mb;
  return NULL;
}

/* ---- allocation ------------------------------------------------------------------------------------- */

dlx_status dlx__device_alloc_like(const dlx__memory_ops *m, DLDevice device, const void *like, uint64_t bytes,
                                  bool zero, void **out, const char *fn) {
  if (like != NULL && m->alloc_like != NULL) return m->alloc_like(device, like, bytes, zero, out, fn);
  return m->alloc(device, bytes, zero, out, fn);
}

dlx_status dlx__backend_reduce(const dlx__compute_ops *c, const dlx__red_op *op) {
  if (c->reduce != NULL) return c->reduce(op);
  char dev[DLX_DEVICE_TEXT_CAP];
  return dlx_set_error(DLX_ERR_UNSUPPORTED, "dlx_reduce: the %s backend (computing on %s) has no reductions", c->name,
                       dlx__device_text(dev, sizeof dev, op->device));
}

dlx_status dlx__scratch_alloc(const dlx__compute_ops *c, DLDevice home, uint64_t bytes, void **out, const char *fn) {
  if (c->scratch_alloc != NULL) return c->scratch_alloc(home, bytes, out, fn);
  const dlx__memory_ops *m;
  DLX_FORWARD(dlx__backend_memory(home, fn, &m));
  return m->alloc(home, bytes, false, out, fn);
}

void dlx__scratch_free(const dlx__compute_ops *c, DLDevice home, void *ptr) {
  if (c->scratch_free != NULL) {
    c->scratch_free(home, ptr);
    return;
  }
  const dlx__memory_ops *m;
  /* the row that gave the memory is still there: this never fails for memory scratch_alloc returned */
  if (dlx__backend_memory(home, "dlx_ops", &m) == DLX_OK) m->free(home, ptr);
}

/* ---- gather and scatter ------------------------------------------------------------------------------ */


/* Position i's block as a view (the rest dimensions of strided, at offsets[i]), and dense's slice for i. */
static void gather_views(const dlx__gather_op *op, int64_t i, dlx_view *dense_i, dlx_view *block_i) {
  const dlx_view *d = op->dense;
  *block_i = *op->strided;
  block_i->data = (char *)op->strided->data + op->offsets[i];
  block_i->device = op->device;
  *dense_i = *block_i;
  dense_i->dtype = d->dtype;
  dense_i->flags = d->flags;
  int64_t byte = 0, rem = i;
  for (int32_t j = op->nb - 1; j >= 0; --j) {
    byte += rem % d->shape[j] * d->strides[j];
    rem /= d->shape[j];
  }
  const int64_t item = (int64_t)dlx_dtype_itemsize(d->dtype);
  dense_i->data = (char *)d->data + byte * item;
  for (int32_t j = op->nb; j < d->ndim; ++j) dense_i->strides[j - op->nb] = d->strides[j];
}

dlx_status dlx__compute_gather(const dlx__compute_ops *c, const dlx__gather_op *op) {
  if (c->gather != NULL) return c->gather(op);
  /* the default: position by position, a copy of one block through the backend's own elementwise copy */
  dlx__ew_op e = {.kind = DLX_EW_COPY, .nin = 1, .device = op->device};
  e.dtype[0] = e.dtype[1] = e.dtype[2] = op->dense->dtype;
  dlx_view dense_i, block_i;
  dlx_iter plan;
  for (int64_t i = 0; i < op->count; ++i) {
    if (op->offsets[i] == DLX__GATHER_SKIP) continue;
    gather_views(op, i, &dense_i, &block_i);
    const dlx_view *views[2] = {op->scatter ? &block_i : &dense_i, op->scatter ? &dense_i : &block_i};
    DLX_FORWARD(dlx_iter_init(&plan, 2, views, DLX_ITER_OUTPUT_FULL));
    if (plan.size > 0) DLX_FORWARD(c->execute(&e, &plan));
  }
  return DLX_OK;
}

/* ---- queues: streams and events ---------------------------------------------------------------------- */

static dlx_status no_entry(const dlx__memory_ops *m, int32_t device, const char *what, const char *fn) {
  return dlx_set_error(DLX_ERR_UNSUPPORTED, "%s: %s:%" PRId32 " memory has no %s in dlx", fn, m->name, device, what);
}

dlx_status dlx__device_queue(DLDevice memory, const char *fn, dlx__queue *q) {
  const backend_row *row = row_of((int32_t)memory.device_type);
  char text[DLX_DEVICE_TEXT_CAP];
  q->mem = NULL;
  q->device = -1;
  if (row != NULL && row->queue == QUEUE_NONE) return DLX_OK;
  const dlx__memory_ops *qm = row != NULL ? row_queue(row) : NULL;
  if (qm == NULL) {
    if (row != NULL && row->needs != NULL) {
      const char *why = row->module != NULL ? dlx__module_why(row->module) : "";
      return dlx_set_error(DLX_ERR_UNSUPPORTED, "%s: the tensor is on %s, which needs %s%s%s", fn,
                           dlx__device_text(text, sizeof text, memory), row->needs, why[0] ? ": " : "", why);
    }
    return dlx_set_error(DLX_ERR_UNSUPPORTED, "%s: the tensor is on %s: dlx has no streams or events for that memory",
                         fn, dlx__device_text(text, sizeof text, memory));
  }
  const int32_t id = row->queue == QUEUE_ZERO ? 0 : memory.device_id;
  const int n = qm->device_count();
  if (n == 0)
    return dlx_set_error(DLX_ERR_INVALID_DEVICE, "%s: the tensor is on %s, but no %s device is present", fn,
                         dlx__device_text(text, sizeof text, memory), qm->label);
  if (id < 0 || id >= n)
    return dlx_set_error(DLX_ERR_INVALID_DEVICE, "%s: the tensor is on %s, which does not exist (%d %s device%s)", fn,
                         dlx__device_text(text, sizeof text, memory), n, qm->label, n == 1 ? "" : "s");
  q->mem = qm;
  q->device = id;
  return DLX_OK;
}

bool dlx__any_queue_present(void) {
  if (DLX_UNLIKELY(device_override.be != NULL)) return true;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i)
    if (rows[i].queue != QUEUE_NONE) {
      const dlx__memory_ops *qm = row_queue(&rows[i]);
      if (qm != NULL && qm->device_count() > 0) return true;
    }
  return false;
}

dlx_status dlx__queue_current_stream(const dlx__queue *q, void **stream) {
  if (q->mem->stream_get == NULL) return no_entry(q->mem, q->device, "streams", "dlx_stream");
  return q->mem->stream_get(q->device, stream);
}

dlx_status dlx__queue_stream_wait(const dlx__queue *q, void *waiter, void *producer) {
  if (waiter == producer) return DLX_OK; /* one stream is already in order */
  if (q->mem->stream_wait == NULL) return no_entry(q->mem, q->device, "streams", "dlx_stream_wait");
  return q->mem->stream_wait(q->device, waiter, producer);
}

dlx_status dlx__queue_event_create(const dlx__queue *q, void **event, const char *fn) {
  if (q->mem->event_create == NULL) return no_entry(q->mem, q->device, "events", fn);
  return q->mem->event_create(q->device, event, fn);
}

dlx_status dlx__queue_event_record(const dlx__queue *q, void *event, void *stream, const char *fn) {
  if (q->mem->event_record == NULL) return no_entry(q->mem, q->device, "events", fn);
  return q->mem->event_record(q->device, event, stream, fn);
}

dlx_status dlx__queue_event_wait(const dlx__queue *q, void *event, void *stream, const char *fn) {
  if (q->mem->event_wait == NULL) return no_entry(q->mem, q->device, "events", fn);
  return q->mem->event_wait(q->device, event, stream, fn);
}

void dlx__memory_event_destroy(const dlx__memory_ops *m, int32_t device, void *event, bool host_wait) {
  /* an event exists only where event_create made it */
  if (m->event_destroy != NULL) m->event_destroy(device, event, host_wait);
}

bool dlx__memory_guard_block(const dlx__memory_ops *m, void *ptr, void *event) {
  return m->guard_block != NULL && m->guard_block(ptr, event);
}

/* ---- the DLPack protocol's stream= ----------------------------------------------------------------- */

/* value against the stream rule of row (NULL: an unknown device type, any value). */
static dlx_status check_stream_value(const backend_row *row, bool given, int64_t value) {
  const stream_rule rule = row != NULL ? row->streams : STREAMS_ANY;
  if (rule == STREAMS_ROCM && given && (value == 1 || value == 2))
    return dlx_set_error(DLX_ERR_INVALID_ARGUMENT,
                         "stream=%" PRId64 " is not allowed for ROCm memory (use None or 0 for the default stream)",
                         value);
  if (rule != STREAMS_CUDA || !given) return DLX_OK;
  /* the standard's values for CUDA: 0 is ambiguous between the legacy and per-thread default streams */
  DLX_FAIL_IF(value == 0, DLX_ERR_INVALID_ARGUMENT,
              "stream=0 is not allowed for CUDA memory (use 1 for the legacy default stream, 2 for the per-thread "
              "default stream, or -1 for no synchronisation)");
  DLX_FAIL_IF(value < -1, DLX_ERR_INVALID_ARGUMENT,
              "stream=%" PRId64 " is not a CUDA stream (1 legacy default, 2 per-thread default, a cudaStream_t above "
              "2, -1 no synchronisation)",
              value);
  return DLX_OK;
}

dlx_status dlx__dlpack_stream(DLDevice source, DLDevice target, bool given, int64_t value,
                              dlx__stream_action *action, void **stream) {
  *action = DLX__STREAM_NONE;
  *stream = NULL;
  const backend_row *row = row_of((int32_t)target.device_type);
  if (row != NULL && row->streams == STREAMS_HOST) {
    if (!given) return DLX_OK;
    /* device memory copied to the host (dl_device): the consumer may name its stream on the source device;
     * the copy is done when the export returns, so there is nothing to order */
    const backend_row *src = row_of((int32_t)source.device_type);
    if (src != NULL && src->streams == STREAMS_CUDA) return check_stream_value(src, given, value);
    return dlx_set_error(DLX_ERR_UNSUPPORTED, "stream=%" PRId64 " given for host memory: only stream=None is allowed",
                         value);
  }
  DLX_FORWARD(check_stream_value(row, given, value));
  if (row == NULL || row->streams != STREAMS_CUDA) return DLX_OK; /* dlx queues no work there */
  /* None: the legacy default stream (1); -1: the consumer orders the work itself */
  const int64_t v = given ? value : 1;
  const dlx__memory_ops *qm = v == -1 ? NULL : row_queue(row);
  if (qm == NULL || qm->device_count() == 0) return DLX_OK;
  /* 1 and 2 are CUDA's own handles for the legacy and per-thread default streams */
  *stream = (void *)(uintptr_t)v;
  *action = DLX__STREAM_ORDER;
  return DLX_OK;
}

int64_t dlx__dlpack_stream_value(DLDevice device, void *stream) {
  const backend_row *row = row_of((int32_t)device.device_type);
  if (stream == NULL && row != NULL && row->streams == STREAMS_CUDA) return 1; /* the legacy default stream */
  return (int64_t)(uintptr_t)stream;
}

/* ---- the exchange layer's device checks (exchange/device_hooks.h) ---------------------------------- */

static dlx_status check_pointer(const dlx_view *v, const char *fn) {
  const backend_row *row = row_of((int32_t)v->device.device_type);
  /* without the runtime that owns this memory in the build, the label cannot be checked: it is kept */
  const dlx__memory_ops *m = row != NULL && v->data != NULL ? row_memory(row) : NULL;
  if (m == NULL || m->pointer_device == NULL) return DLX_OK;
  /* nor can it with no device present: the runtime knows no memory then */
  if (m->device_count() == 0) return DLX_OK;
  DLDevice d;
  DLX_FORWARD(m->pointer_device(v->data, &d));
  return dlx__device_label_check(v, d, fn);
}

static dlx_status check_import(const dlx_view *v) {
  const backend_row *row = row_of((int32_t)v->device.device_type);
  if (row == NULL || row->check_import == NULL || v->data == NULL) return DLX_OK;
  return row->check_import(v->data, v->device);
}

/* Installed when the library is loaded (before any import can run), from the rows. */
__attribute__((constructor)) static void install_device_hooks(void) {
  dlx__device_hooks h = {0, 0, check_pointer, check_import};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
    const uint32_t bit = rows[i].device_type < 32 ? 1u << rows[i].device_type : 0u;
    /* (a module's memory is asked at the first check of its memory, loading it then) */
    if (rows[i].check_pointer) h.pointer_types |= bit;
    if (rows[i].check_import != NULL) h.import_types |= bit;
  }
  dlx__exchange_set_device_hooks(&h);
}
