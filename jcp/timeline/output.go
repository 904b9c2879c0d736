package timeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/openjibo/jibod/jcp"
)

// ReadAction reads and validates an action file (a JCP action or a bare
// behaviour, run as an action's root); an invalid one is refused whole,
// before a body is touched.
func ReadAction(file string) (*jcp.Checked, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("reading action: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, jcp.MaxActionBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading action %s: %w", file, err)
	}
	a, _, err := jcp.ParseCheckedOrBehavior(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return a, nil
}

// WriteJSON writes the events to w, one JSON object a line, with the state
// samples merged in (WithSamples) when samples is set.
func (tl *Timeline) WriteJSON(w io.Writer, samples bool) error {
	out := tl.Events()
	if samples {
		out = WithSamples(out, tl.Samples())
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, e := range out {
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("writing timeline: %w", err)
		}
	}
	return nil
}

// Finish draws the timeline to the SVG file svg when it is not "" (titled
// title, with the run's result res) and says whether events were dropped.
func (tl *Timeline) Finish(svg, title string, res *jcp.Result) error {
	var err error
	if svg != "" {
		err = tl.WriteSVGFile(svg, title, res)
	}
	return errors.Join(err, tl.Dropped())
}
