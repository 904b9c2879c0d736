// Package wasm runs third-party skills as WebAssembly modules inside jibod,
// with wazero (pure Go, so the binary stays static), behind the same skill
// protocol, registry and invoker as every other skill.
//
// An Engine loads skill packages (core/skill/wasm/skillpkg): it compiles
// each module once, keeping compiled code in a cache folder across
// restarts, and checks its imports and exports against the ABI
// (docs/wasm-abi.md) before any of its code runs. The resulting Skill is a
// skill.Skill: the host hands it to the invoker, which applies the
// manifest's timeout, gates the actions it answers with by its
// permissions, and records every call.
//
// # Sandbox
//
// A module gets WASI with no preopened folders, no sockets, no
// environment and no arguments beyond its id, the real clocks and a secure
// random source; its standard output and error go to the robot's log. The
// only other thing it can call is the host API of ABI version 1, each
// function checked against the manifest and logged: key–value storage
// (permission storage), HTTP fetch from the manifest's network_hosts
// (permission network; off while the robot is offline), the clock,
// logging and the robot's state. A host call the manifest does not permit
// ends the request with a *registry.DeniedError.
//
// # Limits
//
// Each skill has a runtime of its own whose linear memory is capped at the
// manifest's limits.memory_mib (DefaultMemoryMiB when it gives none). A
// call runs under the invoker's deadline and is stopped there, even in an
// endless loop; so does starting an instance (its _initialize, then
// jibo_abi_version), under StartTimeout (the manifest's timeout, at least
// MinStartTimeout), at load, at `jibod skills install` and after a failed
// call. LoadAll loads several
// packages at once (MaxConcurrentLoads), so the robot starts with the
// skills that load, at most about one start-up limit late.
//
// # Compile cache
//
// Compiled modules are kept in Config.CacheDir. The cache is derived data:
// an entry that cannot be read (torn by a power cut, emptied, garbled) is
// replaced by compiling its module again, with a WARN; see
// docs/state-files.md. Calls to one skill are made one at a time on one module
// instance, reused between calls; an instance that failed (trap, exit,
// deadline, refused host call) is thrown away and the next call starts a
// fresh one. A skill that fails MaxFailures calls in a row is disabled: its
// calls fail at once until it is replaced: its package installed again (the
// install has the running robot load the new copy, package installed) or
// jibod restarted.
package wasm
