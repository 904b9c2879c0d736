package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/openjibo/jibod/audio"
	"github.com/openjibo/jibod/audio/eval"
)

// Prompt is a sentence for a person to read aloud.
type Prompt struct {
	Text string
	Wake bool // it starts with the wake phrase
}

// Enrollment is a folder of recordings of people reading prompts, for
// adapting the acoustic model: enroll-NNN.wav files (16 kHz mono) and a
// manifest line for each (package eval's format).
type Enrollment struct {
	dir  string
	done map[string]bool // files the manifest already lists
}

// OpenEnrollment makes dir if it is missing and reads what its manifest
// already lists, so an enrollment goes on where it stopped.
func OpenEnrollment(dir string) (*Enrollment, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	items, err := eval.ReadManifest(dir)
	done := map[string]bool{}
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("%s holds a manifest this tool cannot go on with: %w", dir, err)
	}
	for _, it := range items {
		done[it.File] = true
	}
	return &Enrollment{dir: dir, done: done}, nil
}

// Record shows each prompt not yet recorded on w, waits for it to be said
// on src and saves it. Speech cut off or over the detector's longest
// utterance is asked for again (Cutter); a prompt with nothing said within
// wait is skipped. Prompt i is file enroll-<i+1>.wav, so the same prompts
// go on where a run stopped.
func (e *Enrollment) Record(ctx context.Context, src audio.Source, prompts []Prompt, wait time.Duration, w io.Writer) error {
	cut, err := NewCutter(src, wait)
	if err != nil {
		return err
	}
	recorded, skipped := 0, 0
	for i, p := range prompts {
		file := fmt.Sprintf("enroll-%03d.wav", i+1)
		if e.done[file] {
			continue
		}
		fmt.Fprintf(w, "[%d/%d] say: %s\n", i+1, len(prompts), p.Text)
		seg, err := cut.Next(ctx, w)
		switch {
		case errors.Is(err, ErrNothingSaid):
			fmt.Fprintf(w, "  nothing heard in %v: skipped\n", wait)
			skipped++
			continue
		case err != nil:
			fmt.Fprintf(w, "%d recorded, %d skipped; run again with the same --n and --seed to go on\n", recorded, skipped)
			return fmt.Errorf("sentence %d: %w", i+1, err)
		}
		if err := e.save(file, p, seg); err != nil {
			return err
		}
		recorded++
		fmt.Fprintf(w, "  recorded %.1f s (%s)\n", float64(len(seg))/audio.SampleRate, file)
	}
	fmt.Fprintf(w, "%d recorded, %d skipped, %d already in %s\n", recorded, skipped, len(e.done), e.dir)
	if recorded+len(e.done) > 0 {
		fmt.Fprintf(w, "next: jibod audio adapt --dir %s --out MODELDIR\n", e.dir)
	}
	return nil
}

// save writes one recording, then its manifest line, so the manifest
// never names a file that is not whole.
func (e *Enrollment) save(file string, p Prompt, pcm []int16) error {
	tmp, err := os.CreateTemp(e.dir, ".enroll-*.wav")
	if err != nil {
		return fmt.Errorf("saving a recording: %w", err)
	}
	werr := audio.EncodeWAV(tmp, audio.SampleRate, 1, pcm)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), filepath.Join(e.dir, file))
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("saving %s: %w", file, werr)
	}
	line, err := json.Marshal(eval.Item{File: file, Text: p.Text, Wake: p.Wake, Kind: "enroll"})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(e.dir, eval.ManifestName), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("adding %s to the manifest: %w", file, err)
	}
	_, werr = f.Write(append(line, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("adding %s to the manifest: %w", file, werr)
	}
	return nil
}
