package intenttool

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// WriteText writes the report for a person; path names the corpus.
func (r *Report) WriteText(w io.Writer, path string) {
	pct := func(n, of int) string {
		if of == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(n)/float64(of), n, of)
	}
	fmt.Fprintf(w, "corpus            %s\n", path)
	fmt.Fprintf(w, "intents           %d template (%d templates, %d rejected by the grammar), %d keyword; %d intents rejected\n",
		r.Intents, r.Templates, r.TemplatesRejected, r.KeywordIntents, r.IntentsRejected)
	fmt.Fprintf(w, "tests             %d (%d without needs_context)\n", r.Tests, r.TestsWithoutContext)
	fmt.Fprintf(w, "intent accuracy   %s; without needs_context %s\n", pct(r.intentOK, r.Tests), pct(r.intentOKNoCtx, r.TestsWithoutContext))
	fmt.Fprintf(w, "exact accuracy    %s; without needs_context %s\n", pct(r.exactOK, r.Tests), pct(r.exactOKNoCtx, r.TestsWithoutContext))
	fmt.Fprintf(w, "match latency     p50 %.1f µs, p95 %.1f µs, max %.1f µs (all tiers, per utterance)\n", r.P50us, r.P95us, r.MaxUs)
	fmt.Fprintf(w, "build             %.1f ms\n", r.BuildMs)
	fmt.Fprintf(w, "heap              %.1f MB retained by the engines\n", r.HeapMB)
	if r.LearnMs > 0 {
		fmt.Fprintf(w, "paraphrase tier   learnt in %.1f ms, %.1f MB retained\n", r.LearnMs, r.LearntHeapMB)
	}
	var tiers []string
	for _, id := range append(slices.Clone(r.bands), "none") {
		if tc := r.Tiers[id]; tc != nil && tc.Claimed > 0 {
			tiers = append(tiers, fmt.Sprintf("%s %d/%d", id, tc.Correct, tc.Claimed))
		}
	}
	fmt.Fprintf(w, "right/claimed     %s\n", strings.Join(tiers, ", "))
	if r.Abstained > 0 {
		fmt.Fprintf(w, "abstained         %d below the claim floor (%d would have been right)\n", r.Abstained, r.AbstainedRight)
	}
	if r.Asked > 0 {
		fmt.Fprintf(w, "asked about       %d of the tests nothing claimed (%d about the right intent)\n", r.Asked, r.AskedRight)
	}
	var cal []string
	for _, b := range r.Calibration {
		cal = append(cal, fmt.Sprintf("[%.1f,%.1f) %d/%d", b.From, b.To, b.Right, b.Tests))
	}
	fmt.Fprintf(w, "calibration       best candidate's score: right/tests %s\n", strings.Join(cal, ", "))
	for _, x := range r.Rejected {
		if x.Template != "" {
			fmt.Fprintf(w, "rejected template %s: %q: %s\n", x.Intent, x.Template, x.Error)
		} else {
			fmt.Fprintf(w, "rejected intent   %s: %s\n", x.Intent, x.Error)
		}
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "FAIL %q: want %s %v, got %s %v (%s)\n", f.Utterance, orNone(f.Want), f.WantSlots, orNone(f.Got), f.GotSlots, f.Tier)
		if a := f.Abstained; a != nil {
			fmt.Fprintf(w, "     abstained from %s at %.2f: %s\n", a.Intent, a.Score, a.Why)
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Progress returns a progress bar drawn on w when w is a terminal, else
// nil. A character device is taken for a terminal: no new dependency just
// to ask the tty driver.
func Progress(w io.Writer) func(done, total int) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	const width = 40
	return func(done, total int) {
		n := width * done / total
		fmt.Fprintf(w, "\r[%s%s] %d/%d", strings.Repeat("#", n), strings.Repeat(".", width-n), done, total)
		if done == total {
			fmt.Fprint(w, "\r\033[K")
		}
	}
}
