/* Tests for src/core/error.c */
#include "runner.h"

#include <pthread.h>

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

static const dlx_test_case cases[] = {
    {"status_names", test_status_names},
    {"message", test_message},
    {"thread_local", test_thread_local},
};
DLX_TEST_MAIN(cases)
