/* Tests for src/core/error.c */
#include "runner.h"

#include <pthread.h>

#include "dlx/dlx.h"
#include "dlx/dynlayout.h"

static void test_status_names(void) {
  CHECK_STR(dlx_status_name(DLX_OK), "OK");
  CHECK_STR(dlx_status_name(DLX_ERR_NULL_DATA), "NULL_DATA");
  CHECK_STR(dlx_status_name(DLX_ERR_BACKEND), "BACKEND");
  CHECK_STR(dlx_status_name(DLX_STATUS_COUNT), "UNKNOWN_STATUS");
  CHECK_STR(dlx_status_name((dlx_status)-1), "UNKNOWN_STATUS");
  /* every status has a distinct, non-placeholder name */
  for (int i = 0; i < DLX_STATUS_COUNT; ++i) {
    CHECK(strcmp(dlx_status_name((dlx_status)i), "UNKNOWN_STATUS") != 0);
    for (int j = 0; j < i; ++j) CHECK(strcmp(dlx_status_name((dlx_status)i), dlx_status_name((dlx_status)j)) != 0);
  }
}

static void test_message(void) {
  dlx_clear_error();
  CHECK_STR(dlx_last_error(), "");
  CHECK_EQ(dlx_set_error(DLX_ERR_RANK, "expected ndim %d, got %d", 2, 3), DLX_ERR_RANK);
  CHECK_STR(dlx_last_error(), "expected ndim 2, got 3");
  CHECK_EQ(dlx_set_error(DLX_ERR_PARSE, NULL), DLX_ERR_PARSE);
  CHECK_STR(dlx_last_error(), "");
  /* a message longer than the buffer is cut, not overrun */
  char big[2000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  dlx_set_error(DLX_ERR_PARSE, "%s", big);
  CHECK(strlen(dlx_last_error()) < sizeof big - 1);
  dlx_clear_error();
}

static void *thread_body(void *arg) {
  long id = (long)arg;
  for (int i = 0; i < 2000; ++i) {
    dlx_set_error(DLX_ERR_INDEX, "thread %ld iteration %d", id, i);
    char want[64];
    snprintf(want, sizeof want, "thread %ld iteration %d", id, i);
    if (strcmp(dlx_last_error(), want) != 0) return (void *)1;
  }
  return NULL;
}

/* The message is per thread: writers on other threads never show through. */
static void test_thread_local(void) {
  pthread_t th[8];
  dlx_set_error(DLX_ERR_RANK, "main thread");
  for (long i = 0; i < 8; ++i) CHECK_EQ(pthread_create(&th[i], NULL, thread_body, (void *)i), 0);
  for (int i = 0; i < 8; ++i) {
    void *ret = (void *)1;
    pthread_join(th[i], &ret);
    CHECK(ret == NULL);
  }
  CHECK_STR(dlx_last_error(), "main thread");
}

/* Real failures on many threads at once: each thread's message names its own values, and a later
 * success on that thread leaves it in place (only a failure or dlx_clear_error replaces it). */
typedef struct api_thread_arg {
  long id;
  int bad;
} api_thread_arg;

static void *api_thread_body(void *p) {
  api_thread_arg *a = (api_thread_arg *)p;
  char want[96], name[32];
  int64_t shape[2] = {2, 3}, strides[2] = {3, 1};
  for (int i = 0; i < 1000 && !a->bad; ++i) {
    DLDataType dt;
    switch (i % 3) {
      case 0: /* a name only this thread and iteration uses */
        snprintf(name, sizeof name, "t%ldi%d", a->id, i);
        if (dlx_dtype_parse(name, &dt) != DLX_ERR_PARSE) a->bad = 1;
        snprintf(want, sizeof want, "\"%s\"", name);
        break;
      case 1: { /* a rank only this thread uses */
        DLTensor t;
        memset(&t, 0, sizeof t);
        t.ndim = 100 + (int32_t)a->id;
        t.dtype = DLX_DTYPE_FLOAT32;
        t.device.device_type = kDLCPU;
        dlx_import_spec spec = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY,
                                DLX_DLPACK_VERSION_NUM(1, 3), 0};
        dlx_view v;
        if (dlx_view_from_dltensor(&v, &t, &spec) != DLX_ERR_RANK) a->bad = 1;
        snprintf(want, sizeof want, "%d", 100 + (int)a->id);
        break;
      }
      default: { /* a stride only this thread uses */
        dlx_dynlayout l;
        strides[1] = 1000 + a->id;
        if (dlx_dynlayout_init(&l, 2, shape, strides) != DLX_OK) a->bad = 1;
        if (dlx_dynlayout_mark_dynamic(&l, 1) != DLX_ERR_LAYOUT_MISMATCH) a->bad = 1;
        snprintf(want, sizeof want, "but got %ld", 1000 + a->id);
        break;
      }
    }
    if (strstr(dlx_last_error(), want) == NULL) a->bad = 2;
    /* a success in between keeps the message */
    DLDataType ok;
    if (dlx_dtype_parse("float32", &ok) != DLX_OK || strstr(dlx_last_error(), want) == NULL) a->bad = 3;
  }
  return NULL;
}

static void test_thread_local_api(void) {
  enum { N = 8 };
  pthread_t th[N];
  api_thread_arg args[N];
  dlx_clear_error();
  for (long i = 0; i < N; ++i) {
    args[i].id = i;
    args[i].bad = 0;
    CHECK_EQ(pthread_create(&th[i], NULL, api_thread_body, &args[i]), 0);
  }
  for (int i = 0; i < N; ++i) {
    pthread_join(th[i], NULL);
    CHECK_EQ(args[i].bad, 0);
  }
  /* none of it reached this thread */
  CHECK_STR(dlx_last_error(), "");
}

/* The library's version at run time is the headers' (this test is built with the library it runs). */
static void test_version(void) {
  CHECK_EQ(dlx_version(), (unsigned)DLX_VERSION_NUMBER);
  CHECK_EQ(dlx_version(), (unsigned)(DLX_VERSION_MAJOR * 10000 + DLX_VERSION_MINOR * 100 + DLX_VERSION_PATCH));
  CHECK_STR(dlx_version_string(), DLX_VERSION_STRING);
}

static const dlx_test_case cases[] = {
    {"status_names", test_status_names},
    {"version", test_version},
    {"message", test_message},
    {"thread_local", test_thread_local},
    {"thread_local_api", test_thread_local_api},
};
DLX_TEST_MAIN(cases)
