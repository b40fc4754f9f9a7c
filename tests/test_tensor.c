#include "runner.h"
/* being written */
static void test_pending(void) { CHECK(1); }
static const dlx_test_case cases[] = {{"pending", test_pending}};
DLX_TEST_MAIN(cases)
