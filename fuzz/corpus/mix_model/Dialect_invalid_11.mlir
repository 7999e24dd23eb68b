//===----------------------------------------------------------------------===//
// Decision and resolved attribute syntax
//===----------------------------------------------------------------------===//

// expected-error @+1 {{expected 'from'}}
module attributes {t.d = #mix.decision<f16 block @b>} {}
