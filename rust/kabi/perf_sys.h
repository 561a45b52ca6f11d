/* SPDX-License-Identifier: GPL-2.0 */
/* What the module-local bindgen run sees: perf's and syscore's kernel API, x86 CPU ID tables
 * and the series' helpers, declared by their definitions (as rust/Makefile has bindgen read
 * rust/helpers/helpers.c). */
#include <linux/perf_event.h>
#include <linux/syscore_ops.h>
#include <asm/cpu_device_id.h>
#include "helpers.c"
