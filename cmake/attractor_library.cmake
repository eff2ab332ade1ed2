# attractor_library(NAME [PUBLIC deps...] [PRIVATE deps...])
#
# One static library per source folder: every *.cc of the calling folder except main.cc and tests.
# The folder's headers are reachable only through this target: the library gets an include root of
# its own under ${CMAKE_BINARY_DIR}/include/NAME that holds a link to its folder at the folder's
# path below src/ (e.g. attractor/model). A library sees its own headers and those of the
# libraries it links; an include of any other folder fails to compile ("No such file"). That is
# how the build enforces the layer order of tools/check_layers.py (docs/architecture.md section 2).
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
endfunction()
