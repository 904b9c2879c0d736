package audio

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/openjibo/jibod/device"
)

// maxMeterPieces bounds what a PlaybackMeter remembers: at half a second
// a piece (DeviceSink), over two minutes of sound.
const maxMeterPieces = 256

// piece is one stretch of sound played: when and how loud.
type piece struct {
	from, to time.Time
	level    float64 // dBFS
}

// PlaybackMeter remembers how loud the robot's own sound output was, and
// when, so that the listener can tell its own voice coming back through
// the microphone (echo) from a person talking over it. It is safe for
// concurrent use.
type PlaybackMeter struct {
	now    func() time.Time
	mu     sync.Mutex
	pieces []piece // oldest first, at most maxMeterPieces
}

// NewPlaybackMeter returns an empty meter; now nil means time.Now.
func NewPlaybackMeter(now func() time.Time) *PlaybackMeter {
	if now == nil {
		now = time.Now
	}
	return &PlaybackMeter{now: now}
}

// Played records that samples (interleaved, channels per frame, at rate)
// start playing now.
func (m *PlaybackMeter) Played(samples []int16, channels, rate int) {
	if len(samples) == 0 || channels < 1 || rate <= 0 {
		return
	}
	from := m.now()
	d := time.Duration(len(samples)/channels) * time.Second / time.Duration(rate)
	p := piece{from: from, to: from.Add(d), level: LevelDBFS(samples)}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.pieces) == maxMeterPieces {
		m.pieces = append(m.pieces[:0], m.pieces[1:]...)
	}
	m.pieces = append(m.pieces, p)
}

// Level is the loudest level (dBFS) played between from and to, -Inf when
// nothing played then.
func (m *PlaybackMeter) Level(from, to time.Time) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	level := math.Inf(-1)
	for _, p := range m.pieces {
		if p.to.After(from) && p.from.Before(to) {
			level = max(level, p.level)
		}
	}
	return level
}

// MeteredPCM is a sound output that tells a PlaybackMeter what it plays.
type MeteredPCM struct {
	out   device.PCMSink
	meter *PlaybackMeter
}

var _ device.PCMSink = (*MeteredPCM)(nil)

// NewMeteredPCM meters out into m.
func NewMeteredPCM(out device.PCMSink, m *PlaybackMeter) *MeteredPCM {
	return &MeteredPCM{out: out, meter: m}
}

// Format is out's format.
func (p *MeteredPCM) Format() device.PCMFormat { return p.out.Format() }

// Write records the samples' level and plays them.
func (p *MeteredPCM) Write(ctx context.Context, samples []int16) error {
	f := p.out.Format()
	p.meter.Played(samples, f.Channels, f.SampleRate)
	return p.out.Write(ctx, samples)
}
