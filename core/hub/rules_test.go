package hub

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/jcp"
)

type silentVoice struct{}

func (silentVoice) Say(context.Context, string) error { return nil }

// answerRuleIntents lists "<owner>/<intent>" of the host's answer rules.
func answerRuleIntents(h *skill.Host) []string {
	var out []string
	for _, d := range h.AnswerRules() {
		if k := d.SkillID + "/" + d.IntentName; !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// A cloud skill's answer rules come with its proxy: the host adds them
// owned by the proxy's bus id, as the hub's skill names them in its
// questions ("openjibo.trivia/answer"), replaces them when the catalog
// changes them and drops them with the proxy. Each change publishes
// intent registrations, which is what makes the speech recogniser
// rebuild its grammars (answer grammar included).
func TestProxyAnswerRulesOnTheHost(t *testing.T) {
	ctx := context.Background()
	b := bus.New(bus.Options{Logger: quiet})
	t.Cleanup(func() { _ = b.Close(ctx) })
	svc := intent.NewService(b, intent.NewTemplateEngine(intent.EngineOptions{Logger: quiet}), quiet)
	require.NoError(t, svc.Start())
	t.Cleanup(svc.Close)
	ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: silentVoice{}})
	require.NoError(t, err)
	host, err := skill.NewHost(skill.HostConfig{Bus: b, Body: ex, Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = host.Close(ctx) })

	registered := make(chan []string, 64) // the proxy rules known when a registration is seen
	sub, err := b.Subscribe(intent.TopicRegisterTemplate, func(context.Context, bus.Message) {
		select {
		case registered <- answerRuleIntents(host):
		default:
		}
	})
	require.NoError(t, err)
	t.Cleanup(sub.Close)

	c, err := NewClient(Config{URL: "ws://127.0.0.1:1", Logger: quiet})
	require.NoError(t, err)
	r, err := NewRemote(RemoteConfig{Client: c, Host: host, Logger: quiet})
	require.NoError(t, err)

	// Each catalog is new, as each one fetched from the hub is.
	withRule := func(files map[string]string) *wire.Catalog {
		cat := testCatalog()
		cat.Skills[1].Rules = map[string]map[string]map[string]string{"answer": {"en-US": files}}
		return cat
	}
	require.NoError(t, r.Apply(ctx, withRule(map[string]string{
		"answer.intent": "[it is] {answer}\n", "answer.entity": "mars\n", "said_mars.intent": "mars\n"})))
	assert.Subset(t, answerRuleIntents(host), []string{"openjibo.trivia/answer", "openjibo.trivia/said_mars", "globals/yes"})
	p := r.proxy("openjibo/trivia")
	require.NotNil(t, p)
	rs, ok := any(p).(skill.RuleSkill)
	require.True(t, ok, "a proxy is a RuleSkill")
	assert.NotNil(t, rs.Rules())
	assert.Nil(t, r.proxy("openjibo/fact").Rules(), "a skill without rules gives an untyped nil")
	waitRegistered(t, registered, "openjibo.trivia/said_mars", true)

	// The catalog changes the rule: the old answers go, the new come.
	require.NoError(t, r.Apply(ctx, withRule(map[string]string{"said_jupiter.intent": "jupiter\n"})))
	got := answerRuleIntents(host)
	assert.Contains(t, got, "openjibo.trivia/said_jupiter")
	assert.NotContains(t, got, "openjibo.trivia/said_mars")
	waitRegistered(t, registered, "openjibo.trivia/said_jupiter", true)

	// The skill leaves the catalog: its rules leave the host.
	cat := testCatalog()
	cat.Skills = cat.Skills[:1]
	require.NoError(t, r.Apply(ctx, cat))
	for _, k := range answerRuleIntents(host) {
		assert.NotContains(t, k, "openjibo.trivia/")
	}
	waitRegistered(t, registered, "openjibo.trivia/said_jupiter", false)
}

// waitRegistered waits for an intent registration published when the
// host's answer rules did (or did not) include want.
func waitRegistered(t *testing.T, registered <-chan []string, want string, present bool) {
	t.Helper()
	deadline := time.After(10 * time.Second) // only keeps a broken build from hanging
	for {
		select {
		case got := <-registered:
			if slices.Contains(got, want) == present {
				return
			}
		case <-deadline:
			t.Fatalf("no intent registration with %s present=%v", want, present)
		}
	}
}
