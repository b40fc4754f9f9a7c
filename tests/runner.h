/* A small in-tree test runner, libuv style: each test binary lists its cases in a table.
 * Why not cmocka or Check from Debian: the runner must work unchanged under ASan/UBSan, valgrind and
 * libFuzzer builds, on a fresh machine with no extra package, and print the plain
 * "N passed, N failed" closing line; 80 lines of C do that with no install step. */
#ifndef DLX_TESTS_RUNNER_H
#define DLX_TESTS_RUNNER_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlx/error.h"

/* 1 in a build under a sanitizer (ASan, TSan, MSan): many times slower per case, a test may run fewer of its
 * random cases there (each says how many) */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DLX_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define DLX_TEST_SANITIZED 1
#endif
#endif
#ifndef DLX_TEST_SANITIZED
#define DLX_TEST_SANITIZED 0
#endif

typedef struct dlx_test_case {
  const char *name;
  void (*fn)(void);
} dlx_test_case;

static int dlx_test_failures_;

#define CHECK(cond)                                                                                   \
  do {                                                                                                \
    if (!(cond)) {                                                                                    \
      fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);                     \
      ++dlx_test_failures_;                                                                           \
    }                                                                                                 \
  } while (0)

#define CHECK_EQ(a, b)                                                                                \
  do {                                                                                                \
    long long dlx_a_ = (long long)(a), dlx_b_ = (long long)(b);                                       \
    if (dlx_a_ != dlx_b_) {                                                                           \
      fprintf(stderr, "  %s:%d: CHECK_EQ(%s, %s): %lld != %lld\n", __FILE__, __LINE__, #a, #b, dlx_a_, \
              dlx_b_);                                                                                \
      ++dlx_test_failures_;                                                                           \
    }                                                                                                 \
  } while (0)

#define CHECK_STR(a, b)                                                                               \
  do {                                                                                                \
    const char *dlx_sa_ = (a), *dlx_sb_ = (b);                                                        \
    if (dlx_sa_ == NULL || dlx_sb_ == NULL || strcmp(dlx_sa_, dlx_sb_) != 0) {                         \
      fprintf(stderr, "  %s:%d: CHECK_STR(%s, %s): \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a, #b,     \
              dlx_sa_ ? dlx_sa_ : "(null)", dlx_sb_ ? dlx_sb_ : "(null)");                            \
      ++dlx_test_failures_;                                                                           \
    }                                                                                                 \
  } while (0)

/* The call returns DLX_OK. */
#define CHECK_OK(expr)                                                                                \
  do {                                                                                                \
    dlx_status dlx_st_ = (expr);                                                                      \
    if (dlx_st_ != DLX_OK) {                                                                          \
      fprintf(stderr, "  %s:%d: %s returned %s: %s\n", __FILE__, __LINE__, #expr,                     \
              dlx_status_name(dlx_st_), dlx_last_error());                                            \
      ++dlx_test_failures_;                                                                           \
    }                                                                                                 \
  } while (0)

/* The call fails with exactly `status`, and the message contains `needle` (a value it must name). */
#define CHECK_FAIL(expr, status, needle)                                                              \
  do {                                                                                                \
    dlx_clear_error();                                                                                \
    dlx_status dlx_st_ = (expr);                                                                      \
    if (dlx_st_ != (status)) {                                                                        \
      fprintf(stderr, "  %s:%d: %s returned %s, expected %s (%s)\n", __FILE__, __LINE__, #expr,       \
              dlx_status_name(dlx_st_), dlx_status_name(status), dlx_last_error());                   \
      ++dlx_test_failures_;                                                                           \
    } else if (strstr(dlx_last_error(), (needle)) == NULL) {                                          \
      fprintf(stderr, "  %s:%d: %s: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, #expr,        \
              dlx_last_error(), (needle));                                                            \
      ++dlx_test_failures_;                                                                           \
    }                                                                                                 \
  } while (0)

/* The CPU backend's instruction-set levels (src/backends/cpu/dispatch.c; the static library the tests link
 * exports them). */
const char *dlx__cpu_variant(void);
dlx_status dlx__cpu_force_variant(const char *name);

/* tests/CMakeLists.txt registers the loop tests once per CPU level with DLX_CPU_FEATURES naming it. That
 * level must be the one running; a level this machine cannot run is a skip (77) that says what it lacks,
 * never a silent run of another level. 0: go on. */
static inline int dlx_test_cpu_level_gate(void) {
  const char *want = getenv("DLX_CPU_FEATURES");
  if (want == NULL || want[0] == '\0') return 0;
  const char *running = dlx__cpu_variant();
  if (strcmp(running, want) == 0) {
    printf("cpu level %s\n", running);
    return 0;
  }
  /* the refusal's message names what the machine lacks */
  const dlx_status st = dlx__cpu_force_variant(want);
  if (st == DLX_ERR_UNSUPPORTED) {
    printf("skipped: %s\n", dlx_last_error());
    return 77;
  }
  printf("DLX_CPU_FEATURES=%s did not select that level (running %s): %s\n", want, running,
         st == DLX_OK ? "the environment was ignored" : dlx_last_error());
  return 1;
}

static inline int dlx_test_main(int argc, char **argv, const dlx_test_case *cases, size_t n) {
  const int gate = dlx_test_cpu_level_gate();
  if (gate != 0) return gate;
  int passed = 0, failed = 0;
  for (size_t i = 0; i < n; ++i) {
    if (argc > 1 && strstr(cases[i].name, argv[1]) == NULL) continue;
    int before = dlx_test_failures_;
    cases[i].fn();
    if (dlx_test_failures_ == before) {
      ++passed;
      printf("ok   %s\n", cases[i].name);
    } else {
      ++failed;
      printf("FAIL %s\n", cases[i].name);
    }
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}

#define DLX_TEST_MAIN(cases) \
  int main(int argc, char **argv) { return dlx_test_main(argc, argv, cases, sizeof(cases) / sizeof((cases)[0])); }

#endif
