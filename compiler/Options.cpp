//===- Options.cpp - command lines bound to plain option structs ----------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//

#include "compiler/Options.h"
#include "mixrt/mixrt.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TargetParser/Host.h"

#ifndef MIXC_VERSION_STRING
#define MIXC_VERSION_STRING "unknown"
#endif

using namespace mix;
namespace cl = llvm::cl;

const char *mix::getMixcVersion() { return MIXC_VERSION_STRING; }

void mix::printToolVersion(llvm::raw_ostream &os) {
  // The mixrt ABI the generated code is compiled against (MIXRT_API_VERSION
  // of the mixrt.h the tools were built with); an app's mixrt must report
  // the same mixrt_api_version().
  os << "mixc " << getMixcVersion() << "\n"
     << "LLVM " << LLVM_VERSION_STRING << ", MLIR " << LLVM_VERSION_STRING
     << "\n"
     << "host target: " << llvm::sys::getProcessTriple()
     << ", cpu: " << llvm::sys::getHostCPUName() << "\n"
     << "mixrt ABI version " << MIXRT_API_VERSION << "\n";
}

std::string mix::spellOption(llvm::StringRef name) {
  return ((name.size() == 1 ? "-" : "--") + name).str();
}

/// One bound option, or a heading of the help when `option` is null.
struct OptionsBinder::Entry {
  std::unique_ptr<cl::Option> option;
  OptionText text;
  std::vector<EnumValue> values;
  std::vector<std::string> aliases;
  std::string heading;
};

OptionsBinder::OptionsBinder() = default;

OptionsBinder::~OptionsBinder() {
  // The options unregister from `scope` before it goes away.
  entries.clear();
}

void OptionsBinder::heading(llvm::StringRef title) {
  auto entry = std::make_unique<Entry>();
  entry->heading = title.str();
  entries.push_back(std::move(entry));
}

void OptionsBinder::add(std::unique_ptr<cl::Option> option, OptionText text,
                        std::vector<EnumValue> values) {
  auto entry = std::make_unique<Entry>();
  entry->option = std::move(option);
  entry->text = std::move(text);
  entry->values = std::move(values);
  entries.push_back(std::move(entry));
}

void OptionsBinder::alias(llvm::StringRef name, llvm::StringRef of) {
  for (auto &entry : entries)
    if (entry->option && entry->option->ArgStr == of) {
      entry->aliases.push_back(name.str());
      return;
    }
  llvm_unreachable("alias of an option that is not bound");
}

void OptionsBinder::positional(llvm::StringRef name, llvm::StringRef desc,
                               std::vector<std::string> &values) {
  positionalName = name.str();
  positionalDesc = desc.str();
  positionals = &values;
}

const OptionsBinder::Entry *OptionsBinder::lookup(llvm::StringRef name) const {
  for (const auto &entry : entries) {
    if (!entry->option)
      continue;
    if (entry->option->ArgStr == name ||
        llvm::is_contained(entry->aliases, name))
      return entry.get();
  }
  return nullptr;
}

unsigned OptionsBinder::occurrences(llvm::StringRef name) const {
  const Entry *entry = lookup(name);
  return entry ? entry->option->getNumOccurrences() : 0;
}

/// "a, b or c".
static std::string joinOr(llvm::ArrayRef<std::string> names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i)
      s += i + 1 == names.size() ? " or " : ", ";
    s += names[i];
  }
  return s;
}

std::string OptionsBinder::suggest(llvm::StringRef name) const {
  // As LLVM's parser does, by edit distance over every spelling; unlike it,
  // only a near miss is suggested (two edits, or a third of a long name;
  // none for names of one or two letters), so that a word that is no
  // option at all gets no arbitrary suggestion.
  std::string best;
  unsigned allowed =
      name.size() < 3 ? 0 : std::max<unsigned>(2, name.size() / 3);
  unsigned bestDistance = allowed + 1;
  auto consider = [&](llvm::StringRef candidate) {
    unsigned d =
        candidate.edit_distance(name, /*AllowReplacements=*/true, bestDistance);
    if (d < bestDistance) {
      bestDistance = d;
      best = spellOption(candidate);
    }
  };
  for (const auto &entry : entries) {
    if (!entry->option ||
        entry->option->getOptionHiddenFlag() == cl::ReallyHidden)
      continue;
    consider(entry->option->ArgStr);
    for (const std::string &alias : entry->aliases)
      consider(alias);
  }
  return best;
}

llvm::Error OptionsBinder::provide(const Entry &entry, llvm::StringRef spelled,
                                   llvm::StringRef value, unsigned position) {
  cl::Option &option = *entry.option;
  if (!entry.values.empty()) {
    if (llvm::none_of(entry.values,
                      [&](const EnumValue &v) { return v.name == value; })) {
      if (entry.text.badValue)
        return llvm::createStringError(entry.text.badValue(value));
      std::vector<std::string> names;
      for (const EnumValue &v : entry.values)
        names.push_back(v.name);
      return llvm::createStringError("unknown " + spelled.str() + " value '" +
                                     value.str() + "' (expected " +
                                     joinOr(names) + ")");
    }
  }
  if (entry.text.check)
    if (std::optional<std::string> error = entry.text.check(value))
      return llvm::createStringError(
          entry.text.badValue ? entry.text.badValue(value)
                              : "invalid " + spelled.str() + ": " + *error);
  // The value is known to parse: the parser reports nothing.
  if (option.addOccurrence(position, option.ArgStr, value))
    return llvm::createStringError("invalid " + spelled.str() + " value '" +
                                   value.str() + "'");
  return llvm::Error::success();
}

llvm::Error OptionsBinder::parse(llvm::ArrayRef<const char *> args) {
  bool onlyPositionals = false;
  for (unsigned i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (!onlyPositionals && arg == "--") {
      onlyPositionals = true;
      continue;
    }
    if (onlyPositionals || arg == "-" || !arg.starts_with("-")) {
      if (!positionals)
        return llvm::createStringError("unexpected argument '" + arg + "'");
      positionals->push_back(arg.str());
      continue;
    }

    // -name, --name, --name=value, and -Xvalue for prefix options (-O2).
    llvm::StringRef body = arg.drop_front(arg.starts_with("--") ? 2 : 1);
    auto [name, inlineValue] = body.split('=');
    bool hasInlineValue = body.contains('=');
    const Entry *entry = lookup(name);
    if (!entry) {
      for (const auto &e : entries)
        if (e->option && e->option->getFormattingFlag() == cl::Prefix &&
            body.starts_with(e->option->ArgStr)) {
          entry = e.get();
          name = body.take_front(e->option->ArgStr.size());
          inlineValue = body.drop_front(name.size());
          hasInlineValue = true;
          break;
        }
    }
    if (!entry) {
      std::string message = "unknown option '" + arg.str() + "'";
      std::string suggestion = suggest(name);
      if (!suggestion.empty())
        message += "; did you mean '" + suggestion + "'?";
      return llvm::createStringError(message);
    }

    std::string spelled = spellOption(name);
    cl::Option &option = *entry->option;
    if (option.getValueExpectedFlag() == cl::ValueDisallowed) {
      if (hasInlineValue)
        return llvm::createStringError(spelled + " does not take a value");
      if (option.addOccurrence(i, option.ArgStr, ""))
        return llvm::createStringError("invalid " + spelled);
      continue;
    }

    llvm::StringRef value = inlineValue;
    bool prefix = option.getFormattingFlag() == cl::Prefix;
    if (!hasInlineValue && !prefix && i + 1 < args.size())
      value = args[++i];
    if (value.empty()) {
      if (prefix && entry->text.badValue)
        return llvm::createStringError(entry->text.badValue(value));
      std::string needs = entry->text.needs;
      if (needs.empty()) {
        needs = "a value";
        if (!entry->values.empty()) {
          std::vector<std::string> names;
          for (const EnumValue &v : entry->values)
            names.push_back(v.name);
          needs += ": " + joinOr(names);
        }
      }
      return llvm::createStringError(spelled + " needs " + needs);
    }
    if (llvm::Error error = provide(*entry, spelled, value, i))
      return error;
  }
  return llvm::Error::success();
}

void OptionsBinder::printHelp(llvm::raw_ostream &os, llvm::StringRef overview,
                              llvm::StringRef epilogue) const {
  os << overview;
  if (!overview.ends_with("\n"))
    os << "\n";
  constexpr size_t kColumn = 28;
  auto line = [&](llvm::StringRef left, llvm::StringRef desc) {
    os << "  " << left;
    if (desc.empty()) {
      os << "\n";
      return;
    }
    if (left.size() + 2 < kColumn)
      os.indent(kColumn - left.size() - 2);
    else
      os << "\n" << std::string(kColumn, ' ');
    // Continuation lines of the description keep the column.
    llvm::SmallVector<llvm::StringRef> lines;
    desc.split(lines, '\n');
    for (size_t i = 0; i < lines.size(); ++i)
      os << (i ? std::string(kColumn, ' ') : "") << lines[i] << "\n";
  };

  if (positionals)
    line(positionalName, positionalDesc);
  for (const auto &entry : entries) {
    if (!entry->option) {
      os << entry->heading << ":\n";
      continue;
    }
    const cl::Option &option = *entry->option;
    if (option.getOptionHiddenFlag() != cl::NotHidden)
      continue;
    std::string left = spellOption(option.ArgStr);
    if (option.getValueExpectedFlag() != cl::ValueDisallowed) {
      llvm::StringRef valueName =
          option.ValueStr.empty() ? "VALUE" : option.ValueStr;
      if (option.getFormattingFlag() == cl::Prefix)
        left += valueName;
      else
        left += (option.ArgStr.size() == 1 ? " " : "=") + valueName.str();
    }
    for (const std::string &alias : entry->aliases)
      left += ", " + spellOption(alias);
    line(left, option.HelpStr);
    for (const EnumValue &v : entry->values)
      line("    " + v.name, v.desc);
  }
  if (!epilogue.empty())
    os << "\n" << epilogue;
}
