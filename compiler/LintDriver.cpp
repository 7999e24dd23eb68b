//===- LintDriver.cpp - the mix-lint precision-policy gate ----------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/LintDriver.h"
#include "compiler/Diagnostics.h"
#include "compiler/ModelLoader.h"
#include "compiler/Options.h"
#include "compiler/PrecisionMap.h"
#include "compiler/Report.h"
#include "dialect/MixOps.h"
#include "passes/Differentiate.h"
#include "passes/InsertCasts.h"
#include "passes/PolicyCheck.h"
#include "passes/PrecisionAnalysis.h"
#include "support/OutputFiles.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mix;
namespace json = llvm::json;

namespace {

/// One row of the --explain table.
struct LayerRow {
  std::string op;
  std::string location;
  std::string scope; // innermost enclosing block or network
  /// "f16 (block @stage1)" per property; empty when not applicable.
  std::string cells[4];
  /// Precision and source separately, for JSON.
  std::string precision[4];
  std::string source[4];
  /// In a network that ends in a loss: the precision the layer's backward
  /// runs at under mix-differentiate (docs/precision.md, "Gradients"), its
  /// source, and the precision of its weight gradients ("" without
  /// weights). `backward` is empty elsewhere.
  std::string backward, backwardSource, weightGradients;
  std::string backwardCell() const {
    if (backward.empty())
      return "-";
    std::string cell = backward + " (" + backwardSource + ")";
    if (!weightGradients.empty())
      cell += ", dW " + weightGradients;
    return cell;
  }
};

std::string severityLabel(Severity s) { return getSeverityName(s).str(); }

std::string innermostScope(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isa<BlockOp, NetworkOp>(p))
      return describeOp(p);
  return "";
}

FailureOr<std::vector<LayerRow>> explainLayers(ModuleOp module,
                                               PrecisionAnalysis &precisions) {
  std::vector<LayerRow> rows;
  WalkResult result = module.walk([&](LayerOpInterface layer) {
    FailureOr<LayerResolution> r = precisions.resolve(layer);
    if (failed(r))
      return WalkResult::interrupt();
    LayerRow row;
    row.op = layer->getName().getStringRef().str();
    row.location = formatLocation(layer->getLoc());
    row.scope = innermostScope(layer);
    for (PrecisionProperty prop : kAllProperties) {
      unsigned i = static_cast<unsigned>(prop);
      const Decision *d = r->get(prop);
      if (!d) {
        row.cells[i] = "-";
        continue;
      }
      row.precision[i] = d->precision.str();
      row.source[i] = d->describe();
      row.cells[i] = row.precision[i] + " (" + row.source[i] + ")";
    }
    // The backward, as mix-differentiate decides it: the layer's resolved
    // precision (its own or inherited), f32 for an int8 layer (straight
    // through); weight gradients f32 (f64 for f64 weights).
    auto network = layer->getParentOfType<NetworkOp>();
    if (network && endsInLoss(network)) {
      bool int8 = r->activations.precision.isInt8() ||
                  (r->weights && r->weights->precision.isInt8());
      if (int8) {
        row.backward = "f32";
        row.backwardSource = "int8 layer, straight through";
      } else {
        row.backward = r->layer.precision.str();
        row.backwardSource = r->layer.describe();
      }
      if (r->weights)
        row.weightGradients =
            r->weights->precision.getKind() == PrecisionKind::f64 ? "f64"
                                                                  : "f32";
    }
    rows.push_back(std::move(row));
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return rows;
}

void printTable(llvm::raw_ostream &out, const std::vector<LayerRow> &rows) {
  const char *headers[] = {"layer",       "location",    "scope",  "weights",
                           "activations", "accumulator", "output", "backward"};
  // The backward column only when some network ends in a loss.
  const unsigned columns =
      llvm::any_of(rows, [](const LayerRow &r) { return !r.backward.empty(); })
          ? 8
          : 7;
  auto cell = [](const LayerRow &row, unsigned col) -> std::string {
    switch (col) {
    case 0:
      return row.op;
    case 1:
      return row.location;
    case 2:
      return row.scope;
    case 7:
      return row.backwardCell();
    default:
      return row.cells[col - 3];
    }
  };
  size_t widths[8];
  for (unsigned c = 0; c < columns; ++c) {
    widths[c] = strlen(headers[c]);
    for (const LayerRow &row : rows)
      widths[c] = std::max(widths[c], cell(row, c).size());
  }
  auto line = [&](auto get) {
    std::string s;
    for (unsigned c = 0; c < columns; ++c) {
      std::string text = get(c);
      s += text;
      if (c + 1 < columns)
        s += std::string(widths[c] - text.size() + 2, ' ');
    }
    out << llvm::StringRef(s).rtrim() << "\n";
  };
  line([&](unsigned c) { return std::string(headers[c]); });
  for (const LayerRow &row : rows)
    line([&](unsigned c) { return cell(row, c); });
}

json::Value layersToJSON(const std::vector<LayerRow> &rows) {
  json::Array layers;
  for (const LayerRow &row : rows) {
    json::Object props;
    for (PrecisionProperty prop : kAllProperties) {
      unsigned i = static_cast<unsigned>(prop);
      if (row.precision[i].empty())
        continue;
      props[stringifyPrecisionProperty(prop)] = json::Object{
          {"precision", row.precision[i]}, {"source", row.source[i]}};
    }
    json::Object layer{{"op", row.op},
                       {"location", row.location},
                       {"scope", row.scope},
                       {"properties", std::move(props)}};
    if (!row.backward.empty()) {
      json::Object backward{{"precision", row.backward},
                            {"source", row.backwardSource}};
      if (!row.weightGradients.empty())
        backward["weight_gradients"] = row.weightGradients;
      layer["backward"] = std::move(backward);
    }
    layers.push_back(std::move(layer));
  }
  return std::move(layers);
}

json::Value findingToJSON(const Finding &f) {
  json::Array notes;
  for (const Finding::Note &n : f.notes)
    notes.push_back(json::Object{{"location", formatLocation(n.loc)},
                                 {"message", n.message}});
  json::Object o{{"rule", getRuleName(f.rule)},
                 {"severity", severityLabel(f.severity)},
                 {"op", f.op->getName().getStringRef()},
                 {"location", formatLocation(f.op->getLoc())},
                 {"message", f.message},
                 {"notes", std::move(notes)}};
  if (f.property)
    o["property"] = stringifyPrecisionProperty(*f.property);
  if (!f.precision.empty())
    o["precision"] = f.precision;
  return std::move(o);
}

json::Value sarifLocation(Location loc, const std::string *message) {
  SourcePosition s = getSourcePosition(loc);
  json::Object region;
  if (s.line > 0) {
    region["startLine"] = static_cast<int64_t>(s.line);
    region["startColumn"] = static_cast<int64_t>(s.column);
  }
  json::Object physical{{"artifactLocation", json::Object{{"uri", s.file}}},
                        {"region", std::move(region)}};
  json::Object result{{"physicalLocation", std::move(physical)}};
  if (message)
    result["message"] = json::Object{{"text", *message}};
  return std::move(result);
}

json::Value toSARIF(const std::vector<Finding> &findings,
                    const std::vector<LayerRow> *layers) {
  json::Array rules;
  for (unsigned i = 0; i < kNumRules; ++i) {
    Rule rule = static_cast<Rule>(i);
    rules.push_back(
        json::Object{{"id", getRuleName(rule)},
                     {"shortDescription",
                      json::Object{{"text", getRuleDescription(rule)}}}});
  }
  json::Array results;
  for (const Finding &f : findings) {
    json::Array related;
    for (const Finding::Note &n : f.notes)
      related.push_back(sarifLocation(n.loc, &n.message));
    results.push_back(json::Object{
        {"ruleId", getRuleName(f.rule)},
        {"ruleIndex", static_cast<int64_t>(f.rule)},
        {"level", severityLabel(f.severity)},
        {"message", json::Object{{"text", f.message}}},
        {"locations", json::Array{sarifLocation(f.op->getLoc(), nullptr)}},
        {"relatedLocations", std::move(related)}});
  }
  json::Object run{
      {"tool",
       json::Object{{"driver", json::Object{{"name", "mix-lint"},
                                            {"rules", std::move(rules)}}}}},
      {"results", std::move(results)}};
  if (layers)
    run["properties"] = json::Object{{"layers", layersToJSON(*layers)}};
  return json::Object{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", json::Array{std::move(run)}}};
}

/// The precision map of the lint: the precision report of the model (the
/// resolution of the policy check and --explain, the int32 proofs, and the
/// casts mix-insert-casts would put in, found on a copy) with the findings.
FailureOr<std::string> renderMap(ModuleOp module,
                                 const std::vector<Finding> &findings,
                                 PrecisionAnalysis &precisions,
                                 const LintOptions &options) {
  PrecisionReport report;
  if (failed(report.recordModel(module, &precisions)))
    return failure();
  OwningOpRef<ModuleOp> copy = module.clone();
  if (failed(insertCasts(*copy)))
    return failure();
  report.recordCasts(*copy);
  return renderPrecisionMap(report, toMapFindings(findings),
                            {"mix-lint", options.modelPath, false});
}

} // namespace

int mix::runLint(const LintOptions &options, llvm::raw_ostream &stdOut,
                 llvm::raw_ostream &err) {
  auto badInput = [&](const llvm::Twine &message) {
    err << "mix-lint: error: " << message << "\n";
    return kLintBadInput;
  };

  // The output may not replace an input.
  if (!options.outputPath.empty() && options.outputPath != "-") {
    std::string output = getFileIdentity(options.outputPath);
    for (llvm::StringRef input : {llvm::StringRef(options.modelPath),
                                  llvm::StringRef(options.policyPath),
                                  llvm::StringRef(options.precisionPlanPath)})
      if (!input.empty() && input != "-" && getFileIdentity(input) == output)
        return badInput("the output '" + options.outputPath +
                        "' would overwrite the input '" + input + "'");
  }

  Policy policy = Policy::getDefault();
  if (!options.policyPath.empty()) {
    llvm::Expected<Policy> loaded = loadPolicyFile(options.policyPath);
    if (!loaded)
      return badInput(llvm::toString(loaded.takeError()));
    policy = std::move(*loaded);
  }

  // Bad input is printed as diagnostics: every error, with its notes and
  // source line, on `err`.
  MLIRContext context;
  loadMixDialects(context);
  llvm::SourceMgr sourceMgr;
  DiagnosticPrinter diagnostics(context, sourceMgr, err, "mix-lint");
  ModelLoadOptions loadOptions;
  loadOptions.precisionPlanPath = options.precisionPlanPath;
  auto module = loadModel(options.modelPath, context, &sourceMgr, loadOptions);
  if (!module) {
    if (diagnostics.getNumErrors()) {
      llvm::consumeError(module.takeError());
      return kLintBadInput;
    }
    return badInput(llvm::toString(module.takeError()));
  }

  // Resolution problems (e.g. an inherited int8 axis that does not fit) are
  // bad input too: the model cannot be given precisions at all.
  // One resolution serves the policy check, --explain and the map.
  PrecisionAnalysis precisions(**module);
  FailureOr<std::vector<Finding>> findings =
      checkPolicy(**module, policy, &precisions);
  std::vector<LayerRow> rows;
  if (succeeded(findings) && options.explain) {
    FailureOr<std::vector<LayerRow>> explained =
        explainLayers(**module, precisions);
    if (failed(explained))
      findings = failure();
    else
      rows = std::move(*explained);
  }
  if (failed(findings)) {
    if (diagnostics.getNumErrors() > 1)
      err << "mix-lint: error: " << diagnostics.getNumErrors() << " errors\n";
    return diagnostics.getNumErrors() ? kLintBadInput
                                      : badInput("precision resolution failed");
  }

  unsigned numErrors = 0, numWarnings = 0;
  for (const Finding &f : *findings)
    (f.severity == Severity::error ? numErrors : numWarnings) += 1;

  // Everything is produced in memory, then printed or written at once.
  std::string output;
  llvm::raw_string_ostream out(output);

  switch (options.format) {
  case LintFormat::text: {
    if (options.explain) {
      printTable(out, rows);
      out << "\n";
    }
    for (const Finding &f : *findings) {
      out << formatLocation(f.op->getLoc()) << ": " << severityLabel(f.severity)
          << ": [" << getRuleName(f.rule) << "] " << f.message << "\n";
      for (const Finding::Note &n : f.notes)
        out << formatLocation(n.loc) << ": note: " << n.message << "\n";
    }
    out << llvm::formatv("mix-lint: {0}: {1} error(s), {2} warning(s)\n",
                         options.modelPath, numErrors, numWarnings);
    break;
  }
  case LintFormat::json: {
    json::Array list;
    for (const Finding &f : *findings)
      list.push_back(findingToJSON(f));
    json::Object doc{{"model", options.modelPath},
                     {"findings", std::move(list)},
                     {"errors", numErrors},
                     {"warnings", numWarnings}};
    if (options.explain)
      doc["layers"] = layersToJSON(rows);
    out << llvm::formatv("{0:2}", json::Value(std::move(doc))) << "\n";
    break;
  }
  case LintFormat::sarif:
    out << llvm::formatv("{0:2}",
                         toSARIF(*findings, options.explain ? &rows : nullptr))
        << "\n";
    break;
  case LintFormat::html: {
    FailureOr<std::string> page =
        renderMap(**module, *findings, precisions, options);
    if (failed(page))
      return diagnostics.getNumErrors()
                 ? kLintBadInput
                 : badInput("cannot draw the precision map");
    out << *page;
    break;
  }
  }
  if (options.outputPath.empty() || options.outputPath == "-") {
    stdOut << output;
  } else {
    OutputFiles files;
    files.add(options.outputPath, std::move(output));
    if (llvm::Error error = files.commit())
      return badInput(llvm::toString(std::move(error)));
  }
  return numErrors ? kLintPolicyErrors : kLintClean;
}

int mix::lintMain(llvm::ArrayRef<const char *> args, llvm::raw_ostream &out,
                  llvm::raw_ostream &err) {
  llvm::Expected<LintOptions> options = parseLintCommandLine(args);
  if (!options) {
    err << "mix-lint: error: " << llvm::toString(options.takeError()) << "\n"
        << "run 'mix-lint --help' for usage\n";
    return kLintBadInput;
  }
  if (options->help) {
    printLintHelp(out);
    return kLintClean;
  }
  if (options->version) {
    printToolVersion(out);
    return kLintClean;
  }
  return runLint(*options, out, err);
}
