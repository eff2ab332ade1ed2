#include "attractor/base/raw_syscall.h"

#include <unistd.h>

#include <cerrno>

#if defined(__x86_64__)
// rdi flags, rsi stack top, rdx fn, rcx arg. fn and arg go on the new stack; in the child the
// stack is all it has, so it pops them, calls fn and exits the process with fn's result.
asm(R"(
  .pushsection .text
  .globl attractor_raw_clone_on_stack
  .hidden attractor_raw_clone_on_stack
  .type attractor_raw_clone_on_stack, @function
attractor_raw_clone_on_stack:
  .cfi_startproc
  endbr64
  and $-16, %rsi
  sub $16, %rsi
  mov %rdx, (%rsi)
  mov %rcx, 8(%rsi)
  xor %edx, %edx
  xor %r10d, %r10d
  xor %r8d, %r8d
  mov $56, %eax
  syscall
  test %rax, %rax
  jz 1f
  ret
1:
  .cfi_undefined %rip
  xor %ebp, %ebp
  pop %rax
  pop %rdi
  call *%rax
  mov %eax, %edi
  mov $231, %eax
  syscall
  hlt
  .cfi_endproc
  .size attractor_raw_clone_on_stack, .-attractor_raw_clone_on_stack
  .popsection
)");

extern "C" long attractor_raw_clone_on_stack(unsigned long flags, void* stack_top, int (*fn)(void*), void* arg);
#endif

namespace attractor::raw {

long call(long number, long a, long b, long c, long d, long e, long f) {
#if defined(__x86_64__)
  long result;
  register long r10 asm("r10") = d;
  register long r8 asm("r8") = e;
  register long r9 asm("r9") = f;
  asm volatile("syscall"
               : "=a"(result)
               : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
               : "rcx", "r11", "memory");
  return result;
#else
  long result = ::syscall(number, a, b, c, d, e, f);
  return result < 0 ? -errno : result;
#endif
}

long clone_on_stack(unsigned long flags, void* stack_top, int (*fn)(void*), void* arg) {
#if defined(__x86_64__)
  return attractor_raw_clone_on_stack(flags, stack_top, fn, arg);
#else
  (void)flags, (void)stack_top, (void)fn, (void)arg;
  return -ENOSYS;
#endif
}

}  // namespace attractor::raw
