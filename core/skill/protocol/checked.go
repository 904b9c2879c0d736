package protocol

import "errors"

// CheckedResponse is a response validated once (Response.Validate).
// Holding one is the proof that the response is valid, so whoever it is
// handed to (the skill invoker, jibod skills try, the local skill server)
// takes it without validating again. Only CheckResponse and
// DecodeCheckedResponse make one; its zero value holds no response.
//
// The response must not be modified afterwards: what the robot runs would
// no longer be what was checked.
type CheckedResponse struct {
	resp *Response
}

// CheckResponse validates r (see Response.Validate; the error is the same)
// and returns it checked.
func CheckResponse(r *Response) (*CheckedResponse, error) {
	if r == nil {
		return nil, errors.New("no response")
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return &CheckedResponse{resp: r}, nil
}

// DecodeCheckedResponse decodes and validates one JSON skill response as
// DecodeResponse does, with the same errors, and returns it checked.
func DecodeCheckedResponse(data []byte) (*CheckedResponse, error) {
	r, err := DecodeResponse(data)
	if err != nil {
		return nil, err
	}
	return &CheckedResponse{resp: r}, nil
}

// Response is the checked response; nil for the zero CheckedResponse.
func (c *CheckedResponse) Response() *Response {
	if c == nil {
		return nil
	}
	return c.resp
}
