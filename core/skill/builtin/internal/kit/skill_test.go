package kit

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
)

const demoBusID = "test.demo"

func demoManifest() *registry.Manifest {
	return &registry.Manifest{ID: "test/demo", Version: "1.0.0", Name: "Demo",
		Description: "Says hello.", Permissions: []registry.Permission{registry.PermSpeech},
		SafetyLevel: registry.SafetyLow}
}

func demoFiles() fstest.MapFS {
	return fstest.MapFS{
		"locale/en-us/hello.intent": {Data: []byte("hello\n")},
		"locale/en-us/hello.dialog": {Data: []byte("Hello there!\n")},
	}
}

func request(typ string) *protocol.Request {
	c := protocol.Context{General: protocol.GeneralData{AccountID: "acct-1", RobotID: "Test-Robot", Lang: "en-US"},
		Skill: protocol.Skill(demoBusID)}
	nlu := protocol.NLUFromSlots("hello", nil, nil)
	if typ == protocol.TypeListenUpdate {
		return protocol.NewListenUpdate(c, nlu, protocol.ASRResult{Text: "hello", Confidence: 1})
	}
	return protocol.NewListenLaunch(c, nlu, protocol.ASRResult{Text: "hello", Confidence: 1}, nil)
}

func TestNewAnswersLaunches(t *testing.T) {
	var s *Skill
	launches := 0
	s, err := New(demoManifest(), demoFiles(), Options{Logger: slog.New(slog.DiscardHandler)},
		func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
			launches++
			text, err := s.Render(Lang(req), "hello", nil)
			if err != nil {
				return nil, err
			}
			return Say(req, protocol.Skill(demoBusID), text)
		})
	require.NoError(t, err)

	resp, err := s.Handle(context.Background(), request(protocol.TypeListenLaunch))
	require.NoError(t, err)
	require.Equal(t, protocol.TypeSkillAction, resp.Type)
	assert.Equal(t, 1, launches)

	// One-turn skills refuse anything but a launch, without running it.
	resp, err = s.Handle(context.Background(), request(protocol.TypeListenUpdate))
	require.NoError(t, err)
	require.Equal(t, protocol.TypeError, resp.Type)
	assert.Contains(t, resp.Error.Message, "answers LISTEN_LAUNCH only, not LISTEN_UPDATE")
	assert.Equal(t, 1, launches)

	m := s.Manifest()
	assert.Equal(t, demoBusID, m.BusID())
	m.Name = "Changed"
	assert.Equal(t, "Demo", s.Manifest().Name, "Manifest hands out a copy")

	_, err = fs.Stat(s.Locale(), "en-us/hello.intent")
	assert.NoError(t, err, "Locale is the tree under locale/")
}

// The locale is read and checked once, when the skill is built: the
// host's first registration takes that tree (and the skill no longer
// keeps it); later ones read the files.
func TestLoadedLocaleIsTakenOnce(t *testing.T) {
	s, err := New(demoManifest(), demoFiles(), Options{},
		func(context.Context, *protocol.Request) (*protocol.Response, error) { return nil, nil })
	require.NoError(t, err)
	var taker interface{ TakeLoadedLocale() *intent.Locale } = s
	loc := taker.TakeLoadedLocale()
	require.NotNil(t, loc)
	assert.NotNil(t, loc.Langs["en-us"].Resource(intent.RoleIntent, "hello"))
	assert.Nil(t, taker.TakeLoadedLocale(), "taken once")
	text, err := s.Render("en-US", "hello", nil)
	require.NoError(t, err)
	assert.Equal(t, "Hello there!", text, "the dialogs stay")
}

func TestNewGraph(t *testing.T) {
	var built *graph.Graph
	s, err := NewGraph(demoManifest(), demoFiles(), Options{}, func(log *slog.Logger) (*graph.Graph, error) {
		require.NotNil(t, log, "build gets a logger even when Options has none")
		g := graph.New("demo", "Done")
		require.NoError(t, g.AddNode(graph.NoOp("Start", "Done"), graph.ToExit("Done", "Done")))
		built = g
		return g, nil
	})
	require.NoError(t, err)
	assert.Same(t, built, s.Graph())
	assert.Equal(t, demoBusID, s.Manifest().BusID())
	resp, err := s.Handle(context.Background(), request(protocol.TypeListenLaunch))
	require.NoError(t, err)
	assert.NotEqual(t, protocol.TypeError, resp.Type)
}

// TestBuildErrors: a skill that cannot be built says which one and why.
func TestBuildErrors(t *testing.T) {
	launch := func(context.Context, *protocol.Request) (*protocol.Response, error) { return nil, nil }
	bad := demoManifest()
	bad.Version = "one"
	brokenDialog := demoFiles()
	brokenDialog["locale/en-us/broken.dialog"] = &fstest.MapFile{Data: []byte("Hello {name\n")}
	tests := []struct {
		name  string
		build func() error
		want  string
	}{
		{"invalid manifest", func() error { _, err := New(bad, demoFiles(), Options{}, launch); return err }, "demo skill: invalid manifest: version"},
		{"no locale", func() error { _, err := New(demoManifest(), fstest.MapFS{}, Options{}, launch); return err }, "demo skill: loading locale"},
		{"broken dialog", func() error { _, err := New(demoManifest(), brokenDialog, Options{}, launch); return err }, "broken.dialog:1:7"},
		{"no handler", func() error { _, err := New(demoManifest(), demoFiles(), Options{}, nil); return err }, "demo skill: no handler"},
		{"graph fails", func() error {
			_, err := NewGraph(demoManifest(), demoFiles(), Options{},
				func(*slog.Logger) (*graph.Graph, error) { return nil, errors.New("no MIMs") })
			return err
		}, "demo skill: no MIMs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.build()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// A skill declares which intents its context gates (CTX-11); an intent it
// does not define, or no key, is refused when the skill is built.
func TestRequiredContext(t *testing.T) {
	noop := func(context.Context, *protocol.Request) (*protocol.Response, error) { return nil, nil }
	s, err := New(demoManifest(), demoFiles(), Options{RequiredContext: map[string][]string{"hello": {"asked"}}}, noop)
	require.NoError(t, err)
	var g skill.ContextGated = s
	got := g.RequiredContext()
	assert.Equal(t, map[string][]string{"hello": {"asked"}}, got)
	got["hello"][0] = "changed"
	assert.Equal(t, map[string][]string{"hello": {"asked"}}, s.RequiredContext(), "a copy")

	_, err = New(demoManifest(), demoFiles(), Options{RequiredContext: map[string][]string{"goodbye": {"asked"}}}, noop)
	assert.ErrorContains(t, err, `demo skill: context for intent "goodbye"`)
	_, err = New(demoManifest(), demoFiles(), Options{RequiredContext: map[string][]string{"hello": nil}}, noop)
	assert.ErrorContains(t, err, "empty list")
}
