package main

import (
	"context"
	"testing"

	"github.com/openjibo/jibod/core/console"
	"github.com/openjibo/jibod/motion"
)

// BenchmarkControlLoopUnderPipelineLoad runs the whole robot on the sim
// board with the motion control loop playing an animation at 200 Hz, and
// sends one text utterance through the pipeline per iteration. It reports
// how late the loop's ticks started meanwhile (p50, p99 and max in µs), and
// the ticks skipped. Compare with `jibod motion loop` (no load) and
// `jibod motion loop --load`.
func BenchmarkControlLoopUnderPipelineLoad(b *testing.B) {
	ctx := context.Background()
	r := newBenchRobot(b)
	ctrl := r.Body().Motion
	a, ok := r.Body().Exec.Animations().Lookup("look-around")
	if !ok {
		b.Fatal("no look-around animation")
	}
	job, err := ctrl.Play(a, motion.PlayOptions{Loops: -1, NoLights: true})
	if err != nil {
		b.Fatal(err)
	}
	defer job.Halt()
	u, err := console.NewUtterer(r.Bus(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer u.Close()
	lines := []string{"hello", "what time is it", "flibbertigibbet"}
	ctrl.ResetStats()
	i := 0
	for b.Loop() {
		if _, _, err := u.Say(ctx, lines[i%len(lines)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	s := ctrl.Stats()
	b.ReportMetric(float64(s.P50.Microseconds()), "p50-late-µs")
	b.ReportMetric(float64(s.P99.Microseconds()), "p99-late-µs")
	b.ReportMetric(float64(s.Max.Microseconds()), "max-late-µs")
	b.ReportMetric(float64(s.Missed), "missed-ticks")
	b.ReportMetric(float64(s.Ticks), "ticks")
}
