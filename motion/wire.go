package motion

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// The loop process's protocol (Config.Process): frames on a stream socket,
// each a little-endian uint32 length, then that many bytes: a kind byte
// and its payload. Fixed fields are little-endian; a string is a uint16
// length and its bytes. A frame is input from outside the process: every
// field is checked, and a bad frame is an error, never a crash or a wait.

// maxFrame bounds a frame's length: an animation with three full tracks
// and the longest strings fits well within it.
const maxFrame = 64 << 10

// errBadFrame is a frame that breaks the protocol, as opposed to a
// connection that ended.
var errBadFrame = errors.New("bad frame")

// maxWireString bounds a string in a frame.
const maxWireString = 4 << 10

type frameKind uint8

// Parent to loop process.
const (
	fHello   frameKind = 1 + iota // JSON: processHello
	fBegin                        // a job: wireJob
	fTrack                        // id, target: a track stream's update
	fHalt                         // id, reason: halt the body as job id
	fFinish                       // id: finish animation id gracefully
	fRecover                      // clear a stall fault and home
	fClose                        // bring the body to rest, power off, exit
)

// Loop process to parent.
const (
	fReady    frameKind = 16 + iota // JSON: processReady
	fEnd                            // id, code, message: a job ended
	fEvent                          // time, kind, JSON values: a device.Event
	fFault                          // code, message: the controller faulted
	fReply                          // message (empty: done): a Recover's result
	fLog                            // level, message, attributes
	fGreeting                       // processGreeting: the first frame, before the motors open
)

// processGreeting is the loop process's first frame, sent as soon as it
// runs: a program that does not send it is not the control loop's.
const processGreeting = "openjibo motion loop process, protocol 1"

// Job end codes: the errors a job ends with, which the parent gives back
// as themselves (errors.Is works across the processes).
const (
	codeOK uint8 = iota
	codePreempted
	codeHalted
	codeDeadman
	codeStalled
	codeNotRunning
	codeOther
)

var codeErrs = [...]error{codeOK: nil, codePreempted: ErrPreempted, codeHalted: ErrHalted, codeDeadman: ErrDeadman,
	codeStalled: ErrStalled, codeNotRunning: ErrNotRunning, codeOther: nil}

func errCode(err error) (uint8, string) {
	if err == nil {
		return codeOK, ""
	}
	for c, e := range codeErrs {
		if e != nil && errors.Is(err, e) {
			return uint8(c), err.Error()
		}
	}
	return codeOther, err.Error()
}

// processError is an error from the loop process: its text, and the
// sentinel it wraps there.
type processError struct {
	msg  string
	base error
}

func (e *processError) Error() string { return e.msg }
func (e *processError) Unwrap() error { return e.base }

func codeErr(code uint8, msg string) (error, error) {
	if int(code) >= len(codeErrs) {
		return nil, fmt.Errorf("error code %d unknown", code)
	}
	if code == codeOK {
		return nil, nil
	}
	base := codeErrs[code]
	if base != nil && msg == base.Error() {
		return base, nil
	}
	if msg == "" {
		return nil, errors.New("error without a message")
	}
	return &processError{msg: msg, base: base}, nil
}

// frame builds a frame: start with newFrame, append fields, then done.
type frame []byte

func newFrame(k frameKind) frame { return frame{0, 0, 0, 0, byte(k)} }

func (f frame) u8(v uint8) frame   { return append(f, v) }
func (f frame) u64(v uint64) frame { return binary.LittleEndian.AppendUint64(f, v) }
func (f frame) f64(v float64) frame {
	return binary.LittleEndian.AppendUint64(f, math.Float64bits(v))
}
func (f frame) pose(p Pose) frame { return f.f64(p[0]).f64(p[1]).f64(p[2]) }
func (f frame) str(s string) frame {
	if len(s) > maxWireString {
		s = s[:maxWireString]
	}
	return append(binary.LittleEndian.AppendUint16(f, uint16(len(s))), s...)
}
func (f frame) bytes(b []byte) frame { return append(f, b...) }

// done sets the length; a frame over maxFrame is an error.
func (f frame) done() ([]byte, error) {
	n := len(f) - 4
	if n > maxFrame {
		return nil, fmt.Errorf("motion: frame of %d bytes over the limit of %d", n, maxFrame)
	}
	binary.LittleEndian.PutUint32(f, uint32(n))
	return f, nil
}

// readFrame reads one frame into buf (grown as needed, up to maxFrame)
// and returns its kind and payload, which stay valid until the next call.
func readFrame(r io.Reader, buf *[]byte) (frameKind, []byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if n == 0 || n > maxFrame {
		return 0, nil, fmt.Errorf("motion: %w: length %d outside 1..%d", errBadFrame, n, maxFrame)
	}
	if cap(*buf) < int(n) {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	if _, err := io.ReadFull(r, b); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, fmt.Errorf("motion: frame cut short: %w", err)
	}
	return frameKind(b[0]), b[1:], nil
}

// fields reads a payload's fields; the first failure sticks.
type fields struct {
	b   []byte
	err error
}

func (r *fields) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *fields) take(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.b) < n {
		r.fail("%s cut short", what)
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *fields) u8(what string) uint8 {
	if v := r.take(1, what); v != nil {
		return v[0]
	}
	return 0
}

func (r *fields) u64(what string) uint64 {
	if v := r.take(8, what); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

// f64 reads a finite number.
func (r *fields) f64(what string) float64 {
	f := math.Float64frombits(r.u64(what))
	if math.IsNaN(f) || math.IsInf(f, 0) {
		r.fail("%s is not a finite number", what)
		return 0
	}
	return f
}

func (r *fields) pose(what string) Pose {
	return Pose{r.f64(what), r.f64(what), r.f64(what)}
}

func (r *fields) str(what string) string {
	v := r.take(2, what)
	if v == nil {
		return ""
	}
	n := int(binary.LittleEndian.Uint16(v))
	if n > maxWireString {
		r.fail("%s is %d bytes, limit %d", what, n, maxWireString)
		return ""
	}
	return string(r.take(n, what))
}

func (r *fields) rest() []byte {
	v := r.b
	r.b = nil
	return v
}

// end fails when bytes are left over.
func (r *fields) end(k frameKind) error {
	if r.err == nil && len(r.b) > 0 {
		r.err = fmt.Errorf("%d bytes after the fields", len(r.b))
	}
	if r.err != nil {
		return fmt.Errorf("motion: frame kind %d: %w", k, r.err)
	}
	return nil
}

// wireJob is a job as the parent sends it to the loop process.
type wireJob struct {
	id      uint64
	kind    jobKind
	sel     Axes
	setRest bool
	target  Pose
	name    string
	// Animations.
	speed, blendIn, blendOut float64
	loops                    int
	anim                     *Animation
}

func axesBits(a Axes) uint8 {
	var b uint8
	for i, on := range a {
		if on {
			b |= 1 << i
		}
	}
	return b
}

func (w *wireJob) encode() ([]byte, error) {
	f := newFrame(fBegin).u64(w.id).u8(uint8(w.kind)).u8(axesBits(w.sel))
	rest := uint8(0)
	if w.setRest {
		rest = 1
	}
	f = f.u8(rest).pose(w.target).str(w.name)
	if w.kind == jobAnim {
		f = f.f64(w.speed).u64(uint64(int64(w.loops))).f64(w.blendIn).f64(w.blendOut)
		f = appendAnimation(f, w.anim)
	}
	return f.done()
}

func decodeJob(p []byte) (wireJob, error) {
	r := &fields{b: p}
	w := wireJob{id: r.u64("job id"), kind: jobKind(r.u8("job kind"))}
	bits := r.u8("axes")
	if bits > 7 {
		r.fail("axes %#x: want bits 0..2", bits)
	}
	for i := range w.sel {
		w.sel[i] = bits&(1<<i) != 0
	}
	switch rest := r.u8("set rest"); rest {
	case 0, 1:
		w.setRest = rest == 1
	default:
		r.fail("set rest %d: want 0 or 1", rest)
	}
	w.target, w.name = r.pose("target"), r.str("job name")
	switch w.kind {
	case jobMove, jobTrack:
	case jobAnim:
		w.speed = r.f64("speed")
		loops := int64(r.u64("loops"))
		w.blendIn, w.blendOut = r.f64("blend in"), r.f64("blend out")
		switch {
		case w.speed < 0.1 || w.speed > 10:
			r.fail("speed %g outside 0.1..10", w.speed)
		case loops < -1 || loops == 0 || loops > 1000:
			r.fail("loops %d: want -1 or 1..1000", loops)
		case w.blendIn <= 0 || w.blendOut <= 0 || w.blendIn > 10 || w.blendOut > 10:
			r.fail("blend times %g s and %g s outside (0, 10]", w.blendIn, w.blendOut)
		}
		w.loops = int(loops)
		if r.err == nil {
			w.anim, r.err = readAnimation(r)
		}
	default:
		r.fail("job kind %d unknown", w.kind)
	}
	if w.id == 0 {
		r.fail("job id 0")
	}
	return w, r.end(fBegin)
}

// appendAnimation encodes what the loop plays of a: its name, whether it
// is relative, its duration and its axis tracks (the light track stays
// with the parent, which plays it).
func appendAnimation(f frame, a *Animation) frame {
	rel := uint8(0)
	if a.Relative {
		rel = 1
	}
	f = f.str(a.Name).u8(rel).f64(a.Duration)
	for _, tr := range a.tracks {
		if tr == nil {
			f = f.u64(0)
			continue
		}
		lin := uint64(0)
		if tr.linear {
			lin = 1 << 32
		}
		f = f.u64(lin | uint64(len(tr.t)))
		for k := range tr.t {
			f = f.f64(tr.t[k]).f64(tr.v[k])
		}
	}
	return f
}

// readAnimation decodes appendAnimation's encoding with the checks of the
// animation file format.
func readAnimation(r *fields) (*Animation, error) {
	a := &Animation{Name: r.str("animation name")}
	rel := r.u8("relative")
	a.Relative, a.Duration = rel == 1, r.f64("duration")
	if r.err != nil {
		return nil, r.err
	}
	if err := checkName(a.Name); err != nil {
		return nil, fmt.Errorf("animation name: %w", err)
	}
	if rel > 1 {
		return nil, fmt.Errorf("animation relative %d: want 0 or 1", rel)
	}
	if err := checkTime("duration", a.Duration); err != nil || a.Duration <= 0 {
		return nil, fmt.Errorf("animation %s: duration %g s outside (0, %g]", a.Name, a.Duration, MaxAnimationSeconds)
	}
	moves := false
	for i := range a.tracks {
		h := r.u64("track header")
		n, lin := int(h&0xffffffff), h>>32
		if r.err != nil {
			return nil, r.err
		}
		if n == 0 && lin == 0 {
			continue
		}
		if n > MaxKeyframes || lin > 1 {
			return nil, fmt.Errorf("animation %s: track %s header %#x: want linear 0 or 1 and at most %d keyframes", a.Name, AxisName(i), h, MaxKeyframes)
		}
		if len(r.b) < 16*n {
			return nil, fmt.Errorf("animation %s: track %s cut short", a.Name, AxisName(i))
		}
		keys := make([][]float64, n)
		for k := range keys {
			keys[k] = []float64{r.f64("keyframe time"), r.f64("keyframe angle")}
		}
		if r.err != nil {
			return nil, r.err
		}
		tr, last, err := buildTrack("tracks."+AxisName(i), keys, a.Relative, lin == 1)
		if err != nil {
			return nil, fmt.Errorf("animation %s: %w", a.Name, err)
		}
		if last > a.Duration {
			return nil, fmt.Errorf("animation %s: duration %g ends before the last key at %g", a.Name, a.Duration, last)
		}
		a.tracks[i], moves = tr, true
	}
	if !moves {
		return nil, fmt.Errorf("animation %s moves no axis", a.Name)
	}
	return a, nil
}

// idFrame is a frame of a job id and, for a track update, a target, or
// for a halt, a reason.
func decodeID(k frameKind, p []byte) (id uint64, target Pose, reason string, err error) {
	r := &fields{b: p}
	id = r.u64("job id")
	switch k {
	case fTrack:
		target = r.pose("target")
	case fHalt:
		reason = r.str("halt reason")
	}
	return id, target, reason, r.end(k)
}

// wireEvent is an event's fields from the loop process.
type wireEvent struct {
	at     time.Time
	device string
	kind   string
	values []byte // JSON object
}

func decodeEvent(p []byte) (wireEvent, error) {
	r := &fields{b: p}
	e := wireEvent{at: time.Unix(0, int64(r.u64("time"))), device: r.str("device"), kind: r.str("kind")}
	e.values = r.rest()
	if r.err == nil && (e.device == "" || e.kind == "") {
		r.fail("event without a device or kind")
	}
	return e, r.end(fEvent)
}

func decodeEnd(k frameKind, p []byte) (id uint64, err error, bad error) {
	r := &fields{b: p}
	if k == fEnd {
		id = r.u64("job id")
	}
	code, msg := r.u8("code"), r.str("message")
	if bad = r.end(k); bad != nil {
		return 0, nil, bad
	}
	err, bad = codeErr(code, msg)
	if bad != nil {
		return 0, nil, fmt.Errorf("motion: frame kind %d: %w", k, bad)
	}
	if k == fFault && err == nil {
		return 0, nil, fmt.Errorf("motion: frame kind %d: a fault without an error", k)
	}
	return id, err, nil
}

// wireLog is a log record from the loop process.
type wireLog struct {
	level int64
	msg   string
	attrs []string // key, value, key, value…
}

const maxLogAttrs = 32

func decodeLog(p []byte) (wireLog, error) {
	r := &fields{b: p}
	l := wireLog{level: int64(r.u64("level")), msg: r.str("message")}
	n := r.u8("attributes")
	if n > maxLogAttrs {
		r.fail("%d attributes, limit %d", n, maxLogAttrs)
	}
	for i := 0; i < 2*int(n) && r.err == nil; i++ {
		l.attrs = append(l.attrs, r.str("attribute"))
	}
	return l, r.end(fLog)
}
