package audio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"
)

// Built-in source backends, always present (pure Go).
const (
	BackendFile  = "file"
	BackendStdin = "stdin"
	BackendNull  = "null"
)

// MaxSpecLen bounds a source spec.
const MaxSpecLen = 4096

// ErrNoBackend marks a spec naming a backend this build does not have.
var ErrNoBackend = errors.New("no such audio backend")

// Opener opens sources from specs: "file:PATH.wav", "stdin" (raw s16le
// 16 kHz mono), "null" (silence in real time), or "NAME[:ARG]" for a
// backend in Backends. cmd/jibod builds one with the backends its build
// has; nothing registers itself.
type Opener struct {
	// Backends are the extra backends by name (e.g. "portaudio").
	Backends map[string]Backend
	// Stdin is what "stdin" reads; nil means os.Stdin.
	Stdin io.Reader
	// Pace plays file sources in real time rather than as fast as they can
	// be read.
	Pace bool
	// Retry shapes reopening a live backend after it fails.
	Retry Retry
	// Logger receives reopen attempts; nil means slog.Default().
	Logger *slog.Logger
}

// Open opens spec with the built-in backends only (file, stdin, null),
// reading standard input for "stdin" and files as fast as they can be read.
func Open(spec string) (Source, error) {
	return (&Opener{}).Open(context.Background(), spec)
}

// Names lists the backends this opener knows, built-in first.
func (o *Opener) Names() []string {
	names := []string{BackendFile, BackendStdin, BackendNull}
	var extra []string
	for n := range o.Backends {
		extra = append(extra, n)
	}
	sort.Strings(extra)
	return append(names, extra...)
}

// ParseSpec splits "name[:arg]" and checks it is sane (not empty, bounded,
// no control characters). It does not check that the backend exists.
func ParseSpec(spec string) (name, arg string, err error) {
	if spec == "" {
		return "", "", errors.New("audio source spec is empty")
	}
	if len(spec) > MaxSpecLen {
		return "", "", fmt.Errorf("audio source spec of %d bytes exceeds the %d-byte limit", len(spec), MaxSpecLen)
	}
	for _, r := range spec {
		if r < 0x20 || r == 0x7f {
			return "", "", fmt.Errorf("audio source spec %q contains a control character", spec)
		}
	}
	name, arg, _ = strings.Cut(spec, ":")
	return name, arg, nil
}

// Open opens the source spec names. A live backend (Backend.Live) is
// wrapped so that a read error closes it and reopens it with backoff
// (Opener.Retry) instead of ending the stream.
func (o *Opener) Open(ctx context.Context, spec string) (Source, error) {
	name, arg, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	switch name {
	case BackendFile:
		if arg == "" {
			return nil, errors.New("audio source \"file:\" needs a path: file:PATH.wav")
		}
		return OpenFileSource(arg, FileOptions{Pace: o.Pace})
	case BackendStdin:
		if arg != "" {
			return nil, fmt.Errorf("audio source %q: stdin takes no argument", spec)
		}
		in := o.Stdin
		if in == nil {
			in = os.Stdin
		}
		return NewRawSource(in), nil
	case BackendNull:
		if arg != "" {
			return nil, fmt.Errorf("audio source %q: null takes no argument", spec)
		}
		return NewNullSource(), nil
	}
	b, ok := o.Backends[name]
	if !ok || b.Open == nil {
		return nil, fmt.Errorf("audio source %q: %w %q in this build (have %s)", spec, ErrNoBackend, name, strings.Join(o.Names(), ", "))
	}
	open := func(ctx context.Context) (Source, error) { return b.Open(ctx, arg) }
	if !b.Live {
		src, err := open(ctx)
		if err != nil {
			return nil, fmt.Errorf("opening audio source %q: %w", spec, err)
		}
		return src, nil
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	return NewReopener(ctx, spec, open, o.Retry, log)
}

// Devices lists the capture devices of every backend that can list them,
// by backend name. A backend whose listing fails maps to its error.
func (o *Opener) Devices(ctx context.Context) (map[string][]Device, map[string]error) {
	devs, errs := map[string][]Device{}, map[string]error{}
	for name, b := range o.Backends {
		if b.Devices == nil {
			continue
		}
		d, err := b.Devices(ctx)
		if err != nil {
			errs[name] = err
			continue
		}
		devs[name] = d
	}
	return devs, errs
}

// Retry shapes reopening a live source: the wait starts at Initial and
// doubles up to Max. Zero values mean 250 ms and 5 s.
type Retry struct {
	Initial, Max time.Duration
}

func (r Retry) withDefaults() Retry {
	if r.Initial <= 0 {
		r.Initial = 250 * time.Millisecond
	}
	if r.Max <= 0 {
		r.Max = 5 * time.Second
	}
	if r.Max < r.Initial {
		r.Max = r.Initial
	}
	return r
}
