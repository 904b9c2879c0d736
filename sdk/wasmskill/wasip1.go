//go:build wasip1

package wasmskill

import (
	"encoding/json"
	"fmt"
	"time"
	"unsafe"
)

// The host functions of ABI version 1 (docs/wasm-abi.md). Pointers and
// lengths are offsets into this module's memory.

//go:wasmimport jibo_v1 request_read
func hostRequestRead(ptr unsafe.Pointer, n int32) int32

//go:wasmimport jibo_v1 response_write
func hostResponseWrite(ptr unsafe.Pointer, n int32) int32

//go:wasmimport jibo_v1 result_read
func hostResultRead(ptr unsafe.Pointer, n int32) int32

//go:wasmimport jibo_v1 log
func hostLog(level int32, ptr unsafe.Pointer, n int32) int32

//go:wasmimport jibo_v1 clock_now
func hostClockNow() int64

//go:wasmimport jibo_v1 clock_utc_offset
func hostClockUTCOffset() int32

//go:wasmimport jibo_v1 robot_state
func hostRobotState() int32

//go:wasmimport jibo_v1 kv_get
func hostKVGet(key unsafe.Pointer, keyLen int32) int32

//go:wasmimport jibo_v1 kv_set
func hostKVSet(key unsafe.Pointer, keyLen int32, val unsafe.Pointer, valLen int32) int32

//go:wasmimport jibo_v1 kv_delete
func hostKVDelete(key unsafe.Pointer, keyLen int32) int32

//go:wasmimport jibo_v1 kv_keys
func hostKVKeys(prefix unsafe.Pointer, prefixLen int32) int32

//go:wasmimport jibo_v1 http_fetch
func hostHTTPFetch(req unsafe.Pointer, reqLen int32) int32

//go:wasmimport jibo_v1 dialog_render
func hostDialogRender(name unsafe.Pointer, nameLen int32, slots unsafe.Pointer, slotsLen int32) int32

// abiVersion tells the host which ABI this module speaks.
//
//go:wasmexport jibo_abi_version
func abiVersion() int32 { return ABIVersion }

// Serve answers the request the host is calling jibo_handle with: it
// reads the request, runs fn with the robot's Host and hands the answer
// back. Call it from the module's jibo_handle export with its argument; its
// result is jibo_handle's.
func Serve(requestLen int32, fn Handler) int32 {
	if requestLen <= 0 {
		return 1
	}
	req := make([]byte, requestLen)
	if hostRequestRead(unsafe.Pointer(&req[0]), requestLen) != 0 {
		return 2
	}
	out := Answer(wasmHost{}, req, fn)
	if hostResponseWrite(ptr(out), int32(len(out))) != 0 {
		return 3
	}
	return 0
}

func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

func str(s string) (unsafe.Pointer, int32) {
	if s == "" {
		return nil, 0
	}
	return unsafe.Pointer(unsafe.StringData(s)), int32(len(s))
}

// result fetches the pending result of a host call that returned n: its
// bytes when n >= 0, else an *Error with the host's message.
func result(op string, n int32) ([]byte, error) {
	if n < 0 {
		msg := "failed"
		// The message is pending; its length is not known, so read up to
		// a bound and let the host say how much it wrote.
		buf := make([]byte, 1024)
		if m := hostResultRead(unsafe.Pointer(&buf[0]), int32(len(buf))); m >= 0 {
			msg = string(buf[:m])
		}
		return nil, &Error{Op: op, Code: n, Message: msg}
	}
	buf := make([]byte, n)
	if n > 0 {
		if m := hostResultRead(unsafe.Pointer(&buf[0]), n); m != n {
			return nil, &Error{Op: op, Code: CodeInternal, Message: fmt.Sprintf("result of %d bytes, read %d", n, m)}
		}
	}
	return buf, nil
}

// wasmHost is the robot's host API, through the imports.
type wasmHost struct{}

func (wasmHost) Get(key string) ([]byte, error) {
	p, n := str(key)
	return result("kv_get", hostKVGet(p, n))
}

func (wasmHost) Set(key string, value []byte) error {
	p, n := str(key)
	_, err := result("kv_set", hostKVSet(p, n, ptr(value), int32(len(value))))
	return err
}

func (wasmHost) Delete(key string) error {
	p, n := str(key)
	_, err := result("kv_delete", hostKVDelete(p, n))
	return err
}

func (wasmHost) Keys(prefix string) ([]string, error) {
	p, n := str(prefix)
	raw, err := result("kv_keys", hostKVKeys(p, n))
	if err != nil {
		return nil, err
	}
	var keys []string
	if err := json.Unmarshal(raw, &keys); err != nil {
		return nil, fmt.Errorf("kv_keys: %w", err)
	}
	return keys, nil
}

func (wasmHost) Fetch(req FetchRequest) (*FetchResponse, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("http_fetch: encoding the request: %w", err)
	}
	raw, err := result("http_fetch", hostHTTPFetch(ptr(in), int32(len(in))))
	if err != nil {
		return nil, err
	}
	var resp FetchResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("http_fetch: reading the response: %w", err)
	}
	return &resp, nil
}

func (wasmHost) Log(level Level, msg string) {
	p, n := str(msg)
	hostLog(int32(level), p, n)
}

func (wasmHost) Now() time.Time {
	t := time.Unix(0, hostClockNow())
	off := int(hostClockUTCOffset())
	return t.In(time.FixedZone("", off))
}

func (wasmHost) Dialog(name string, slots map[string]string) (string, error) {
	p, n := str(name)
	enc := encodeSlots(slots)
	raw, err := result("dialog_render", hostDialogRender(p, n, ptr(enc), int32(len(enc))))
	if err != nil {
		return "", err
	}
	return string(raw), nil
}

func (wasmHost) State() (State, error) {
	raw, err := result("robot_state", hostRobotState())
	if err != nil {
		return State{}, err
	}
	var st State
	if err := json.Unmarshal(raw, &st); err != nil {
		return State{}, fmt.Errorf("robot_state: %w", err)
	}
	return st, nil
}
