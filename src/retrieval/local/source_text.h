#pragma once
/// \file
/// The text of a source file whatever its encoding: the indexer's one place that turns a file's
/// bytes into the UTF-8 the extractors parse and the index stores (docs/retrieval.md, "Encodings").
///
/// In order: a byte-order mark (UTF-32 LE/BE, UTF-8, UTF-16 LE/BE) decides; without one, NUL bytes
/// in every other position mean UTF-16 (LE when the odd bytes are NUL, BE when the even ones are);
/// any other NUL byte means binary; well-formed UTF-8 is UTF-8; anything else is Windows-1252,
/// unless it holds a C0 control byte (other than tab, LF, VT, FF, CR, SUB, ESC) or one of the five
/// bytes Windows-1252 leaves undefined (0x81 0x8D 0x8F 0x90 0x9D), which make it binary.

#include <string>
#include <string_view>

namespace attractor::retrieval {

/// How a file's bytes were read.
enum class SourceEncoding { kUtf8, kUtf8Bom, kUtf16Le, kUtf16Be, kUtf32Le, kUtf32Be, kWindows1252, kBinary };

/// The encoding's name in messages and docs: `UTF-8`, `UTF-8 with BOM`, `UTF-16 LE`, ...,
/// `Windows-1252`, `binary`.
std::string_view encoding_name(SourceEncoding encoding);

/// A file's text as UTF-8, how it was read, and what a user should hear about that.
struct SourceText {
  SourceEncoding encoding = SourceEncoding::kUtf8;
  std::string text;     ///< well-formed UTF-8 without a BOM; empty for a binary file
  std::string warning;  ///< "" when the encoding was certain and every byte decoded; never raw bytes
  bool binary() const { return encoding == SourceEncoding::kBinary; }
};

/// Decodes `bytes` (see the file comment). UTF-16/32 code units that are no character (a lone
/// surrogate, a value above U+10FFFF, a cut last unit) become U+FFFD with a warning.
SourceText decode_source(std::string_view bytes);

}  // namespace attractor::retrieval
