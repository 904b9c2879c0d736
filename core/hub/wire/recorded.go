package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/internal/strictjson"
)

// Recorded-exchange format (examples/hub): JSON Lines, one message per
// line as {"dir": "robot"|"hub", "endpoint"?: "/v1/listen"|"/v1/proactive",
// "msg": {…}}, msg in the real robots' JSON shapes. endpoint, when given,
// is where the robot opened the transaction (default /v1/listen).
const (
	// DirRobot marks a message the robot sent.
	DirRobot = "robot"
	// DirHub marks a message the hub sent.
	DirHub = "hub"
	// EndpointListen is the hub's listen endpoint.
	EndpointListen = "/v1/listen"
	// EndpointProactive is the hub's proactive endpoint.
	EndpointProactive = "/v1/proactive"
	// MaxRecordedLines bounds the lines of one recorded exchange.
	MaxRecordedLines = 10000
)

// Recorded is one line of a recorded exchange, decoded and validated.
type Recorded struct {
	// Line is the 1-based line number.
	Line int
	// Dir is DirRobot or DirHub.
	Dir string
	// Endpoint is EndpointListen or EndpointProactive ("" when the line
	// names none).
	Endpoint string
	// Request is the message of a robot line.
	Request *protocol.HubRequest
	// Response is the message of a hub line.
	Response *protocol.HubResponse
	// Raw is the message as recorded.
	Raw json.RawMessage
}

// ReadRecorded reads a recorded exchange, decoding robot lines as
// HubRequest and hub lines as HubResponse; blank lines are skipped. Errors
// name the line.
func ReadRecorded(r io.Reader) ([]Recorded, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxFrameSize+4096)
	var out []Recorded
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if len(out) == MaxRecordedLines {
			return nil, fmt.Errorf("recorded exchange: more than %d lines", MaxRecordedLines)
		}
		rec, err := parseRecorded(line)
		if err != nil {
			return nil, fmt.Errorf("recorded exchange line %d: %w", n, err)
		}
		rec.Line = n
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("recorded exchange: %w", err)
	}
	return out, nil
}

func parseRecorded(line []byte) (Recorded, error) {
	var l struct {
		Dir      string          `json:"dir"`
		Endpoint string          `json:"endpoint"`
		Msg      json.RawMessage `json:"msg"`
	}
	if err := strictjson.CheckMembers(line); err != nil {
		return Recorded{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return Recorded{}, err
	}
	rec := Recorded{Dir: l.Dir, Endpoint: l.Endpoint, Raw: l.Msg}
	switch l.Endpoint {
	case "", EndpointListen, EndpointProactive:
	default:
		return Recorded{}, fmt.Errorf("endpoint %q: want %q or %q", l.Endpoint, EndpointListen, EndpointProactive)
	}
	var err error
	switch l.Dir {
	case DirRobot:
		rec.Request, err = protocol.DecodeHubRequest(l.Msg)
	case DirHub:
		rec.Response, err = protocol.DecodeHubResponse(l.Msg)
	default:
		return Recorded{}, fmt.Errorf("dir %q: want %q or %q", l.Dir, DirRobot, DirHub)
	}
	if err != nil {
		return Recorded{}, err
	}
	return rec, nil
}
