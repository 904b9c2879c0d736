package portaudio

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

var errUnplugged = errors.New("device unplugged (fake)")

// fakeLib is a PortAudio stand-in: a set of devices that can be plugged
// and unplugged, and which, like PortAudio, only sees changes at
// Initialize.
type fakeLib struct {
	mu        sync.Mutex
	present   []DeviceInfo // what is plugged in now
	listed    []DeviceInfo // what the library saw at Initialize
	init      bool
	inits     int
	terms     int
	initErr   error
	monoFails bool // devices refuse mono (hw: stereo-only cards)
	overflows int  // the next reads to report an overflow
	toneHz    float64
	opened    []StreamConfig
	played    [][]int16 // per output stream, what was written
	aborted   int
	drained   int
	calls     int // library calls in flight, to catch overlaps
	overlap   bool
	onWrite   func(writes int) // called (unlocked) after each output block
	writes    int
}

func newFake(devs ...DeviceInfo) *fakeLib {
	return &fakeLib{present: devs, toneHz: 440}
}

func (f *fakeLib) enter() func() {
	f.mu.Lock()
	f.calls++
	if f.calls > 1 {
		f.overlap = true
	}
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		f.calls--
		f.mu.Unlock()
	}
}

func (f *fakeLib) Initialize() error {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.initErr != nil {
		return f.initErr
	}
	if f.init {
		return errors.New("fake: initialised twice")
	}
	f.init = true
	f.inits++
	f.listed = append([]DeviceInfo(nil), f.present...)
	return nil
}

func (f *fakeLib) Terminate() error {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.init {
		return errors.New("fake: terminated while not initialised")
	}
	f.init = false
	f.terms++
	return nil
}

func (f *fakeLib) Devices() ([]DeviceInfo, error) {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.init {
		return nil, errors.New("fake: not initialised")
	}
	return append([]DeviceInfo(nil), f.listed...), nil
}

// plugged reports whether d is present now. Call with f.mu held.
func (f *fakeLib) plugged(d DeviceInfo) bool {
	for _, p := range f.present {
		if p.Name == d.Name {
			return true
		}
	}
	return false
}

func (f *fakeLib) unplug(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var keep []DeviceInfo
	for _, d := range f.present {
		if d.Name != name {
			keep = append(keep, d)
		}
	}
	f.present = keep
}

func (f *fakeLib) plug(d DeviceInfo) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.present = append(f.present, d)
}

func (f *fakeLib) open(c StreamConfig) error {
	if !f.init {
		return errors.New("fake: not initialised")
	}
	if !f.plugged(c.Device) {
		return fmt.Errorf("fake: %q: %w", c.Device.Name, errUnplugged)
	}
	if f.monoFails && c.Channels == 1 {
		return errors.New("fake: invalid channel count")
	}
	f.opened = append(f.opened, c)
	return nil
}

func (f *fakeLib) OpenInput(c StreamConfig) (InputStream, error) {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.open(c); err != nil {
		return nil, err
	}
	return &fakeIn{lib: f, cfg: c}, nil
}

func (f *fakeLib) OpenOutput(c StreamConfig) (OutputStream, error) {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.open(c); err != nil {
		return nil, err
	}
	f.played = append(f.played, nil)
	return &fakeOut{lib: f, cfg: c, slot: len(f.played) - 1}, nil
}

// fakeIn captures a tone: channel c carries amplitude 8000/(c+1).
type fakeIn struct {
	lib    *fakeLib
	cfg    StreamConfig
	frame  int
	closed bool
}

func (s *fakeIn) Read(buf []int16) error {
	f := s.lib
	f.mu.Lock()
	defer f.mu.Unlock()
	if s.closed {
		return errors.New("fake: read after close")
	}
	if len(buf) != s.cfg.Frames*s.cfg.Channels {
		return fmt.Errorf("fake: read of %d samples, stream moves %d", len(buf), s.cfg.Frames*s.cfg.Channels)
	}
	if !f.plugged(s.cfg.Device) {
		return errUnplugged
	}
	for i := 0; i < s.cfg.Frames; i++ {
		v := math.Sin(2 * math.Pi * f.toneHz * float64(s.frame) / float64(s.cfg.Rate))
		for c := 0; c < s.cfg.Channels; c++ {
			buf[i*s.cfg.Channels+c] = int16(8000 / float64(c+1) * v)
		}
		s.frame++
	}
	if f.overflows > 0 {
		f.overflows--
		return fmt.Errorf("%w (fake)", ErrOverflow)
	}
	return nil
}

func (s *fakeIn) Close() error {
	defer s.lib.enter()()
	s.lib.mu.Lock()
	defer s.lib.mu.Unlock()
	if s.closed {
		return errors.New("fake: closed twice")
	}
	s.closed = true
	return nil
}

type fakeOut struct {
	lib  *fakeLib
	cfg  StreamConfig
	slot int
	done bool
}

func (s *fakeOut) Write(buf []int16) error {
	f := s.lib
	f.mu.Lock()
	defer f.mu.Unlock()
	if s.done {
		return errors.New("fake: write after close")
	}
	if len(buf) != s.cfg.Frames*s.cfg.Channels {
		return fmt.Errorf("fake: write of %d samples, stream moves %d", len(buf), s.cfg.Frames*s.cfg.Channels)
	}
	if !f.plugged(s.cfg.Device) {
		return errUnplugged
	}
	f.played[s.slot] = append(f.played[s.slot], buf...)
	f.writes++
	if hook, n := f.onWrite, f.writes; hook != nil {
		f.mu.Unlock()
		hook(n)
		f.mu.Lock()
	}
	return nil
}

func (s *fakeOut) finish(drain bool) error {
	defer s.lib.enter()()
	s.lib.mu.Lock()
	defer s.lib.mu.Unlock()
	if s.done {
		return errors.New("fake: closed twice")
	}
	s.done = true
	if drain {
		s.lib.drained++
	} else {
		s.lib.aborted++
	}
	return nil
}

func (s *fakeOut) Drain() error { return s.finish(true) }
func (s *fakeOut) Abort() error { return s.finish(false) }

// Devices used across the tests.
var (
	usbMic = DeviceInfo{Index: 2, Name: "USB PnP Sound Device: Audio (hw:1,0)", HostAPI: "ALSA",
		InputChannels: 2, DefaultRate: 48000, DefaultInput: true}
	hdmi = DeviceInfo{Index: 0, Name: "HDA Intel HDMI: 0 (hw:0,3)", HostAPI: "ALSA",
		OutputChannels: 8, DefaultRate: 44100, DefaultOutput: true}
	analog = DeviceInfo{Index: 1, Name: "HDA Intel PCH: ALC892 Analog (hw:0,0)", HostAPI: "ALSA",
		InputChannels: 2, OutputChannels: 2, DefaultRate: 44100}
)
