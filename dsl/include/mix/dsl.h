//===- mix/dsl.h - a typed C++ DSL that writes mix networks -----*- C++ -*-===//
//
// Part of the mixc project.
//
//===----------------------------------------------------------------------===//
//
// A header-only builder in which a C++17 program writes a network of the
// `mix` dialect (docs/dsl.md):
//
//   using namespace mix::dsl;
//   model m = network<f32>("mlp", input("x", {8, 64}))
//       .body([&](tensor x) {
//         tensor h = block<f16>("hidden", [&] {
//           return relu(dense(x, weight("hidden.weight", {64, 32}))
//                           .weights<int8>());
//         });
//         return dense(h, weight("out.weight", {32, 10}));
//       });
//   std::string text = m.text();   // mix IR, e.g. for mixc or mix-lint
//
// Design:
// - Precisions are types (f64, f32, f16, bf16, int8 and its variants, i32).
//   What the dialect rejects whatever the policy says is a static_assert:
//   i32 anywhere but an accumulator, int8 as an accumulator, a `weights`
//   override on a layer without weights, a non-precision type. int8 on a
//   layer that is not GEMM-like is a *policy* rule (int8-non-gemm-layer,
//   docs/policy.md), which a policy may relax, so it compiles.
// - Shapes are inferred layer to layer with the dialect verifiers' rules;
//   a shape the DSL can tell is wrong (a dense whose K differs from the
//   weight's rows, a window larger than its padded input, ...) is recorded
//   in model::errors() with the layer and its block. What only the
//   verifier knows (an int8 axis outside a tensor's rank, a network name
//   that is not a C identifier, ...) is reported when the text is parsed:
//   mixc and mix-lint print the verifier's message, and in this repository
//   mix/dsl_mlir.h parses it into an mlir::ModuleOp and returns the
//   message as an error.
// - The result is text, not an mlir::ModuleOp built op by op: the header
//   then needs neither MLIR nor the dialect's library (neither is part of
//   the installed package), an application can hand the text to the
//   installed mixc (or mixc_add_model), and the text goes through the same
//   parser and verifiers as a handwritten model, so the DSL cannot build IR
//   that a .mlir file could not express.
// - Blocks are isolated from above in the dialect; here a block's body
//   simply uses the tensors it sees and the DSL binds each outer value to a
//   block argument on first use (in use order, through every enclosing
//   block). Weights are emitted at their first use, just before the layer
//   that takes them (in operand order), so the text does not depend on the
//   unspecified evaluation order of C++ function arguments. Layers are
//   emitted in call order: write nested layer calls as separate statements
//   when the order of the text matters.
// - No exceptions, RTTI or heap-free guarantees are asked of the caller;
//   building is single-threaded per network (a thread_local points at the
//   network being built).
//
//===----------------------------------------------------------------------===//

#ifndef MIX_DSL_H
#define MIX_DSL_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace mix {
namespace dsl {

//===----------------------------------------------------------------------===//
// Precisions and element types
//===----------------------------------------------------------------------===//

/// Flags of a precision or element type (see the tags below).
struct precision_tag {
  static constexpr bool is_precision = true;
  static constexpr bool is_float = false;
  static constexpr bool is_int8 = false;
  static constexpr bool is_i32 = false;
  static constexpr bool is_index = false; // i32/i64: index tensor elements
};

struct f64 : precision_tag {
  static constexpr bool is_float = true;
  static std::string spelling() { return "f64"; }
};
struct f32 : precision_tag {
  static constexpr bool is_float = true;
  static std::string spelling() { return "f32"; }
};
struct f16 : precision_tag {
  static constexpr bool is_float = true;
  static std::string spelling() { return "f16"; }
};
struct bf16 : precision_tag {
  static constexpr bool is_float = true;
  static std::string spelling() { return "bf16"; }
};
/// i32: a precision only as an accumulator; also the element type of index
/// tensors (labels, token ids).
struct i32 : precision_tag {
  static constexpr bool is_i32 = true;
  static constexpr bool is_index = true;
  static std::string spelling() { return "i32"; }
};
/// i64: an element type of index tensors only, not a precision.
struct i64 : precision_tag {
  static constexpr bool is_precision = false;
  static constexpr bool is_index = true;
  static std::string spelling() { return "i64"; }
};

enum class scheme { symmetric, asymmetric };

/// int8 with a quantization scheme and, for Axis >= 0, one scale per slice
/// along Axis.
template <scheme Scheme = scheme::symmetric, int64_t Axis = -1>
struct qint8 : precision_tag {
  static_assert(Axis >= -1, "mix: an int8 axis is >= 0 (or -1: per tensor)");
  static constexpr bool is_int8 = true;
  static std::string spelling() {
    std::string s = "int8";
    if (Scheme == scheme::symmetric && Axis < 0)
      return s;
    s += Scheme == scheme::symmetric ? "<symmetric" : "<asymmetric";
    if (Axis >= 0)
      s += ", axis = " + std::to_string(Axis);
    return s + ">";
  }
};
using int8 = qint8<>;
using int8_asymmetric = qint8<scheme::asymmetric>;
template <int64_t Axis> using int8_per_axis = qint8<scheme::symmetric, Axis>;

/// "No precision here": the layer or block inherits one.
struct inherit {
  static constexpr bool is_precision = false;
};

namespace detail {
template <class T> struct always_false : std::false_type {};

template <class P> constexpr bool is_tag() {
  return std::is_base_of<precision_tag, P>::value;
}
template <class P> constexpr bool is_precision() {
  if constexpr (is_tag<P>())
    return P::is_precision;
  else
    return false;
}
template <class P> constexpr bool is_i32() {
  if constexpr (is_tag<P>())
    return P::is_i32;
  else
    return false;
}
template <class P> constexpr bool is_int8() {
  if constexpr (is_tag<P>())
    return P::is_int8;
  else
    return false;
}
template <class P> constexpr bool is_scope_precision() {
  return std::is_same<P, inherit>::value || (is_precision<P>() && !is_i32<P>());
}
} // namespace detail

//===----------------------------------------------------------------------===//
// Shapes and the graph being built (internal)
//===----------------------------------------------------------------------===//

/// A tensor shape; -1 is the dynamic batch (`?`, leading dimension only).
using shape_t = std::vector<int64_t>;
constexpr int64_t dynamic = -1;

namespace detail {

inline std::string format_shape(const shape_t &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? ", " : "") + (s[i] < 0 ? std::string("?") : std::to_string(s[i]));
  return r + "]";
}

inline std::string tensor_type(const shape_t &s, const std::string &elem) {
  std::string r = "tensor<";
  for (int64_t d : s)
    r += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  return r + elem + ">";
}

/// An MLIR string literal.
inline std::string quote(const std::string &s) {
  static const char hex[] = "0123456789ABCDEF";
  std::string r = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      r += '\\';
      r += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      r += '\\';
      r += hex[c >> 4];
      r += hex[c & 15];
    } else {
      r += static_cast<char>(c);
    }
  }
  return r + "\"";
}

inline bool is_bare_id(const std::string &s) {
  if (s.empty())
    return false;
  auto start = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!start(s[0]))
    return false;
  for (char c : s)
    if (!start(c) && !(c >= '0' && c <= '9') && c != '$' && c != '.')
      return false;
  return true;
}

inline std::string symbol(const std::string &s) {
  return "@" + (is_bare_id(s) ? s : quote(s));
}

/// A float literal MLIR parses back to the same double.
inline std::string format_double(double v) {
  if (std::isnan(v))
    return "0x7FF8000000000000";
  if (std::isinf(v))
    return v > 0 ? "0x7FF0000000000000" : "0xFFF0000000000000";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos)
    s += ".0";
  return s;
}

inline std::string i64_array(const shape_t &v) {
  std::string r = "array<i64";
  for (size_t i = 0; i < v.size(); ++i)
    r += (i ? ", " : ": ") + std::to_string(v[i]);
  return r + ">";
}

struct value_rec {
  shape_t shape;
  std::string elem; // element type: f32, i32, ...
  int scope = 0;    // the scope that defines it
  std::string name; // SSA name in that scope
  int lazy_op = -1; // a weight not yet emitted: its op
};

/// One op of a scope: a layer, a weight or a block.
struct op_rec {
  enum kind_t { layer, weight, block } kind = layer;
  std::string mnemonic;
  std::vector<std::string> operands, operand_types;
  std::vector<int> results;       // value ids
  std::vector<std::string> attrs; // "name = value" entries
  std::string precision;          // layer or block precision, "" to inherit
  std::string props[4];           // weights, activations, accumulator, output
  std::string weight_body;        // `external "name"` or `dense<...>`
  int body = -1;                  // block: its scope
  std::string sym;                // block: its name
  int scope = 0;                  // where it is emitted
};

struct binding {
  std::string arg, outer, type;
};

struct scope_rec {
  int parent = -1;
  std::string display; // "network @n", "block @b"
  std::vector<int> ops;
  std::map<int, std::string> bound; // outer value id -> argument name
  std::vector<binding> bindings;
  std::vector<int> yields;
  bool open = true;
};

struct builder {
  std::string name, precision;
  std::vector<value_rec> values;
  std::vector<op_rec> ops;
  std::vector<scope_rec> scopes;
  std::vector<std::pair<std::string, int>> inputs; // name, value id
  std::vector<int> outputs;
  std::vector<std::string> errors;
  int current = 0;
  int counter = 0;

  std::string fresh(const std::string &prefix) {
    return "%" + prefix + std::to_string(counter++);
  }

  void error(const std::string &what, const std::string &message) {
    errors.push_back(what + " in " + scopes[current].display + ": " + message);
  }

  int new_value(shape_t shape, std::string elem, const std::string &prefix) {
    value_rec v;
    v.shape = std::move(shape);
    v.elem = std::move(elem);
    v.scope = current;
    v.name = prefix.empty() ? std::string() : fresh(prefix);
    values.push_back(std::move(v));
    return static_cast<int>(values.size()) - 1;
  }

  /// Emits the weight `id` (if it is still pending) into its scope.
  void materialize(int id) {
    int op = values[id].lazy_op;
    if (op < 0)
      return;
    values[id].lazy_op = -1;
    scopes[values[id].scope].ops.push_back(op);
  }

  /// The name of value `id` in `scope`, binding it through every enclosing
  /// block between its definition and `scope`.
  std::string resolve(int id, int scope) {
    materialize(id);
    const value_rec &v = values[id];
    if (v.scope == scope)
      return v.name;
    scope_rec &s = scopes[scope];
    auto it = s.bound.find(id);
    if (it != s.bound.end())
      return it->second;
    if (s.parent < 0 || !is_enclosing(v.scope, scope)) {
      error("a use of " + v.name,
            "the value is defined in " + scopes[v.scope].display +
                ", which does not enclose this use (a block's values leave "
                "it only as its results)");
      return v.name;
    }
    std::string outer = resolve(id, s.parent);
    std::string arg = fresh("a");
    scopes[scope].bindings.push_back(
        {arg, outer, tensor_type(values[id].shape, values[id].elem)});
    scopes[scope].bound[id] = arg;
    return arg;
  }

  bool is_enclosing(int outer, int inner) const {
    for (int s = inner; s >= 0; s = scopes[s].parent)
      if (s == outer)
        return scopes[s].open;
    return false;
  }

  std::string type_of(int id) const {
    return tensor_type(values[id].shape, values[id].elem);
  }

  std::string render() const {
    std::string out =
        "mix.network " + symbol(name) + " precision(" + precision + ") (";
    for (size_t i = 0; i < inputs.size(); ++i)
      out += (i ? ", " : "") + values[inputs[i].second].name + ": " +
             type_of(inputs[i].second);
    out += ")";
    if (!outputs.empty()) {
      out += " -> ";
      out += outputs.size() == 1 ? "" : "(";
      for (size_t i = 0; i < outputs.size(); ++i)
        out += (i ? ", " : "") + type_of(outputs[i]);
      out += outputs.size() == 1 ? "" : ")";
    }
    out += " {\n";
    render_scope(0, "  ", out);
    out += "  mix.return";
    render_values(scopes[0].yields, out);
    out += "\n}\n";
    return out;
  }

  void render_values(const std::vector<int> &ids, std::string &out) const {
    if (ids.empty())
      return;
    for (size_t i = 0; i < ids.size(); ++i)
      out += (i ? ", " : " ") + values[ids[i]].name;
    out += " :";
    for (size_t i = 0; i < ids.size(); ++i)
      out += (i ? ", " : " ") + type_of(ids[i]);
  }

  void render_scope(int scope, const std::string &indent,
                    std::string &out) const {
    for (int id : scopes[scope].ops)
      render_op(ops[id], indent, out);
  }

  void render_op(const op_rec &op, const std::string &indent,
                 std::string &out) const {
    out += indent;
    for (size_t i = 0; i < op.results.size(); ++i)
      out += (i ? ", " : "") + values[op.results[i]].name;
    if (!op.results.empty())
      out += " = ";
    if (op.kind == op_rec::weight) {
      out += "mix.weight " + op.weight_body + " : " + type_of(op.results[0]) +
             "\n";
      return;
    }
    if (op.kind == op_rec::block) {
      const scope_rec &body = scopes[op.body];
      out += "mix.block";
      if (!op.sym.empty())
        out += " " + symbol(op.sym);
      if (!op.precision.empty())
        out += " precision(" + op.precision + ")";
      out += " (";
      for (size_t i = 0; i < body.bindings.size(); ++i)
        out += (i ? ", " : "") + body.bindings[i].arg + " = " +
               body.bindings[i].outer;
      out += ") : (";
      for (size_t i = 0; i < body.bindings.size(); ++i)
        out += (i ? ", " : "") + body.bindings[i].type;
      out += ") -> ";
      out += op.results.size() == 1 ? "" : "(";
      for (size_t i = 0; i < op.results.size(); ++i)
        out += (i ? ", " : "") + type_of(op.results[i]);
      out += op.results.size() == 1 ? "" : ")";
      out += " {\n";
      render_scope(op.body, indent + "  ", out);
      out += indent + "  mix.yield";
      render_values(body.yields, out);
      out += "\n" + indent + "}\n";
      return;
    }
    out += "mix." + op.mnemonic;
    for (size_t i = 0; i < op.operands.size(); ++i)
      out += (i ? ", " : " ") + op.operands[i];
    static const char *const names[] = {"weights", "activations", "accumulator",
                                        "output"};
    std::string clause = op.precision;
    for (int p = 0; p < 4; ++p)
      if (!op.props[p].empty())
        clause += (clause.empty() ? "" : ", ") + std::string(names[p]) + " = " +
                  op.props[p];
    if (!clause.empty())
      out += " precision(" + clause + ")";
    if (!op.attrs.empty()) {
      out += " {";
      for (size_t i = 0; i < op.attrs.size(); ++i)
        out += (i ? ", " : "") + op.attrs[i];
      out += "}";
    }
    out += " : (";
    for (size_t i = 0; i < op.operand_types.size(); ++i)
      out += (i ? ", " : "") + op.operand_types[i];
    out += ") -> " + type_of(op.results[0]) + "\n";
  }
};

/// The network being built on this thread.
inline builder *&current_builder() {
  static thread_local builder *b = nullptr;
  return b;
}

inline builder &active(const char *what) {
  builder *b = current_builder();
  if (!b) {
    std::fprintf(stderr, "mix::dsl: %s called outside network(...).body(...)\n",
                 what);
    std::abort();
  }
  return *b;
}

} // namespace detail

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

/// A value of the network being built: its shape and element type are
/// known as soon as it exists. A tensor refers to its network's builder: use
/// it inside that network's body only.
class tensor {
public:
  tensor() = default;
  const shape_t &shape() const { return rec().shape; }
  int64_t rank() const { return static_cast<int64_t>(shape().size()); }
  /// Dimension `i` (negative: from the end).
  int64_t dim(int64_t i) const { return shape()[i < 0 ? i + rank() : i]; }
  const std::string &element_type() const { return rec().elem; }
  /// The MLIR type, e.g. "tensor<2x16x8x8xf32>".
  std::string type() const { return detail::tensor_type(shape(), rec().elem); }
  bool valid() const { return b != nullptr; }

  // Internal.
  tensor(detail::builder *b, int id) : b(b), id(id) {}
  detail::builder *b = nullptr;
  int id = -1;

private:
  const detail::value_rec &rec() const { return b->values[id]; }
};

/// An input of a network: a name and a type (element type E: f32 by
/// default; i32/i64 for labels and token ids; a leading dimension may be
/// `dynamic`, the batch).
struct input_spec {
  std::string name;
  shape_t shape;
  std::string elem;
};
template <class E = f32> input_spec input(std::string name, shape_t shape) {
  static_assert(std::is_base_of<precision_tag, E>::value &&
                    (E::is_float || E::is_index),
                "mix: a network input has a float (f64, f32, f16, bf16) or "
                "index (i32, i64) element type; int8 is a precision, set it "
                "on layers or blocks");
  return {std::move(name), std::move(shape), E::spelling()};
}

//===----------------------------------------------------------------------===//
// Layer options
//===----------------------------------------------------------------------===//

struct strides {
  shape_t v;
  explicit strides(int64_t s) : v{s, s} {}
  strides(int64_t h, int64_t w) : v{h, w} {}
};
struct dilations {
  shape_t v;
  explicit dilations(int64_t d) : v{d, d} {}
  dilations(int64_t h, int64_t w) : v{h, w} {}
};
struct kernel {
  shape_t v;
  explicit kernel(int64_t k) : v{k, k} {}
  kernel(int64_t h, int64_t w) : v{h, w} {}
};
/// [top, left, bottom, right]; padding(p) pads all four sides, padding(h, w)
/// top/bottom and left/right.
struct padding {
  shape_t v;
  explicit padding(int64_t p) : v{p, p, p, p} {}
  padding(int64_t h, int64_t w) : v{h, w, h, w} {}
  padding(int64_t t, int64_t l, int64_t b, int64_t r) : v{t, l, b, r} {}
};
struct groups {
  int64_t v;
  explicit groups(int64_t g) : v(g) {}
};
struct epsilon {
  double v;
  explicit epsilon(double e) : v(e) {}
};
struct axis {
  int64_t v;
  explicit axis(int64_t a) : v(a) {}
};
struct num_heads {
  int64_t v;
  explicit num_heads(int64_t n) : v(n) {}
};
struct num_groups {
  int64_t v;
  explicit num_groups(int64_t n) : v(n) {}
};
struct start_dim {
  int64_t v;
  explicit start_dim(int64_t d) : v(d) {}
};
struct causal {
  bool v;
  explicit causal(bool c = true) : v(c) {}
};
struct approximate {
  bool v;
  explicit approximate(bool a = true) : v(a) {}
};
struct ceil_mode {
  bool v;
  explicit ceil_mode(bool c = true) : v(c) {}
};
struct count_include_pad {
  bool v;
  explicit count_include_pad(bool c = true) : v(c) {}
};
struct keepdims {
  bool v;
  explicit keepdims(bool k = true) : v(k) {}
};
struct axes {
  shape_t v;
  axes(std::initializer_list<int64_t> a) : v(a) {}
};
struct alpha {
  double v;
  explicit alpha(double a) : v(a) {}
};
struct beta {
  double v;
  explicit beta(double b) : v(b) {}
};

namespace detail {
template <class T> struct is_option : std::false_type {};
#define MIX_DSL_OPTION(T)                                                      \
  template <> struct is_option<T> : std::true_type {};
MIX_DSL_OPTION(strides)
MIX_DSL_OPTION(dilations)
MIX_DSL_OPTION(kernel)
MIX_DSL_OPTION(padding)
MIX_DSL_OPTION(groups)
MIX_DSL_OPTION(epsilon)
MIX_DSL_OPTION(axis)
MIX_DSL_OPTION(num_heads)
MIX_DSL_OPTION(num_groups)
MIX_DSL_OPTION(start_dim)
MIX_DSL_OPTION(causal)
MIX_DSL_OPTION(approximate)
MIX_DSL_OPTION(ceil_mode)
MIX_DSL_OPTION(count_include_pad)
MIX_DSL_OPTION(keepdims)
MIX_DSL_OPTION(axes)
MIX_DSL_OPTION(alpha)
MIX_DSL_OPTION(beta)
#undef MIX_DSL_OPTION

template <class... T> struct all_options : std::true_type {};
template <class T, class... R>
struct all_options<T, R...>
    : std::integral_constant<bool, is_option<std::decay_t<T>>::value &&
                                       all_options<R...>::value> {};
template <class... T>
using if_options = std::enable_if_t<all_options<T...>::value, int>;

/// The attributes a layer takes, each with its default (attributes equal to
/// their default are not written, as the printer would drop them).
/// Unaccepted options are compile-time errors.
template <class Op> struct options : Op::opts {
  using Op::opts::set;
  template <class T> void set(const T &) {
    static_assert(always_false<T>::value,
                  "mix: this layer does not take this option (see the "
                  "layer's attributes in docs/dialect.md)");
  }
};
} // namespace detail

//===----------------------------------------------------------------------===//
// Layers: the op descriptions
//===----------------------------------------------------------------------===//

namespace ops {
using attrs_t = std::vector<std::string>;
struct no_opts {
  void set() {}
  void attrs(attrs_t &) const {}
};
#define MIX_DSL_SIMPLE_OP(NAME, WEIGHTS)                                       \
  struct NAME {                                                                \
    static constexpr const char *mnemonic = #NAME;                             \
    static constexpr bool has_weights = WEIGHTS;                               \
    using opts = no_opts;                                                      \
  };
MIX_DSL_SIMPLE_OP(relu, false)
MIX_DSL_SIMPLE_OP(sigmoid, false)
MIX_DSL_SIMPLE_OP(tanh, false)
MIX_DSL_SIMPLE_OP(hard_swish, false)
MIX_DSL_SIMPLE_OP(silu, false)
MIX_DSL_SIMPLE_OP(exp, false)
MIX_DSL_SIMPLE_OP(log, false)
MIX_DSL_SIMPLE_OP(sqrt, false)
MIX_DSL_SIMPLE_OP(rsqrt, false)
MIX_DSL_SIMPLE_OP(abs, false)
MIX_DSL_SIMPLE_OP(neg, false)
MIX_DSL_SIMPLE_OP(erf, false)
MIX_DSL_SIMPLE_OP(reciprocal, false)
MIX_DSL_SIMPLE_OP(floor, false)
MIX_DSL_SIMPLE_OP(ceil, false)
MIX_DSL_SIMPLE_OP(round, false)
MIX_DSL_SIMPLE_OP(sign, false)
MIX_DSL_SIMPLE_OP(sin, false)
MIX_DSL_SIMPLE_OP(cos, false)
MIX_DSL_SIMPLE_OP(tan, false)
MIX_DSL_SIMPLE_OP(asin, false)
MIX_DSL_SIMPLE_OP(acos, false)
MIX_DSL_SIMPLE_OP(atan, false)
MIX_DSL_SIMPLE_OP(sinh, false)
MIX_DSL_SIMPLE_OP(cosh, false)
MIX_DSL_SIMPLE_OP(asinh, false)
MIX_DSL_SIMPLE_OP(acosh, false)
MIX_DSL_SIMPLE_OP(atanh, false)
MIX_DSL_SIMPLE_OP(add, false)
MIX_DSL_SIMPLE_OP(mul, false)
MIX_DSL_SIMPLE_OP(sub, false)
MIX_DSL_SIMPLE_OP(div, false)
MIX_DSL_SIMPLE_OP(pow, false)
MIX_DSL_SIMPLE_OP(maximum, false)
MIX_DSL_SIMPLE_OP(minimum, false)
MIX_DSL_SIMPLE_OP(dense, true)
MIX_DSL_SIMPLE_OP(matmul, false)
MIX_DSL_SIMPLE_OP(global_avg_pool, false)
MIX_DSL_SIMPLE_OP(reshape, false)
MIX_DSL_SIMPLE_OP(embedding, true)
MIX_DSL_SIMPLE_OP(cross_entropy_loss, false)
MIX_DSL_SIMPLE_OP(mse_loss, false)
#undef MIX_DSL_SIMPLE_OP

struct conv2d {
  static constexpr const char *mnemonic = "conv2d";
  static constexpr bool has_weights = true;
  struct opts {
    shape_t strides{1, 1}, padding{0, 0, 0, 0}, dilations{1, 1};
    int64_t groups = 1;
    void set(const dsl::strides &o) { strides = o.v; }
    void set(const dsl::padding &o) { padding = o.v; }
    void set(const dsl::dilations &o) { dilations = o.v; }
    void set(const dsl::groups &o) { groups = o.v; }
    void attrs(attrs_t &a) const {
      if (strides != shape_t{1, 1})
        a.push_back("strides = " + detail::i64_array(strides));
      if (padding != shape_t{0, 0, 0, 0})
        a.push_back("padding = " + detail::i64_array(padding));
      if (dilations != shape_t{1, 1})
        a.push_back("dilations = " + detail::i64_array(dilations));
      if (groups != 1)
        a.push_back("groups = " + std::to_string(groups) + " : i64");
    }
  };
};

struct max_pool2d {
  static constexpr const char *mnemonic = "max_pool2d";
  static constexpr bool has_weights = false;
  struct opts {
    shape_t kernel, strides{1, 1}, padding{0, 0, 0, 0}, dilations{1, 1};
    bool ceil_mode = false;
    void set(const dsl::kernel &o) { kernel = o.v; }
    void set(const dsl::strides &o) { strides = o.v; }
    void set(const dsl::padding &o) { padding = o.v; }
    void set(const dsl::dilations &o) { dilations = o.v; }
    void set(const dsl::ceil_mode &o) { ceil_mode = o.v; }
    void attrs(attrs_t &a) const {
      a.push_back("kernel = " + detail::i64_array(kernel));
      if (strides != shape_t{1, 1})
        a.push_back("strides = " + detail::i64_array(strides));
      if (padding != shape_t{0, 0, 0, 0})
        a.push_back("padding = " + detail::i64_array(padding));
      if (dilations != shape_t{1, 1})
        a.push_back("dilations = " + detail::i64_array(dilations));
      if (ceil_mode)
        a.push_back("ceil_mode = true");
    }
  };
};

struct avg_pool2d {
  static constexpr const char *mnemonic = "avg_pool2d";
  static constexpr bool has_weights = false;
  struct opts {
    shape_t kernel, strides{1, 1}, padding{0, 0, 0, 0}, dilations{1, 1};
    bool ceil_mode = false, count_include_pad = false;
    void set(const dsl::kernel &o) { kernel = o.v; }
    void set(const dsl::strides &o) { strides = o.v; }
    void set(const dsl::padding &o) { padding = o.v; }
    void set(const dsl::count_include_pad &o) { count_include_pad = o.v; }
    void attrs(attrs_t &a) const {
      a.push_back("kernel = " + detail::i64_array(kernel));
      if (strides != shape_t{1, 1})
        a.push_back("strides = " + detail::i64_array(strides));
      if (padding != shape_t{0, 0, 0, 0})
        a.push_back("padding = " + detail::i64_array(padding));
      if (count_include_pad)
        a.push_back("count_include_pad = true");
    }
  };
};

struct eps_opts {
  double epsilon = 1.0e-5;
  void set(const dsl::epsilon &o) { epsilon = o.v; }
  void attrs(attrs_t &a) const {
    if (epsilon != 1.0e-5)
      a.push_back("epsilon = " + detail::format_double(epsilon) + " : f64");
  }
};

struct batch_norm {
  static constexpr const char *mnemonic = "batch_norm";
  static constexpr bool has_weights = true;
  using opts = eps_opts;
};
struct instance_norm {
  static constexpr const char *mnemonic = "instance_norm";
  static constexpr bool has_weights = true;
  using opts = eps_opts;
};
struct layer_norm {
  static constexpr const char *mnemonic = "layer_norm";
  static constexpr bool has_weights = true;
  struct opts : eps_opts {
    using eps_opts::set;
    int64_t axis = -1;
    void set(const dsl::axis &o) { axis = o.v; }
    void attrs(attrs_t &a) const {
      eps_opts::attrs(a);
      if (axis != -1)
        a.push_back("axis = " + std::to_string(axis) + " : i64");
    }
  };
};
struct group_norm {
  static constexpr const char *mnemonic = "group_norm";
  static constexpr bool has_weights = true;
  struct opts : eps_opts {
    using eps_opts::set;
    int64_t num_groups = 0;
    void set(const dsl::num_groups &o) { num_groups = o.v; }
    void attrs(attrs_t &a) const {
      eps_opts::attrs(a);
      a.push_back("num_groups = " + std::to_string(num_groups) + " : i64");
    }
  };
};

struct axis_opts {
  int64_t axis = -1;
  void set(const dsl::axis &o) { axis = o.v; }
  void attrs(attrs_t &a) const {
    if (axis != -1)
      a.push_back("axis = " + std::to_string(axis) + " : i64");
  }
};
struct softmax {
  static constexpr const char *mnemonic = "softmax";
  static constexpr bool has_weights = false;
  using opts = axis_opts;
};
struct log_softmax {
  static constexpr const char *mnemonic = "log_softmax";
  static constexpr bool has_weights = false;
  using opts = axis_opts;
};

struct gelu {
  static constexpr const char *mnemonic = "gelu";
  static constexpr bool has_weights = false;
  struct opts {
    bool approximate = false;
    void set(const dsl::approximate &o) { approximate = o.v; }
    void attrs(attrs_t &a) const {
      if (approximate)
        a.push_back("approximate = true");
    }
  };
};

struct flatten {
  static constexpr const char *mnemonic = "flatten";
  static constexpr bool has_weights = false;
  struct opts {
    int64_t start_dim = 1;
    void set(const dsl::start_dim &o) { start_dim = o.v; }
    void attrs(attrs_t &a) const {
      if (start_dim != 1)
        a.push_back("start_dim = " + std::to_string(start_dim) + " : i64");
    }
  };
};

struct attention {
  static constexpr const char *mnemonic = "attention";
  static constexpr bool has_weights = true;
  struct opts {
    int64_t num_heads = 0;
    bool causal = false;
    void set(const dsl::num_heads &o) { num_heads = o.v; }
    void set(const dsl::causal &o) { causal = o.v; }
    void attrs(attrs_t &a) const {
      if (causal)
        a.push_back("causal = true");
      a.push_back("num_heads = " + std::to_string(num_heads) + " : i64");
    }
  };
};

struct leaky_relu {
  static constexpr const char *mnemonic = "leaky_relu";
  static constexpr bool has_weights = false;
  struct opts {
    double alpha = 0.01;
    void set(const dsl::alpha &o) { alpha = o.v; }
    void attrs(attrs_t &a) const {
      if (alpha != 0.01)
        a.push_back("alpha = " + detail::format_double(alpha) + " : f64");
    }
  };
};
struct elu {
  static constexpr const char *mnemonic = "elu";
  static constexpr bool has_weights = false;
  struct opts {
    double alpha = 1.0;
    void set(const dsl::alpha &o) { alpha = o.v; }
    void attrs(attrs_t &a) const {
      if (alpha != 1.0)
        a.push_back("alpha = " + detail::format_double(alpha) + " : f64");
    }
  };
};
struct hard_sigmoid {
  static constexpr const char *mnemonic = "hard_sigmoid";
  static constexpr bool has_weights = false;
  struct opts {
    double alpha = 0.2, beta = 0.5;
    void set(const dsl::alpha &o) { alpha = o.v; }
    void set(const dsl::beta &o) { beta = o.v; }
    void attrs(attrs_t &a) const {
      if (alpha != 0.2)
        a.push_back("alpha = " + detail::format_double(alpha) + " : f64");
      if (beta != 0.5)
        a.push_back("beta = " + detail::format_double(beta) + " : f64");
    }
  };
};
struct clip {
  static constexpr const char *mnemonic = "clip";
  static constexpr bool has_weights = false;
  struct opts {
    double min = -HUGE_VAL, max = HUGE_VAL;
    void set() {}
    void attrs(attrs_t &a) const {
      if (min != -HUGE_VAL)
        a.push_back("min = " + detail::format_double(min) + " : f64");
      if (max != HUGE_VAL)
        a.push_back("max = " + detail::format_double(max) + " : f64");
    }
  };
};

struct transpose {
  static constexpr const char *mnemonic = "transpose";
  static constexpr bool has_weights = false;
  using opts = no_opts;
};
struct concat {
  static constexpr const char *mnemonic = "concat";
  static constexpr bool has_weights = false;
  using opts = no_opts;
};

template <const char *Mnemonic> struct reduce {
  static constexpr const char *mnemonic = Mnemonic;
  static constexpr bool has_weights = false;
  struct opts {
    shape_t axes;
    bool keepdims = true;
    void set(const dsl::axes &o) { axes = o.v; }
    void set(const dsl::keepdims &o) { keepdims = o.v; }
    void attrs(attrs_t &a) const {
      if (!axes.empty())
        a.push_back("axes = " + detail::i64_array(axes));
      if (!keepdims)
        a.push_back("keepdims = false");
    }
  };
};
inline constexpr char reduce_sum_name[] = "reduce_sum";
inline constexpr char reduce_mean_name[] = "reduce_mean";
inline constexpr char reduce_l2_name[] = "reduce_l2";
inline constexpr char reduce_prod_name[] = "reduce_prod";
inline constexpr char reduce_max_name[] = "reduce_max";
inline constexpr char reduce_min_name[] = "reduce_min";
} // namespace ops

//===----------------------------------------------------------------------===//
// Layer results: a tensor with per-property precision overrides
//===----------------------------------------------------------------------===//

/// The result of layer `Op`: a tensor, plus the property overrides of the
/// layer that made it (`dense(x, w).weights<int8>().accumulator<f32>()`).
template <class Op> class layer : public tensor {
public:
  layer(tensor t, int op) : tensor(t), op(op) {}

  /// Stores the layer's parameters in P.
  template <class P> layer weights() const {
    static_assert(Op::has_weights,
                  "mix: this layer has no weights, so it has no weights "
                  "precision to override");
    check<P>();
    return with(0, P::spelling());
  }
  /// Converts the layer's inputs to P, and computes in it.
  template <class P> layer activations() const {
    check<P>();
    return with(1, P::spelling());
  }
  /// Sums (dot products, reductions) in P.
  template <class P> layer accumulator() const {
    static_assert(detail::is_precision<P>(),
                  "mix: not a precision (f64, f32, f16, bf16, int8..., i32)");
    static_assert(!detail::is_int8<P>(),
                  "mix: int8 cannot be an accumulator precision (int8 "
                  "products accumulate in i32)");
    return with(2, P::spelling());
  }
  /// Stores the layer's result in P.
  template <class P> layer output() const {
    check<P>();
    return with(3, P::spelling());
  }

private:
  int op;
  template <class P> static constexpr void check() {
    static_assert(detail::is_precision<P>(),
                  "mix: not a precision (f64, f32, f16, bf16, int8..., i32)");
    static_assert(!detail::is_i32<P>(),
                  "mix: i32 is only an accumulator precision; it "
                  "cannot be a weights, activations or output "
                  "precision");
  }
  layer with(int property, std::string spelling) const {
    b->ops[op].props[property] = std::move(spelling);
    return *this;
  }
};

//===----------------------------------------------------------------------===//
// Building layers (internal)
//===----------------------------------------------------------------------===//

namespace detail {

template <class P> std::string layer_precision() {
  static_assert(is_scope_precision<P>(),
                "mix: a layer precision is f64, f32, f16, bf16 or an int8 "
                "(i32 is only an accumulator precision)");
  if constexpr (std::is_same<P, inherit>::value)
    return "";
  else
    return P::spelling();
}

inline builder &builder_of(std::initializer_list<const tensor *> operands,
                           const char *what) {
  for (const tensor *t : operands)
    if (t && t->b)
      return *t->b;
  return active(what);
}

/// Appends layer `Op` with `operands` (null entries are absent optional
/// operands) and a result of `shape`.
template <class Op>
layer<Op> emit(builder &b, const std::string &precision,
               const std::vector<const tensor *> &operands,
               const typename Op::opts &opts, shape_t shape, std::string elem) {
  op_rec op;
  op.kind = op_rec::layer;
  op.mnemonic = Op::mnemonic;
  op.precision = precision;
  op.scope = b.current;
  for (const tensor *t : operands) {
    if (!t)
      continue;
    if (t->b != &b) {
      b.error(std::string("mix.") + Op::mnemonic,
              "an operand belongs to another network (or is empty)");
      continue;
    }
    op.operands.push_back(b.resolve(t->id, b.current));
    op.operand_types.push_back(b.type_of(t->id));
  }
  opts.attrs(op.attrs);
  int result = b.new_value(std::move(shape), std::move(elem), Op::mnemonic);
  op.results.push_back(result);
  b.ops.push_back(std::move(op));
  int id = static_cast<int>(b.ops.size()) - 1;
  b.scopes[b.current].ops.push_back(id);
  return layer<Op>(tensor(&b, result), id);
}

template <class Op, class... Opts>
typename Op::opts make_opts(const Opts &...o) {
  options<Op> opts;
  (opts.set(o), ...);
  return opts;
}

inline std::string where(const char *op) { return std::string("mix.") + op; }

inline int64_t product(const shape_t &s, size_t from = 0) {
  int64_t n = 1;
  for (size_t i = from; i < s.size(); ++i)
    n *= s[i];
  return n;
}

/// Numpy broadcasting; `?` broadcasts with 1 and with `?`.
inline shape_t broadcast(builder &b, const char *op, const shape_t &x,
                         const shape_t &y) {
  size_t rank = std::max(x.size(), y.size());
  shape_t r(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - x.size() ? 1 : x[i - (rank - x.size())];
    int64_t c = i < rank - y.size() ? 1 : y[i - (rank - y.size())];
    if (a == c || c == 1)
      r[i] = a;
    else if (a == 1)
      r[i] = c;
    else {
      b.error(where(op), "shapes " + format_shape(x) + " and " +
                             format_shape(y) + " do not broadcast");
      r[i] = a;
    }
  }
  return r;
}

/// Output size of a window along one dimension (the verifiers' rule).
inline int64_t window_output(builder &b, const char *op, int64_t in,
                             int64_t before, int64_t after, int64_t window,
                             int64_t stride, int64_t dilation, bool ceil) {
  int64_t span = dilation * (window - 1) + 1;
  int64_t padded = in + before + after;
  if (stride <= 0 || window <= 0 || dilation <= 0 || padded < span) {
    b.error(where(op), "a window of extent " + std::to_string(span) +
                           " (stride " + std::to_string(stride) +
                           ") does not fit a dimension of " +
                           std::to_string(in) + " + padding " +
                           std::to_string(before + after));
    return 1;
  }
  int64_t size = (padded - span) / stride + 1;
  if (ceil) {
    if ((padded - span) % stride != 0)
      ++size;
    if ((size - 1) * stride >= in + before)
      --size;
  }
  return size;
}

inline bool expect_rank(builder &b, const char *op, const tensor &t,
                        const char *what, int64_t rank) {
  if (t.rank() == rank)
    return true;
  b.error(where(op), std::string(what) + " must have rank " +
                         std::to_string(rank) + ", got " +
                         format_shape(t.shape()));
  return false;
}

inline void expect_vector(builder &b, const char *op, const tensor &t,
                          const char *what, int64_t n) {
  if (t.shape() != shape_t{n})
    b.error(where(op), std::string(what) + " must be [" + std::to_string(n) +
                           "], got " + format_shape(t.shape()));
}

} // namespace detail

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

namespace detail {
inline tensor make_weight(builder &b, shape_t shape, std::string elem,
                          std::string body) {
  op_rec op;
  op.kind = op_rec::weight;
  op.weight_body = std::move(body);
  op.scope = b.current;
  int v = b.new_value(std::move(shape), std::move(elem), "w");
  op.results.push_back(v);
  b.ops.push_back(std::move(op));
  b.values[v].lazy_op = static_cast<int>(b.ops.size()) - 1;
  return tensor(&b, v);
}

template <class E> void check_weight_type() {
  static_assert(std::is_base_of<precision_tag, E>::value && E::is_float,
                "mix: weights are float tensors (f64, f32, f16, bf16) in "
                "the model; set an int8 storage with .weights<int8>()");
}

inline void nested(const shape_t &shape, size_t dim, const double *&data,
                   std::string &out) {
  if (dim == shape.size()) {
    out += format_double(*data++);
    return;
  }
  out += "[";
  for (int64_t i = 0; i < shape[dim]; ++i) {
    if (i)
      out += ", ";
    nested(shape, dim + 1, data, out);
  }
  out += "]";
}
} // namespace detail

/// An external weight: the tensor `name` of the weights file given to mixc
/// (`mix.weight external "name"`). (A template, so that a braced shape
/// never reads as a name: `weight({4, 3}, {...})` is inline data.)
template <
    class E = f32, class Name,
    std::enable_if_t<std::is_convertible<Name, std::string>::value, int> = 0>
tensor weight(const Name &name, shape_t shape) {
  detail::check_weight_type<E>();
  return detail::make_weight(detail::active("weight"), std::move(shape),
                             E::spelling(),
                             "external " + detail::quote(std::string(name)));
}

/// An inline weight with every element equal to `splat`.
template <class E = f32> tensor weight(shape_t shape, double splat) {
  detail::check_weight_type<E>();
  return detail::make_weight(detail::active("weight"), std::move(shape),
                             E::spelling(),
                             "dense<" + detail::format_double(splat) + ">");
}

/// An inline weight: `data` in row-major order (its size must be the
/// shape's element count).
template <class E = f32>
tensor weight(shape_t shape, const std::vector<double> &data) {
  detail::check_weight_type<E>();
  detail::builder &b = detail::active("weight");
  if (static_cast<int64_t>(data.size()) != detail::product(shape) ||
      std::count(shape.begin(), shape.end(), dynamic) != 0) {
    b.error("mix.weight", std::to_string(data.size()) +
                              " values do not fill the static shape " +
                              detail::format_shape(shape));
    return weight<E>(std::move(shape), 0.0);
  }
  std::string body = "dense<";
  const double *p = data.data();
  detail::nested(shape, 0, p, body);
  return detail::make_weight(b, std::move(shape), E::spelling(), body + ">");
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

#define MIX_DSL_OPTS_TEMPLATE                                                  \
  template <class P = inherit, class... Opts, detail::if_options<Opts...> = 0>

// Elementwise layers: the result has the input's shape.
#define MIX_DSL_UNARY(NAME)                                                    \
  MIX_DSL_OPTS_TEMPLATE                                                        \
  layer<ops::NAME> NAME(const tensor &x, const Opts &...o) {                   \
    detail::builder &b = detail::builder_of({&x}, #NAME);                      \
    return detail::emit<ops::NAME>(b, detail::layer_precision<P>(), {&x},      \
                                   detail::make_opts<ops::NAME>(o...),         \
                                   x.shape(), x.element_type());               \
  }
MIX_DSL_UNARY(relu)
MIX_DSL_UNARY(gelu)
MIX_DSL_UNARY(sigmoid)
MIX_DSL_UNARY(tanh)
MIX_DSL_UNARY(hard_swish)
MIX_DSL_UNARY(silu)
MIX_DSL_UNARY(exp)
MIX_DSL_UNARY(log)
MIX_DSL_UNARY(sqrt)
MIX_DSL_UNARY(rsqrt)
MIX_DSL_UNARY(abs)
MIX_DSL_UNARY(neg)
MIX_DSL_UNARY(erf)
MIX_DSL_UNARY(reciprocal)
MIX_DSL_UNARY(floor)
MIX_DSL_UNARY(ceil)
MIX_DSL_UNARY(round)
MIX_DSL_UNARY(sign)
MIX_DSL_UNARY(sin)
MIX_DSL_UNARY(cos)
MIX_DSL_UNARY(tan)
MIX_DSL_UNARY(asin)
MIX_DSL_UNARY(acos)
MIX_DSL_UNARY(atan)
MIX_DSL_UNARY(sinh)
MIX_DSL_UNARY(cosh)
MIX_DSL_UNARY(asinh)
MIX_DSL_UNARY(acosh)
MIX_DSL_UNARY(atanh)
MIX_DSL_UNARY(leaky_relu)
MIX_DSL_UNARY(elu)
MIX_DSL_UNARY(hard_sigmoid)
MIX_DSL_UNARY(softmax)
MIX_DSL_UNARY(log_softmax)
#undef MIX_DSL_UNARY

/// clip(x, min, max): relu6 is clip(x, 0, 6).
template <class P = inherit>
layer<ops::clip> clip(const tensor &x, double min, double max) {
  detail::builder &b = detail::builder_of({&x}, "clip");
  ops::clip::opts opts;
  opts.min = min;
  opts.max = max;
  return detail::emit<ops::clip>(b, detail::layer_precision<P>(), {&x}, opts,
                                 x.shape(), x.element_type());
}

// Broadcasting binary layers.
#define MIX_DSL_BINARY(NAME)                                                   \
  template <class P = inherit>                                                 \
  layer<ops::NAME> NAME(const tensor &x, const tensor &y) {                    \
    detail::builder &b = detail::builder_of({&x, &y}, #NAME);                  \
    shape_t shape = detail::broadcast(b, #NAME, x.shape(), y.shape());         \
    return detail::emit<ops::NAME>(b, detail::layer_precision<P>(), {&x, &y},  \
                                   {}, shape, x.element_type());               \
  }
MIX_DSL_BINARY(add)
MIX_DSL_BINARY(mul)
MIX_DSL_BINARY(sub)
MIX_DSL_BINARY(div)
MIX_DSL_BINARY(pow)
MIX_DSL_BINARY(maximum)
MIX_DSL_BINARY(minimum)
#undef MIX_DSL_BINARY

namespace detail {
template <class P>
layer<ops::dense> dense_impl(const tensor &x, const tensor &w,
                             const tensor *bias) {
  builder &b = builder_of({&x, &w}, "dense");
  shape_t shape = x.shape();
  if (w.rank() != 2 || x.rank() < 1) {
    b.error("mix.dense", "weight must be [K, N] and input [..., K], got " +
                             format_shape(x.shape()) + " and " +
                             format_shape(w.shape()));
  } else {
    if (x.dim(-1) != w.dim(0))
      b.error("mix.dense", "input " + format_shape(x.shape()) +
                               " has K = " + std::to_string(x.dim(-1)) +
                               " but weight " + format_shape(w.shape()) +
                               " has " + std::to_string(w.dim(0)) + " rows");
    shape.back() = w.dim(1);
    if (bias)
      expect_vector(b, "dense", *bias, "bias", w.dim(1));
  }
  return emit<ops::dense>(b, layer_precision<P>(), {&x, &w, bias}, {}, shape,
                          x.element_type());
}
} // namespace detail

/// x [..., K] times w [K, N] (+ bias [N]) -> [..., N].
template <class P = inherit>
layer<ops::dense> dense(const tensor &x, const tensor &w) {
  return detail::dense_impl<P>(x, w, nullptr);
}
template <class P = inherit>
layer<ops::dense> dense(const tensor &x, const tensor &w, const tensor &bias) {
  return detail::dense_impl<P>(x, w, &bias);
}

/// [..., M, K] x [..., K, N] -> [..., M, N] (equal batch dimensions).
template <class P = inherit>
layer<ops::matmul> matmul(const tensor &x, const tensor &y) {
  detail::builder &b = detail::builder_of({&x, &y}, "matmul");
  shape_t shape = x.shape();
  if (x.rank() < 2 || x.rank() != y.rank() ||
      !std::equal(x.shape().begin(), x.shape().end() - 2, y.shape().begin()) ||
      x.dim(-1) != y.dim(-2))
    b.error("mix.matmul", "shapes " + detail::format_shape(x.shape()) +
                              " and " + detail::format_shape(y.shape()) +
                              " are not [..., M, K] and [..., K, N]");
  else
    shape.back() = y.dim(-1);
  return detail::emit<ops::matmul>(b, detail::layer_precision<P>(), {&x, &y},
                                   {}, shape, x.element_type());
}

namespace detail {
template <class P>
layer<ops::conv2d> conv2d_impl(const tensor &x, const tensor &w,
                               const tensor *bias, const ops::conv2d::opts &o) {
  builder &b = builder_of({&x, &w}, "conv2d");
  shape_t shape = x.shape();
  if (expect_rank(b, "conv2d", x, "input", 4) &&
      expect_rank(b, "conv2d", w, "weight", 4) && o.strides.size() == 2 &&
      o.padding.size() == 4 && o.dilations.size() == 2) {
    if (o.groups <= 0 || x.dim(1) != w.dim(1) * o.groups ||
        w.dim(0) % o.groups != 0)
      b.error("mix.conv2d",
              "input " + format_shape(x.shape()) + " and weight " +
                  format_shape(w.shape()) +
                  " do not match: the input has C = weight[1] * groups (" +
                  std::to_string(o.groups) + ") channels");
    shape = {x.dim(0), w.dim(0),
             window_output(b, "conv2d", x.dim(2), o.padding[0], o.padding[2],
                           w.dim(2), o.strides[0], o.dilations[0], false),
             window_output(b, "conv2d", x.dim(3), o.padding[1], o.padding[3],
                           w.dim(3), o.strides[1], o.dilations[1], false)};
    if (bias)
      expect_vector(b, "conv2d", *bias, "bias", w.dim(0));
  }
  return emit<ops::conv2d>(b, layer_precision<P>(), {&x, &w, bias}, o, shape,
                           x.element_type());
}
} // namespace detail

/// input [N, C, H, W], weight [F, C/groups, KH, KW] (+ bias [F]) with
/// strides(...), padding(...), dilations(...), groups(...).
MIX_DSL_OPTS_TEMPLATE
layer<ops::conv2d> conv2d(const tensor &x, const tensor &w, const Opts &...o) {
  return detail::conv2d_impl<P>(x, w, nullptr,
                                detail::make_opts<ops::conv2d>(o...));
}
MIX_DSL_OPTS_TEMPLATE
layer<ops::conv2d> conv2d(const tensor &x, const tensor &w, const tensor &bias,
                          const Opts &...o) {
  return detail::conv2d_impl<P>(x, w, &bias,
                                detail::make_opts<ops::conv2d>(o...));
}

namespace detail {
template <class Op, class P>
layer<Op> pool_impl(const tensor &x, const typename Op::opts &o) {
  builder &b = builder_of({&x}, Op::mnemonic);
  shape_t shape = x.shape();
  if (o.kernel.size() != 2) {
    b.error(where(Op::mnemonic), "needs kernel(h, w)");
  } else if (expect_rank(b, Op::mnemonic, x, "input", 4)) {
    shape = {
        x.dim(0), x.dim(1),
        window_output(b, Op::mnemonic, x.dim(2), o.padding[0], o.padding[2],
                      o.kernel[0], o.strides[0], o.dilations[0], o.ceil_mode),
        window_output(b, Op::mnemonic, x.dim(3), o.padding[1], o.padding[3],
                      o.kernel[1], o.strides[1], o.dilations[1], o.ceil_mode)};
  }
  return emit<Op>(b, layer_precision<P>(), {&x}, o, shape, x.element_type());
}
} // namespace detail

/// [N, C, H, W] with kernel(...) (required), strides, padding, dilations,
/// ceil_mode.
MIX_DSL_OPTS_TEMPLATE
layer<ops::max_pool2d> max_pool2d(const tensor &x, const Opts &...o) {
  return detail::pool_impl<ops::max_pool2d, P>(
      x, detail::make_opts<ops::max_pool2d>(o...));
}
/// [N, C, H, W] with kernel(...) (required), strides, padding,
/// count_include_pad.
MIX_DSL_OPTS_TEMPLATE
layer<ops::avg_pool2d> avg_pool2d(const tensor &x, const Opts &...o) {
  return detail::pool_impl<ops::avg_pool2d, P>(
      x, detail::make_opts<ops::avg_pool2d>(o...));
}

/// [N, C, H, W] -> [N, C].
template <class P = inherit>
layer<ops::global_avg_pool> global_avg_pool(const tensor &x) {
  detail::builder &b = detail::builder_of({&x}, "global_avg_pool");
  shape_t shape = x.shape();
  if (detail::expect_rank(b, "global_avg_pool", x, "input", 4))
    shape = {x.dim(0), x.dim(1)};
  return detail::emit<ops::global_avg_pool>(b, detail::layer_precision<P>(),
                                            {&x}, {}, shape, x.element_type());
}

namespace detail {
/// batch_norm and instance_norm: input [N, C, ...], parameters [C].
template <class Op, class P>
layer<Op> channel_norm(std::vector<const tensor *> operands, size_t min_rank,
                       const typename Op::opts &o) {
  const tensor &x = *operands[0];
  builder &b = builder_of({&x}, Op::mnemonic);
  if (x.rank() < static_cast<int64_t>(min_rank))
    b.error(where(Op::mnemonic),
            "input must be [N, C, ...], got " + format_shape(x.shape()));
  else
    for (size_t i = 1; i < operands.size(); ++i)
      expect_vector(b, Op::mnemonic, *operands[i], "a parameter", x.dim(1));
  return emit<Op>(b, layer_precision<P>(), operands, o, x.shape(),
                  x.element_type());
}
} // namespace detail

/// Inference batch normalization: input [N, C, ...]; scale, bias, mean,
/// variance [C]; epsilon(...).
MIX_DSL_OPTS_TEMPLATE
layer<ops::batch_norm> batch_norm(const tensor &x, const tensor &scale,
                                  const tensor &bias, const tensor &mean,
                                  const tensor &variance, const Opts &...o) {
  return detail::channel_norm<ops::batch_norm, P>(
      {&x, &scale, &bias, &mean, &variance}, 2,
      detail::make_opts<ops::batch_norm>(o...));
}

/// input [N, C, D1, ...]; scale, bias [C]; epsilon(...).
MIX_DSL_OPTS_TEMPLATE
layer<ops::instance_norm> instance_norm(const tensor &x, const tensor &scale,
                                        const tensor &bias, const Opts &...o) {
  return detail::channel_norm<ops::instance_norm, P>(
      {&x, &scale, &bias}, 3, detail::make_opts<ops::instance_norm>(o...));
}

/// input [N, C, ...]; scale, bias [C]; num_groups(...) (required, divides
/// C), epsilon(...).
MIX_DSL_OPTS_TEMPLATE
layer<ops::group_norm> group_norm(const tensor &x, const tensor &scale,
                                  const tensor &bias, const Opts &...o) {
  auto opts = detail::make_opts<ops::group_norm>(o...);
  detail::builder &b = detail::builder_of({&x}, "group_norm");
  if (x.rank() >= 2 && (opts.num_groups <= 0 || x.dim(1) % opts.num_groups))
    b.error("mix.group_norm", "num_groups(" + std::to_string(opts.num_groups) +
                                  ") must divide the " +
                                  std::to_string(x.dim(1)) + " channels");
  return detail::channel_norm<ops::group_norm, P>({&x, &scale, &bias}, 2, opts);
}

/// Normalizes over the dimensions [axis, rank) (axis(-1) by default);
/// gamma and beta have the shape of those dimensions; epsilon(...).
MIX_DSL_OPTS_TEMPLATE
layer<ops::layer_norm> layer_norm(const tensor &x, const tensor &gamma,
                                  const tensor &beta, const Opts &...o) {
  auto opts = detail::make_opts<ops::layer_norm>(o...);
  detail::builder &b = detail::builder_of({&x}, "layer_norm");
  int64_t a = opts.axis < 0 ? opts.axis + x.rank() : opts.axis;
  if (a < 0 || a >= x.rank()) {
    b.error("mix.layer_norm", "axis " + std::to_string(opts.axis) +
                                  " is out of range for rank " +
                                  std::to_string(x.rank()));
  } else {
    shape_t normalized(x.shape().begin() + a, x.shape().end());
    for (const tensor *p : {&gamma, &beta})
      if (p->shape() != normalized)
        b.error("mix.layer_norm",
                "gamma and beta must be " + detail::format_shape(normalized) +
                    ", got " + detail::format_shape(p->shape()));
  }
  return detail::emit<ops::layer_norm>(b, detail::layer_precision<P>(),
                                       {&x, &gamma, &beta}, opts, x.shape(),
                                       x.element_type());
}

/// Keeps the dimensions before start_dim(...) (1 by default) and folds the
/// rest into one.
MIX_DSL_OPTS_TEMPLATE
layer<ops::flatten> flatten(const tensor &x, const Opts &...o) {
  auto opts = detail::make_opts<ops::flatten>(o...);
  detail::builder &b = detail::builder_of({&x}, "flatten");
  shape_t shape = x.shape();
  if (opts.start_dim < 0 || opts.start_dim >= std::max<int64_t>(x.rank(), 1)) {
    b.error("mix.flatten", "start_dim " + std::to_string(opts.start_dim) +
                               " is out of range for rank " +
                               std::to_string(x.rank()));
  } else {
    shape.assign(x.shape().begin(), x.shape().begin() + opts.start_dim);
    shape.push_back(detail::product(x.shape(), opts.start_dim));
  }
  return detail::emit<ops::flatten>(b, detail::layer_precision<P>(), {&x}, opts,
                                    shape, x.element_type());
}

/// The same elements in `shape` (a leading `dynamic` keeps the batch).
template <class P = inherit>
layer<ops::reshape> reshape(const tensor &x, shape_t shape) {
  detail::builder &b = detail::builder_of({&x}, "reshape");
  bool dyn = !x.shape().empty() && x.dim(0) == dynamic;
  bool dynOut = !shape.empty() && shape[0] == dynamic;
  if (dyn != dynOut ||
      detail::product(x.shape(), dyn) != detail::product(shape, dynOut))
    b.error("mix.reshape", "cannot reshape " + detail::format_shape(x.shape()) +
                               " to " + detail::format_shape(shape));
  return detail::emit<ops::reshape>(b, detail::layer_precision<P>(), {&x}, {},
                                    std::move(shape), x.element_type());
}

/// Result dimension i is input dimension permutation[i].
template <class P = inherit>
layer<ops::transpose> transpose(const tensor &x, shape_t permutation) {
  detail::builder &b = detail::builder_of({&x}, "transpose");
  shape_t shape = x.shape();
  std::vector<bool> seen(x.shape().size());
  bool ok = permutation.size() == x.shape().size();
  for (size_t i = 0; ok && i < permutation.size(); ++i) {
    int64_t p = permutation[i];
    ok = p >= 0 && p < x.rank() && !seen[p];
    if (ok) {
      seen[p] = true;
      shape[i] = x.dim(p);
    }
  }
  if (!ok)
    b.error("mix.transpose", detail::format_shape(permutation) +
                                 " is not a permutation of the dimensions "
                                 "of " +
                                 detail::format_shape(x.shape()));
  ops::transpose::opts none;
  auto result = detail::emit<ops::transpose>(
      b, detail::layer_precision<P>(), {&x}, none, shape, x.element_type());
  b.ops.back().attrs.push_back("permutation = " +
                               detail::i64_array(permutation));
  return result;
}

/// Joins `inputs` along `axis` (negative: from the end).
template <class P = inherit>
layer<ops::concat> concat(const std::vector<tensor> &inputs, int64_t axis) {
  detail::builder &b = inputs.empty() ? detail::active("concat")
                                      : detail::builder_of({&inputs[0]}, "");
  shape_t shape = inputs.empty() ? shape_t{} : inputs[0].shape();
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t a = axis < 0 ? axis + rank : axis;
  if (inputs.empty() || a < 0 || a >= rank) {
    b.error("mix.concat", "needs inputs and an axis within their rank");
  } else {
    shape[a] = 0;
    for (const tensor &t : inputs) {
      shape_t s = t.shape();
      if (static_cast<int64_t>(s.size()) != rank) {
        b.error("mix.concat", "inputs of different ranks");
        break;
      }
      shape[a] += s[a];
      s[a] = shape[a];
      if (s != shape)
        b.error("mix.concat", "input " + detail::format_shape(t.shape()) +
                                  " differs from the others outside axis " +
                                  std::to_string(axis));
    }
  }
  std::vector<const tensor *> operands;
  for (const tensor &t : inputs)
    operands.push_back(&t);
  auto result = detail::emit<ops::concat>(
      b, detail::layer_precision<P>(), operands, {}, shape,
      inputs.empty() ? "f32" : inputs[0].element_type());
  b.ops.back().attrs.push_back("axis = " + std::to_string(axis) + " : i64");
  return result;
}

/// indices (i32/i64) S, table [V, D] -> S + [D].
template <class P = inherit>
layer<ops::embedding> embedding(const tensor &indices, const tensor &table) {
  detail::builder &b = detail::builder_of({&indices, &table}, "embedding");
  shape_t shape = indices.shape();
  if (table.rank() != 2)
    b.error("mix.embedding",
            "table must be [V, D], got " + detail::format_shape(table.shape()));
  else
    shape.push_back(table.dim(1));
  return detail::emit<ops::embedding>(b, detail::layer_precision<P>(),
                                      {&indices, &table}, {}, shape,
                                      table.element_type());
}

/// Self-attention: input [B, S, E], wq, wk, wv, wo [E, E]; num_heads(...)
/// (required, divides E), causal().
MIX_DSL_OPTS_TEMPLATE
layer<ops::attention> attention(const tensor &x, const tensor &wq,
                                const tensor &wk, const tensor &wv,
                                const tensor &wo, const Opts &...o) {
  auto opts = detail::make_opts<ops::attention>(o...);
  detail::builder &b = detail::builder_of({&x}, "attention");
  if (detail::expect_rank(b, "attention", x, "input", 3)) {
    int64_t e = x.dim(2);
    for (const tensor *w : {&wq, &wk, &wv, &wo})
      if (w->shape() != shape_t{e, e})
        b.error("mix.attention", "projection weights must be [" +
                                     std::to_string(e) + ", " +
                                     std::to_string(e) + "], got " +
                                     detail::format_shape(w->shape()));
    if (opts.num_heads <= 0 || e % opts.num_heads != 0)
      b.error("mix.attention", "num_heads(" + std::to_string(opts.num_heads) +
                                   ") must divide E = " + std::to_string(e));
  }
  return detail::emit<ops::attention>(b, detail::layer_precision<P>(),
                                      {&x, &wq, &wk, &wv, &wo}, opts, x.shape(),
                                      x.element_type());
}

/// Mean cross entropy of logits [N, C] against labels [N] -> scalar.
template <class P = inherit>
layer<ops::cross_entropy_loss> cross_entropy_loss(const tensor &logits,
                                                  const tensor &labels) {
  detail::builder &b =
      detail::builder_of({&logits, &labels}, "cross_entropy_loss");
  if (logits.rank() != 2 || labels.shape() != shape_t{logits.dim(0)})
    b.error("mix.cross_entropy_loss",
            "logits must be [N, C] and labels [N], got " +
                detail::format_shape(logits.shape()) + " and " +
                detail::format_shape(labels.shape()));
  return detail::emit<ops::cross_entropy_loss>(
      b, detail::layer_precision<P>(), {&logits, &labels}, {}, shape_t{},
      logits.element_type());
}

/// Mean squared error of two tensors of one shape -> scalar.
template <class P = inherit>
layer<ops::mse_loss> mse_loss(const tensor &prediction, const tensor &target) {
  detail::builder &b = detail::builder_of({&prediction, &target}, "mse_loss");
  if (prediction.shape() != target.shape())
    b.error("mix.mse_loss",
            "shapes " + detail::format_shape(prediction.shape()) + " and " +
                detail::format_shape(target.shape()) + " differ");
  return detail::emit<ops::mse_loss>(b, detail::layer_precision<P>(),
                                     {&prediction, &target}, {}, shape_t{},
                                     prediction.element_type());
}

namespace detail {
template <const char *Name, class P, class... Opts>
layer<ops::reduce<Name>> reduce_impl(const tensor &x, const Opts &...o) {
  using Op = ops::reduce<Name>;
  auto opts = make_opts<Op>(o...);
  builder &b = builder_of({&x}, Name);
  std::vector<bool> reduced(x.shape().size(), opts.axes.empty());
  for (int64_t a : opts.axes) {
    int64_t d = a < 0 ? a + x.rank() : a;
    if (d < 0 || d >= x.rank())
      b.error(where(Name), "axis " + std::to_string(a) + " is out of range");
    else
      reduced[d] = true;
  }
  shape_t shape;
  for (size_t i = 0; i < reduced.size(); ++i)
    if (!reduced[i])
      shape.push_back(x.shape()[i]);
    else if (opts.keepdims)
      shape.push_back(1);
  return emit<Op>(b, layer_precision<P>(), {&x}, opts, shape, x.element_type());
}
} // namespace detail

#define MIX_DSL_REDUCE(NAME)                                                   \
  MIX_DSL_OPTS_TEMPLATE                                                        \
  layer<ops::reduce<ops::NAME##_name>> NAME(const tensor &x,                   \
                                            const Opts &...o) {                \
    return detail::reduce_impl<ops::NAME##_name, P>(x, o...);                  \
  }
MIX_DSL_REDUCE(reduce_sum)
MIX_DSL_REDUCE(reduce_mean)
MIX_DSL_REDUCE(reduce_l2)
MIX_DSL_REDUCE(reduce_prod)
MIX_DSL_REDUCE(reduce_max)
MIX_DSL_REDUCE(reduce_min)
#undef MIX_DSL_REDUCE
#undef MIX_DSL_OPTS_TEMPLATE

//===----------------------------------------------------------------------===//
// Blocks, networks, models
//===----------------------------------------------------------------------===//

namespace detail {
inline void collect(std::vector<tensor> &out, const tensor &t) {
  out.push_back(t);
}
template <class... T>
void collect(std::vector<tensor> &out, const std::tuple<T...> &t) {
  std::apply([&](const auto &...x) { (out.push_back(x), ...); }, t);
}
inline void collect(std::vector<tensor> &out, const std::vector<tensor> &t) {
  out.insert(out.end(), t.begin(), t.end());
}

/// Yields `results` from the current scope, which must define or see them.
inline void yield(builder &b, const std::vector<tensor> &results) {
  for (const tensor &t : results) {
    if (t.b != &b) {
      b.error("mix.yield", "a result belongs to another network (or is "
                           "empty)");
      continue;
    }
    std::string name = b.resolve(t.id, b.current);
    // A yielded value: by name in this scope.
    int id = t.id;
    if (b.values[id].scope != b.current) {
      // Bound from outside: yield the argument.
      value_rec arg = b.values[id];
      arg.scope = b.current;
      arg.name = name;
      arg.lazy_op = -1;
      b.values.push_back(arg);
      id = static_cast<int>(b.values.size()) - 1;
    }
    b.scopes[b.current].yields.push_back(id);
  }
}

template <class R> struct block_result {
  using type =
      std::conditional_t<std::is_convertible<R, tensor>::value, tensor, R>;
};
template <class... T> struct block_result<std::tuple<T...>> {
  using type = std::tuple<std::conditional_t<true, tensor, T>...>;
};

template <class Tuple, size_t... I>
Tuple rebuild_tuple(builder &b, const std::vector<int> &ids,
                    std::index_sequence<I...>) {
  return Tuple(tensor(&b, ids.at(I))...);
}

/// The block's results as the body returned them (layers become tensors).
template <class R> R rebuild(builder &b, const std::vector<int> &ids) {
  if constexpr (std::is_same<R, tensor>::value) {
    return tensor(&b, ids.at(0));
  } else if constexpr (std::is_same<R, std::vector<tensor>>::value) {
    std::vector<tensor> r;
    for (int id : ids)
      r.emplace_back(&b, id);
    return r;
  } else {
    return rebuild_tuple<R>(
        b, ids, std::make_index_sequence<std::tuple_size<R>::value>());
  }
}
} // namespace detail

/// A named block with precision P (inherit: none) whose layers are what
/// `body` builds; `body` returns the block's results: a tensor, a
/// std::tuple of tensors or a std::vector<tensor>. The block's inputs are
/// the outer tensors the body uses, bound in the order of first use.
template <class P = inherit, class F>
auto block(const std::string &name, F &&body) ->
    typename detail::block_result<decltype(body())>::type {
  static_assert(detail::is_scope_precision<P>(),
                "mix: a block precision is f64, f32, f16, bf16 or an int8 "
                "(i32 is only an accumulator precision)");
  using R = typename detail::block_result<decltype(body())>::type;
  detail::builder &b = detail::active("block");
  detail::op_rec op;
  op.kind = detail::op_rec::block;
  op.sym = name;
  op.precision = detail::layer_precision<P>();
  op.scope = b.current;
  detail::scope_rec scope;
  scope.parent = b.current;
  scope.display = "block " + (name.empty() ? "<unnamed>" : "@" + name);
  b.scopes.push_back(scope);
  int body_scope = static_cast<int>(b.scopes.size()) - 1;
  op.body = body_scope;
  int parent = b.current;
  b.current = body_scope;
  std::vector<tensor> results;
  detail::collect(results, body());
  detail::yield(b, results);
  b.scopes[body_scope].open = false;
  b.current = parent;
  std::vector<int> ids;
  for (int y : b.scopes[body_scope].yields)
    ids.push_back(b.new_value(b.values[y].shape, b.values[y].elem, "b"));
  op.results = ids;
  b.ops.push_back(std::move(op));
  b.scopes[parent].ops.push_back(static_cast<int>(b.ops.size()) - 1);
  return detail::rebuild<R>(b, ids);
}

/// An unnamed block.
template <class P = inherit, class F> auto block(F &&body) {
  return block<P>(std::string(), std::forward<F>(body));
}

/// The mix IR text of one or more networks, and the errors the DSL found.
class model {
public:
  /// The `mix` IR (parse it with mix-opt/mixc/mix-lint, or mix/dsl_mlir.h).
  const std::string &text() const { return text_; }
  /// True when the DSL found no error (the verifier may still find some).
  bool ok() const { return errors_.empty(); }
  /// One line per error: the op, its block or network, what is wrong.
  const std::vector<std::string> &errors() const { return errors_; }
  /// Appends the networks of `other`.
  model &operator+=(const model &other) {
    if (!text_.empty() && !other.text_.empty())
      text_ += "\n";
    text_ += other.text_;
    errors_.insert(errors_.end(), other.errors_.begin(), other.errors_.end());
    return *this;
  }
  /// Writes the text to `path`; false if it cannot.
  bool write(const std::string &path) const {
    std::ofstream out(path, std::ios::binary);
    out << text_;
    out.close();
    return static_cast<bool>(out);
  }

  // Internal.
  model(std::string text, std::vector<std::string> errors)
      : text_(std::move(text)), errors_(std::move(errors)) {}
  model() = default;

private:
  std::string text_;
  std::vector<std::string> errors_;
};

/// A network being defined: network<P>(name, input(...)...).body(f).
template <class P, size_t N> class network_def {
public:
  network_def(std::string name, std::vector<input_spec> inputs)
      : name(std::move(name)), inputs(std::move(inputs)) {}

  /// Builds the network: `f` takes the N inputs as tensors and returns the
  /// outputs (a tensor, a std::tuple of tensors or a std::vector<tensor>).
  template <class F> model body(F &&f) const {
    detail::builder b;
    b.name = name;
    b.precision = P::spelling();
    detail::scope_rec top;
    top.display = "network " + detail::symbol(name);
    b.scopes.push_back(top);
    std::vector<tensor> args;
    for (const input_spec &in : inputs) {
      int id = b.new_value(in.shape, in.elem, "");
      // The input's own name, unless it could clash with a generated one
      // (those end in a digit) or another input's.
      std::string own = "%" + in.name;
      bool usable = detail::is_bare_id(in.name) &&
                    in.name.find('$') == std::string::npos &&
                    !(in.name.back() >= '0' && in.name.back() <= '9');
      for (const auto &prev : b.inputs)
        usable = usable && b.values[prev.second].name != own;
      b.values[id].name = usable ? own : b.fresh("in");
      b.inputs.push_back({in.name, id});
      args.emplace_back(&b, id);
    }
    detail::builder *saved = detail::current_builder();
    detail::current_builder() = &b;
    std::vector<tensor> results;
    detail::collect(results, call(f, args, std::make_index_sequence<N>()));
    detail::yield(b, results);
    b.outputs = b.scopes[0].yields;
    detail::current_builder() = saved;
    return model(b.render(), b.errors);
  }

private:
  template <class F, size_t... I>
  static auto call(F &f, const std::vector<tensor> &args,
                   std::index_sequence<I...>) {
    return f(args[I]...);
  }
  std::string name;
  std::vector<input_spec> inputs;
};

/// A network with default precision P (f64, f32, f16, bf16 or int8).
template <class P, class... Inputs>
network_def<P, sizeof...(Inputs)> network(std::string name,
                                          Inputs &&...inputs) {
  static_assert(detail::is_scope_precision<P>() &&
                    !std::is_same<P, inherit>::value,
                "mix: a network precision is f64, f32, f16, bf16 or an int8 "
                "(i32 is only an accumulator precision)");
  static_assert((std::is_convertible<Inputs, input_spec>::value && ...),
                "mix: network inputs are input<E>(\"name\", {shape...})");
  return network_def<P, sizeof...(Inputs)>(
      std::move(name), std::vector<input_spec>{input_spec(inputs)...});
}

} // namespace dsl
} // namespace mix

#endif // MIX_DSL_H
