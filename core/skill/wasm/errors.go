package wasm

import "errors"

// Errors of loading and calling modules; each is wrapped with the skill
// and what happened.
var (
	// ErrBadModule: the module does not decode, validate or compile.
	ErrBadModule = errors.New("not a usable WebAssembly module")
	// ErrMissingExport: the module lacks an export the ABI requires, or
	// exports it with the wrong type.
	ErrMissingExport = errors.New("missing export")
	// ErrUnknownImport: the module imports something the host does not
	// offer.
	ErrUnknownImport = errors.New("unknown import")
	// ErrABIVersion: the module speaks another ABI version.
	ErrABIVersion = errors.New("unsupported ABI version")
	// ErrABI: the module broke the ABI during a call (a pointer outside
	// its memory, a second response, …).
	ErrABI = errors.New("ABI violation")
	// ErrTrap: the module trapped (unreachable, out-of-bounds access,
	// integer division by zero, …).
	ErrTrap = errors.New("trapped")
	// ErrExit: the module exited (proc_exit), as a Go module does on a
	// fatal error.
	ErrExit = errors.New("exited")
	// ErrMemoryLimit: the module needed more memory than its limit.
	ErrMemoryLimit = errors.New("memory limit reached")
	// ErrNoAnswer: the module returned without writing a response.
	ErrNoAnswer = errors.New("no answer")
	// ErrDisabled: the skill failed too often in a row and is off until
	// reinstalled or jibod restarts.
	ErrDisabled = errors.New("disabled")
	// ErrClosed: the skill or engine is closed.
	ErrClosed = errors.New("closed")
)
