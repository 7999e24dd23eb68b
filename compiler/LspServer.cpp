//===- LspServer.cpp - mix-lsp-server: an editor that knows mix -----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Why not MLIR's `MlirLspServerMain`: it parses and verifies, but it has no
// hook to run precision resolution or the policy check, and its hover knows
// only the IR. This server keeps the same building blocks (LLVM's LSP
// transport and protocol, MLIR's AsmParserState for the positions of ops and
// values) and adds what `mix-lint --explain` knows.
//
// Each open document is parsed in an MLIRContext of its own, so that closing
// or editing a file frees everything the previous text created.
//
//===----------------------------------------------------------------------===//

#include "compiler/LspServer.h"
#include "compiler/Diagnostics.h"
#include "compiler/ModelLoader.h"
#include "compiler/Options.h"
#include "dialect/MixOps.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "passes/Policy.h"
#include "passes/PolicyCheck.h"
#include "passes/PrecisionAnalysis.h"
#include "passes/Resolve.h"
#include "support/InputLimits.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/LSP/Protocol.h"
#include "llvm/Support/LSP/Transport.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <memory>
#include <optional>

using namespace mlir;
using namespace mix;
namespace lsp = llvm::lsp;
namespace json = llvm::json;

namespace {

//===----------------------------------------------------------------------===//
// Policy lookup
//===----------------------------------------------------------------------===//

/// The policy a document is checked against, and where it came from.
struct PolicyChoice {
  Policy policy = Policy::getDefault();
  /// Empty for the built-in default.
  std::string path;
  /// Set when the policy file found next to the model cannot be used.
  std::string error;
};

/// `explicitPath` when given; else the nearest `mix-policy.json` in the
/// model's directory or a parent; else the built-in default.
PolicyChoice choosePolicy(StringRef modelPath, StringRef explicitPath) {
  PolicyChoice choice;
  std::string found;
  if (!explicitPath.empty()) {
    found = explicitPath.str();
  } else {
    llvm::SmallString<256> dir(modelPath);
    llvm::sys::path::remove_filename(dir);
    while (!dir.empty()) {
      llvm::SmallString<256> candidate(dir);
      llvm::sys::path::append(candidate, kPolicyFileName);
      if (llvm::sys::fs::is_regular_file(candidate)) {
        found = std::string(candidate);
        break;
      }
      StringRef parent = llvm::sys::path::parent_path(dir);
      if (parent == dir)
        break;
      dir = parent;
    }
  }
  if (found.empty())
    return choice;
  choice.path = found;
  llvm::Expected<Policy> loaded = loadPolicyFile(found);
  if (!loaded) {
    choice.error = llvm::toString(loaded.takeError());
    return choice;
  }
  choice.policy = std::move(*loaded);
  return choice;
}

//===----------------------------------------------------------------------===//
// Document
//===----------------------------------------------------------------------===//

/// `textDocument/didSave` (LLVM's protocol library has no type for it).
struct DidSaveParams {
  lsp::TextDocumentIdentifier textDocument;
};
bool fromJSON(const json::Value &value, DidSaveParams &result,
              json::Path path) {
  json::ObjectMapper o(value, path);
  return o && o.map("textDocument", result.textDocument);
}

bool contains(SMRange range, SMLoc loc) {
  return range.isValid() && range.Start.getPointer() <= loc.getPointer() &&
         loc.getPointer() < range.End.getPointer();
}

/// What a position in the text refers to.
struct Hit {
  /// The op whose name is under the cursor, or that defines `value`.
  Operation *op = nullptr;
  /// The value under the cursor (a definition or a use), if any.
  Value value;
  /// The definition of `value`, with its uses.
  const AsmParserState::SMDefinition *definition = nullptr;
  /// The text range under the cursor.
  SMRange range;
};

/// One version of an open file: its text parsed, verified, resolved and
/// checked against the policy.
class Document {
public:
  Document(const lsp::URIForFile &uri, std::string text, int64_t version,
           const PolicyChoice &policy);

  const lsp::URIForFile &getURI() const { return uri; }
  const std::string &getText() const { return text; }
  int64_t getVersion() const { return version; }
  const std::vector<lsp::Diagnostic> &getDiagnostics() const {
    return diagnostics;
  }

  std::optional<lsp::Hover> hover(const lsp::Position &pos);
  std::vector<lsp::Location> definition(const lsp::Position &pos);
  std::vector<lsp::Location> references(const lsp::Position &pos,
                                        bool includeDeclaration);
  /// The outline: the network, its blocks and their layers, each with its
  /// precision.
  std::vector<lsp::DocumentSymbol> symbols();

private:
  void addSymbols(Operation *op, std::vector<lsp::DocumentSymbol> &out);
  void analyze(const PolicyChoice &policy);
  lsp::Range rangeOf(Location loc);
  lsp::Range rangeOfOp(Operation *op);
  lsp::Diagnostic convert(mlir::Diagnostic &diag);
  std::optional<Hit> find(const lsp::Position &pos);
  std::string describeLayer(Operation *op);
  std::string describeValue(const Hit &hit);

  lsp::URIForFile uri;
  std::string text;
  int64_t version;

  // Declared before everything that points into it.
  MLIRContext context{MLIRContext::Threading::DISABLED};
  llvm::SourceMgr sourceMgr;
  AsmParserState asmState;
  OwningOpRef<ModuleOp> module;
  bool parsed = false;

  llvm::DenseMap<Operation *, LayerResolution> layers;
  /// The precision of each network and block, with its source.
  llvm::DenseMap<Operation *, Decision> scopes;
  std::vector<Finding> findings;
  std::vector<lsp::Diagnostic> diagnostics;
};

Document::Document(const lsp::URIForFile &uri, std::string text,
                   int64_t version, const PolicyChoice &policy)
    : uri(uri), text(std::move(text)), version(version) {
  loadMixDialects(context);
  context.allowUnregisteredDialects(false);
  // The op is already where the diagnostic points; no generic-form note.
  context.printOpOnDiagnostic(false);
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(this->text, uri.file()), SMLoc());
  analyze(policy);
}

lsp::Range Document::rangeOf(Location loc) {
  SourcePosition pos = getSourcePosition(loc);
  if (pos.line == 0 || pos.file != uri.file())
    return lsp::Range(lsp::Position(0, 0));
  lsp::Position start(pos.line - 1, pos.column - 1);
  SMLoc sm = start.getAsSMLoc(sourceMgr);
  if (!sm.isValid())
    return lsp::Range(start);
  // The token at the position: an identifier, an op name or a value.
  SMRange token = AsmParserState::convertIdLocToRange(sm);
  if (token.isValid() && token.Start != token.End)
    return lsp::Range(sourceMgr, token);
  return lsp::Range(start, lsp::Position(start.line, start.character + 1));
}

lsp::Range Document::rangeOfOp(Operation *op) {
  if (const AsmParserState::OperationDefinition *def = asmState.getOpDef(op))
    return lsp::Range(sourceMgr, def->loc);
  return rangeOf(op->getLoc());
}

lsp::Diagnostic Document::convert(mlir::Diagnostic &diag) {
  lsp::Diagnostic out;
  out.source = "mix";
  out.range = rangeOf(diag.getLocation());
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error:
    out.severity = lsp::DiagnosticSeverity::Error;
    break;
  case DiagnosticSeverity::Warning:
    out.severity = lsp::DiagnosticSeverity::Warning;
    break;
  case DiagnosticSeverity::Remark:
  case DiagnosticSeverity::Note:
    out.severity = lsp::DiagnosticSeverity::Information;
    break;
  }
  out.message = diag.str();
  std::vector<lsp::DiagnosticRelatedInformation> related;
  for (mlir::Diagnostic &note : diag.getNotes()) {
    SourcePosition pos = getSourcePosition(note.getLocation());
    if (pos.line != 0 && pos.file == uri.file())
      related.emplace_back(lsp::Location(uri, rangeOf(note.getLocation())),
                           note.str());
    else
      out.message += "\nnote: " + note.str();
  }
  if (!related.empty())
    out.relatedInformation = std::move(related);
  return out;
}

void Document::analyze(const PolicyChoice &policy) {
  // Every diagnostic of parsing, verification and resolution becomes an
  // LSP diagnostic; nothing is printed.
  ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    diagnostics.push_back(convert(diag));
    return success();
  });
  auto fileError = [&](const llvm::Twine &message) {
    lsp::Diagnostic d;
    d.source = "mix";
    d.severity = lsp::DiagnosticSeverity::Error;
    d.range = lsp::Range(lsp::Position(0, 0));
    d.message = message.str();
    diagnostics.push_back(std::move(d));
  };

  // The tools' input limits hold here too: the recursive parser never sees
  // text nested deeper than it can take.
  if (text.size() > limits::kMaxModelBytes)
    return fileError(llvm::formatv(
        "the model is {0} bytes, more than the limit of {1} bytes", text.size(),
        limits::kMaxModelBytes));
  if (llvm::Error e = checkNestingDepth(text, limits::kMaxModelNesting,
                                        NestingSyntax::mlir, uri.file()))
    return fileError(llvm::toString(std::move(e)));

  Block parsedIR;
  ParserConfig config(&context);
  if (failed(parseAsmSourceFile(sourceMgr, &parsedIR, config, &asmState))) {
    asmState = AsmParserState();
    return;
  }
  // As `parseSourceFile<ModuleOp>` does: a lone module is the top level,
  // anything else is wrapped in one. Moving ops keeps the AsmParserState's
  // pointers valid.
  if (llvm::hasSingleElement(parsedIR) && isa<ModuleOp>(parsedIR.front())) {
    module = cast<ModuleOp>(parsedIR.front());
    module.get()->remove();
  } else {
    module = ModuleOp::create(
        FileLineColLoc::get(&context, uri.file(), /*line=*/1, /*column=*/1));
    module->getBody()->getOperations().splice(module->getBody()->begin(),
                                              parsedIR.getOperations());
  }
  parsed = true;

  if (module->getOps<NetworkOp>().empty())
    return fileError("no 'mix.network' in the model");
  if (!policy.error.empty())
    return fileError("policy '" + policy.path + "': " + policy.error);

  PrecisionAnalysis precisions(*module);
  FailureOr<std::vector<Finding>> checked =
      checkPolicy(*module, policy.policy, &precisions);
  if (failed(checked))
    return;
  findings = std::move(*checked);
  module->walk([&](Operation *op) {
    if (auto layer = dyn_cast<LayerOpInterface>(op)) {
      FailureOr<LayerResolution> r = precisions.resolve(layer);
      if (succeeded(r))
        layers.try_emplace(op, *r);
    } else if (isa<BlockOp, NetworkOp>(op)) {
      FailureOr<Decision> d = effectivePrecision(op);
      if (succeeded(d))
        scopes.try_emplace(op, *d);
    }
  });

  std::string policyName =
      policy.path.empty() ? "the built-in policy" : "policy " + policy.path;
  for (const Finding &f : findings) {
    lsp::Diagnostic d;
    d.source = "mix-lint";
    d.category = getRuleName(f.rule).str();
    d.severity = f.severity == Severity::error
                     ? lsp::DiagnosticSeverity::Error
                     : lsp::DiagnosticSeverity::Warning;
    d.range = rangeOfOp(f.op);
    d.message = "[" + getRuleName(f.rule).str() + "] " + f.message;
    std::vector<lsp::DiagnosticRelatedInformation> related;
    for (const Finding::Note &n : f.notes) {
      SourcePosition pos = getSourcePosition(n.loc);
      if (pos.line != 0 && pos.file == uri.file())
        related.emplace_back(lsp::Location(uri, rangeOf(n.loc)), n.message);
      else
        d.message += "\nnote: " + n.message;
    }
    if (!related.empty())
      d.relatedInformation = std::move(related);
    d.message += "\n(" + policyName + ")";
    diagnostics.push_back(std::move(d));
  }
}

std::optional<Hit> Document::find(const lsp::Position &pos) {
  if (!parsed)
    return std::nullopt;
  SMLoc loc = pos.getAsSMLoc(sourceMgr);
  if (!loc.isValid())
    return std::nullopt;
  for (const AsmParserState::OperationDefinition &def : asmState.getOpDefs()) {
    if (contains(def.loc, loc))
      return Hit{def.op, Value(), nullptr, def.loc};
    for (const auto &group : def.resultGroups) {
      const AsmParserState::SMDefinition &d = group.definition;
      Value value = def.op->getResult(group.startIndex);
      if (contains(d.loc, loc))
        return Hit{def.op, value, &d, d.loc};
      for (SMRange use : d.uses)
        if (contains(use, loc))
          return Hit{def.op, value, &d, use};
    }
  }
  for (const AsmParserState::BlockDefinition &block : asmState.getBlockDefs()) {
    for (auto [index, arg] : llvm::enumerate(block.arguments)) {
      if (index >= block.block->getNumArguments())
        break;
      Value value = block.block->getArgument(index);
      if (contains(arg.loc, loc))
        return Hit{nullptr, value, &arg, arg.loc};
      for (SMRange use : arg.uses)
        if (contains(use, loc))
          return Hit{nullptr, value, &arg, use};
    }
  }
  return std::nullopt;
}

/// The `--explain` columns of one layer, and its policy findings.
std::string Document::describeLayer(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "**" << op->getName() << "** `" << getLayerPath(op) << "`\n\n";
  auto it = layers.find(op);
  if (it == layers.end()) {
    os << "precisions not resolved (see the errors in this file)\n";
    return s;
  }
  os << "| property | precision | decided by |\n|:--|:--|:--|\n";
  for (PrecisionProperty prop : kAllProperties) {
    const Decision *d = it->second.get(prop);
    if (!d)
      continue;
    os << "| " << stringifyPrecisionProperty(prop) << " | "
       << d->precision.str() << " | " << d->describe() << " |\n";
  }
  for (const Finding &f : findings)
    if (f.op == op)
      os << "\n"
         << getSeverityName(f.severity) << " [" << getRuleName(f.rule) << "] "
         << f.message << "\n";
  return s;
}

std::string Document::describeValue(const Hit &hit) {
  std::string s;
  llvm::raw_string_ostream os(s);
  StringRef name(hit.definition->loc.Start.getPointer(),
                 hit.definition->loc.End.getPointer() -
                     hit.definition->loc.Start.getPointer());
  os << "`" << name << "` : `" << hit.value.getType() << "`\n\n";
  if (auto arg = dyn_cast<BlockArgument>(hit.value)) {
    Operation *owner = arg.getOwner()->getParentOp();
    os << "argument #" << arg.getArgNumber() << " of "
       << (owner ? describeOp(owner) : std::string("a block")) << "\n";
    return s;
  }
  Operation *op = hit.value.getDefiningOp();
  if (isa<LayerOpInterface>(op)) {
    os << "result of " << describeLayer(op);
    return s;
  }
  if (isa<BlockOp>(op)) {
    os << "result #" << cast<OpResult>(hit.value).getResultNumber() << " of "
       << describeOp(op);
    auto it = scopes.find(op);
    if (it != scopes.end())
      os << ", precision " << it->second.precision.str() << " ("
         << it->second.describe() << ")";
    os << "\n";
    return s;
  }
  // Weights and every other op: the op itself, without its regions and with
  // large constants elided.
  os << "defined by\n```mlir\n";
  op->print(os, OpPrintingFlags().elideLargeElementsAttrs(16).skipRegions());
  os << "\n```\n";
  return s;
}

std::optional<lsp::Hover> Document::hover(const lsp::Position &pos) {
  std::optional<Hit> hit = find(pos);
  if (!hit)
    return std::nullopt;
  lsp::Hover h(lsp::Range(sourceMgr, hit->range));
  if (hit->definition) {
    h.contents.value = describeValue(*hit);
  } else if (isa<LayerOpInterface>(hit->op)) {
    h.contents.value = describeLayer(hit->op);
  } else if (isa<BlockOp, NetworkOp>(hit->op)) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "**" << describeOp(hit->op) << "**";
    auto it = scopes.find(hit->op);
    if (it != scopes.end())
      os << ": precision " << it->second.precision.str() << " ("
         << it->second.describe() << ")";
    os << "\n";
    for (const Finding &f : findings)
      if (f.op == hit->op)
        os << "\n"
           << getSeverityName(f.severity) << " [" << getRuleName(f.rule) << "] "
           << f.message << "\n";
    h.contents.value = s;
  } else {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "```mlir\n";
    hit->op->print(os,
                   OpPrintingFlags().elideLargeElementsAttrs(16).skipRegions());
    os << "\n```\n";
    h.contents.value = s;
  }
  return h;
}

std::vector<lsp::Location> Document::definition(const lsp::Position &pos) {
  std::optional<Hit> hit = find(pos);
  if (!hit || !hit->definition)
    return {};
  return {lsp::Location(uri, sourceMgr, hit->definition->loc)};
}

std::vector<lsp::Location> Document::references(const lsp::Position &pos,
                                                bool includeDeclaration) {
  std::optional<Hit> hit = find(pos);
  if (!hit || !hit->definition)
    return {};
  std::vector<lsp::Location> out;
  if (includeDeclaration)
    out.emplace_back(uri, sourceMgr, hit->definition->loc);
  for (SMRange use : hit->definition->uses)
    out.emplace_back(uri, sourceMgr, use);
  return out;
}

void Document::addSymbols(Operation *op,
                          std::vector<lsp::DocumentSymbol> &out) {
  const AsmParserState::OperationDefinition *def = asmState.getOpDef(op);
  bool scope = isa<BlockOp, NetworkOp>(op);
  bool layer = isa<LayerOpInterface>(op);
  if (!def || (!scope && !layer)) {
    for (Region &region : op->getRegions())
      for (Operation &nested : region.getOps())
        addSymbols(&nested, out);
    return;
  }
  lsp::DocumentSymbol symbol(
      scope ? describeOp(op) : op->getName().getStringRef().str(),
      isa<NetworkOp>(op) ? lsp::SymbolKind::Module
      : scope            ? lsp::SymbolKind::Namespace
                         : lsp::SymbolKind::Function,
      lsp::Range(sourceMgr, def->scopeLoc), lsp::Range(sourceMgr, def->loc));
  if (scope) {
    auto it = scopes.find(op);
    if (it != scopes.end())
      symbol.detail =
          it->second.precision.str() + " (" + it->second.describe() + ")";
  } else if (auto it = layers.find(op); it != layers.end()) {
    // "bf16 weights, f16 activations, f32 accumulator, f16 output".
    for (PrecisionProperty prop : kAllProperties)
      if (const Decision *d = it->second.get(prop))
        symbol.detail += (symbol.detail.empty() ? "" : ", ") +
                         d->precision.str() + " " +
                         stringifyPrecisionProperty(prop).str();
  }
  for (Region &region : op->getRegions())
    for (Operation &nested : region.getOps())
      addSymbols(&nested, symbol.children);
  out.push_back(std::move(symbol));
}

std::vector<lsp::DocumentSymbol> Document::symbols() {
  std::vector<lsp::DocumentSymbol> out;
  if (parsed)
    addSymbols(module.get(), out);
  return out;
}

//===----------------------------------------------------------------------===//
// Server
//===----------------------------------------------------------------------===//

class Server {
public:
  Server(lsp::JSONTransport &transport, std::string policyPath)
      : handler(transport), policyPath(std::move(policyPath)) {
    handler.method("initialize", this, &Server::onInitialize);
    handler.notification("initialized", this, &Server::onInitialized);
    handler.method("shutdown", this, &Server::onShutdown);
    handler.notification("textDocument/didOpen", this, &Server::onDidOpen);
    handler.notification("textDocument/didChange", this, &Server::onDidChange);
    handler.notification("textDocument/didSave", this, &Server::onDidSave);
    handler.notification("textDocument/didClose", this, &Server::onDidClose);
    handler.method("textDocument/hover", this, &Server::onHover);
    handler.method("textDocument/definition", this, &Server::onDefinition);
    handler.method("textDocument/references", this, &Server::onReferences);
    handler.method("textDocument/documentSymbol", this,
                   &Server::onDocumentSymbol);
    publishDiagnostics =
        handler.outgoingNotification<lsp::PublishDiagnosticsParams>(
            "textDocument/publishDiagnostics");
  }

  lsp::MessageHandler &getHandler() { return handler; }
  bool wasShutDown() const { return shutDown; }

private:
  void onInitialize(const lsp::InitializeParams &,
                    lsp::Callback<json::Value> reply) {
    json::Object sync{{"openClose", true},
                      {"change", static_cast<int64_t>(
                                     lsp::TextDocumentSyncKind::Incremental)},
                      {"save", true}};
    json::Object capabilities{{"textDocumentSync", std::move(sync)},
                              {"hoverProvider", true},
                              {"definitionProvider", true},
                              {"referencesProvider", true},
                              {"documentSymbolProvider", true}};
    reply(json::Object{
        {"capabilities", std::move(capabilities)},
        {"serverInfo", json::Object{{"name", "mix-lsp-server"},
                                    {"version", getMixcVersion()}}}});
  }
  void onInitialized(const lsp::InitializedParams &) {}
  void onShutdown(const lsp::NoParams &, lsp::Callback<std::nullptr_t> reply) {
    shutDown = true;
    reply(nullptr);
  }

  void update(const lsp::URIForFile &uri, std::string text, int64_t version) {
    PolicyChoice policy = choosePolicy(uri.file(), policyPath);
    auto doc =
        std::make_unique<Document>(uri, std::move(text), version, policy);
    lsp::PublishDiagnosticsParams params(uri, version);
    params.diagnostics = doc->getDiagnostics();
    documents[uri.file()] = std::move(doc);
    publishDiagnostics(params);
  }
  void onDidOpen(const lsp::DidOpenTextDocumentParams &params) {
    update(params.textDocument.uri, params.textDocument.text,
           params.textDocument.version);
  }
  void onDidChange(const lsp::DidChangeTextDocumentParams &params) {
    auto it = documents.find(params.textDocument.uri.file());
    if (it == documents.end()) {
      lsp::Logger::error("didChange for a document that is not open: {0}",
                         params.textDocument.uri.file());
      return;
    }
    std::string text = it->second->getText();
    if (failed(lsp::TextDocumentContentChangeEvent::applyTo(
            params.contentChanges, text))) {
      lsp::Logger::error("could not apply the changes to {0}",
                         params.textDocument.uri.file());
      return;
    }
    update(params.textDocument.uri, std::move(text),
           params.textDocument.version);
  }
  /// A save may have changed a `mix-policy.json` next to the file: check
  /// again with the text the server has.
  void onDidSave(const DidSaveParams &params) {
    auto it = documents.find(params.textDocument.uri.file());
    if (it == documents.end())
      return;
    update(params.textDocument.uri, it->second->getText(),
           it->second->getVersion());
  }
  void onDidClose(const lsp::DidCloseTextDocumentParams &params) {
    if (!documents.erase(params.textDocument.uri.file()))
      return;
    // Clear what the editor shows for the closed file.
    publishDiagnostics(lsp::PublishDiagnosticsParams(params.textDocument.uri,
                                                     /*version=*/0));
  }

  Document *lookup(const lsp::URIForFile &uri) {
    auto it = documents.find(uri.file());
    return it == documents.end() ? nullptr : it->second.get();
  }
  void onHover(const lsp::TextDocumentPositionParams &params,
               lsp::Callback<std::optional<lsp::Hover>> reply) {
    Document *doc = lookup(params.textDocument.uri);
    reply(doc ? doc->hover(params.position) : std::nullopt);
  }
  void onDefinition(const lsp::TextDocumentPositionParams &params,
                    lsp::Callback<std::vector<lsp::Location>> reply) {
    Document *doc = lookup(params.textDocument.uri);
    reply(doc ? doc->definition(params.position)
              : std::vector<lsp::Location>());
  }
  void onReferences(const lsp::ReferenceParams &params,
                    lsp::Callback<std::vector<lsp::Location>> reply) {
    Document *doc = lookup(params.textDocument.uri);
    reply(doc ? doc->references(params.position,
                                params.context.includeDeclaration)
              : std::vector<lsp::Location>());
  }

  void onDocumentSymbol(const lsp::DocumentSymbolParams &params,
                        lsp::Callback<std::vector<lsp::DocumentSymbol>> reply) {
    Document *doc = lookup(params.textDocument.uri);
    reply(doc ? doc->symbols() : std::vector<lsp::DocumentSymbol>());
  }

  lsp::MessageHandler handler;
  std::string policyPath;
  llvm::StringMap<std::unique_ptr<Document>> documents;
  lsp::OutgoingNotification<lsp::PublishDiagnosticsParams> publishDiagnostics;
  bool shutDown = false;
};

enum class LogLevel { error, info, verbose };

struct LspOptions {
  std::string policyPath;
  LogLevel log = LogLevel::error;
  bool litTest = false;
  bool help = false;
  bool version = false;

  void bindOptions(OptionsBinder &b) {
    b.opt("policy", policyPath, {"a file name"}, llvm::cl::value_desc("FILE"),
          // cl::desc keeps a StringRef: a literal, not a temporary.
          llvm::cl::desc("check every file against this policy (default: "
                         "the\nnearest mix-policy.json in the file's "
                         "directory or a\nparent, else the built-in "
                         "policy)"));
    OptionText logText;
    logText.badValue = [](StringRef v) {
      return ("unknown --log value '" + v +
              "' (expected error, info or verbose)")
          .str();
    };
    b.opt("log", log, logText, llvm::cl::value_desc("LEVEL"),
          llvm::cl::desc("what to log on stderr (default: error)"),
          llvm::cl::values(
              clEnumValN(LogLevel::error, "error", "errors only"),
              clEnumValN(LogLevel::info, "info", "also every message"),
              clEnumValN(LogLevel::verbose, "verbose", "also their contents")));
    b.flag("lit-test", litTest, true,
           llvm::cl::desc("read messages separated by '// -----' lines,\n"
                          "pretty-print replies, accept test:// URIs\n"
                          "(for the tests)"));
    b.flag("help", help, true, llvm::cl::desc("print this help"));
    b.alias("h", "help");
    b.flag("version", version, true, llvm::cl::desc("print the versions"));
  }
};

const char kOverview[] =
    "usage: mix-lsp-server [--policy POLICY.json] [--log error|info|verbose]\n"
    "\n"
    "A language server for mix models: speaks the Language Server Protocol "
    "on\n"
    "stdin/stdout; an editor starts it (docs/cli.md#mix-lsp-server).\n"
    "Exit codes: 0 after shutdown and exit, 1 when the input ends without "
    "them,\n"
    "2 bad usage.\n"
    "\n"
    "Options ('--name=VALUE' or '--name VALUE'):\n";

} // namespace

int mix::lspServerMain(llvm::ArrayRef<const char *> args, std::FILE *in,
                       llvm::raw_ostream &out, llvm::raw_ostream &err) {
  auto usage = [&](const llvm::Twine &message) {
    err << "mix-lsp-server: error: " << message << "\n"
        << "run 'mix-lsp-server --help' for usage\n";
    return 2;
  };
  LspOptions options;
  {
    OptionsBinder binder;
    options.bindOptions(binder);
    if (llvm::Error error = binder.parse(args))
      return usage(llvm::toString(std::move(error)));
    if (options.help) {
      binder.printHelp(out, kOverview);
      return 0;
    }
    if (options.version) {
      printToolVersion(out);
      return 0;
    }
  }
  const std::string &policyPath = options.policyPath;
  // A policy named on the command line is checked once, up front: a server
  // that would report the same broken policy on every file is bad usage.
  if (!policyPath.empty()) {
    llvm::Expected<Policy> loaded = loadPolicyFile(policyPath);
    if (!loaded)
      return usage(llvm::toString(loaded.takeError()));
  }

  lsp::Logger::setLogLevel(
      options.log == LogLevel::verbose ? lsp::Logger::Level::Debug
      : options.log == LogLevel::info  ? lsp::Logger::Level::Info
                                       : lsp::Logger::Level::Error);
  bool litTest = options.litTest;
  if (litTest)
    lsp::URIForFile::registerSupportedScheme("test");
  lsp::JSONTransport transport(in, out,
                               litTest ? lsp::JSONStreamStyle::Delimited
                                       : lsp::JSONStreamStyle::Standard,
                               /*PrettyOutput=*/litTest);
  Server server(transport, policyPath);
  if (llvm::Error e = transport.run(server.getHandler())) {
    lsp::Logger::error("transport error: {0}", llvm::toString(std::move(e)));
    return 1;
  }
  return server.wasShutDown() ? 0 : 1;
}
