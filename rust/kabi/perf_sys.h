/* SPDX-License-Identifier: GPL-2.0 */
/* What the module-local bindgen run sees: perf's kernel API and our C glue. */
#include <linux/perf_event.h>
#include "kglue.h"
