package loadgen

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
)

// fakeRobot answers every utterance on the bus as a pipeline does: a line
// with "refuse" in it is refused by its skill, one with "fail" fails, one
// with "full" is turned away whole; each ends with one handled. After n
// utterances it calls enough.
func fakeRobot(t *testing.T, b *bus.Bus, n int, enough func()) *sync.Map {
	t.Helper()
	var seen sync.Map // line → count
	total := 0
	_, err := b.Subscribe(pipeline.TopicHandle, func(ctx context.Context, m bus.Message) {
		line := m.Data["utterances"].([]any)[0].(string)
		c, _ := seen.LoadOrStore(line, new(int))
		*c.(*int)++
		if total++; total == n {
			enough()
		}
		publish := func(topic string, data map[string]any) {
			// The bus closes once the run is over, under the last ones.
			if err := b.Publish(ctx, m.Forward(topic, data)); err != nil && !errors.Is(err, bus.ErrClosed) {
				t.Error(err)
			}
		}
		switch {
		case strings.Contains(line, "refuse"):
			publish(skill.TopicSkillRefused, map[string]any{"error": "over calls_per_minute"})
			publish(pipeline.TopicHandlerError, map[string]any{"exception": "refused"})
		case strings.Contains(line, "fail"):
			publish(pipeline.TopicHandlerError, map[string]any{"exception": "skill broke"})
		case strings.Contains(line, "full"):
			publish(pipeline.TopicHandled, map[string]any{"error": "orchestrator overloaded"})
			return
		}
		publish(pipeline.TopicHandled, nil)
	}, bus.WithQueue(1024, bus.Block))
	require.NoError(t, err)
	return &seen
}

// The load says its lines in turn, several at once, and counts each
// utterance by how it ended; it stops when its context ends.
func TestRunCountsEachUtteranceByHowItEnded(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	fakeRobot(t, b, 800, cancel)
	res, err := Run(ctx, Config{Bus: b, Lines: []string{"answer me", "refuse me", "fail me", "full"}, Inputs: 2, InFlight: 3})
	require.NoError(t, err)
	total := res.Handled + res.Refused + res.Failed
	assert.GreaterOrEqual(t, total, int64(800-6), "all but those in flight at the end")
	// Each line is said as often as the others, give or take the ones in
	// flight when the run ended.
	assert.InDelta(t, total/4, res.Handled, 6)
	assert.InDelta(t, total/4, res.Refused, 6)
	assert.InDelta(t, total/2, res.Failed, 12, "failed and turned away")
	assert.Contains(t, []string{"over calls_per_minute", "skill broke", "orchestrator overloaded"}, res.FirstError)
	assert.Positive(t, res.PerSecond())
}

// A run whose context has ended says nothing.
func TestRunEndsAtOnceWhenItsContextHas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.New(bus.Options{})
		defer b.Close(context.Background())
		seen := fakeRobot(t, b, 1, func() {})
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		res, err := Run(ctx, Config{Bus: b, Lines: []string{"hello"}})
		require.NoError(t, err)
		assert.Zero(t, res.Handled+res.Refused+res.Failed)
		synctest.Wait()
		seen.Range(func(k, _ any) bool { t.Errorf("said %q", k); return true })
	})
}

// An utterance whose handled never comes leaves its input waiting until
// the run ends, never longer.
func TestRunStopsWaitingForAnUnansweredUtterance(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.New(bus.Options{})
		defer b.Close(context.Background())
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		res, err := Run(ctx, Config{Bus: b, Lines: []string{"hello"}})
		require.NoError(t, err)
		assert.Zero(t, res.Handled)
		assert.Equal(t, 5*time.Second, res.Elapsed)
	})
}

// said sums how often each line was said.
func said(seen *sync.Map) int64 {
	var n int64
	seen.Range(func(_, c any) bool { n += int64(*c.(*int)); return true })
	return n
}

// With Stop, the run ends by answering: every line said is counted by how
// it ended, none left in flight.
func TestRunWithStopAccountsForEveryLineSaid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.New(bus.Options{})
		defer b.Close(context.Background())
		stop := make(chan struct{})
		seen := fakeRobot(t, b, 100, func() { close(stop) })
		res, err := Run(t.Context(), Config{Bus: b, Lines: []string{"answer me", "refuse me", "fail me"}, Inputs: 2, InFlight: 3, Stop: stop})
		require.NoError(t, err)
		synctest.Wait()
		assert.Equal(t, said(seen), res.Handled+res.Refused+res.Failed)
		assert.GreaterOrEqual(t, res.Handled+res.Refused+res.Failed, int64(100))
		assert.Zero(t, res.Unanswered)
	})
}

// A load stopped before its inputs got going still says each input's
// first InFlight lines and waits for their answers, so a slow machine
// never measures a loop with no load.
func TestRunWithStopSaysTheFirstLinesHoweverLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.New(bus.Options{})
		defer b.Close(context.Background())
		seen := fakeRobot(t, b, 0, func() {})
		stop := make(chan struct{})
		close(stop)
		res, err := Run(t.Context(), Config{Bus: b, Lines: []string{"hello"}, Stop: stop})
		require.NoError(t, err)
		assert.Equal(t, int64(DefaultInputs*DefaultInFlight), res.Handled)
		assert.Equal(t, int64(DefaultInputs*DefaultInFlight), said(seen))
		assert.Zero(t, res.Unanswered)
	})
}

// Lines never answered after Stop are waited for DrainLimit, then counted
// as unanswered.
func TestRunWithStopGivesUpOnUnansweredLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bus.New(bus.Options{})
		defer b.Close(context.Background())
		stop := make(chan struct{})
		close(stop)
		res, err := Run(t.Context(), Config{Bus: b, Lines: []string{"hello"}, Stop: stop})
		require.NoError(t, err)
		assert.Zero(t, res.Handled)
		assert.Equal(t, int64(DefaultInputs*DefaultInFlight), res.Unanswered)
		assert.Equal(t, DrainLimit, res.Elapsed)
	})
}

func TestConfigChecked(t *testing.T) {
	b := bus.New(bus.Options{})
	defer b.Close(context.Background())
	for _, tt := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no bus", Config{}, "no bus"},
		{"no lines", Config{Bus: b, Lines: []string{}}, "0 lines"},
		{"an empty line", Config{Bus: b, Lines: []string{"hi", ""}}, "line 2 is 0 bytes long"},
		{"a long line", Config{Bus: b, Lines: []string{strings.Repeat("a", 1025)}}, "line 1 is 1025 bytes long"},
		{"too many inputs", Config{Bus: b, Lines: []string{"hi"}, Inputs: MaxInputs + 1}, "17 inputs"},
		{"negative in flight", Config{Bus: b, Lines: []string{"hi"}, InFlight: -1}, "-1 in flight per input"},
		{"too many in flight", Config{Bus: b, Lines: []string{"hi"}, InFlight: MaxInFlight + 1}, "65 in flight per input"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(t.Context(), tt.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// The load's skills each answer their own line in words, and declare the
// most calls a minute a manifest may.
func TestSkillsAnswerTheirLines(t *testing.T) {
	skills, lines, err := Skills(MaxSkills, nil)
	require.NoError(t, err)
	require.Len(t, skills, MaxSkills)
	require.Len(t, lines, MaxSkills)
	assert.Equal(t, "load check alfa", lines[0])
	assert.Equal(t, "load check alfa alfa", lines[26])
	ids := map[string]bool{}
	for i, s := range skills {
		m := s.Manifest().Normalized()
		require.NoError(t, m.Validate(), lines[i])
		assert.Equal(t, registry.MaxCallsPerMinute, m.EffectiveLimits().CallsPerMinute)
		assert.False(t, ids[m.ID], "ids differ: %s", m.ID)
		ids[m.ID] = true
		intent, err := fs.ReadFile(s.Locale(), "en-us/check.intent")
		require.NoError(t, err)
		assert.Equal(t, lines[i]+"\n", string(intent))

		bus := m.BusID()
		req := protocol.NewListenLaunch(protocol.Context{
			General: protocol.GeneralData{AccountID: "a", RobotID: "r", Lang: "en-US", Release: "1"},
			Skill:   protocol.Skill(bus)}, protocol.NLUFromSlots("check", nil, nil), protocol.ASRResult{Text: lines[i], Confidence: 1}, nil)
		resp, err := s.Handle(t.Context(), req)
		require.NoError(t, err)
		require.Equal(t, protocol.TypeSkillAction, resp.Type, "%+v", resp.Error)
		assert.Contains(t, string(resp.Action.Action), "Checked")
	}
	_, _, err = Skills(0, nil)
	assert.ErrorContains(t, err, "0 skills: want 1..64")
	_, _, err = Skills(MaxSkills+1, nil)
	assert.ErrorContains(t, err, "65 skills")
}
