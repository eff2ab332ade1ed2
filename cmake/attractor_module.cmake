# attractor_module(TARGET OUTPUT_NAME ENTRY_SOURCE LIBRARY): a module that attractor dlopens on first
# use (attractor/base/module_loader.h), built from one entry-point source linked with LIBRARY. It
# exports one symbol, its entry point; --exclude-libs hides everything it takes from static archives,
# so nothing in it interposes on the executable's symbols. Written next to the attractor binary,
# where the loader looks first; installed in lib/attractor/, where an installed bin/attractor looks
# second.
function(attractor_module target output_name entry_source library)
  add_library(${target} MODULE ${entry_source})
  target_link_libraries(${target} PRIVATE ${library})
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  target_link_options(${target} PRIVATE -Wl,--exclude-libs,ALL -Wl,-z,defs)
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME ${output_name}
    PREFIX lib
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
  install(TARGETS ${target} LIBRARY DESTINATION lib/attractor)
endfunction()

# attractor_prefer_archive(TARGET ARCHIVE FALLBACK [INCLUDE_DIRS...]): an interface target linking
# ARCHIVE (for example libz.a) when the -dev package ships it, else the shared FALLBACK target.
function(attractor_prefer_archive target archive fallback)
  find_library(ATTRACTOR_${target}_ARCHIVE NAMES ${archive})
  add_library(${target} INTERFACE)
  if(ATTRACTOR_${target}_ARCHIVE)
    target_include_directories(${target} INTERFACE ${ARGN})
    target_link_libraries(${target} INTERFACE ${ATTRACTOR_${target}_ARCHIVE})
  else()
    target_link_libraries(${target} INTERFACE ${fallback})
  endif()
endfunction()
