# attractor_library(NAME [PUBLIC deps...] [PRIVATE deps...])
#
# One static library per source folder: every *.cc of the calling folder except main.cc and tests.
# The folder's headers are reachable only through this target: the library gets an include root of
# its own under ${CMAKE_BINARY_DIR}/include/NAME that holds a link to its folder at the folder's
# path below src/ (e.g. attractor/model). A library sees its own headers and those of the
# libraries it links; an include of any other folder fails to compile ("No such file"). That is
# how the build enforces the layer order of tools/check_layers.py (docs/architecture.md section 2).
#
# With ATTRACTOR_UNITY (the default), a library's sources are compiled in batches of
# ATTRACTOR_UNITY_BATCH files, each batch one translation unit (docs/decisions.md, "The libraries
# compile in unity batches"): the headers every file includes (nlohmann/json, Boost.Graph, fmt,
# spdlog) are parsed, and their templates instantiated and optimised, once a batch instead of once
# a file. Names at file scope of a library's sources must therefore be unique within the library,
# anonymous namespaces included.
option(ATTRACTOR_UNITY "Compile each library's sources in unity batches" ON)
set(ATTRACTOR_UNITY_BATCH 8 CACHE STRING "Sources per unity batch (ATTRACTOR_UNITY)")
function(attractor_library name)
  cmake_parse_arguments(ARG "" "" "PUBLIC;PRIVATE" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  list(FILTER sources EXCLUDE REGEX ".*_test\\.cc$")
  list(FILTER sources EXCLUDE REGEX ".*/main\\.cc$")
  add_library(${name} STATIC ${sources})
  file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR})
  set(root ${CMAKE_BINARY_DIR}/include/${name})
  get_filename_component(parent ${root}/${rel} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  if(NOT EXISTS ${root}/${rel})
    file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR} ${root}/${rel} SYMBOLIC)
  endif()
  target_include_directories(${name} PUBLIC ${root})
  target_compile_options(${name} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  target_link_libraries(${name} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE})
  if(ATTRACTOR_UNITY)
    set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${ATTRACTOR_UNITY_BATCH})
  endif()
endfunction()

# Precompiled headers (docs/decisions.md, "Precompiled headers for the test suites"): a test source
# spends a good part of its compile time parsing GoogleTest, gmock, nlohmann/json, Boost.Graph, fmt
# and the standard headers again. The suites that link the test support load one precompiled header
# of them (attractor_precompile). Only headers that no source configures with a macro of its own
# go in it (not httplib.h, not pcre2.h). A source must still include what it uses: clang-tidy in
# `make lint` compiles every source without it. The libraries of src/ have none: measured at -O3,
# the time a library's sources saved was about the time its header took to build.
option(ATTRACTOR_PCH "Precompile the headers the test suites share" ON)
set(ATTRACTOR_PCH_HEADERS <algorithm> <array> <atomic> <chrono> <cstddef> <cstdint> <cstdio> <cstring>
    <filesystem> <fstream> <functional> <map> <memory> <mutex> <optional> <set> <sstream> <stdexcept>
    <string> <string_view> <thread> <unordered_map> <utility> <vector> <nlohmann/json.hpp> <fmt/format.h>
    <boost/graph/adjacency_list.hpp> <gtest/gtest.h> <gmock/gmock.h>)
# attractor_precompile(TARGET [REUSE_FROM OTHER]): TARGET precompiles ATTRACTOR_PCH_HEADERS, or uses
# OTHER's precompiled header (OTHER must be compiled with the same flags and definitions).
function(attractor_precompile target)
  cmake_parse_arguments(ARG "" "REUSE_FROM" "" ${ARGN})
  if(NOT ATTRACTOR_PCH)
    return()
  endif()
  if(ARG_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${ARG_REUSE_FROM})
  else()
    target_precompile_headers(${target} PRIVATE ${ATTRACTOR_PCH_HEADERS})
  endif()
endfunction()
