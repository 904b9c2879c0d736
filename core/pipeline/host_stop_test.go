package pipeline_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/jcp"
)

// talker is a skill whose every answer is one long sentence.
type talker struct{ id string }

func (s talker) Manifest() *skill.Manifest {
	return &skill.Manifest{ID: strings.Replace(s.id, ".", "/", 1), Name: s.id, Version: "1.0.0",
		Description: "Talks at length.", Permissions: []registry.Permission{registry.PermSpeech},
		SafetyLevel: registry.SafetyLow}
}
func (s talker) Locale() fs.FS { return nil }
func (s talker) Handle(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
	a, err := skill.ActionJSON(jcp.NewAction(jcp.Say("a very long story")))
	if err != nil {
		return nil, err
	}
	return protocol.NewSkillAction(req, protocol.Skill(s.id), a, true), nil
}

// endlessVoice speaks until its context ends, as the executor's voice must.
type endlessVoice struct{ speaking chan struct{} }

func (v endlessVoice) Say(ctx context.Context, _ string) error {
	v.speaking <- struct{}{}
	<-ctx.Done()
	return fmt.Errorf("speech stopped: %w", ctx.Err())
}

// stopHost is a skill host with the talker, on a body that speaks with
// voice, taking stops and stop pings from its bus; pongs are its answers
// to the pings. The test's end closes them.
func stopHost(t *testing.T, voice jcp.Voice) (*bus.Bus, *skill.Host, <-chan bus.Message) {
	t.Helper()
	b := bus.New(bus.Options{})
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: voice})
	require.NoError(t, err)
	h, err := skill.NewHost(skill.HostConfig{Bus: b, Body: ex})
	require.NoError(t, err)
	require.NoError(t, h.Add(talker{id: "test.talker"}))
	stopSubs, err := h.StartStop()
	require.NoError(t, err)
	t.Cleanup(stopSubs)
	pongs := make(chan bus.Message, 4)
	sub, err := b.Subscribe(pipeline.TopicStopPong, func(_ context.Context, m bus.Message) { pongs <- m })
	require.NoError(t, err)
	t.Cleanup(sub.Close)
	return b, h, pongs
}

func dispatchFor(sess session.Session, skillID, intent string) pipeline.Dispatch {
	m := bus.NewMessage(skillID+":"+intent, nil)
	m.Context[bus.KeySession] = sess.Map()
	m.Context[bus.KeyUtteranceID] = "u-" + intent
	return pipeline.Dispatch{Message: m, SkillID: skillID, IntentName: intent, Lang: "en-US", Session: sess}
}

// TestHostStopsTheBody checks the skill host's side of STOP-1: it answers
// ovos.stop.ping for a skill whose action is running in that session
// (STOP-04), and a <skill>:stop dispatch (STOP-07) or ovos.stop (STOP-06)
// cancels that action, so speech and motion stop, in that session only.
func TestHostStopsTheBody(t *testing.T) {
	tests := []struct {
		name string
		stop func(t *testing.T, b *bus.Bus, h *skill.Host, s session.Session)
	}{
		{"<skill>:stop dispatch (STOP-07)", func(t *testing.T, _ *bus.Bus, h *skill.Host, s session.Session) {
			_, err := h.Invoke(context.Background(), dispatchFor(s, "test.talker", "stop"))
			require.NoError(t, err)
		}},
		{"ovos.stop (STOP-06)", func(t *testing.T, b *bus.Bus, _ *skill.Host, s session.Session) {
			m := bus.NewMessage(pipeline.TopicStop, nil)
			m.Context[bus.KeySession] = s.Map()
			require.NoError(t, b.Publish(context.Background(), m))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			voice := endlessVoice{speaking: make(chan struct{}, 1)}
			b, h, pongs := stopHost(t, voice)

			kitchen, _ := session.Empty().With(session.FieldSessionID, "kitchen")
			done := make(chan error, 1)
			go func() {
				_, err := h.Invoke(context.Background(), dispatchFor(session.Empty(), "test.talker", "story"))
				done <- err
			}()
			within(t, voice.speaking, "the story spoken")

			ping := func(s session.Session) {
				m := bus.NewMessage(pipeline.TopicStopPing, nil)
				m.Context[bus.KeySession] = s.Map()
				m.Context[bus.KeyUtteranceID] = "ping-" + s.ID()
				require.NoError(t, b.Publish(context.Background(), m))
			}
			ping(kitchen) // nothing runs there: no answer
			ping(session.Empty())
			pong := within(t, pongs, "the pong")
			assert.Equal(t, map[string]any{"skill_id": "test.talker", "can_handle": true}, pong.Data)
			assert.Equal(t, "test.talker", pong.ContextString(bus.KeySkillID), "REG-03")
			assert.Equal(t, "ping-default", pong.ContextString(bus.KeyUtteranceID), "the answer is to the default session's ping")

			// A stop in another session leaves this one speaking: the host
			// takes ovos.stop and pings in order, so it still answers.
			tt.stop(t, b, h, kitchen)
			ping(session.Empty())
			assert.Equal(t, "test.talker", within(t, pongs, "the pong").DataString("skill_id"), "still running after another session's stop")
			tt.stop(t, b, h, session.Empty())
			assert.NoError(t, within(t, done, "the story ended"), "a stopped action is done, not failed")
		})
	}
}

// within returns what ch gives, failing the test rather than hanging
// when nothing comes.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second): // a hang guard, no timing assertion
		t.Fatalf("waiting for %s: nothing came", what)
		var zero T
		return zero
	}
}

// reportingVoice speaks until its context ends and hands each sentence's
// context over, so a test sees whether the speech was cancelled.
type reportingVoice struct{ speaking chan context.Context }

func (v reportingVoice) Say(ctx context.Context, _ string) error {
	v.speaking <- ctx
	<-ctx.Done()
	return fmt.Errorf("speech stopped: %w", ctx.Err())
}

// TestGlobalStopSparesItsOwnAnswer: ovos.stop (STOP-06) ends every action
// in its session except those of the utterance that asked for it, so
// what the robot says after a global stop (the stop plugin's
// Match.After) is not cut by the stop's own message. Host.Running tells
// what a stop would end.
func TestGlobalStopSparesItsOwnAnswer(t *testing.T) {
	voice := reportingVoice{speaking: make(chan context.Context, 2)}
	b, h, pongs := stopHost(t, voice)

	assert.False(t, h.Running(session.DefaultID))
	done := make(chan error, 1)
	go func() {
		_, err := h.Invoke(context.Background(), dispatchFor(session.Empty(), "test.talker", "story"))
		done <- err
	}()
	story := within(t, voice.speaking, "the story spoken")
	assert.True(t, h.Running(session.DefaultID))
	assert.False(t, h.Running("kitchen"))

	stop := func(utterance string) {
		m := bus.NewMessage(pipeline.TopicStop, nil)
		m.Context[bus.KeySession] = session.Empty().Map()
		m.Context[bus.KeyUtteranceID] = utterance
		require.NoError(t, b.Publish(context.Background(), m))
	}
	stop("u-story") // the story's own utterance
	// The host takes stops and pings in order: the pong says the stop
	// has been processed (a cancelled action may still answer one).
	ping := bus.NewMessage(pipeline.TopicStopPing, nil)
	ping.Context[bus.KeySession] = session.Empty().Map()
	require.NoError(t, b.Publish(context.Background(), ping))
	assert.Equal(t, "test.talker", within(t, pongs, "the pong").DataString("skill_id"))
	assert.NoError(t, story.Err(), "still speaking after its own utterance's stop")

	stop("u-other")
	assert.NoError(t, within(t, done, "the story ended"), "another utterance's stop ends it")
	assert.Error(t, story.Err())
	assert.False(t, h.Running(session.DefaultID))
}
