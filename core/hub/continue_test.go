package hub

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/store"
	"github.com/openjibo/jibod/jcp"
)

// routingHub answers CLIENT_ASR turns as jibo.md §1.5 routes them:
// "play trivia" launches trivia (a fresh session "t-new"); any other text
// goes to the skill CONTEXT names, when no hot phrase started the turn,
// as LISTEN_UPDATE (its session comes back with "+1" appended); anything
// else is no match. Every action carries a Skill Entry, so what the robot
// makes of it shows.
func routingHub(turns chan<- []*protocol.HubRequest) func(t *testing.T, c *wire.Conn) {
	return func(t *testing.T, c *wire.Conn) {
		ctx := context.Background()
		for {
			msgs := readTurn(t, c, protocol.TypeClientASR)
			if len(msgs) < 3 {
				return
			}
			turns <- msgs
			tid, listen, sk := msgs[0].TransID, msgs[0].Listen, msgs[1].Context.Skill
			asr := protocol.ASRResult{Text: msgs[2].ClientASR.Text, Confidence: 1}
			nlu := protocol.NLUResult{Entities: map[string]any{}, Rules: listen.Rules}
			match := &protocol.MatchData{SkillID: "openjibo/trivia", Launch: final(true)}
			next := &protocol.Session{ID: "t-new"}
			switch {
			case asr.Text == "play trivia":
				intent := "play_trivia"
				nlu.Intent = &intent
			case sk.ID != nil && !listen.Hotphrase:
				match = &protocol.MatchData{SkillID: *sk.ID, Launch: final(false)}
				n := *sk.Session
				n.ID += "+1"
				next = &n
			default:
				_ = c.WriteResponse(ctx, protocol.NewListenResult(&nlu, &asr, nil, true, protocol.WithTransID(tid)))
				continue
			}
			_ = c.WriteResponse(ctx, protocol.NewListenResult(&nlu, &asr, match, false, protocol.WithTransID(tid)))
			entry, err := protocol.SkillEntryProperties{InitialIntent: "n/a", WasHeyJiboLaunch: true, UserInitiated: true}.Event()
			if !assert.NoError(t, err) {
				return
			}
			id := "openjibo/trivia"
			a := protocol.NewHubSkillAction(&protocol.SkillActionData{Skill: protocol.SkillData{ID: &id, Session: next},
				Action: json.RawMessage(sayAction), Final: final(false),
				Analytics: protocol.Analytics{"openjibo/trivia": {entry}}}, protocol.WithTransID(tid))
			a.Final = final(true)
			_ = c.WriteResponse(ctx, a)
		}
	}
}

// recordingVoice keeps what the body says.
type recordingVoice struct {
	mu    sync.Mutex
	lines []string
}

func (v *recordingVoice) Say(_ context.Context, text string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.lines = append(v.lines, text)
	return nil
}

func (v *recordingVoice) said() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.lines...)
}

// A remote-fallback turn the hub routes to the running cloud skill goes
// through the robot's real skill host as what it is, a turn of the skill's
// conversation: the match says it continues, the proxy gets LISTEN_UPDATE
// with the kept session and reads the skill's action from the fallback's
// transaction, the run record says LISTEN_UPDATE and the Skill Entry's
// initial_intent is an answer turn's. A launch the hub matches, of the
// running skill or with none running, stays a launch.
func TestFallbackContinuationThroughTheHost(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	const busID = "openjibo.trivia"
	tests := []struct {
		name          string
		running       bool // trivia's conversation is kept
		said          string
		wantContinues bool
		wantType      string
		wantIntent    string // of the run record
		wantInitial   string // the Skill Entry's initial_intent
		wantSession   string // the session kept afterwards
	}{
		{"an answer to the running skill", true, "blue", true, protocol.TypeListenUpdate, "hub_match", skill.IntentResponse, "t-1+1"},
		{"a launch of the running skill", true, "play trivia", false, protocol.TypeListenLaunch, "play_trivia", "play_trivia", "t-new"},
		{"a launch with nothing running", false, "play trivia", false, protocol.TypeListenLaunch, "play_trivia", "play_trivia", "t-new"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			turns := make(chan []*protocol.HubRequest, 4)
			h := newFakeHub(t, routingHub(turns))
			states := make(chan LinkState, 64)
			c := newTestClient(t, h, Persistent, wire.JSON, states)
			waitState(t, states, Up)

			b := bus.New(bus.Options{Logger: quiet})
			t.Cleanup(func() { _ = b.Close(ctx) })
			// Applying the catalog registers the proxies' intents.
			svc := intent.NewService(b, intent.NewTemplateEngine(intent.EngineOptions{Logger: quiet}), quiet)
			require.NoError(t, svc.Start())
			t.Cleanup(svc.Close)
			voice := &recordingVoice{}
			ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: voice})
			require.NoError(t, err)
			runs, kept := invoke.NewLog(16), skill.NewMemoryState()
			host, err := skill.NewHost(skill.HostConfig{Bus: b, Body: ex, Logger: quiet, Records: runs, Conversations: kept,
				Now: func() time.Time { return now }})
			require.NoError(t, err)
			t.Cleanup(func() { _ = host.Close(ctx) })
			r, err := NewRemote(RemoteConfig{Client: c, Host: host, Conversations: kept, Logger: quiet,
				Now: func() time.Time { return now }})
			require.NoError(t, err)
			require.NoError(t, r.Apply(ctx, testCatalog()))
			analytics := make(chan bus.Message, 4)
			_, err = b.Subscribe(skill.TopicAnalytics, func(_ context.Context, m bus.Message) { analytics <- m })
			require.NoError(t, err)
			if tt.running {
				id := busID
				require.NoError(t, kept.PutConversation(store.Conversation{BusSession: session.DefaultID, SkillID: busID,
					Skill: protocol.SkillData{ID: &id, Session: &protocol.Session{ID: "t-1", Data: json.RawMessage(`{"q":2}`)}},
					Lang:  "en-US", UpdatedAt: now.Add(-time.Minute)}))
			}

			m, err := r.Fallback().Match(ctx, []string{tt.said}, "en-US", session.Session{})
			require.NoError(t, err)
			require.NotNil(t, m)
			require.Equal(t, busID, m.SkillID)
			assert.Equal(t, tt.wantContinues, m.Continues)
			recv(t, turns, "turn at the hub")
			sess, _, err := session.Parse(map[string]any{"session_id": session.DefaultID})
			require.NoError(t, err)
			msg := bus.NewMessage(m.SkillID+":"+m.IntentName, nil)
			msg.Context[bus.KeySession] = sess.Map()
			// As the orchestrator dispatches the winning match.
			_, err = host.Invoke(ctx, pipeline.Dispatch{Message: msg, SkillID: m.SkillID, IntentName: m.IntentName,
				PipelineID: FallbackID, Lang: m.Lang, Utterance: m.Utterance, Slots: m.Slots, Session: sess, Continues: m.Continues})
			require.NoError(t, err)
			require.Equal(t, []string{"Octopuses have three hearts."}, voice.said(), "the body ran the hub skill's action")
			assert.Empty(t, turns, "the proxy read the skill's action from the fallback's transaction")

			recs := runs.List(invoke.Filter{Skill: busID})
			require.Len(t, recs, 1)
			assert.Equal(t, tt.wantType, recs[0].RequestType, "the run record")
			assert.Equal(t, tt.wantIntent, recs[0].Intent)
			assert.Equal(t, invoke.OutcomeOK, recs[0].Outcome)

			am := recv(t, analytics, "Skill Entry analytics")
			var a protocol.Analytics
			raw, err := json.Marshal(am.Data["analytics"])
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &a))
			p, err := a["openjibo/trivia"][0].SkillEntry()
			require.NoError(t, err)
			assert.Equal(t, tt.wantInitial, p.InitialIntent)
			assert.Equal(t, "n/a", p.LastSkill, "nothing was launched before")

			conv, ok, err := kept.Conversation(session.DefaultID, busID)
			require.NoError(t, err)
			require.True(t, ok, "the conversation goes on")
			require.NotNil(t, conv.Skill.Session)
			assert.Equal(t, tt.wantSession, conv.Skill.Session.ID)
		})
	}
}

// update is the LISTEN_UPDATE the host sends a proxy for a match that
// continues its skill's conversation, with the session it kept (nil when
// its copy went meanwhile).
func update(busID string, m *pipeline.Match, sess *protocol.Session) *protocol.Request {
	id := busID
	nlu := protocol.NLUFromSlots(m.IntentName, m.Slots, nil)
	return protocol.NewListenUpdate(protocol.Context{General: protocol.GeneralData{Lang: "en-US"},
		Skill: protocol.SkillData{ID: &id, Session: sess}}, nlu, protocol.ASRResult{Text: m.Utterance, Confidence: 1})
}
