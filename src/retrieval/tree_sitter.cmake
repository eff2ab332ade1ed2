# tree-sitter grammars for the code indexer (C# and SQL), compiled from the pinned npm tarballs that
# .ci/deps.sh unpacks into third_party/. The runtime is Debian's libtree-sitter (0.20.7, grammar ABI 13-14).
# The generated parser.c files are huge tables: -O1 keeps their build time low without slowing parsing much.
set(ATTRACTOR_TS_CSHARP ${ATTRACTOR_THIRD_PARTY}/tree-sitter-c-sharp/src)
set(ATTRACTOR_TS_SQL ${ATTRACTOR_THIRD_PARTY}/tree-sitter-sql/src)
if(NOT EXISTS ${ATTRACTOR_TS_CSHARP}/parser.c OR NOT EXISTS ${ATTRACTOR_TS_SQL}/parser.c)
  message(FATAL_ERROR "tree-sitter grammars missing under ${ATTRACTOR_THIRD_PARTY}: run `make deps` (bash .ci/deps.sh)")
endif()
pkg_check_modules(TREE_SITTER REQUIRED IMPORTED_TARGET tree-sitter)

add_library(attractor_third_party STATIC
  ${ATTRACTOR_TS_CSHARP}/parser.c ${ATTRACTOR_TS_CSHARP}/scanner.c
  ${ATTRACTOR_TS_SQL}/parser.c ${ATTRACTOR_TS_SQL}/scanner.c)
set_target_properties(attractor_third_party PROPERTIES C_STANDARD 11 POSITION_INDEPENDENT_CODE ON)
set_source_files_properties(${ATTRACTOR_TS_CSHARP}/parser.c ${ATTRACTOR_TS_SQL}/parser.c
  PROPERTIES COMPILE_OPTIONS "-O1;-w")
set_source_files_properties(${ATTRACTOR_TS_CSHARP}/scanner.c ${ATTRACTOR_TS_SQL}/scanner.c
  PROPERTIES COMPILE_OPTIONS "-w")
target_link_libraries(attractor_third_party PUBLIC PkgConfig::TREE_SITTER)
