/* Tests for src/core/dtype.c */
#include <stdbool.h>
#include <stdint.h>

#include "dlx/dtype.h"
#include "runner.h"

static bool same(DLDataType a, DLDataType b) { return dlx_dtype_equal(a, b); }

/* Every code's legal bits, straight from the DLPack 1.3 table. */
static void test_validity_table(void) {
  static const struct { uint8_t code; uint8_t bits[6]; } legal[] = {
      {0, {8, 16, 32, 64, 128}}, {1, {8, 16, 32, 64, 128}}, {2, {16, 32, 64, 128}}, {4, {16}},
      {5, {32, 64, 128}},        {6, {8}},             {7, {8}},             {8, {8}},
      {9, {8}},                  {10, {8}},            {11, {8}},            {12, {8}},
      {13, {8}},                 {14, {8}},            {15, {6}},            {16, {6}},
      {17, {4}},
  };
  for (size_t r = 0; r < sizeof legal / sizeof legal[0]; ++r) {
    for (unsigned bits = 0; bits < 256; ++bits) {
      bool want = false;
      for (int k = 0; k < 6; ++k) want = want || (legal[r].bits[k] == bits && bits != 0);
      DLDataType dt = DLX_DTYPE_MAKE(legal[r].code, bits, 1);
      CHECK_EQ(dlx_dtype_is_valid(dt), want);
      CHECK_EQ(dlx_dtype_check(dt) == DLX_OK, want);
    }
  }
  /* opaque handles: any whole number of bytes */
  CHECK(dlx_dtype_is_valid(DLX_DTYPE_MAKE(3, 64, 1)));
  CHECK(!dlx_dtype_is_valid(DLX_DTYPE_MAKE(3, 0, 1)));
  CHECK(!dlx_dtype_is_valid(DLX_DTYPE_MAKE(3, 12, 1)));
  /* 1-bit unsigned is not a bool (edge case 10) */
  CHECK(!dlx_dtype_is_valid(DLX_DTYPE_MAKE(1, 1, 1)));
  CHECK_FAIL(dlx_dtype_check(DLX_DTYPE_MAKE(1, 1, 1)), DLX_ERR_INVALID_DTYPE, "1 bits is not legal for code 1");
  CHECK_FAIL(dlx_dtype_check(DLX_DTYPE_MAKE(2, 32, 0)), DLX_ERR_INVALID_DTYPE, "lanes must be >= 1");
  CHECK_FAIL(dlx_dtype_check(DLX_DTYPE_MAKE(18, 8, 1)), DLX_ERR_INVALID_DTYPE, "unknown type code 18");
  CHECK_FAIL(dlx_dtype_check(DLX_DTYPE_MAKE(255, 8, 1)), DLX_ERR_INVALID_DTYPE, "unknown type code 255");
  /* vectors */
  CHECK(dlx_dtype_is_valid(DLX_DTYPE_MAKE(2, 32, 4)));
  CHECK(dlx_dtype_is_valid(DLX_DTYPE_MAKE(2, 32, 65535)));
}

static void test_names_round_trip(void) {
  static const char *const names[] = {
      "bool", "int8", "int16", "int32", "int64", "int128", "uint8", "uint16", "uint32", "uint64", "uint128",
      "float16", "float32", "float64", "float128", "bfloat16", "complex32", "complex64", "complex128",
      "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
      "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn",
      "float32x4", "int8x16", "float8_e4m3fnx4", "opaque64", "opaque8x2", "float8_e4m3b11fnuzx65535",
      "uint128x2", "uint128x65535"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    DLDataType dt;
    char buf[DLX_DTYPE_NAME_MAX];
    CHECK_OK(dlx_dtype_parse(names[i], &dt));
    CHECK(dlx_dtype_is_valid(dt));
    CHECK_OK(dlx_dtype_format(dt, buf, sizeof buf));
    CHECK_STR(buf, names[i]);
  }
  /* every valid dtype (all codes, all bits, a spread of lanes) formats and parses back to itself */
  static const uint16_t lanes[] = {1, 2, 3, 4, 16, 255, 256, 65535};
  int seen = 0;
  for (unsigned code = 0; code < 20; ++code)
    for (unsigned bits = 0; bits < 256; ++bits)
      for (size_t l = 0; l < sizeof lanes / sizeof lanes[0]; ++l) {
        DLDataType dt = DLX_DTYPE_MAKE(code, bits, lanes[l]), back;
        if (!dlx_dtype_is_valid(dt)) continue;
        char buf[DLX_DTYPE_NAME_MAX];
        CHECK_OK(dlx_dtype_format(dt, buf, sizeof buf));
        CHECK_OK(dlx_dtype_parse(buf, &back));
        CHECK(same(dt, back));
        ++seen;
      }
  CHECK(seen > 30 * 8);
  CHECK(same(DLX_DTYPE_FLOAT32, (DLDataType){2, 32, 1}));
  CHECK(same(DLX_DTYPE_BOOL, (DLDataType){6, 8, 1}));
  CHECK(same(DLX_DTYPE_COMPLEX64, (DLDataType){5, 64, 1}));
  CHECK(same(DLX_DTYPE_FLOAT4_E2M1FN, (DLDataType){17, 4, 1}));
}

static void test_static_names(void) {
  CHECK_STR(dlx_dtype_name(DLX_DTYPE_BFLOAT16), "bfloat16");
  CHECK_STR(dlx_dtype_name(DLX_DTYPE_FLOAT8_E5M2), "float8_e5m2");
  CHECK(dlx_dtype_name(DLX_DTYPE_MAKE(2, 32, 4)) == NULL);
  CHECK(dlx_dtype_name(DLX_DTYPE_MAKE(3, 64, 1)) == NULL);
  CHECK(dlx_dtype_name(DLX_DTYPE_MAKE(2, 33, 1)) == NULL);
  CHECK_STR(dlx_dtype_name(DLX_DTYPE_INT128), "int128");
  CHECK(dlx_dtype_name(DLX_DTYPE_MAKE(DLX_CODE_UINT, 128, 2)) == NULL);
}

/* Issue 12: {kDLUInt, 128, 1} is what CCCL exports for unsigned __int128; it is as legal as int128. */
static void test_uint128(void) {
  DLDataType dt;
  char buf[DLX_DTYPE_NAME_MAX];
  CHECK(same(DLX_DTYPE_UINT128, (DLDataType){kDLUInt, 128, 1}));
  CHECK(dlx_dtype_is_valid(DLX_DTYPE_UINT128));
  CHECK_OK(dlx_dtype_check(DLX_DTYPE_UINT128));
  CHECK_STR(dlx_dtype_name(DLX_DTYPE_UINT128), "uint128");
  CHECK_OK(dlx_dtype_parse("uint128", &dt));
  CHECK(same(dt, DLX_DTYPE_UINT128));
  CHECK_OK(dlx_dtype_format(DLX_DTYPE_UINT128, buf, sizeof buf));
  CHECK_STR(buf, "uint128");
  CHECK_OK(dlx_dtype_parse("uint128x4", &dt));
  CHECK(same(dt, DLX_DTYPE_MAKE(DLX_CODE_UINT, 128, 4)));
  CHECK_OK(dlx_dtype_format(dt, buf, sizeof buf));
  CHECK_STR(buf, "uint128x4");
  CHECK_EQ(dlx_dtype_itemsize(DLX_DTYPE_UINT128), 16);
  CHECK_EQ(dlx_dtype_itemsize(dt), 64);
  CHECK_EQ(dlx_dtype_alignment(DLX_DTYPE_UINT128), dlx_dtype_alignment(DLX_DTYPE_INT128));
  CHECK(!dlx_dtype_is_subbyte(DLX_DTYPE_UINT128));
  uint64_t b;
  CHECK_OK(dlx_dtype_storage_bytes(DLX_DTYPE_UINT128, 3, false, &b));
  CHECK_EQ(b, 48);
  /* the neighbours stay illegal and unnamed */
  CHECK(!dlx_dtype_is_valid(DLX_DTYPE_MAKE(DLX_CODE_UINT, 127, 1)));
  CHECK(!dlx_dtype_is_valid(DLX_DTYPE_MAKE(DLX_CODE_UINT, 129, 1)));
  CHECK_FAIL(dlx_dtype_check(DLX_DTYPE_MAKE(DLX_CODE_UINT, 192, 1)), DLX_ERR_INVALID_DTYPE, "192 bits");
  CHECK_FAIL(dlx_dtype_parse("uint256", &dt), DLX_ERR_PARSE, "uint256");
  CHECK_FAIL(dlx_dtype_parse("uint128x0", &dt), DLX_ERR_PARSE, "uint128x0");
}

static void test_parse_errors(void) {
  DLDataType dt;
  CHECK_FAIL(dlx_dtype_parse("float", &dt), DLX_ERR_PARSE, "\"float\" is not a dtype name");
  CHECK_FAIL(dlx_dtype_parse("Float32", &dt), DLX_ERR_PARSE, "\"Float32\"");
  CHECK_FAIL(dlx_dtype_parse("", &dt), DLX_ERR_PARSE, "\"\"");
  CHECK_FAIL(dlx_dtype_parse("float32x", &dt), DLX_ERR_PARSE, "lanes after 'x'");
  CHECK_FAIL(dlx_dtype_parse("float32x0", &dt), DLX_ERR_PARSE, "float32x0");
  CHECK_FAIL(dlx_dtype_parse("float32x65536", &dt), DLX_ERR_PARSE, "[1, 65535]");
  CHECK_FAIL(dlx_dtype_parse("float32x04", &dt), DLX_ERR_PARSE, "float32x04");
  CHECK_FAIL(dlx_dtype_parse("float32x-4", &dt), DLX_ERR_PARSE, "float32x-4");
  CHECK_FAIL(dlx_dtype_parse("xfloat32", &dt), DLX_ERR_PARSE, "xfloat32");
  CHECK_FAIL(dlx_dtype_parse("x4", &dt), DLX_ERR_PARSE, "\"x4\" is not a dtype name");
  CHECK_FAIL(dlx_dtype_parse("floatx4", &dt), DLX_ERR_PARSE, "\"float\" is no scalar type");
  CHECK_FAIL(dlx_dtype_parse("complex", &dt), DLX_ERR_PARSE, "complex");
  CHECK_FAIL(dlx_dtype_parse("opaque12", &dt), DLX_ERR_PARSE, "opaque12");
  CHECK_FAIL(dlx_dtype_parse("opaque", &dt), DLX_ERR_PARSE, "opaque");
  CHECK_FAIL(dlx_dtype_parse("opaque256", &dt), DLX_ERR_PARSE, "opaque256");
  CHECK_FAIL(dlx_dtype_parse(NULL, &dt), DLX_ERR_NULL_ARGUMENT, "name");
  CHECK_FAIL(dlx_dtype_parse("int8", NULL), DLX_ERR_NULL_ARGUMENT, "out");
  CHECK_FAIL(dlx_dtype_parse_n(NULL, 3, &dt), DLX_ERR_NULL_ARGUMENT, "name");
  /* a long hostile name is quoted only in part */
  char longname[300];
  memset(longname, 'a', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  CHECK_FAIL(dlx_dtype_parse(longname, &dt), DLX_ERR_PARSE, "aaaa");
  CHECK(strlen(dlx_last_error()) < 200);
  /* not NUL-terminated input */
  CHECK_OK(dlx_dtype_parse_n("int32garbage", 5, &dt));
  CHECK(same(dt, DLX_DTYPE_INT32));
}

static void test_format_errors(void) {
  char buf[8];
  CHECK_FAIL(dlx_dtype_format(DLX_DTYPE_FLOAT32, NULL, 8), DLX_ERR_NULL_ARGUMENT, "buf");
  CHECK_FAIL(dlx_dtype_format(DLX_DTYPE_FLOAT32, buf, 7), DLX_ERR_BUFFER_TOO_SMALL, "needs 8 bytes");
  CHECK_OK(dlx_dtype_format(DLX_DTYPE_FLOAT32, buf, 8));
  CHECK_FAIL(dlx_dtype_format(DLX_DTYPE_MAKE(2, 8, 1), buf, 8), DLX_ERR_INVALID_DTYPE, "8 bits");
}

static void test_sizes(void) {
  CHECK_EQ(dlx_dtype_itemsize(DLX_DTYPE_FLOAT32), 4);
  CHECK_EQ(dlx_dtype_itemsize(DLX_DTYPE_COMPLEX128), 16);
  CHECK_EQ(dlx_dtype_itemsize(DLX_DTYPE_MAKE(2, 32, 4)), 16);
  CHECK_EQ(dlx_dtype_itemsize(DLX_DTYPE_BOOL), 1);
  CHECK_EQ(dlx_dtype_itemsize(DLX_DTYPE_FLOAT4_E2M1FN), 1);
  CHECK_EQ(dlx_dtype_itemsize(DLX_DTYPE_FLOAT6_E2M3FN), 1);
  CHECK(dlx_dtype_is_subbyte(DLX_DTYPE_FLOAT4_E2M1FN));
  CHECK(!dlx_dtype_is_subbyte(DLX_DTYPE_MAKE(17, 4, 2)));
  CHECK(!dlx_dtype_is_subbyte(DLX_DTYPE_FLOAT8_E4M3FN));

  CHECK_EQ(dlx_dtype_alignment(DLX_DTYPE_FLOAT64), 8);
  CHECK_EQ(dlx_dtype_alignment(DLX_DTYPE_COMPLEX64), 4);
  CHECK_EQ(dlx_dtype_alignment(DLX_DTYPE_COMPLEX128), 8);
  CHECK_EQ(dlx_dtype_alignment(DLX_DTYPE_MAKE(2, 32, 4)), 16);
  CHECK_EQ(dlx_dtype_alignment(DLX_DTYPE_MAKE(2, 32, 3)), 4);
  CHECK_EQ(dlx_dtype_alignment(DLX_DTYPE_MAKE(2, 64, 4)), 16);
  CHECK_EQ(dlx_dtype_alignment(DLX_DTYPE_FLOAT4_E2M1FN), 1);
  CHECK_EQ(dlx_dtype_alignment(DLX_DTYPE_BOOL), 1);
  CHECK_EQ(dlx_dtype_alignment(DLX_DTYPE_MAKE(2, 0, 1)), 1);

  uint64_t b;
  CHECK_OK(dlx_dtype_storage_bytes(DLX_DTYPE_FLOAT32, 10, false, &b));
  CHECK_EQ(b, 40);
  CHECK_OK(dlx_dtype_storage_bytes(DLX_DTYPE_FLOAT4_E2M1FN, 3, false, &b));
  CHECK_EQ(b, 2);
  CHECK_OK(dlx_dtype_storage_bytes(DLX_DTYPE_FLOAT4_E2M1FN, 3, true, &b));
  CHECK_EQ(b, 3);
  CHECK_OK(dlx_dtype_storage_bytes(DLX_DTYPE_FLOAT6_E3M2FN, 5, false, &b));
  CHECK_EQ(b, 4); /* 30 bits */
  CHECK_OK(dlx_dtype_storage_bytes(DLX_DTYPE_FLOAT6_E3M2FN, 0, false, &b));
  CHECK_EQ(b, 0);
  /* exact for counts near the top of the range, where n * bits would overflow */
  CHECK_OK(dlx_dtype_storage_bytes(DLX_DTYPE_FLOAT4_E2M1FN, UINT64_MAX, false, &b));
  CHECK_EQ(b, (long long)(UINT64_MAX / 2 + 1));
  CHECK_OK(dlx_dtype_storage_bytes(DLX_DTYPE_FLOAT6_E3M2FN, UINT64_MAX, false, &b)); /* 0.75 * 2^64 fits */
  CHECK_FAIL(dlx_dtype_storage_bytes(DLX_DTYPE_MAKE(15, 6, 3), UINT64_MAX, false, &b), DLX_ERR_OVERFLOW, "18 bits");
  CHECK_FAIL(dlx_dtype_storage_bytes(DLX_DTYPE_FLOAT64, UINT64_MAX / 4, false, &b), DLX_ERR_OVERFLOW, "8 bytes");
  CHECK_FAIL(dlx_dtype_storage_bytes(DLX_DTYPE_MAKE(2, 7, 1), 1, false, &b), DLX_ERR_INVALID_DTYPE, "7 bits");
  CHECK_FAIL(dlx_dtype_storage_bytes(DLX_DTYPE_FLOAT32, 1, false, NULL), DLX_ERR_NULL_ARGUMENT, "bytes");
}

static void test_c_type_mapping(void) {
  CHECK(same(DLX_DTYPE_OF(_Bool), DLX_DTYPE_BOOL));
  CHECK(same(DLX_DTYPE_OF(int8_t), DLX_DTYPE_INT8));
  CHECK(same(DLX_DTYPE_OF(int16_t), DLX_DTYPE_INT16));
  CHECK(same(DLX_DTYPE_OF(int32_t), DLX_DTYPE_INT32));
  CHECK(same(DLX_DTYPE_OF(int64_t), DLX_DTYPE_INT64));
  CHECK(same(DLX_DTYPE_OF(uint8_t), DLX_DTYPE_UINT8));
  CHECK(same(DLX_DTYPE_OF(uint16_t), DLX_DTYPE_UINT16));
  CHECK(same(DLX_DTYPE_OF(uint32_t), DLX_DTYPE_UINT32));
  CHECK(same(DLX_DTYPE_OF(uint64_t), DLX_DTYPE_UINT64));
  CHECK(same(DLX_DTYPE_OF(long long), DLX_DTYPE_INT64));
  CHECK(same(DLX_DTYPE_OF(unsigned long long), DLX_DTYPE_UINT64));
  CHECK(same(DLX_DTYPE_OF(size_t), DLX_DTYPE_MAKE(1, 8 * sizeof(size_t), 1)));
  CHECK(same(DLX_DTYPE_OF(char), ((char)-1 < 0) ? DLX_DTYPE_INT8 : DLX_DTYPE_UINT8));
  CHECK(same(DLX_DTYPE_OF(float), DLX_DTYPE_FLOAT32));
  CHECK(same(DLX_DTYPE_OF(double), DLX_DTYPE_FLOAT64));
  CHECK(same(DLX_DTYPE_OF(float _Complex), DLX_DTYPE_COMPLEX64));
  CHECK(same(DLX_DTYPE_OF(double _Complex), DLX_DTYPE_COMPLEX128));
#ifdef DLX_HAS_FLOAT16
  CHECK(same(DLX_DTYPE_OF(_Float16), DLX_DTYPE_FLOAT16));
#endif
#ifdef __SIZEOF_INT128__
  CHECK(same(DLX_DTYPE_OF(__int128), DLX_DTYPE_INT128));
  CHECK(same(DLX_DTYPE_OF(unsigned __int128), DLX_DTYPE_UINT128));
  CHECK(same(DLX_DTYPE_OF(__uint128_t), DLX_DTYPE_UINT128));
  CHECK_EQ(dlx_dtype_itemsize(DLX_DTYPE_OF(unsigned __int128)), sizeof(unsigned __int128));
#endif
  /* the mapping agrees with the C type's size and alignment */
  CHECK_EQ(dlx_dtype_itemsize(DLX_DTYPE_OF(double _Complex)), sizeof(double _Complex));
  CHECK_EQ(dlx_dtype_alignment(DLX_DTYPE_OF(float _Complex)), _Alignof(float _Complex));
  CHECK_EQ(dlx_dtype_alignment(DLX_DTYPE_OF(double)), _Alignof(double));
}

static const dlx_test_case cases[] = {
    {"validity_table", test_validity_table}, {"names_round_trip", test_names_round_trip},
    {"static_names", test_static_names},     {"parse_errors", test_parse_errors},
    {"format_errors", test_format_errors},   {"sizes", test_sizes},
    {"c_type_mapping", test_c_type_mapping}, {"uint128", test_uint128},
};
DLX_TEST_MAIN(cases)
