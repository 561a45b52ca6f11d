// SPDX-License-Identifier: GPL-2.0

#include <linux/spinlock.h>

__rust_helper void rust_helper_raw_spin_lock_init_key(raw_spinlock_t *lock,
						      const char *name,
						      struct lock_class_key *key)
{
#ifdef CONFIG_DEBUG_SPINLOCK
	__raw_spin_lock_init(lock, name, key, LD_WAIT_SPIN);
#else
	raw_spin_lock_init(lock);
#endif
}

__rust_helper unsigned long
rust_helper_raw_spin_lock_irqsave(raw_spinlock_t *lock)
{
	unsigned long flags;

	raw_spin_lock_irqsave(lock, flags);
	return flags;
}

__rust_helper bool rust_helper_raw_spin_trylock_irqsave(raw_spinlock_t *lock,
							unsigned long *flags)
{
	return raw_spin_trylock_irqsave(lock, *flags);
}

__rust_helper void rust_helper_raw_spin_unlock_irqrestore(raw_spinlock_t *lock,
							  unsigned long flags)
{
	raw_spin_unlock_irqrestore(lock, flags);
}

__rust_helper void rust_helper_raw_spin_assert_is_held(raw_spinlock_t *lock)
{
	lockdep_assert_held(lock);
}
