// Text written into the history's exports so that a reader gets it back
// exactly. Pure.
//
//   CsvField("a,b")           -> "\"a,b\""   RFC 4180: a field holding a comma,
//                                            a double quote, CR or LF is quoted,
//                                            its quotes doubled; others as they are
//   YamlQuoted("exp #1: a")   -> "\"exp #1: a\""   a YAML double-quoted scalar
//                                            (YAML 1.1 and 1.2): '"' and '\'
//                                            escaped, every character YAML does not
//                                            print as itself (controls, line
//                                            breaks NEL/LS/PS, BOM, DEL, C1) as
//                                            \n, \t, \xNN, \uNNNN; the rest as it is.
// YamlQuoted refuses text that is not UTF-8 (YAML is Unicode text), naming
// the byte offset.
#pragma once

#include <string>
#include <string_view>

#include "support/core/result.h"

namespace fvbench {

std::string CsvField(std::string_view text);
Result<std::string> YamlQuoted(std::string_view text);

}  // namespace fvbench
