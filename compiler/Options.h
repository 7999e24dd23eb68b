//===- Options.h - command lines bound to plain option structs ------------===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// Every mixc tool describes its command line once, as `llvm::cl` options
// bound to the fields of a plain struct (`CompileOptions::bindOptions`,
// `LintOptions::bindOptions`, ...), in the manner of IREE's OptionsBinder.
//
// The options live in a private `llvm::cl::SubCommand` owned by the binder
// that is never registered with LLVM's global parser (as MLIR's pass options
// do), so a command line can be parsed any number of times in one process
// (unit tests, in-process drivers) without touching or leaking global state,
// and without LLVM's global options (`-debug`, `-stats`, ...) appearing.
// Values go through the `llvm::cl` parsers (`cl::values` for enums); the
// binder only splits the arguments, which lets every error be reported on
// the caller's stream with the tool's own words: unknown options with a
// "did you mean" suggestion, missing and invalid values, and `--help`
// generated from the options' descriptions.
//
//===----------------------------------------------------------------------===//

#ifndef MIXC_COMPILER_OPTIONS_H
#define MIXC_COMPILER_OPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace mix {

/// Prints the version lines every mixc tool prints for `--version`:
///   mixc X.Y.Z
///   LLVM A.B.C, MLIR A.B.C
///   host target: TRIPLE, cpu: CPU
///   mixrt ABI version N      (MIXRT_API_VERSION: what generated code needs)
void printToolVersion(llvm::raw_ostream &os);

/// "0.1.0".
const char *getMixcVersion();

/// Extra words for one bound option, beside `llvm::cl`'s modifiers.
struct OptionText {
  /// The end of "--NAME needs ..." when the value is missing or empty
  /// (default: "a value", or "a value: a, b or c" for enums).
  std::string needs;
  /// The message for a value the option rejects (default: "unknown --NAME
  /// value 'V' (expected a, b or c)" for enums).
  std::function<std::string(llvm::StringRef value)> badValue;
  /// Checks a value before it is stored; returns an error message.
  std::function<std::optional<std::string>(llvm::StringRef value)> check;
};

/// The text of `-ON`: 0 to 3, and the error naming a level outside them.
OptionText optimizationLevelText();

/// Owns `llvm::cl` options bound by reference to fields of option structs,
/// parses command lines into them and prints the generated help.
class OptionsBinder {
public:
  OptionsBinder();
  ~OptionsBinder();
  OptionsBinder(const OptionsBinder &) = delete;
  OptionsBinder &operator=(const OptionsBinder &) = delete;

  /// Starts a group of options in the help ("Output:", "Model:", ...).
  void heading(llvm::StringRef title);

  /// An option with a value (`--name=V`, `--name V`, `-n V`), stored in
  /// `value`. Enum types take `cl::values(...)` among `mods`.
  template <typename T, typename... Mods>
  void opt(llvm::StringRef name, T &value, OptionText text, Mods &&...mods) {
    auto option = std::make_unique<llvm::cl::opt<T, /*ExternalStorage=*/true>>(
        name, llvm::cl::sub(scope), llvm::cl::location(value),
        llvm::cl::ValueRequired, std::forward<Mods>(mods)...);
    std::vector<EnumValue> values;
    if constexpr (std::is_base_of_v<llvm::cl::generic_parser_base,
                                    llvm::cl::parser<T>>) {
      auto &parser = option->getParser();
      for (unsigned i = 0, e = parser.getNumOptions(); i < e; ++i)
        values.push_back(
            {parser.getOption(i).str(), parser.getDescription(i).str()});
    } else if constexpr (std::is_same_v<T, double>) {
      if (!text.check)
        text.check = [](llvm::StringRef v) -> std::optional<std::string> {
          double d;
          if (!llvm::to_float(v, d))
            return "'" + v.str() + "' is not a number";
          return std::nullopt;
        };
    } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (!text.check)
        text.check = [](llvm::StringRef v) -> std::optional<std::string> {
          T i;
          if (v.getAsInteger(10, i))
            return "'" + v.str() + "' is not an integer";
          return std::nullopt;
        };
    }
    add(std::move(option), std::move(text), std::move(values));
  }

  /// A flag (`--name`) that sets `value` to `setTo`.
  template <typename T, typename... Mods>
  void flag(llvm::StringRef name, T &value, T setTo, Mods &&...mods) {
    auto option = std::make_unique<llvm::cl::opt<bool>>(
        name, llvm::cl::sub(scope), llvm::cl::ValueDisallowed,
        std::forward<Mods>(mods)...);
    option->setCallback([&value, setTo](const bool &) { value = setTo; });
    add(std::move(option), {}, {});
  }

  /// A repeatable option appending every value to `values`.
  template <typename T, typename... Mods>
  void list(llvm::StringRef name, std::vector<T> &values, OptionText text,
            Mods &&...mods) {
    auto option = std::make_unique<llvm::cl::list<T>>(
        name, llvm::cl::sub(scope), llvm::cl::ValueRequired,
        std::forward<Mods>(mods)...);
    option->setCallback([&values](const T &v) { values.push_back(v); });
    add(std::move(option), std::move(text), {});
  }

  /// Another spelling of the option `of` (bound before).
  void alias(llvm::StringRef name, llvm::StringRef of);

  /// The positional arguments (`-` included) are appended to `values`;
  /// `name` ("MODEL") is their name in the help.
  void positional(llvm::StringRef name, llvm::StringRef desc,
                  std::vector<std::string> &values);

  /// Parses `args` (without the program name). On failure, the error is one
  /// line without the tool's prefix, e.g. "unknown option '--polcy'; did you
  /// mean '--policy'?". Values already parsed stay stored.
  llvm::Error parse(llvm::ArrayRef<const char *> args);

  /// How many times the option `name` occurred in the last parse.
  unsigned occurrences(llvm::StringRef name) const;

  /// Prints `overview`, then every option with its description and, for
  /// enums, its values, then `epilogue`.
  void printHelp(llvm::raw_ostream &os, llvm::StringRef overview,
                 llvm::StringRef epilogue = "") const;

  /// The option nearest to the misspelled `name` (without dashes), as the
  /// user would write it ("--policy"); empty if none is close.
  std::string suggest(llvm::StringRef name) const;

private:
  struct EnumValue {
    std::string name, desc;
  };
  struct Entry;

  void add(std::unique_ptr<llvm::cl::Option> option, OptionText text,
           std::vector<EnumValue> values);
  const Entry *lookup(llvm::StringRef name) const;
  llvm::Error provide(const Entry &entry, llvm::StringRef spelled,
                      llvm::StringRef value, unsigned position);

  /// Never registered: the options are invisible to LLVM's global parser.
  llvm::cl::SubCommand scope;
  std::vector<std::unique_ptr<Entry>> entries;
  std::vector<std::unique_ptr<llvm::cl::alias>> aliases;
  std::string positionalName, positionalDesc;
  std::vector<std::string> *positionals = nullptr;
};

/// Spells an option as on a command line: "-o", "--policy".
std::string spellOption(llvm::StringRef name);

} // namespace mix

#endif // MIXC_COMPILER_OPTIONS_H
