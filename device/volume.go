package device

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"
)

// VolumeName is the Device name a Volume reports its events under.
const VolumeName = "volume"

// Volume is the robot's master volume: a PCMSink in front of the speaker
// that scales every sample written through it by a gain in 0..1 (0 is
// silence, 1 leaves the sound as it is). It is safe for concurrent use; a
// Write uses the gain set when it starts, so changing the volume never
// cuts a sound in two.
//
// The gain is linear in amplitude; how a volume setting maps to it is the
// caller's choice.
type Volume struct {
	sink PCMSink
	obs  Observer
	pool sync.Pool // *[]int16 scratch buffers for scaled samples

	mu   sync.Mutex
	gain float64
	// q is gain in Q16 fixed point (65536 = 1), so scaling a sample is an
	// integer multiply.
	q int32
}

var _ PCMSink = (*Volume)(nil)

// NewVolume puts a volume of the given gain (0..1) in front of sink;
// obs, if set, receives a "set" event with "gain" whenever it changes.
func NewVolume(sink PCMSink, gain float64, obs Observer) (*Volume, error) {
	if sink == nil {
		return nil, fmt.Errorf("volume: no sink")
	}
	if err := checkGain(gain); err != nil {
		return nil, fmt.Errorf("volume: %w", err)
	}
	v := &Volume{sink: sink, obs: obs}
	v.gain, v.q = gain, toQ16(gain)
	return v, nil
}

func checkGain(g float64) error {
	if math.IsNaN(g) || g < 0 || g > 1 {
		return fmt.Errorf("gain %v: want 0..1", g)
	}
	return nil
}

func toQ16(g float64) int32 { return int32(math.Round(g * 65536)) }

// Gain returns the current gain.
func (v *Volume) Gain() float64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.gain
}

// SetGain changes the gain (0..1) for the sounds written from now on and
// reports it. An invalid gain changes nothing.
func (v *Volume) SetGain(g float64) error {
	if err := checkGain(g); err != nil {
		return fmt.Errorf("volume: %w", err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.gain, v.q = g, toQ16(g)
	if v.obs != nil {
		v.obs(Event{Time: time.Now(), Device: VolumeName, Kind: "set", Values: map[string]any{"gain": g}})
	}
	return nil
}

// Format returns the sink's sample format.
func (v *Volume) Format() PCMFormat { return v.sink.Format() }

// Write plays samples on the sink, scaled by the gain. The caller's
// samples are not changed.
func (v *Volume) Write(ctx context.Context, samples []int16) error {
	v.mu.Lock()
	q := v.q
	v.mu.Unlock()
	if q == 1<<16 {
		return v.sink.Write(ctx, samples)
	}
	bp, _ := v.pool.Get().(*[]int16)
	if bp == nil || cap(*bp) < len(samples) {
		b := make([]int16, len(samples))
		bp = &b
	}
	buf := (*bp)[:len(samples)]
	for i, s := range samples {
		// |s·q| < 2³¹ for q ≤ 2¹⁶; adding half rounds to nearest.
		buf[i] = int16((int32(s)*q + 1<<15) >> 16)
	}
	err := v.sink.Write(ctx, buf)
	*bp = buf
	v.pool.Put(bp)
	return err
}
