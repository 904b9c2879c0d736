package wasmskill

import (
	"fmt"
	"runtime/debug"
	"unicode/utf8"
)

// Handler answers one request. An error becomes an ERROR answer.
type Handler func(h Host, req *Request) (*Response, error)

// maxErrorMessage bounds an ERROR answer's message, in bytes.
const maxErrorMessage = 1024

// Answer runs fn on a JSON skill request and returns the JSON skill
// response: fn's answer, or an ERROR saying what failed when the request
// does not read, fn returns an error or no answer, or fn panics (logged
// with its stack through h). Serve calls it; tests call it with a fake
// Host.
func Answer(h Host, request []byte, fn Handler) []byte {
	req, err := ParseRequest(request)
	if err != nil {
		req = &Request{}
		return mustEncode(Fail(clip(err.Error())), req)
	}
	resp, err := call(h, req, fn)
	if err == nil && resp == nil {
		err = fmt.Errorf("the handler returned no answer and no error")
	}
	if err != nil {
		return mustEncode(Fail(clip(err.Error())), req)
	}
	out, err := resp.encode(req)
	if err != nil {
		return mustEncode(Fail(clip("encoding the answer: "+err.Error())), req)
	}
	return out
}

func call(h Host, req *Request, fn Handler) (resp *Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			h.Log(LevelError, fmt.Sprintf("panic: %v\n%s", p, debug.Stack()))
			resp, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	return fn(h, req)
}

// mustEncode encodes an ERROR answer, which cannot fail.
func mustEncode(r *Response, req *Request) []byte {
	out, err := r.encode(req)
	if err != nil {
		panic(err) // unreachable: an ERROR of a string always encodes
	}
	return out
}

func clip(s string) string {
	if len(s) <= maxErrorMessage {
		return s
	}
	cut := maxErrorMessage - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
