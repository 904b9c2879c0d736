package loadtest

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/openjibo/jibod/core/hub/wire"
)

// Report is what a run measured.
type Report struct {
	// URL is the hub's endpoint.
	URL string `json:"url"`
	// Robots is how many robots were asked for.
	Robots int `json:"robots"`
	// Offered is the encoding robots offered; Negotiated what the hub
	// chose.
	Offered    wire.Encoding `json:"-"`
	Negotiated wire.Encoding `json:"-"`
	// Connected robots took part; ConnectFailures did not, with
	// ConnectErrors by kind. ConnectTime is the whole ramp.
	Connected       int            `json:"connected"`
	ConnectFailures int            `json:"connectFailures"`
	ConnectErrors   map[string]int `json:"connectErrors"`
	ConnectTime     time.Duration  `json:"connectTimeNs"`
	// Turns completed with their final SKILL_ACTION.
	Turns int `json:"turns"`
	// Errors are failed turns (and stray or bad frames) by kind.
	Errors map[string]int `json:"errors"`
	// RateLimited counts the Errors that were the hub refusing a call
	// over a skill's calls_per_minute: the hub's metering, not its
	// capacity.
	RateLimited int `json:"rateLimited"`
	// LinksLost counts robots whose link broke before the end.
	LinksLost int `json:"linksLost"`
	// Messages counts hub messages received.
	Messages int `json:"messages"`
	// Elapsed is the measured phase.
	Elapsed time.Duration `json:"elapsedNs"`
	// TPS is completed turns per second of Elapsed.
	TPS float64 `json:"tps"`
	// Round trips of completed turns, LISTEN sent → final message read.
	Mean time.Duration `json:"meanNs"`
	P50  time.Duration `json:"p50Ns"`
	P90  time.Duration `json:"p90Ns"`
	P99  time.Duration `json:"p99Ns"`
	Max  time.Duration `json:"maxNs"`
}

// summarise fills the counts and percentiles from the round trips.
func (r *Report) summarise(lat []time.Duration) {
	r.Turns = len(lat)
	if r.Elapsed > 0 {
		r.TPS = float64(r.Turns) / r.Elapsed.Seconds()
	}
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	r.Mean = sum / time.Duration(len(lat))
	r.P50, r.P90, r.P99 = Percentile(lat, 50), Percentile(lat, 90), Percentile(lat, 99)
	r.Max = lat[len(lat)-1]
}

// Percentile returns the nearest-rank p-th percentile (0 < p ≤ 100) of
// sorted; 0 for none.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// nearest rank: the smallest value with at least p% of samples at or
	// below it.
	rank := int(float64(len(sorted))*p/100 + 0.999999999)
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// ErrorCount is the number of failed turns and stray frames.
func (r *Report) ErrorCount() int {
	n := 0
	for _, v := range r.Errors {
		n += v
	}
	return n
}

// Write prints the report for people.
func (r *Report) Write(w io.Writer) error {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
	p := &errWriter{w: w}
	p.printf("hub       %s (offered %s, negotiated %s)\n", r.URL, r.Offered, r.Negotiated)
	p.printf("robots    %d connected of %d in %s", r.Connected, r.Robots, r.ConnectTime.Round(time.Millisecond))
	if r.ConnectFailures > 0 {
		p.printf(", %d failed:", r.ConnectFailures)
		for _, k := range slices.Sorted(maps.Keys(r.ConnectErrors)) {
			p.printf(" %s ×%d;", k, r.ConnectErrors[k])
		}
	}
	p.printf("\n")
	p.printf("turns     %d in %s: %.0f turns/s\n", r.Turns, r.Elapsed.Round(time.Millisecond), r.TPS)
	p.printf("round trip  mean %s  p50 %s  p90 %s  p99 %s  max %s\n", ms(r.Mean), ms(r.P50), ms(r.P90), ms(r.P99), ms(r.Max))
	p.printf("messages  %d received\n", r.Messages)
	if len(r.Errors) == 0 && r.LinksLost == 0 {
		p.printf("errors    none\n")
	} else {
		p.printf("errors    %d", r.ErrorCount())
		if r.LinksLost > 0 {
			p.printf(" (%d links lost)", r.LinksLost)
		}
		p.printf("\n")
		for _, k := range slices.Sorted(maps.Keys(r.Errors)) {
			p.printf("  %-40s %d\n", k, r.Errors[k])
		}
	}
	if r.RateLimited > 0 {
		p.printf("rate limit  %d turns refused over a skill's calls_per_minute: the hub's metering per robot, not its capacity\n", r.RateLimited)
	} else {
		p.printf("rate limit  no turn refused over calls_per_minute\n")
	}
	return p.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (p *errWriter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
