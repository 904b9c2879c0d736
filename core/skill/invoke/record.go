package invoke

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/internal/strictjson"
)

// Outcome is how a skill call ended.
type Outcome string

// The outcomes.
const (
	// OutcomeOK: the skill answered with a valid SKILL_ACTION or
	// SKILL_REDIRECT it is permitted.
	OutcomeOK Outcome = "ok"
	// OutcomeErrorResponse: the skill answered with an ERROR.
	OutcomeErrorResponse Outcome = "error-response"
	// OutcomeFailed: the call returned an error (or could not be made).
	OutcomeFailed Outcome = "failed"
	// OutcomeTimeout: the skill did not answer within its timeout.
	OutcomeTimeout Outcome = "timeout"
	// OutcomePanic: the skill panicked.
	OutcomePanic Outcome = "panic"
	// OutcomeInvalid: the answer was no response, an invalid response or
	// an invalid JCP action.
	OutcomeInvalid Outcome = "invalid"
	// OutcomeDenied: the request or the answer's action needs a permission
	// the skill lacks, or breaks one of its limits.
	OutcomeDenied Outcome = "denied"
	// OutcomeCancelled: the caller's context ended first.
	OutcomeCancelled Outcome = "cancelled"
)

// Outcomes lists every outcome.
func Outcomes() []Outcome {
	return []Outcome{OutcomeOK, OutcomeErrorResponse, OutcomeFailed, OutcomeTimeout, OutcomePanic,
		OutcomeInvalid, OutcomeDenied, OutcomeCancelled}
}

// Valid reports whether o is one of the outcomes.
func (o Outcome) Valid() bool {
	for _, v := range Outcomes() {
		if v == o {
			return true
		}
	}
	return false
}

// Bounds on the text a record keeps, so a record stays one short line.
const (
	// MaxRecordField bounds the skill, intent, ids and types, in bytes.
	MaxRecordField = 256
	// MaxRecordError bounds the error text, in bytes.
	MaxRecordError = 1024
)

// Record is what one skill call did. In JSON (one line of the run log):
//
//	{"time":"2026-05-01T12:00:00.123Z","skill":"jibo/timer","intent":"set_timer",
//	 "request_id":"mid-…","trans_id":"tid-…","request_type":"LISTEN_LAUNCH",
//	 "response_type":"SKILL_ACTION","outcome":"ok","attempts":1,"duration_ms":3.2}
//
// with "error" added when the call did not succeed.
type Record struct {
	// Time is when the call started.
	Time time.Time
	// Skill is the skill's manifest id ("jibo/timer").
	Skill string
	// Intent is the request's NLU intent; "" when it has none.
	Intent string
	// RequestID is the request's msgID.
	RequestID string
	// TransID is the request's transaction id; "" when it has none.
	TransID string
	// RequestType is LISTEN_LAUNCH, LISTEN_UPDATE or PROACTIVE_LAUNCH.
	RequestType string
	// ResponseType is the type of the skill's answer; "" when there was
	// none.
	ResponseType string
	// Outcome is how the call ended.
	Outcome Outcome
	// Attempts is how many times the skill was called (retries included);
	// 0 when the call was refused before it.
	Attempts int
	// Duration is the whole call, retries and backoff included.
	Duration time.Duration
	// Error says what went wrong: the error, or an ERROR response's
	// message; "" for OutcomeOK.
	Error string
}

// NewRecord starts a record of a call to m with req at t: the identity
// members filled, the outcome left for the caller. The lead's code uses it
// for outcomes the invoker does not see.
func NewRecord(m *registry.Manifest, req *protocol.Request, t time.Time) Record {
	r := Record{Time: t}
	if m != nil {
		r.Skill = clip(m.ID, MaxRecordField)
	}
	if req != nil {
		r.RequestID = clip(req.MsgID, MaxRecordField)
		r.TransID = clip(req.TransID, MaxRecordField)
		r.RequestType = clip(req.Type, MaxRecordField)
		r.Intent = clip(intentOf(req), MaxRecordField)
	}
	return r
}

func intentOf(req *protocol.Request) string {
	if req == nil || req.Data == nil || req.Data.Result.NLU == nil || req.Data.Result.NLU.Intent == nil {
		return ""
	}
	return *req.Data.Result.NLU.Intent
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

type recordJSON struct {
	Time         time.Time `json:"time"`
	Skill        string    `json:"skill"`
	Intent       string    `json:"intent,omitempty"`
	RequestID    string    `json:"request_id,omitempty"`
	TransID      string    `json:"trans_id,omitempty"`
	RequestType  string    `json:"request_type"`
	ResponseType string    `json:"response_type,omitempty"`
	Outcome      Outcome   `json:"outcome"`
	Attempts     int       `json:"attempts"`
	DurationMS   float64   `json:"duration_ms"`
	Error        string    `json:"error,omitempty"`
}

// MarshalJSON writes the record as shown on Record, the time in UTC and
// the duration in milliseconds.
func (r Record) MarshalJSON() ([]byte, error) {
	return json.Marshal(recordJSON{
		Time: r.Time.UTC(), Skill: r.Skill, Intent: r.Intent, RequestID: r.RequestID, TransID: r.TransID,
		RequestType: r.RequestType, ResponseType: r.ResponseType, Outcome: r.Outcome, Attempts: r.Attempts,
		DurationMS: float64(r.Duration) / float64(time.Millisecond), Error: r.Error,
	})
}

// UnmarshalJSON reads a record written by MarshalJSON. A record without a
// time, skill or known outcome is an error.
func (r *Record) UnmarshalJSON(data []byte) error {
	var w recordJSON
	if err := strictjson.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("run record: %w", err)
	}
	switch {
	case w.Time.IsZero():
		return fmt.Errorf("run record: no time")
	case w.Skill == "":
		return fmt.Errorf("run record: no skill")
	case !w.Outcome.Valid():
		return fmt.Errorf("run record: outcome %q is not one of the outcomes", w.Outcome)
	}
	*r = Record{Time: w.Time, Skill: w.Skill, Intent: w.Intent, RequestID: w.RequestID, TransID: w.TransID,
		RequestType: w.RequestType, ResponseType: w.ResponseType, Outcome: w.Outcome, Attempts: w.Attempts,
		Duration: time.Duration(w.DurationMS * float64(time.Millisecond)), Error: w.Error}
	return nil
}

// Recorder takes execution records. The invoker gives it one per call; the
// host gives it the outcomes the invoker does not see (a refusal after the
// call, say). Record must be safe for concurrent use and must not block
// for long: it runs on the call's path.
type Recorder interface {
	Record(Record)
}

// Tee returns a Recorder that gives each record to every one of rs, in
// order (e.g. the in-memory log and the run file).
func Tee(rs ...Recorder) Recorder { return tee(rs) }

type tee []Recorder

func (t tee) Record(r Record) {
	for _, x := range t {
		x.Record(r)
	}
}

// Filter selects records. Zero members select everything.
type Filter struct {
	// Skill selects one skill, by manifest id or bus id.
	Skill string
	// Outcome selects one outcome.
	Outcome Outcome
	// Limit bounds how many records are returned (newest first); 0 for
	// all.
	Limit int
}

// normalize turns a bus id in f.Skill into the manifest id records carry.
func (f Filter) normalize() Filter {
	if f.Skill != "" && !strings.Contains(f.Skill, "/") {
		if id, err := registry.ParseBusID(f.Skill); err == nil {
			f.Skill = id
		}
	}
	return f
}

func (f Filter) match(r *Record) bool {
	return (f.Skill == "" || r.Skill == f.Skill) && (f.Outcome == "" || r.Outcome == f.Outcome)
}
