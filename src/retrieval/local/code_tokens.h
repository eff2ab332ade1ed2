#pragma once
/// \file
/// The code-aware tokenization behind bm25 and the offline embedder.
///
/// Decision: instead of a custom FTS5 tokenizer, the indexer pre-splits identifiers into an extra
/// indexed column. For every identifier-like run ([A-Za-z0-9_] and non-ASCII bytes) of a node's text
/// it emits the whole identifier lowercased with underscores removed (`GetMeetingById` and
/// `get_meeting_by_id` both give `getmeetingbyid`) plus, when it has several parts, each
/// PascalCase / camelCase / snake_case / digit part lowercased (`get meeting by id`). FTS5's
/// unicode61 tokenizer then indexes those words. Queries go through the same splitting, so
/// `GetMeetingById`, `meeting` and `get_meeting_by_id` all match a method named GetMeetingById.

#include <string>
#include <string_view>
#include <vector>

#include "retrieval/backend.h"

namespace attractor::retrieval {

/// The identifier-like runs of `text`, in order (`a.b_c(1)` -> `a`, `b_c`, `1`).
std::vector<std::string_view> identifier_runs(std::string_view text);

/// Lowercased parts of one identifier: `XMLHttpRequest2` -> xml, http, request, 2;
/// `get_meeting_by_id` -> get, meeting, by, id.
std::vector<std::string> split_identifier(std::string_view identifier);

/// The identifier lowercased with underscores removed.
std::string joined_identifier(std::string_view identifier);

/// Space-separated index terms for `text` (whole identifiers plus their parts), the content of the
/// extra FTS5 column.
std::string index_terms(std::string_view text);

/// An FTS5 MATCH expression for a user query. Each query identifier becomes
/// `("joined" OR ("part1" "part2" ...))`; identifiers combine with AND or OR. Every term is quoted,
/// so user text never reaches FTS5 query syntax. Throws RetrievalError(kInvalidArgument) when the
/// query has no searchable term.
std::string fts_match_expression(std::string_view query, MatchOperator op);

}  // namespace attractor::retrieval
