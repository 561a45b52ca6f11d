// SPDX-License-Identifier: GPL-2.0
/*
 * The helper files of the patch series (rust/helpers/ in tree, where helpers.c includes
 * them), compiled into the out-of-tree module unchanged: one text for both builds. As in tree,
 * the module's bindgen run reads this file (perf_sys.h) for the helpers' declarations, and
 * Kbuild expects no prototypes.
 */
#include <linux/compiler_types.h>

#define __rust_helper

#include "helpers/cpufeature.c"
#include "helpers/msr.c"
#include "helpers/perf.c"
#include "helpers/raw_spinlock.c"
#include "helpers/topology.c"
