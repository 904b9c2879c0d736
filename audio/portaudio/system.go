//go:build portaudio

package portaudio

import (
	"errors"
	"fmt"

	pa "github.com/gordonklaus/portaudio"
)

// System returns the real PortAudio library (cgo). PortAudio's state is
// the process's: give one Host to everything that plays or captures.
func System() Library { return system{} }

type system struct{}

// Initialize starts PortAudio after checking that ALSA can find its
// configuration: a static ALSA library without it aborts the process on an
// assertion instead of returning an error.
func (system) Initialize() error {
	if err := checkALSAConfig(); err != nil {
		return err
	}
	routeALSAErrors()
	return pa.Initialize()
}

func (system) Terminate() error { return pa.Terminate() }

func (system) Devices() ([]DeviceInfo, error) {
	devs, err := pa.Devices()
	if err != nil {
		return nil, err
	}
	// No default is an answer, not a failure (a machine without a sound
	// card has none).
	defIn, _ := pa.DefaultInputDevice()
	defOut, _ := pa.DefaultOutputDevice()
	out := make([]DeviceInfo, 0, len(devs))
	for _, d := range devs {
		info := DeviceInfo{
			Index:          d.Index,
			Name:           d.Name,
			InputChannels:  d.MaxInputChannels,
			OutputChannels: d.MaxOutputChannels,
			DefaultRate:    d.DefaultSampleRate,
			DefaultInput:   defIn != nil && d.Index == defIn.Index,
			DefaultOutput:  defOut != nil && d.Index == defOut.Index,
		}
		if d.HostApi != nil {
			info.HostAPI = d.HostApi.Name
		}
		out = append(out, info)
	}
	return out, nil
}

// lookup finds the library's record of d by index, checking the name so
// that a list that changed underneath is not trusted.
func lookup(d DeviceInfo) (*pa.DeviceInfo, error) {
	devs, err := pa.Devices()
	if err != nil {
		return nil, err
	}
	for _, x := range devs {
		if x.Index == d.Index && x.Name == d.Name {
			return x, nil
		}
	}
	return nil, fmt.Errorf("device %q (#%d) is no longer listed", d.Name, d.Index)
}

func (system) OpenInput(c StreamConfig) (InputStream, error) {
	d, err := lookup(c.Device)
	if err != nil {
		return nil, err
	}
	s := &input{n: c.Frames * c.Channels}
	s.buf = make([]int16, s.n)
	p := pa.StreamParameters{
		Input:           pa.StreamDeviceParameters{Device: d, Channels: c.Channels, Latency: d.DefaultHighInputLatency},
		SampleRate:      float64(c.Rate),
		FramesPerBuffer: c.Frames,
	}
	// A pointer to the slice: Read points it at the caller's buffer, so
	// samples land there without a copy.
	if s.st, err = pa.OpenStream(p, &s.buf); err != nil {
		return nil, err
	}
	if err := s.st.Start(); err != nil {
		_ = s.st.Close()
		return nil, err
	}
	return s, nil
}

type input struct {
	st  *pa.Stream
	buf []int16 // the library reads into whatever this points at
	n   int     // samples per read
}

func (s *input) Read(buf []int16) error {
	if len(buf) != s.n {
		return fmt.Errorf("read of %d samples on a stream of %d", len(buf), s.n)
	}
	s.buf = buf
	err := s.st.Read()
	s.buf = nil
	if errors.Is(err, pa.InputOverflowed) {
		return fmt.Errorf("%w: %v", ErrOverflow, err)
	}
	return err
}

func (s *input) Close() error {
	errA := s.st.Abort()
	if errors.Is(errA, pa.StreamIsStopped) {
		errA = nil
	}
	return errors.Join(errA, s.st.Close())
}

func (system) OpenOutput(c StreamConfig) (OutputStream, error) {
	d, err := lookup(c.Device)
	if err != nil {
		return nil, err
	}
	s := &output{n: c.Frames * c.Channels}
	s.buf = make([]int16, s.n)
	p := pa.StreamParameters{
		Output:          pa.StreamDeviceParameters{Device: d, Channels: c.Channels, Latency: d.DefaultHighOutputLatency},
		SampleRate:      float64(c.Rate),
		FramesPerBuffer: c.Frames,
	}
	if s.st, err = pa.OpenStream(p, &s.buf); err != nil {
		return nil, err
	}
	if err := s.st.Start(); err != nil {
		_ = s.st.Close()
		return nil, err
	}
	return s, nil
}

type output struct {
	st  *pa.Stream
	buf []int16 // the library writes whatever this points at
	n   int     // samples per write
}

func (s *output) Write(buf []int16) error {
	if len(buf) != s.n {
		return fmt.Errorf("write of %d samples on a stream of %d", len(buf), s.n)
	}
	s.buf = buf
	err := s.st.Write()
	s.buf = nil
	if errors.Is(err, pa.OutputUnderflowed) {
		// A gap was heard before this block; the block itself was queued.
		return nil
	}
	return err
}

func (s *output) Drain() error { return errors.Join(s.st.Stop(), s.st.Close()) }

func (s *output) Abort() error { return errors.Join(s.st.Abort(), s.st.Close()) }
