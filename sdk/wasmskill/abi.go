package wasmskill

// ABI version 1, as docs/wasm-abi.md describes it. The host checks that a
// module's jibo_abi_version export returns ABIVersion.
const (
	// Version is this SDK's module version: the module
	// github.com/openjibo/jibod/sdk/wasmskill is tagged
	// sdk/wasmskill/<Version> and requires nothing.
	Version = "v0.1.0"
	// ABIVersion is the version of the ABI this SDK speaks.
	ABIVersion = 1
	// ImportModule is the module name of the host functions.
	ImportModule = "jibo_v1"
	// ExportHandle is the function the host calls with each request.
	ExportHandle = "jibo_handle"
	// ExportABIVersion returns the module's ABI version.
	ExportABIVersion = "jibo_abi_version"
)

// Codes the host functions return (negative) when a call did not succeed;
// the pending result then holds the message.
const (
	// CodeInvalid: an argument was malformed or over a size limit.
	CodeInvalid int32 = -1
	// CodeNotFound: kv_get of a key the skill does not hold.
	CodeNotFound int32 = -2
	// CodeQuota: a kv_set over the skill's storage quota.
	CodeQuota int32 = -3
	// CodeOffline: http_fetch while the robot is offline.
	CodeOffline int32 = -4
	// CodeNetwork: the fetch failed: no connection, a timeout, a refused
	// redirect.
	CodeNetwork int32 = -5
	// CodeTooLarge: the fetched body was over the size limit.
	CodeTooLarge int32 = -6
	// CodeLimit: too many calls of this kind within one request.
	CodeLimit int32 = -7
	// CodeInternal: the host failed (its storage, say).
	CodeInternal int32 = -8
)

// Level is a log line's severity.
type Level int32

// The log levels.
const (
	LevelDebug Level = 0
	LevelInfo  Level = 1
	LevelWarn  Level = 2
	LevelError Level = 3
)
