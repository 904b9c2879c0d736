package board

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteCheck writes what Probe found on the board of profile p to w, as a
// table under the board's name or as one JSON object per device; the error
// says how many devices did not answer.
func WriteCheck(w io.Writer, p *Profile, results []CheckResult, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
	} else {
		fmt.Fprintf(w, "board %s: %s\n", p.Name, p.Description)
		tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
		for _, r := range results {
			state, what := "ok", r.Detail
			if !r.OK {
				state, what = "FAIL", r.Error
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Device, r.Driver, r.Where, state, what)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	failed := 0
	for _, r := range results {
		if !r.OK {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d devices did not answer", failed, len(results))
	}
	return nil
}
