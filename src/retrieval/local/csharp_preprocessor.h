#pragma once
/// \file
/// What the C# parser sees of a file's preprocessor directives. tree-sitter's C# grammar accepts
/// `#if` between statements and members but not inside an expression or a base list
/// (`.UseMauiMaps()` under `#if !WINDOWS` in a call chain, `, pb::IBufferMessage` under `#if` in
/// protobuf output), where it reports a syntax error and loses the declaration around it.
///
/// So the extractor parses a masked copy of the same length: every directive line (`#if`, `#elif`,
/// `#else`, `#endif`, `#region`, `#pragma`, `#nullable`, ...) becomes spaces, and of each
/// conditional block only the first branch stays (the `#elif` / `#else` branches become spaces
/// too, as if the first condition held). Offsets, lines and columns are unchanged, so node spans
/// still index the original text.

#include <string>
#include <string_view>

namespace attractor::retrieval {

/// `source` with directive lines and non-first conditional branches blanked (same length; line
/// breaks kept).
std::string mask_csharp_preprocessor(std::string_view source);

}  // namespace attractor::retrieval
