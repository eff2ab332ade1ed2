#pragma once
/// \file
/// System calls that bypass the C library, for code running in a child that shares attractor's
/// memory (docs/decisions.md, "The supervisor shares attractor's memory"). Such a child runs with
/// the thread pointer of the attractor thread that created it, so it must not touch `errno` or any
/// other thread-local state: these calls return the kernel's answer as it is, a value >= 0 or
/// -errno. On architectures without the assembly below they are the C library's wrappers (which
/// set `errno`), and `kSharedMemoryChild` is false, so no child shares memory there.

#include <sys/syscall.h>

namespace attractor::raw {

/// True when children may share attractor's memory: x86-64 without a sanitizer (a sanitizer's
/// run-time keeps per-thread state that a second process on the same thread pointer would corrupt).
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
inline constexpr bool kSharedMemoryChild = true;
#else
inline constexpr bool kSharedMemoryChild = false;
#endif

/// System call `number` with up to six arguments; returns the result or -errno.
long call(long number, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0);

/// clone(2) with `flags` onto the stack that ends at `stack_top` (16-byte aligned): the child
/// runs `fn(arg)` and exits with its result. Returns the child's pid or -errno. Only where
/// kSharedMemoryChild is true; -ENOSYS elsewhere.
long clone_on_stack(unsigned long flags, void* stack_top, int (*fn)(void*), void* arg);

}  // namespace attractor::raw
