#pragma once
/// \file
/// The whitespace skipper of the condition and stylesheet grammars.
///
/// `x3::space` classifies with std::isspace, whose argument must be an unsigned char value: the
/// bytes of UTF-8 text above 0x7F are negative in a signed `char`, which Spirit asserts against
/// and the C library leaves undefined. This set matches what the C locale calls space (space,
/// tab, LF, VT, FF, CR) and treats every other byte as text.

#include <boost/spirit/home/x3.hpp>

namespace attractor {

/// Skips ASCII whitespace; any byte is a valid input.
inline const auto ascii_space = boost::spirit::x3::char_(" \t\n\v\f\r");

}  // namespace attractor
