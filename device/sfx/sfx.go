// Package sfx plays sound effects on a device.PCMSink: a few named
// effects synthesised on the fly (so no audio assets ship with jibod) and,
// optionally, WAV clips from a folder. ESML's <sfx name>, <ssa name> and
// <audio path> end up here.
package sfx

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/openjibo/jibod/device"
)

// ErrUnknown is returned for a sound that does not exist.
var ErrUnknown = errors.New("unknown sound")

// MaxClipBytes bounds a WAV clip.
const MaxClipBytes = 8 << 20

// tone is one note of a synthesised effect.
type tone struct {
	from, to float64 // Hz, swept linearly
	ms       int
	gain     float64
}

// effects are the synthesised sounds.
var effects = map[string][]tone{
	"beep":    {{880, 880, 150, 0.4}},
	"chime":   {{1318.5, 1318.5, 180, 0.35}, {987.8, 987.8, 320, 0.35}},
	"boing":   {{600, 150, 350, 0.45}},
	"error":   {{220, 220, 180, 0.4}, {0, 0, 60, 0}, {196, 196, 300, 0.4}},
	"success": {{523.3, 523.3, 110, 0.35}, {659.3, 659.3, 110, 0.35}, {784, 784, 220, 0.35}},
	"click":   {{2000, 2000, 8, 0.5}},
}

// Names returns the synthesised effects, sorted.
func Names() []string {
	var n []string
	for k := range effects {
		n = append(n, k)
	}
	slices.Sort(n)
	return n
}

// Player plays effects and clips on a sink.
type Player struct {
	sink  device.PCMSink
	clips fs.FS
}

// NewPlayer plays on sink; clips, if not nil, holds WAV files for
// <audio path>.
func NewPlayer(sink device.PCMSink, clips fs.FS) (*Player, error) {
	if sink == nil {
		return nil, errors.New("sfx player: no sink")
	}
	if err := sink.Format().Validate(); err != nil {
		return nil, fmt.Errorf("sfx player: %w", err)
	}
	return &Player{sink: sink, clips: clips}, nil
}

// PlaySound plays a sound of kind "sfx" or "ssa" (a synthesised effect by
// name) or "audio" (a WAV clip by path) and returns when it has played.
func (p *Player) PlaySound(ctx context.Context, kind, name string) error {
	var pcm []int16
	var err error
	switch kind {
	case "sfx", "ssa":
		pcm, err = p.effect(name)
	case "audio":
		pcm, err = p.clip(name)
	default:
		err = fmt.Errorf("sound kind %q: want sfx, ssa or audio", kind)
	}
	if err != nil {
		return fmt.Errorf("play %s %q: %w", kind, name, err)
	}
	if err := p.sink.Write(ctx, pcm); err != nil {
		return fmt.Errorf("play %s %q: %w", kind, name, err)
	}
	return nil
}

func (p *Player) effect(name string) ([]int16, error) {
	tones, ok := effects[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("%w (have %s)", ErrUnknown, strings.Join(Names(), ", "))
	}
	f := p.sink.Format()
	var out []int16
	for _, t := range tones {
		n := f.SampleRate * t.ms / 1000
		phase := 0.0
		for i := range n {
			s := float64(i) / float64(n)
			hz := t.from + (t.to-t.from)*s
			phase += 2 * math.Pi * hz / float64(f.SampleRate)
			// A short fade at both ends avoids clicks.
			env := math.Min(1, math.Min(s, 1-s)*20)
			v := int16(math.Sin(phase) * t.gain * env * 32767)
			for range f.Channels {
				out = append(out, v)
			}
		}
	}
	return out, nil
}

// clip reads a 16-bit PCM WAV file matching the sink's format.
func (p *Player) clip(name string) ([]int16, error) {
	if p.clips == nil {
		return nil, fmt.Errorf("%w: no clip folder", ErrUnknown)
	}
	clean := path.Clean(strings.TrimPrefix(name, "/"))
	if !fs.ValidPath(clean) {
		return nil, fmt.Errorf("%w: %q is not a path inside the clip folder", ErrUnknown, name)
	}
	f, err := p.clips.Open(clean)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: no clip %s", ErrUnknown, clean)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxClipBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxClipBytes {
		return nil, fmt.Errorf("clip is more than %d bytes", MaxClipBytes)
	}
	return decodeWAV(data, p.sink.Format())
}

// decodeWAV reads RIFF/WAVE with a PCM fmt chunk of 16-bit samples.
func decodeWAV(data []byte, want device.PCMFormat) ([]int16, error) {
	if len(data) < 12 || string(data[0:4]) != "RIFF" || string(data[8:12]) != "WAVE" {
		return nil, errors.New("not a RIFF/WAVE file")
	}
	var format *device.PCMFormat
	for off := 12; off+8 <= len(data); {
		id := string(data[off : off+4])
		size := int(binary.LittleEndian.Uint32(data[off+4 : off+8]))
		body := off + 8
		if size < 0 || body+size > len(data) {
			return nil, fmt.Errorf("chunk %q at byte %d runs past the end", id, off)
		}
		switch id {
		case "fmt ":
			if size < 16 {
				return nil, errors.New("fmt chunk too short")
			}
			audioFormat := binary.LittleEndian.Uint16(data[body:])
			channels := int(binary.LittleEndian.Uint16(data[body+2:]))
			rate := int(binary.LittleEndian.Uint32(data[body+4:]))
			bits := binary.LittleEndian.Uint16(data[body+14:])
			if audioFormat != 1 || bits != 16 {
				return nil, fmt.Errorf("format %d with %d-bit samples: want PCM (1), 16-bit", audioFormat, bits)
			}
			format = &device.PCMFormat{SampleRate: rate, Channels: channels}
		case "data":
			if format == nil {
				return nil, errors.New("data chunk before the fmt chunk")
			}
			if *format != want {
				return nil, fmt.Errorf("clip is %d Hz × %d channels, the speaker plays %d Hz × %d", format.SampleRate, format.Channels, want.SampleRate, want.Channels)
			}
			pcm := make([]int16, size/2)
			for i := range pcm {
				pcm[i] = int16(binary.LittleEndian.Uint16(data[body+2*i:]))
			}
			return pcm[:len(pcm)-len(pcm)%want.Channels], nil
		}
		off = body + size + size%2
	}
	return nil, errors.New("no data chunk")
}
