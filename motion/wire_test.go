package motion

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/device"
	"github.com/openjibo/jibod/device/sim"
)

func TestWireJobRoundTrip(t *testing.T) {
	dance := mustAnim(t, "dance")
	for _, w := range []wireJob{
		{id: 1, kind: jobMove, sel: AllAxes, setRest: true, target: Pose{0.1, -0.2, 0.3}, name: "lookat"},
		{id: 2, kind: jobTrack, sel: Axes{true, false, true}, target: Pose{1, 0, -1}, name: "track"},
		{id: 3, kind: jobAnim, sel: AllAxes, name: "dance", speed: 1.5, loops: -1, blendIn: 0.25, blendOut: 0.5, anim: dance},
	} {
		f, err := w.encode()
		require.NoError(t, err)
		k, payload, err := readFrame(bytes.NewReader(f), new([]byte))
		require.NoError(t, err)
		require.Equal(t, fBegin, k)
		got, err := decodeJob(payload)
		require.NoError(t, err)
		if w.anim != nil {
			require.NotNil(t, got.anim)
			assert.Equal(t, w.anim.Duration, got.anim.Duration)
			for i := range NumAxes {
				for _, at := range []float64{0, 0.3, w.anim.Duration / 2, w.anim.Duration} {
					want, wok := w.anim.Sample(i, at)
					have, hok := got.anim.Sample(i, at)
					assert.Equal(t, wok, hok)
					assert.InDelta(t, want, have, 1e-12, "axis %d at %g", i, at)
				}
			}
			got.anim, w.anim = nil, nil
		}
		assert.Equal(t, w, got)
	}
}

// TestWireRefusesBadFrames gives hostile frames: each is an error naming
// what is wrong, never a panic.
func TestWireRefusesBadFrames(t *testing.T) {
	move, err := (&wireJob{id: 7, kind: jobMove, sel: AllAxes, name: "move"}).encode()
	require.NoError(t, err)
	anim, err := (&wireJob{id: 8, kind: jobAnim, sel: AllAxes, name: "nod", speed: 1, loops: 1, blendIn: 0.25, blendOut: 0.5, anim: mustAnim(t, "nod")}).encode()
	require.NoError(t, err)
	payload := func(f []byte) []byte { return append([]byte(nil), f[5:]...) }
	nan := binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.NaN()))
	// Offsets into a begin payload: id 0..8, kind 8, axes 9, rest 10,
	// target 11..35, name 35.., then an animation's fields.
	patch := func(b []byte, at int, with ...byte) []byte {
		b = append([]byte(nil), b...)
		copy(b[at:], with)
		return b
	}
	for _, tc := range []struct {
		name    string
		payload []byte
		want    string
	}{
		{"empty", nil, "job id cut short"},
		{"cut short", payload(move)[:20], "target cut short"},
		{"trailing bytes", append(payload(move), 1), "1 bytes after the fields"},
		{"job id 0", patch(payload(move), 0, 0, 0, 0, 0, 0, 0, 0, 0), "job id 0"},
		{"unknown job kind", patch(payload(move), 8, 9), "job kind 9 unknown"},
		{"axes out of range", patch(payload(move), 9, 0xf0), "axes 0xf0"},
		{"set rest 2", patch(payload(move), 10, 2), "set rest 2"},
		{"target not a number", patch(payload(move), 11, nan...), "target is not a finite number"},
		{"name longer than the frame", patch(payload(move), 35, 0xff, 0x0f), "job name cut short"},
		{"name over the limit", patch(payload(move), 35, 0xff, 0xff), "job name is 65535 bytes, limit 4096"},
		{"speed zero", patch(payload(anim), 40, 0, 0, 0, 0, 0, 0, 0, 0), "speed 0 outside"},
		{"loops zero", patch(payload(anim), 48, 0, 0, 0, 0, 0, 0, 0, 0), "loops 0"},
		{"animation cut short", payload(anim)[:100], "cut short"},
		{"animation name", patch(payload(anim), 74, 'N'), "animation name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeJob(tc.payload)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"length zero", []byte{0, 0, 0, 0}, "length 0 outside"},
		{"length over the limit", []byte{0xff, 0xff, 0xff, 0x7f}, "outside 1..65536"},
		{"cut short", []byte{10, 0, 0, 0, 1, 2}, "cut short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readFrame(bytes.NewReader(tc.data), new([]byte))
			assert.ErrorContains(t, err, tc.want)
		})
	}
	_, _, err = readFrame(bytes.NewReader(nil), new([]byte))
	assert.ErrorIs(t, err, io.EOF, "a connection that ends between frames")

	for _, tc := range []struct {
		name string
		kind frameKind
		data []byte
		want string
	}{
		{"end with an unknown code", fEnd, newFrame(fEnd).u64(1).u8(99).str("x")[5:], "error code 99 unknown"},
		{"end with an error without text", fEnd, newFrame(fEnd).u64(1).u8(codeOther).str("")[5:], "without a message"},
		{"fault without an error", fFault, newFrame(fFault).u8(codeOK).str("")[5:], "a fault without an error"},
		{"event without a kind", fEvent, newFrame(fEvent).u64(1).str("motion").str("")[5:], "without a device or kind"},
		{"log with too many attributes", fLog, newFrame(fLog).u64(0).str("m").u8(200)[5:], "200 attributes"},
		{"halt cut short", fHalt, newFrame(fHalt).u64(1)[5:], "halt reason cut short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			switch tc.kind {
			case fEnd, fFault:
				_, _, err = decodeEnd(tc.kind, tc.data)
			case fEvent:
				_, err = decodeEvent(tc.data)
			case fLog:
				_, err = decodeLog(tc.data)
			default:
				_, _, _, err = decodeID(tc.kind, tc.data)
			}
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// TestWireErrorsKeepTheirIdentity checks that a job's end error crosses
// the processes as itself.
func TestWireErrorsKeepTheirIdentity(t *testing.T) {
	for _, want := range []error{ErrPreempted, ErrHalted, ErrDeadman, ErrStalled, ErrNotRunning} {
		code, msg := errCode(want)
		got, bad := codeErr(code, msg)
		require.NoError(t, bad)
		assert.Equal(t, want, got)
		code, msg = errCode(errorsWrap(want))
		got, bad = codeErr(code, msg)
		require.NoError(t, bad)
		assert.ErrorIs(t, got, want)
		assert.Equal(t, "motion: move: "+want.Error(), got.Error())
	}
	code, msg := errCode(nil)
	got, bad := codeErr(code, msg)
	assert.NoError(t, got)
	assert.NoError(t, bad)
}

func errorsWrap(err error) error {
	return &processError{msg: "motion: move: " + err.Error(), base: err}
}

type nopConn struct{ io.Writer }

func (nopConn) Read([]byte) (int, error) { return 0, io.EOF }
func (nopConn) Close() error             { return nil }

// FuzzLoopProcessFrames feeds any bytes to both ends of the protocol: the
// parent's reader and the loop process's command handler (on a running
// controller). A hostile stream gives errors, never a panic or a wait.
func FuzzLoopProcessFrames(f *testing.F) {
	move, _ := (&wireJob{id: 7, kind: jobMove, sel: AllAxes, name: "move", target: Pose{0.1, 0.1, 0.1}}).encode()
	track, _ := (&wireJob{id: 9, kind: jobTrack, sel: AllAxes, name: "track"}).encode()
	lib, _ := Builtin()
	nod, _ := lib.Lookup("nod")
	anim, _ := (&wireJob{id: 8, kind: jobAnim, sel: AllAxes, name: "nod", speed: 1, loops: 1, blendIn: 0.25, blendOut: 0.5, anim: nod}).encode()
	halt, _ := newFrame(fHalt).u64(10).str("x").done()
	upd, _ := newFrame(fTrack).u64(9).pose(Pose{0.2, 0, 0}).done()
	end, _ := newFrame(fEnd).u64(7).u8(codeHalted).str(ErrHalted.Error()).done()
	ev, _ := newFrame(fEvent).u64(1).str("motion").str("late").bytes([]byte(`{"ms":3}`)).done()
	lg, _ := newFrame(fLog).u64(0).str("hello").u8(1).str("k").str("v").done()
	for _, seed := range [][]byte{move, track, anim, halt, upd, end, ev, lg, append(append([]byte(nil), move...), halt...)} {
		f.Add(seed)
	}
	// The loop process's side: a running controller on simulated motors.
	var motors []device.Motor
	for _, axis := range device.Axes() {
		m, err := sim.NewMotor(sim.MotorOptions{Axis: axis})
		if err != nil {
			f.Fatal(err)
		}
		motors = append(motors, m)
	}
	c, err := New(Config{Motors: motors, Rate: MaxRate})
	if err != nil {
		f.Fatal(err)
	}
	s := newServer(nopConn{io.Discard})
	c.mirror, c.ended = new(mirror), s.ended
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = c.Close(ctx) })
	// The parent's side: a controller that reads what a loop process sent.
	parent, err := New(Config{Motors: motors, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		f.Fatal(err)
	}
	parent.rem = &remote{mir: new(mirror)}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		var buf []byte
		p := &loopProc{ready: make(chan processReady, 1), replies: make(chan string, 1), hi: make(chan struct{}), greeted: true}
		for {
			k, payload, err := readFrame(r, &buf)
			if err != nil {
				break
			}
			_ = parent.handle(p, k, payload)
			if k != fRecover && k != fHello && k != fClose {
				var wg sync.WaitGroup
				_ = s.command(ctx, c, &wg, k, payload)
			}
		}
		c.Halt("fuzz")
		s.endMu.Lock()
		s.ends = s.ends[:0]
		s.endMu.Unlock()
	})
}
