// SPDX-License-Identifier: GPL-2.0

#ifdef CONFIG_X86

#include <linux/cpufeature.h>

__rust_helper bool rust_helper_boot_cpu_has(u16 bit)
{
	return boot_cpu_has(bit);
}

#endif /* CONFIG_X86 */
