// RUN: mix-opt %s -split-input-file -verify-diagnostics
//
// A network name is a C identifier outside the names of the runtime, of
// generated code and of the C implementation: the generated header declares
// _mlir_ciface_NAME and NAME_run.

// expected-error @+1 {{'mix.network' op name 'my-net' is not a C identifier (letters, digits and '_', not starting with a digit): the generated C header names the network's functions after it}}
mix.network @"my-net" precision(f32) () {
  mix.return
}

// -----

// expected-error @+1 {{'mix.network' op name '9lives' is not a C identifier}}
mix.network @"9lives" precision(f32) () {
  mix.return
}

// -----

// expected-error @+1 {{'mix.network' op name 'mixrt_check_fail' starts with 'mixrt_', a prefix reserved for the runtime and generated code}}
mix.network @mixrt_check_fail precision(f32) () {
  mix.return
}

// -----

// expected-error @+1 {{'mix.network' op name 'mixc_net_x' starts with 'mixc_', a prefix reserved for the runtime and generated code}}
mix.network @mixc_net_x precision(f32) () {
  mix.return
}

// -----

// expected-error @+1 {{'mix.network' op name '_mlir_ciface_x' starts with '_mlir_', a prefix reserved for the runtime and generated code}}
mix.network @_mlir_ciface_x precision(f32) () {
  mix.return
}

// -----

// expected-error @+1 {{'mix.network' op name '__x' is reserved in C (it starts with '__' or '_' and a capital)}}
mix.network @__x precision(f32) () {
  mix.return
}

// -----

// expected-error @+1 {{'mix.network' op name '_Net' is reserved in C (it starts with '__' or '_' and a capital)}}
mix.network @_Net precision(f32) () {
  mix.return
}

// -----

// Names of C library functions are fine (see Driver/libc-names.test).
mix.network @malloc precision(f32) () {
  mix.return
}
mix.network @_net2 precision(f32) () {
  mix.return
}
