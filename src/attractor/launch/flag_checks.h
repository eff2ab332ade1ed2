#pragma once
/// \file
/// Checks of numeric command-line values whose refusals say, in words, what is allowed
/// (`--max-total-tokens: -5 is out of range; pass 0 or more`), instead of CLI11's ranges that end
/// in the largest double printed in full.

#include <CLI/CLI.hpp>

namespace attractor {

/// A number of at least `minimum`.
CLI::Validator number_at_least(double minimum);
/// A number above zero.
CLI::Validator positive_number();
/// A number from `low` to `high`, both included.
CLI::Validator number_between(double low, double high);

}  // namespace attractor
