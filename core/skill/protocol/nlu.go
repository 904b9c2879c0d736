package protocol

import (
	"encoding/json"
	"maps"
	"slices"
)

// NLUResult is what natural-language understanding made of a turn
// (jibo.md §2.2).
type NLUResult struct {
	// Intent is the matched intent; nil encodes as null (no intent).
	Intent *string
	// Entities maps entity names to values (numbers, booleans, strings,
	// arrays or objects); nil encodes as null. Numbers decoded from the
	// wire are json.Number, so their exact text survives re-encoding.
	Entities map[string]any
	// Rules are the NLU rule contexts the turn was parsed with; nil encodes
	// as [].
	Rules []string
	// External holds results of extra NLU agents by agent name; nil means
	// absent.
	External map[string]NLUResult
	// Error is an external agent's error, verbatim; nil means absent. Only
	// results inside External carry it.
	Error json.RawMessage
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

// NLUFromSlots builds the NLU result for an intent matched on the robot:
// slot values become string entities. An empty intent encodes as null.
// The maps and slices are copied, so the caller keeps its own.
func NLUFromSlots(intent string, slots map[string]string, rules []string) NLUResult {
	n := NLUResult{Entities: make(map[string]any, len(slots)), Rules: []string{}}
	if intent != "" {
		n.Intent = &intent
	}
	for k, v := range slots {
		n.Entities[k] = v
	}
	n.Rules = append(n.Rules, rules...)
	return n
}

// IntentName returns the intent, or "" when it is null.
func (n *NLUResult) IntentName() string {
	if n == nil || n.Intent == nil {
		return ""
	}
	return *n.Intent
}

func parseNLUResult(raw json.RawMessage) (NLUResult, error) {
	var n NLUResult
	o, err := readObject(raw)
	if err != nil {
		return n, err
	}
	field(o, "intent", &n.Intent, parseNullString)
	field(o, "entities", &n.Entities, parseAnyMap)
	field(o, "rules", &n.Rules, arrayOf(parseString))
	optField(o, "external", &n.External, mapOf(parseNLUResult))
	optField(o, "error", &n.Error, parseRaw)
	n.Extra, err = o.done()
	return n, err
}

func parseNLUResultPtr(raw json.RawMessage) (*NLUResult, error) {
	n, err := parseNLUResult(raw)
	return &n, err
}

// UnmarshalJSON decodes an NLU result, keeping unknown members in Extra.
func (n *NLUResult) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, n, parseNLUResult)
}

// MarshalJSON encodes an NLU result, re-emitting Extra.
func (n NLUResult) MarshalJSON() ([]byte, error) { return n.appendJSON(nil) }

func (n NLUResult) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, n.Extra)
	w.nullStr("intent", n.Intent)
	w.any("entities", n.Entities)
	w.strs("rules", n.Rules)
	if n.External != nil {
		w.obj("external", nluMap(n.External))
	}
	w.optRaw("error", n.Error)
	return w.close()
}

// nluMap writes External with agents in sorted order.
type nluMap map[string]NLUResult

func (m nluMap) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, nil)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		w.obj(k, m[k])
	}
	return w.close()
}

// ASR annotations (jibo.md §2.2).
const (
	AnnotationGarbage          = "GARBAGE"
	AnnotationRegexpEOS        = "REGEXP_EOS"
	AnnotationSOSTimeout       = "SOS_TIMEOUT"
	AnnotationMaxSpeechTimeout = "MAX_SPEECH_TIMEOUT"
)

// ASRResult is what speech recognition heard (jibo.md §2.2).
type ASRResult struct {
	// Text is the transcript; empty means nothing was heard.
	Text string
	// Confidence is in [0, 1].
	Confidence float64
	// Annotation is one of the Annotation constants; empty means absent.
	Annotation string
	// Lang is the detected language; empty means absent.
	Lang string
	// LangConfidence is Unknown, Low, Medium or High; empty means absent.
	LangConfidence string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseASRResult(raw json.RawMessage) (ASRResult, error) {
	var a ASRResult
	o, err := readObject(raw)
	if err != nil {
		return a, err
	}
	field(o, "text", &a.Text, parseString)
	field(o, "confidence", &a.Confidence, parseFloat)
	optField(o, "annotation", &a.Annotation, parseString)
	optField(o, "lang", &a.Lang, parseString)
	optField(o, "langConfidence", &a.LangConfidence, parseString)
	a.Extra, err = o.done()
	return a, err
}

func parseASRResultPtr(raw json.RawMessage) (*ASRResult, error) {
	a, err := parseASRResult(raw)
	return &a, err
}

// UnmarshalJSON decodes an ASR result, keeping unknown members in Extra.
func (a *ASRResult) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, a, parseASRResult)
}

// MarshalJSON encodes an ASR result, re-emitting Extra.
func (a ASRResult) MarshalJSON() ([]byte, error) { return a.appendJSON(nil) }

func (a ASRResult) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, a.Extra)
	w.str("text", a.Text)
	w.float("confidence", a.Confidence)
	w.optStr("annotation", a.Annotation)
	w.optStr("lang", a.Lang)
	w.optStr("langConfidence", a.LangConfidence)
	return w.close()
}

// ListenState classifies a listen result (jibo.md §1.6).
type ListenState string

// Listen states, with the values robots use.
const (
	// ListenMatch: NLU found an intent or entities.
	ListenMatch ListenState = "match"
	// ListenNoInput: nothing was heard.
	ListenNoInput ListenState = "noInput"
	// ListenNoMatch: speech was heard but not understood.
	ListenNoMatch ListenState = "noMatch"
)

// ClassifyListen implements jibo.md §1.6: a non-empty intent or any entity
// is a match; otherwise missing or empty ASR text is no input; otherwise
// no match. Either argument may be nil.
func ClassifyListen(nlu *NLUResult, asr *ASRResult) ListenState {
	if nlu.IntentName() != "" || (nlu != nil && len(nlu.Entities) > 0) {
		return ListenMatch
	}
	if asr == nil || asr.Text == "" {
		return ListenNoInput
	}
	return ListenNoMatch
}
