package skill

import (
	"context"
	"io/fs"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/pipeline"
	"github.com/openjibo/jibod/core/session"
)

// A skill removed while it waits for an answer (uninstalled, or replaced
// by a new version) leaves no conversation behind: its kept session and
// answer window are gone, and the default session no longer lists it as a
// converse handler, which would make the pipeline poll it as a skill
// hosted elsewhere.
func TestRemoveEndsConversations(t *testing.T) {
	a := newAskingSkill(t, "globals/yes_no")
	r := newHostRig(t, a)
	sess := defaultSession(t)
	_, err := r.host.Invoke(context.Background(), withSession(dispatch("test.asker", "set"), sess, "set a timer"))
	require.NoError(t, err)
	require.NotNil(t, r.host.waitingTimer(session.DefaultID, "test.asker"), "the question waits for its answer")

	// The pipeline's side: the converse list of the default session, and
	// the syncs it is sent.
	var mu sync.Mutex
	var syncs []map[string]any
	_, err = r.bus.Subscribe(pipeline.TopicConverseActiveList, func(ctx context.Context, m bus.Message) {
		resp, err := m.Response(map[string]any{session.FieldConverseHandlers: []any{
			map[string]any{"skill_id": "test.asker", "activated_at": 2.0},
			map[string]any{"skill_id": "ext.weather", "activated_at": 1.0}}})
		require.NoError(t, err)
		require.NoError(t, r.bus.Publish(ctx, resp))
	})
	require.NoError(t, err)
	synced := make(chan struct{}, 1)
	_, err = r.bus.Subscribe(pipeline.TopicSessionSync, func(_ context.Context, m bus.Message) {
		mu.Lock()
		syncs = append(syncs, m.Data["session"].(map[string]any))
		mu.Unlock()
		synced <- struct{}{}
	})
	require.NoError(t, err)

	require.NoError(t, r.host.Remove(context.Background(), "test/asker"))
	<-synced
	_, ok, err := r.host.cfg.Conversations.Conversation(session.DefaultID, "test.asker")
	require.NoError(t, err)
	assert.False(t, ok, "its kept session is dropped")
	assert.Nil(t, r.host.waitingTimer(session.DefaultID, "test.asker"), "its answer window is closed")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, syncs, 1)
	assert.Equal(t, []any{map[string]any{"skill_id": "ext.weather", "activated_at": 1.0}}, syncs[0][session.FieldConverseHandlers],
		"the other handlers stay")
}

// localeSkill is a fakeSkill with intents.
type localeSkill struct {
	fakeSkill
	files fstest.MapFS
}

func (l *localeSkill) Locale() fs.FS { return l.files }

// A skill installed while the robot runs is added and its intents are
// registered at once; one whose intents the engines refuse is not added
// at all.
func TestInstallRegistersAtOnce(t *testing.T) {
	r := newHostRig(t)
	eng := intent.NewTemplateEngine(intent.EngineOptions{})
	svc := intent.NewService(r.bus, eng, nil)
	require.NoError(t, svc.Start())
	t.Cleanup(svc.Close)

	good := &localeSkill{fakeSkill: fakeSkill{id: "t.hello"}, files: fstest.MapFS{"en-us/hello.intent": {Data: []byte("say hello\n")}}}
	require.NoError(t, r.host.Install(context.Background(), good))
	m := eng.Match("say hello", "en-US", session.DefaultID)
	require.NotNil(t, m, "its intent is understood without a restart")
	assert.Equal(t, "t.hello", m.SkillID)

	require.NoError(t, r.host.Remove(context.Background(), "t/hello"))
	bad := &localeSkill{fakeSkill: fakeSkill{id: "t.bad"}, files: fstest.MapFS{
		"en-us/fine.intent": {Data: []byte("all fine\n")},
		"en-us/stop.intent": {Data: []byte("halt\n")}}}
	err := r.host.Install(context.Background(), bad)
	require.Error(t, err)
	assert.ErrorContains(t, err, "installing skill t/bad")
	assert.Empty(t, r.host.Skills(), "nothing of it stays")
}
