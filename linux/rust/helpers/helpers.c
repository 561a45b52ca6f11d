// SPDX-License-Identifier: GPL-2.0
/*
 * The series' part of Linux's rust/helpers/helpers.c: the helper files it adds, included as
 * there. A stock kernel lacks them, so the out-of-tree module compiles this file (Kbuild);
 * in tree, the kernel's own helpers.c includes them. The module's bindgen run reads it too,
 * for the helpers' declarations (../bindings/bindings_helper.h), and Kbuild expects no
 * prototypes.
 */
#include <linux/compiler_types.h>

#define __rust_helper

#include "cpufeature.c"
#include "msr.c"
#include "perf.c"
#include "spinlock.c"
#include "topology.c"
