#include "runner.h"
static void test_todo(void) { CHECK(1); }
static const dlx_test_case cases[] = {{"todo", test_todo}};
DLX_TEST_MAIN(cases)
