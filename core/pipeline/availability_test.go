package pipeline

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/openjibo/jibod/core/session"
)

// flaky is a plugin whose backend comes and goes.
type flaky struct {
	scripted
	up atomic.Bool
}

func (p *flaky) Available() bool { return p.up.Load() }

func (p *flaky) Match(ctx context.Context, u []string, lang string, s session.Session) (*Match, error) {
	return p.scripted.Match(ctx, u, lang, s)
}

// TestUnavailablePluginSkipped_PIPE13 checks PIPE-13 step 2 for a loaded
// plugin that says it cannot answer: it is left out of the lifecycle (not
// called), the next stage gets the utterance, and once it is available
// again it takes part at once (no breaker count held against it, PIPE-10).
func TestUnavailablePluginSkipped_PIPE13(t *testing.T) {
	cloud := &flaky{scripted: scripted{id: "a", match: &Match{SkillID: "cloud", IntentName: "fact", Slots: map[string]string{}}}}
	local := &scripted{id: "b", match: &Match{SkillID: "local", IntentName: "hello", Slots: map[string]string{}}}
	r := newRig(t, Config{Plugins: []Plugin{cloud, local}, BreakerThreshold: 1})

	tests := []struct {
		name      string
		up        bool
		wantTopic string
		wantCalls int
	}{
		{"down: skipped, the next stage answers", false, "local:hello", 0},
		{"still down: still not called, no breaker count", false, "local:hello", 0},
		{"back up: asked first again", true, "cloud:fact", 1},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cloud.up.Store(tt.up)
			r.utter(t, hello(), nil)
			msgs := lastLifecycle(r.rec.waitHandled(t, 1))
			assert.Contains(t, topics(msgs), tt.wantTopic, "utterance %d", i)
			cloud.mu.Lock()
			defer cloud.mu.Unlock()
			assert.Equal(t, tt.wantCalls, cloud.calls)
		})
	}
}
