# tree-sitter for the C# extractor, compiled from the pinned npm tarballs that .ci/deps.sh unpacks
# into third_party/: the grammar (tree-sitter-c-sharp 0.23.5, grammar ABI 15, which parses C# 12:
# primary constructors with `;` bodies, collection expressions) and the runtime's C source, vendored
# by the `tree-sitter` 0.25 package (Debian's libtree-sitter 0.20 reads ABI 13-14 only).
# The generated parser.c is a huge table: -O1 keeps its build time low without slowing parsing much.
set(ATTRACTOR_TS_CSHARP ${ATTRACTOR_THIRD_PARTY}/tree-sitter-c-sharp/src)
set(ATTRACTOR_TS_RUNTIME ${ATTRACTOR_THIRD_PARTY}/tree-sitter-runtime/vendor/tree-sitter/lib)
if(NOT EXISTS ${ATTRACTOR_TS_CSHARP}/parser.c OR NOT EXISTS ${ATTRACTOR_TS_RUNTIME}/src/lib.c)
  message(FATAL_ERROR "tree-sitter sources missing under ${ATTRACTOR_THIRD_PARTY}: run `make deps` (bash .ci/deps.sh)")
endif()

add_library(attractor_third_party STATIC
  ${ATTRACTOR_TS_RUNTIME}/src/lib.c ${ATTRACTOR_TS_CSHARP}/parser.c ${ATTRACTOR_TS_CSHARP}/scanner.c)
set_target_properties(attractor_third_party PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
target_include_directories(attractor_third_party PRIVATE ${ATTRACTOR_TS_RUNTIME}/src ${ATTRACTOR_TS_CSHARP}
  PUBLIC ${ATTRACTOR_TS_RUNTIME}/include)
set_source_files_properties(${ATTRACTOR_TS_CSHARP}/parser.c PROPERTIES COMPILE_OPTIONS "-O1;-w")
set_source_files_properties(${ATTRACTOR_TS_CSHARP}/scanner.c ${ATTRACTOR_TS_RUNTIME}/src/lib.c
  PROPERTIES COMPILE_OPTIONS "-w")
