// SPDX-License-Identifier: GPL-2.0

#ifdef CONFIG_X86

#include <asm/msr.h>

__rust_helper int rust_helper_rdmsrq_safe(u32 msr, u64 *val)
{
	return rdmsrq_safe(msr, val);
}

__rust_helper int rust_helper_wrmsrq_safe(u32 msr, u64 val)
{
	return wrmsrq_safe(msr, val);
}

#endif /* CONFIG_X86 */
