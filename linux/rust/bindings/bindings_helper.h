/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The series' part of Linux's rust/bindings/bindings_helper.h: perf's and syscore's kernel API
 * and x86 CPU ID tables. Out of tree the module's own bindgen run reads it (Kbuild:
 * rust/kabi/perf_sys_generated.rs, `kabi::perf_sys`), with the series' helpers declared by
 * their definitions, as rust/Makefile has bindgen read rust/helpers/helpers.c.
 */
#include <linux/perf_event.h>
#include <linux/syscore_ops.h>
#include <asm/cpu_device_id.h>
#include "../helpers/helpers.c"
