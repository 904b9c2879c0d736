// Package portaudio captures and plays audio through PortAudio (ALSA on the
// robot): device listing, choosing a device by name or index, conversion to
// and from the 16 kHz mono 16-bit PCM the rest of the robot works in, and
// clean failure when a device vanishes, so that a reopen (audio.Reopener)
// finds it again when it returns.
//
// The logic here is pure Go and works against the small [Library]
// interface, so it is built and tested everywhere; the real library
// (PortAudio through github.com/gordonklaus/portaudio, cgo) is [System],
// present only with the build tag "portaudio".
//
// PortAudio reads its device list once, when it is initialised. A [Host]
// therefore initialises the library when its first stream opens (or a
// listing starts) and terminates it when the last one closes: a reopen
// after a device vanished starts from a fresh list, which holds the device
// again once it is back.
package portaudio

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/openjibo/jibod/audio"
)

// Limits on what a device may report or be asked for.
const (
	// MaxDevices bounds the devices a listing returns.
	MaxDevices = 256
	// MaxSelectorLen bounds a device selector.
	MaxSelectorLen = 256
	// MaxChannels bounds the channels opened on a device; capture uses at
	// most two (a stereo microphone is mixed to mono).
	MaxChannels = 2
)

// ErrNoDevice marks a selector that matches no usable device.
var ErrNoDevice = errors.New("no such audio device")

// DeviceInfo is one device as the library reports it.
type DeviceInfo struct {
	// Index is the library's index for the device; it can change when
	// devices come and go, names do not.
	Index int
	// Name is the device's name (with ALSA, the card and hw: address).
	Name string
	// HostAPI names the host API (ALSA).
	HostAPI string
	// InputChannels and OutputChannels are the most the device offers.
	InputChannels, OutputChannels int
	// DefaultRate is the device's preferred sample rate in Hz.
	DefaultRate float64
	// DefaultInput and DefaultOutput mark the host API's default devices.
	DefaultInput, DefaultOutput bool
}

// StreamConfig is what a stream is opened with.
type StreamConfig struct {
	Device   DeviceInfo
	Channels int
	Rate     int
	// Frames is the number of frames one Read or Write moves.
	Frames int
}

// InputStream is an open, started capture stream.
type InputStream interface {
	// Read fills buf (Frames×Channels interleaved samples), blocking until
	// they have been captured. An overflow (samples dropped because the
	// reader was late) is reported with an error wrapping ErrOverflow and
	// buf still filled.
	Read(buf []int16) error
	// Close stops and closes the stream.
	Close() error
}

// OutputStream is an open, started playback stream.
type OutputStream interface {
	// Write plays buf (Frames×Channels interleaved samples), blocking
	// until the device has room for them.
	Write(buf []int16) error
	// Drain waits for what was written to play, then closes; Abort drops it
	// and closes.
	Drain() error
	Abort() error
}

// ErrOverflow marks samples lost on capture because reading fell behind.
var ErrOverflow = errors.New("input overflowed")

// Library is the part of PortAudio this package uses. The Host serialises
// every call, stream Close, Drain and Abort included, except a stream's
// Read or Write, which may run while other streams open or close.
type Library interface {
	// Initialize starts the library, reading the device list.
	Initialize() error
	// Terminate stops it, closing anything still open.
	Terminate() error
	// Devices lists the devices of every host API.
	Devices() ([]DeviceInfo, error)
	// OpenInput opens and starts a capture stream.
	OpenInput(c StreamConfig) (InputStream, error)
	// OpenOutput opens and starts a playback stream.
	OpenOutput(c StreamConfig) (OutputStream, error)
}

// Host shares one PortAudio library between sources, sinks and listings.
// It initialises the library for the first user and terminates it after
// the last, so every fresh start sees the devices present now.
type Host struct {
	lib Library
	log *slog.Logger

	mu    sync.Mutex // serialises every library call
	users int
}

// NewHost returns a host over lib; log nil means slog.Default().
func NewHost(lib Library, log *slog.Logger) *Host {
	if log == nil {
		log = slog.Default()
	}
	return &Host{lib: lib, log: log}
}

// acquire registers a user, initialising the library for the first. Call
// with h.mu held.
func (h *Host) acquire() error {
	if h.users == 0 {
		if err := h.lib.Initialize(); err != nil {
			return fmt.Errorf("starting PortAudio: %w", err)
		}
	}
	h.users++
	return nil
}

// release ends a use, terminating the library after the last. Call with
// h.mu held.
func (h *Host) release() {
	h.users--
	if h.users > 0 {
		return
	}
	h.users = 0
	if err := h.lib.Terminate(); err != nil {
		h.log.Warn("stopping PortAudio", "err", err)
	}
}

// Devices lists the devices present now (input and output), at most
// MaxDevices, in the library's order.
func (h *Host) Devices(ctx context.Context) ([]DeviceInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.acquire(); err != nil {
		return nil, err
	}
	defer h.release()
	return h.devices()
}

func (h *Host) devices() ([]DeviceInfo, error) {
	devs, err := h.lib.Devices()
	if err != nil {
		return nil, fmt.Errorf("listing PortAudio devices: %w", err)
	}
	if len(devs) > MaxDevices {
		devs = devs[:MaxDevices]
	}
	return devs, nil
}

// Backend is the host as an audio backend for audio.Opener: "portaudio"
// opens the default input, "portaudio:NAME" or "portaudio:INDEX" a chosen
// one. It is live: a device that vanishes is reopened with backoff.
func (h *Host) Backend(o SourceOptions) audio.Backend {
	return audio.Backend{
		Open: func(ctx context.Context, arg string) (audio.Source, error) {
			return h.OpenSource(ctx, arg, o)
		},
		Devices: func(ctx context.Context) ([]audio.Device, error) {
			devs, err := h.Devices(ctx)
			if err != nil {
				return nil, err
			}
			return CaptureDevices(devs), nil
		},
		Live: true,
	}
}

// CaptureDevices maps the devices that can capture to audio.Device, with
// the name as the ID (names survive devices coming and going; indices may
// not).
func CaptureDevices(devs []DeviceInfo) []audio.Device {
	out := []audio.Device{}
	for _, d := range devs {
		if d.InputChannels <= 0 {
			continue
		}
		out = append(out, audio.Device{
			ID:         d.Name,
			Name:       fmt.Sprintf("%s device #%d", d.HostAPI, d.Index),
			Default:    d.DefaultInput,
			Channels:   d.InputChannels,
			SampleRate: int(d.DefaultRate),
		})
	}
	return out
}

// Select picks the device a selector names among devs: "" is the default
// (input when input is true, else output); a decimal number is an index; a
// name matches exactly (ignoring case), or else as the only device whose
// name contains it. The device must offer the direction wanted.
func Select(devs []DeviceInfo, selector string, input bool) (DeviceInfo, error) {
	dir := "output"
	if input {
		dir = "input"
	}
	usable := func(d DeviceInfo) bool {
		if input {
			return d.InputChannels > 0
		}
		return d.OutputChannels > 0
	}
	if len(selector) > MaxSelectorLen {
		return DeviceInfo{}, fmt.Errorf("audio device selector of %d bytes exceeds the %d-byte limit", len(selector), MaxSelectorLen)
	}
	var cands []DeviceInfo
	for _, d := range devs {
		if usable(d) {
			cands = append(cands, d)
		}
	}
	if len(cands) == 0 {
		want := ""
		if selector != "" {
			want = fmt.Sprintf("%q: ", selector)
		}
		return DeviceInfo{}, fmt.Errorf("%w: %sno %s devices present (is a sound card connected, and may this user open it?)", ErrNoDevice, want, dir)
	}
	if selector == "" {
		for _, d := range cands {
			if (input && d.DefaultInput) || (!input && d.DefaultOutput) {
				return d, nil
			}
		}
		return DeviceInfo{}, fmt.Errorf("%w: no default %s device; choose one of %s", ErrNoDevice, dir, names(cands))
	}
	if i, err := strconv.Atoi(selector); err == nil {
		for _, d := range cands {
			if d.Index == i {
				return d, nil
			}
		}
		return DeviceInfo{}, fmt.Errorf("%w: no %s device with index %d; choose one of %s", ErrNoDevice, dir, i, names(cands))
	}
	for _, d := range cands {
		if strings.EqualFold(d.Name, selector) {
			return d, nil
		}
	}
	var hits []DeviceInfo
	low := strings.ToLower(selector)
	for _, d := range cands {
		if strings.Contains(strings.ToLower(d.Name), low) {
			hits = append(hits, d)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return DeviceInfo{}, fmt.Errorf("%w: no %s device named %q; choose one of %s", ErrNoDevice, dir, selector, names(cands))
	}
	return DeviceInfo{}, fmt.Errorf("%w: %q matches %d %s devices: %s; give more of the name", ErrNoDevice, selector, len(hits), dir, names(hits))
}

func names(devs []DeviceInfo) string {
	q := make([]string, 0, len(devs))
	for _, d := range devs {
		q = append(q, fmt.Sprintf("%q (#%d)", d.Name, d.Index))
	}
	sort.Strings(q)
	return strings.Join(q, ", ")
}

// deviceRate is the rate to open d at: its default, if the resampler can
// convert it to or from want.
func deviceRate(d DeviceInfo, want int) (int, error) {
	r := int(d.DefaultRate + 0.5)
	if r < audio.MinRate || r > audio.MaxRate {
		return 0, fmt.Errorf("device %q reports a default rate of %v Hz (want %d to %d)", d.Name, d.DefaultRate, audio.MinRate, audio.MaxRate)
	}
	if _, err := audio.NewResampler(r, want); err != nil {
		return 0, err
	}
	return r, nil
}
