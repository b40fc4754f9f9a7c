/* Internal: the device checks of the exchange layer, installed by the layer that knows devices.
 *
 * The exchange layer (dltensor.c) knows no runtime. Two of its rules need one: CCCL's rule that a device
 * view's id is the one its pointer belongs to (export), and a device type's import rule (the oneAPI USM
 * protocol: the data must be known to the default context of the device's platform). The backends layer
 * (src/backends/backend.c) installs both when it is loaded, with the device types each applies to, from
 * its rows. A program that links the exchange layer alone has the defaults (device_hooks.c): CCCL's rule
 * through the CUDA driver when one is installed, and no import rule (dlx/view.h says so). */
#ifndef DLX_EXCHANGE_DEVICE_HOOKS_H
#define DLX_EXCHANGE_DEVICE_HOOKS_H

#include <stdint.h>

#include "core/error_internal.h"
#include "dlx/error.h"
#include "dlx/view.h"

typedef struct dlx__device_hooks {
  /* bit t set: device type t has the check (types past 31 have none) */
  uint32_t pointer_types, import_types;
  /* The device v's data is on, against its label: DLX_ERR_DEVICE_MISMATCH naming both when they differ;
   * DLX_OK when the runtime to ask is absent. fn names the caller. */
  dlx_status (*check_pointer)(const dlx_view *v, const char *fn);
  /* The import rule of v's device type on v's (non-empty) data. Import-style messages, no prefix. */
  dlx_status (*check_import)(const dlx_view *v);
} dlx__device_hooks;

/* Install hooks (copied; NULL restores the defaults). Called once at load by the backends layer, before
 * any import or export; not synchronised against running imports. */
DLX__SHARED void dlx__exchange_set_device_hooks(const dlx__device_hooks *hooks);

/* CCCL's rule once the runtime has said where v's data is (found): DLX_OK when it is where v's label says,
 * else DLX_ERR_DEVICE_MISMATCH naming both (one message for every runtime that is asked). */
DLX__SHARED dlx_status dlx__device_label_check(const dlx_view *v, DLDevice found, const char *fn);

/* What is installed, for the exchange layer's own use. */
extern dlx__device_hooks dlx__exchange_hooks;

#endif
