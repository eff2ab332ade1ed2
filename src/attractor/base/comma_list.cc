#include "attractor/base/comma_list.h"

namespace attractor {

std::vector<std::string> split_comma_list(std::string_view text, std::string_view blanks) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(start, comma - start);
    const std::size_t first = item.find_first_not_of(blanks);
    if (first != std::string_view::npos)
      items.emplace_back(item.substr(first, item.find_last_not_of(blanks) + 1 - first));
    start = comma + 1;
  }
  return items;
}

}  // namespace attractor
