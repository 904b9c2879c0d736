// Package capture measures and cuts speech from an audio source the way
// the robot hears it (its audio chain's DC block and its voice activity
// detector): a level meter (`jibod audio level`) and a cutter taking one
// utterance at a time (`jibod audio enroll`).
package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/transform"
	"github.com/openjibo/jibod/audio/vad"
)

// Interval is how often the meter shows a reading, in audio time.
const Interval = 100 * time.Millisecond

// Meter shows the input level: one line per interval of audio (Interval),
// redrawn in place on a terminal.
type Meter struct {
	w        io.Writer
	terminal bool
	det      *vad.Detector
	chain    *transform.Run
}

// NewMeter writes readings to w, redrawing one line when w is a terminal.
func NewMeter(w io.Writer) (*Meter, error) {
	chain, det, err := Chain()
	if err != nil {
		return nil, err
	}
	m := &Meter{w: w, det: det, chain: chain}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			m.terminal = true
		}
	}
	return m, nil
}

// Chain is the audio tools' view of the microphone: the audio chain's DC
// block and a voice activity detector with the robot's defaults (Meter
// shows it, Cutter cuts with it).
func Chain() (*transform.Run, *vad.Detector, error) {
	det, err := vad.New(vad.Config{})
	if err != nil {
		return nil, nil, err
	}
	chain, err := transform.New(transform.Config{Transformers: []transform.Transformer{&transform.DCBlock{}}})
	if err != nil {
		return nil, nil, err
	}
	return chain.Compose(nil, nil), det, nil
}

// Run reads src until it ends, ctx ends or limit samples (0: no limit),
// showing one reading per interval of audio.
func (m *Meter) Run(ctx context.Context, src audio.Source, limit int64) error {
	per := int(Interval * audio.SampleRate / time.Second)
	buf := make([]int16, per)
	var read int64
	for limit == 0 || read < limit {
		want := buf
		if limit > 0 {
			want = buf[:min(int64(len(buf)), limit-read)]
		}
		n, err := readFull(ctx, src, want)
		if n > 0 {
			read += int64(n)
			res := m.chain.Process(ctx, want[:n], "")
			m.det.Feed(res.PCM)
			m.show(time.Duration(read)*time.Second/audio.SampleRate, res.PCM)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readFull fills buf unless the source ends or fails first.
func readFull(ctx context.Context, src audio.Source, buf []int16) (int, error) {
	got := 0
	for got < len(buf) {
		n, err := src.Read(ctx, buf[got:])
		got += n
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

func (m *Meter) show(at time.Duration, pcm []int16) {
	level, peakDB := audio.LevelDBFS(pcm), audio.PeakDBFS(pcm)
	const width = 40 // one column per 2 dB from -80 dBFS
	bars := 0
	if !math.IsInf(level, -1) {
		bars = max(0, min(width, int((level+80)/2)))
	}
	state := "      "
	if m.det.InSpeech() {
		state = "speech"
	}
	line := fmt.Sprintf("%7.1fs %6s dBFS  peak %6s  floor %6.1f  %s |%-*s|",
		at.Seconds(), dbString(level), dbString(peakDB), m.det.Floor(), state, width, strings.Repeat("#", bars))
	if m.terminal {
		fmt.Fprintf(m.w, "\r%s", line)
		return
	}
	fmt.Fprintln(m.w, line)
}

// Finish ends the terminal's redrawn line.
func (m *Meter) Finish() error {
	if m.terminal {
		_, err := fmt.Fprintln(m.w)
		return err
	}
	return nil
}

func dbString(db float64) string {
	if math.IsInf(db, -1) {
		return "-inf"
	}
	return fmt.Sprintf("%.1f", db)
}

// ErrNothingSaid is Next's answer when the wait for a sentence ran out.
var ErrNothingSaid = errors.New("nothing said")

// Cutter cuts one utterance at a time out of a source with the robot's
// own audio chain and voice activity detector: what `jibod audio enroll`
// records.
type Cutter struct {
	src   audio.Source
	chain *transform.Run
	det   *vad.Detector
	wait  int64 // samples
	buf   []int16
}

// NewCutter cuts utterances out of src, waiting at most wait for each.
func NewCutter(src audio.Source, wait time.Duration) (*Cutter, error) {
	chain, det, err := Chain()
	if err != nil {
		return nil, err
	}
	return &Cutter{src: src, chain: chain, det: det,
		wait: int64(wait.Seconds() * audio.SampleRate), buf: make([]int16, vad.FrameSamples)}, nil
}

// speaker is a copy of the part of seg the person said, without the
// background heard before or after them (vad.Segment's SpeakerPart).
func (e *Cutter) speaker(seg *vad.Segment) []int16 {
	return append([]int16(nil), seg.SpeakerPart(e.det.Config().PreRoll).PCM...)
}

// Next returns the next whole utterance of the person speaking (the
// room alone is skipped, and background before or after them cut off); say is told when one is too long
// and asked for again. Speech cut at the detector's
// longest utterance is reported and asked for again, and what follows it
// without a pause is dropped with it; an utterance the stream ends in the
// middle of is an error.
func (e *Cutter) Next(ctx context.Context, say io.Writer) ([]int16, error) {
	start := e.det.Pos()
	pause := int64(e.det.Config().SilenceTimeout.Seconds() * audio.SampleRate)
	skipUntil := int64(-1) // segments starting before this continue a cut one
	for {
		n, err := readFull(ctx, e.src, e.buf)
		if n > 0 {
			res := e.chain.Process(ctx, e.buf[:n], "")
			for _, ev := range e.det.Feed(res.PCM) {
				if ev.Kind != vad.SpeechEnd {
					continue
				}
				seg := ev.Segment
				switch {
				case seg.Reason == vad.EndMaxSpeech:
					fmt.Fprintf(say, "  longer than %v: say it again\n", e.det.Config().MaxSpeech)
					skipUntil = ev.Pos + pause
				case seg.Start < skipUntil:
					skipUntil = seg.End + pause
				case seg.BackgroundOnly:
					// The room (a television, other talkers), not the
					// person enrolling: wait for them.
				default:
					return e.speaker(seg), nil
				}
				start = e.det.Pos()
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				seg, ferr := e.det.Flush()
				if ferr != nil {
					return nil, fmt.Errorf("the audio ended while the sentence was being said: %w", ferr)
				}
				if seg != nil && seg.Start >= skipUntil && !seg.BackgroundOnly {
					return e.speaker(seg), nil
				}
				return nil, errors.New("the audio ended")
			}
			return nil, err
		}
		if !e.det.InSpeech() && e.det.Pos()-start > e.wait {
			return nil, ErrNothingSaid
		}
	}
}
