//===- PrecisionMap.cpp - the precision map, a self-contained HTML page ---===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/PrecisionMap.h"
#include "compiler/ModelLoader.h"
#include "passes/Resolve.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mix;

namespace {
/// The page template, with the placeholders @@TITLE@@ and @@DATA@@.
const char kTemplate[] =
#include "PrecisionMapPage.inc"
    ;

std::string escapeHTML(StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '@': // so that a model's name cannot spell a placeholder
      out += "&#64;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

/// JSON that may stand inside <script>: a '<' occurs only in strings, where
/// "\u003c" means the same, so no "</script>" or "<!--" can end the block.
std::string scriptSafeJSON(llvm::json::Value value) {
  std::string text = llvm::formatv("{0}", value).str();
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

/// Replaces the one occurrence of `placeholder` in `page` by `text`.
void fill(std::string &page, StringRef placeholder, StringRef text) {
  size_t at = page.find(placeholder.str());
  while (at != std::string::npos) {
    page.replace(at, placeholder.size(), text.str());
    at = page.find(placeholder.str(), at + text.size());
  }
}
} // namespace

std::vector<MapFinding> mix::toMapFindings(llvm::ArrayRef<Finding> findings) {
  std::vector<MapFinding> out;
  for (const Finding &f : findings) {
    MapFinding m;
    m.at = isa<NetworkOp, BlockOp>(f.op) ? getScopeLabel(f.op)
                                         : getLayerPath(f.op);
    m.rule = getRuleName(f.rule).str();
    m.severity = getSeverityName(f.severity).str();
    m.message = f.message;
    m.location = formatLocation(f.op->getLoc());
    if (f.property)
      m.property = stringifyPrecisionProperty(*f.property).str();
    m.precision = f.precision;
    out.push_back(std::move(m));
  }
  return out;
}

std::string mix::renderPrecisionMap(const PrecisionReport &report,
                                    llvm::ArrayRef<MapFinding> findings,
                                    const PrecisionMapInfo &info) {
  llvm::json::Value doc = report.toJSON();
  llvm::json::Object &object = *doc.getAsObject();
  llvm::json::Array list;
  for (const MapFinding &f : findings) {
    llvm::json::Object o{{"at", f.at},
                         {"rule", f.rule},
                         {"severity", f.severity},
                         {"message", f.message},
                         {"location", f.location}};
    if (!f.property.empty())
      o["property"] = f.property;
    if (!f.precision.empty())
      o["precision"] = f.precision;
    list.push_back(std::move(o));
  }
  object["findings"] = std::move(list);
  object["map"] = llvm::json::Object{
      {"tool", info.tool}, {"model", info.model}, {"compiled", info.compiled}};
  std::string page = kTemplate;
  fill(page, "@@TITLE@@",
       escapeHTML("precision map: " + info.model + " (" + info.tool + ")"));
  fill(page, "@@DATA@@", scriptSafeJSON(std::move(doc)));
  return page;
}
