#pragma once
/// \file
/// Boost.Fusion adaptation of the DOT AST so X3 can fill the structs from sequences.

#include <boost/fusion/include/adapt_struct.hpp>

#include "parser/dot_ast.h"

BOOST_FUSION_ADAPT_STRUCT(attractor::dot::ast::Attribute, key, value)
BOOST_FUSION_ADAPT_STRUCT(attractor::dot::ast::AttrStmt, target, attrs)
BOOST_FUSION_ADAPT_STRUCT(attractor::dot::ast::Assignment, key, value)
BOOST_FUSION_ADAPT_STRUCT(attractor::dot::ast::NodeOrEdgeStmt, head, targets, attrs)
BOOST_FUSION_ADAPT_STRUCT(attractor::dot::ast::Subgraph, open, body)
