#pragma once
/// \file
/// ATTRACTOR_INCBIN(NAME, PATH) links the bytes of the file at PATH (a string literal the build
/// defines) into .rodata as `NAME_begin` .. `NAME_end`, followed by one NUL byte, with the
/// assembler's `.incbin`. Used for data the binary carries: token rank files, the web page.

#define ATTRACTOR_INCBIN(NAME, PATH)    \
  __asm__(                              \
      ".pushsection .rodata\n"          \
      ".balign 64\n"                    \
      ".globl " #NAME "_begin\n" #NAME  \
      "_begin:\n"                       \
      ".incbin \"" PATH                 \
      "\"\n"                            \
      ".globl " #NAME "_end\n" #NAME    \
      "_end:\n"                         \
      ".byte 0\n"                       \
      ".popsection\n");                 \
  extern "C" const char NAME##_begin[]; \
  extern "C" const char NAME##_end[];
