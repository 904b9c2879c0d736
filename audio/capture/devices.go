package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/openjibo/jibod/audio"
)

// WriteDevices writes the sources op opens and, per backend, the capture
// devices it lists, the default one marked with *.
func WriteDevices(ctx context.Context, w io.Writer, op *audio.Opener) {
	fmt.Fprintf(w, "backends: %s\n", strings.Join(op.Names(), ", "))
	fmt.Fprintf(w, "  file:PATH.wav  a WAV file (any integer PCM; converted to 16 kHz mono)\n")
	fmt.Fprintf(w, "  stdin          raw signed 16-bit little-endian 16 kHz mono on standard input\n")
	fmt.Fprintf(w, "  null           silence\n")
	devs, errs := op.Devices(ctx)
	var names []string
	for n := range op.Backends {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := errs[n]; err != nil {
			fmt.Fprintf(w, "%s: cannot list devices: %v\n", n, err)
			continue
		}
		list, ok := devs[n]
		if !ok {
			fmt.Fprintf(w, "%s: (does not list devices)\n", n)
			continue
		}
		fmt.Fprintf(w, "%s: %d capture device(s)\n", n, len(list))
		for _, d := range list {
			mark := " "
			if d.Default {
				mark = "*"
			}
			fmt.Fprintf(w, "  %s %s:%s  %s, %d ch, %d Hz\n", mark, n, d.ID, d.Name, d.Channels, d.SampleRate)
		}
	}
}

// Level shows the level of src on w (Meter) until it ends, ctx is done or
// limit samples were read (0: no limit), then the summary.
func Level(ctx context.Context, w io.Writer, src audio.Source, limit int64) error {
	m, err := NewMeter(w)
	if err != nil {
		return err
	}
	err = m.Run(ctx, src, limit)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		err = nil
	}
	return errors.Join(err, m.Finish())
}
