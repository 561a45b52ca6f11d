/*
 * Emulated Skylake client uncore PMU ("skl-uncore"): the hooks the TCG
 * RDMSR/WRMSR helpers call.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_I386_SKL_UNCORE_H
#define HW_I386_SKL_UNCORE_H

/*
 * Returns false if no skl-uncore device exists or @msr is not one of its
 * registers (the caller then handles the MSR as before). Otherwise returns
 * true, with *@gp set if the access raises #GP. @socket is the accessing
 * CPU's socket: each package has its own uncore.
 */
bool skl_uncore_rdmsr(int socket, uint32_t msr, uint64_t *val, bool *gp);
bool skl_uncore_wrmsr(int socket, uint32_t msr, uint64_t val, bool *gp);

#endif
