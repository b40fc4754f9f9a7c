/* dlx/check.h - every DLPack rule a producer's managed tensor breaks, not only the first.
 *
 * dlx's import (dlx/view.h) stops at the first problem, which is all a consumer that accepts or refuses
 * needs. A consumer that logs why it refused a tensor, or a tool that tells a producer what it gets wrong
 * (`python -m dlx check`), needs the whole list: dlx_check_managed reads a DLManagedTensorVersioned as the
 * DLPack 1.3 standard describes it and reports each rule it breaks, with a message naming the offending
 * value. It reads the struct, its shape and its strides; never the data, and it never calls the deleter.
 *
 *     dlx_check_report r;
 *     if (dlx_check_managed(m, &r) == DLX_OK)
 *       for (int i = 0; i < r.count; ++i)
 *         fprintf(stderr, "%s: %s\n", dlx_check_rule_name(r.findings[i].rule), r.findings[i].message);
 *
 * Only the standard's rules are checked, not dlx's own limits (rank above DLX_MAX_NDIM, alignment, dtypes
 * dlx cannot compute on): a tensor with no finding may still be refused by dlx_view_from_managed_versioned.
 * Above DLX_MAX_NDIM (64, NumPy's and PyTorch's limit too) the shape and strides are not read, so their
 * rules go unchecked: a rank that high is most likely garbage, and reading it could run past the arrays.
 * Thread safety: reentrant; the functions touch only their arguments (and the thread's error message). */
#ifndef DLX_CHECK_H
#define DLX_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "dlx/dlpack.h"
#include "dlx/error.h"
#include "dlx/export.h"

DLX_EXTERN_C_BEGIN

/* The rules, in the order they are checked and reported. */
typedef enum dlx_check_rule {
  DLX_CHECK_VERSION_MAJOR = 0, /* version.major is 1 (another major: a consumer may only call the deleter) */
  DLX_CHECK_FLAGS_UNKNOWN,     /* no flag bit that the tensor's version does not define */
  DLX_CHECK_FLAG_PADDED,       /* IS_SUBBYTE_TYPE_PADDED only on a sub-byte dtype */
  DLX_CHECK_NDIM,              /* ndim is not negative */
  DLX_CHECK_DTYPE,             /* a legal DLPack dtype: known code, bits the code allows, lanes >= 1 */
  DLX_CHECK_DEVICE_TYPE,       /* a device type DLPack 1.3 defines */
  DLX_CHECK_DEVICE_ID,         /* device_id >= 0, and 0 for CPU, pinned (cuda_host, rocm_host) and managed memory */
  DLX_CHECK_SHAPE_NULL,        /* shape is not NULL when ndim > 0 */
  DLX_CHECK_EXTENT_NEGATIVE,   /* no extent below 0 */
  DLX_CHECK_STRIDES_NULL,      /* strides are not NULL when ndim > 0, from DLPack 1.2 on */
  DLX_CHECK_DATA_NULL,         /* data is not NULL when the tensor has elements */
  DLX_CHECK_SIZE_OVERFLOW,     /* element count and byte span fit int64, and no element address wraps */
  DLX_CHECK_RULE_COUNT         /* number of rules; not a rule */
} dlx_check_rule;

/* Room for one finding's message, NUL included (a longer one is cut). */
#define DLX_CHECK_MESSAGE_MAX 160

typedef struct dlx_check_finding {
  dlx_check_rule rule;
  char message[DLX_CHECK_MESSAGE_MAX]; /* names the offending value, e.g. "device_id is 1 for cpu memory" */
} dlx_check_finding;

/* What dlx_check_managed found: caller-owned, about 2 KB, nothing to free. */
typedef struct dlx_check_report {
  int count;                                        /* rules broken: 0 for a conforming tensor */
  uint32_t broken;                                  /* bit r set when rule r is broken */
  dlx_check_finding findings[DLX_CHECK_RULE_COUNT]; /* the first count entries, in rule order */
} dlx_check_report;

/* Check a versioned managed tensor, filling *out with every rule it breaks. DLX_OK whenever the check
 * ran (out->count says whether the tensor conforms); DLX_ERR_NULL_ARGUMENT when m or out is NULL. When
 * version.major is not 1 only that rule is reported: the rest of the struct has no known layout then. */
DLX_API dlx_status dlx_check_managed(const DLManagedTensorVersioned *m, dlx_check_report *out);

/* The same for a legacy DLManagedTensor (a "dltensor" capsule): no version and no flags, and NULL
 * strides are allowed (they mean compact row-major). */
DLX_API dlx_status dlx_check_managed_legacy(const DLManagedTensor *m, dlx_check_report *out);

/* The rule's name without the prefix ("DEVICE_ID"), or "UNKNOWN_RULE" for other values. */
DLX_API const char *dlx_check_rule_name(dlx_check_rule rule);

/* The rule in one line ("device_id is >= 0, and 0 for CPU, pinned and managed memory"), or "" for other
 * values. */
DLX_API const char *dlx_check_rule_text(dlx_check_rule rule);

DLX_EXTERN_C_END

#endif
