package installed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/bus"
	"github.com/openjibo/jibod/core/intent"
	"github.com/openjibo/jibod/core/session"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
	"github.com/openjibo/jibod/core/skill/wasm/wasmtest"
	"github.com/openjibo/jibod/jcp"
)

// module is the smallest module the ABI accepts: it loads, registers and
// unloads like any skill, which is all these tests need of it.
var module = wasmtest.Raw{MemoryPages: 1, Funcs: []wasmtest.Func{
	{Export: "jibo_abi_version", Results: []byte{wasmtest.I32}, Body: wasmtest.I32Const(1)},
	{Export: "jibo_handle", Params: []byte{wasmtest.I32}, Results: []byte{wasmtest.I32}, Body: wasmtest.I32Const(0)},
}}.Bytes()

func manifest(id, version string) string {
	return fmt.Sprintf(`{"id": %q, "version": %q, "name": "Test", "description": "A test skill.",
		"permissions": ["speech"], "safety_level": "low"}`, id, version)
}

// robot is a bus, the intent engines and a skill host, as the robot wires
// them, and a state folder.
type robot struct {
	state  string
	host   *skill.Host
	engine *intent.TemplateEngine
}

func newRobot(t *testing.T) *robot {
	t.Helper()
	b := bus.New(bus.Options{})
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	eng := intent.NewTemplateEngine(intent.EngineOptions{})
	svc := intent.NewService(b, eng, nil)
	require.NoError(t, svc.Start())
	t.Cleanup(svc.Close)
	ex, err := jcp.NewExecutor(jcp.ExecutorConfig{Voice: silent{}})
	require.NoError(t, err)
	h, err := skill.NewHost(skill.HostConfig{Bus: b, Body: ex})
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return &robot{state: t.TempDir(), host: h, engine: eng}
}

// install lays out a package of skill id at version, understanding
// utterance, and installs it as `jibod skills install` does.
func (r *robot) install(t *testing.T, id, version, utterance string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "pkg")
	require.NoError(t, wasmtest.WritePackage(src, manifest(id, version), module,
		map[string]string{"en-us/ask.intent": utterance + "\n"}))
	p, err := skillpkg.Read(src)
	require.NoError(t, err)
	_, err = skillpkg.Install(p, filepath.Join(r.state, SkillsDirName))
	require.NoError(t, err)
}

// understands reports which skill the robot's engines give utterance to.
func (r *robot) understands(utterance string) string {
	if m := r.engine.Match(utterance, "en-US", session.DefaultID); m != nil {
		return m.SkillID
	}
	return ""
}

// silent is a voice that says nothing.
type silent struct{}

func (silent) Say(context.Context, string) error { return nil }

func open(t *testing.T, r *robot) *Skills {
	t.Helper()
	s, err := Open(context.Background(), Config{StateDir: r.state, Host: r.host})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// Installing, updating and uninstalling while the robot runs, each taking
// effect at the next Sync without a restart.
func TestSyncLoadsUpdatesAndUnloads(t *testing.T) {
	r := newRobot(t)
	s := open(t, r)
	ctx := context.Background()

	r.install(t, "acme/echo", "1.0.0", "echo this")
	got, err := s.Sync(ctx, "acme/echo")
	require.NoError(t, err)
	assert.Equal(t, []Change{{ID: "acme/echo", Change: Loaded, Version: "1.0.0"}}, got)
	assert.Equal(t, "acme.echo", r.understands("echo this"), "its intents are registered at once")

	got, err = s.Sync(ctx)
	require.NoError(t, err)
	assert.Equal(t, []Change{{ID: "acme/echo", Change: Unchanged, Version: "1.0.0"}}, got)

	r.install(t, "acme/echo", "1.1.0", "repeat this")
	got, err = s.Sync(ctx, "acme/echo")
	require.NoError(t, err)
	assert.Equal(t, []Change{{ID: "acme/echo", Change: Updated, Version: "1.1.0", Previous: "1.0.0"}}, got)
	assert.Equal(t, "acme.echo", r.understands("repeat this"), "the new version's intents")
	assert.Empty(t, r.understands("echo this"), "the old version's intents are gone")
	m, err := r.host.Registry().Get("acme/echo")
	require.NoError(t, err)
	assert.Equal(t, "1.1.0", m.Version)

	_, err = skillpkg.Uninstall(filepath.Join(r.state, SkillsDirName), "acme/echo")
	require.NoError(t, err)
	got, err = s.Sync(ctx, "acme/echo")
	require.NoError(t, err)
	assert.Equal(t, []Change{{ID: "acme/echo", Change: Unloaded, Previous: "1.1.0"}}, got)
	assert.Empty(t, r.understands("repeat this"))
	assert.Empty(t, r.host.Skills())

	got, err = s.Sync(ctx, "acme/echo")
	require.NoError(t, err)
	assert.Equal(t, []Change{{ID: "acme/echo", Change: Absent}}, got)
}

// A package that does not load is reported and left out; an older version
// running keeps running; the other skills carry on.
func TestSyncReportsWhatDoesNotLoad(t *testing.T) {
	r := newRobot(t)
	s := open(t, r)
	ctx := context.Background()
	skills := filepath.Join(r.state, SkillsDirName)

	r.install(t, "acme/echo", "1.0.0", "echo this")
	r.install(t, "acme/other", "1.0.0", "other thing")
	_, err := s.Sync(ctx)
	require.NoError(t, err)

	// Version 2 of echo is broken on disk: version 1 keeps running.
	r.install(t, "acme/echo", "2.0.0", "echo this")
	require.NoError(t, os.WriteFile(filepath.Join(skills, "acme.echo", "skill.wasm"), []byte("\x00asm\x01\x00\x00\x00junk"), 0o600))
	got, err := s.Sync(ctx, "acme/echo")
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, NotLoaded, got[0].Change)
	assert.Equal(t, "1.0.0", got[0].Version)
	assert.Contains(t, got[0].Error, "not a usable WebAssembly module")
	assert.Contains(t, got[0].Error, "(version 1.0.0 keeps running)")
	assert.Equal(t, "acme.echo", r.understands("echo this"))
	require.Len(t, s.NotLoaded(), 1)
	assert.Equal(t, "acme/echo", s.NotLoaded()[0].ID)

	// A new skill that does not load is not added at all.
	r.install(t, "acme/third", "1.0.0", "third thing")
	require.NoError(t, os.WriteFile(filepath.Join(skills, "acme.third", "manifest.json"), []byte(`{"id": "acme/third"`), 0o600))
	got, err = s.Sync(ctx, "acme/third")
	require.NoError(t, err)
	assert.Equal(t, NotLoaded, got[0].Change)
	assert.Contains(t, got[0].Error, "manifest.json")
	assert.Empty(t, r.understands("third thing"))
	assert.Equal(t, "acme.other", r.understands("other thing"), "the others carry on")

	// Fixed and installed again: it loads, and is no longer left out.
	r.install(t, "acme/echo", "2.0.1", "echo this")
	got, err = s.Sync(ctx, "acme/echo")
	require.NoError(t, err)
	assert.Equal(t, []Change{{ID: "acme/echo", Change: Updated, Version: "2.0.1", Previous: "1.0.0"}}, got)
	for _, p := range s.NotLoaded() {
		assert.NotEqual(t, "acme/echo", p.ID)
	}
}

// Installed packages load at start, through Host.Add (the host registers
// every skill's intents at once after); what the host refuses is left out.
func TestOpenLoadsWhatIsInstalled(t *testing.T) {
	r := newRobot(t)
	r.install(t, "acme/echo", "1.0.0", "echo this")
	r.install(t, "acme/broken", "1.0.0", "broken thing")
	require.NoError(t, os.WriteFile(filepath.Join(r.state, SkillsDirName, "acme.broken", "skill.wasm"), []byte("\x00asmxx"), 0o600))
	s := open(t, r)
	require.NoError(t, r.host.Register(context.Background()))
	assert.Equal(t, "acme.echo", r.understands("echo this"))
	require.Len(t, s.NotLoaded(), 1)
	assert.Equal(t, "acme/broken", s.NotLoaded()[0].ID)
}

// Uninstalling with purging while the robot holds the storage open leaves
// a note; the robot deletes the data at its next Sync (or start), unless
// the skill was installed again meanwhile.
func TestPurgeNotes(t *testing.T) {
	r := newRobot(t)
	skills := filepath.Join(r.state, SkillsDirName)
	r.install(t, "acme/echo", "1.0.0", "echo this")
	s := open(t, r)
	ctx := context.Background()
	require.NoError(t, s.storage.Set("acme/echo", "k", []byte("v")))

	_, err := skillpkg.Uninstall(skills, "acme/echo")
	require.NoError(t, err)
	require.NoError(t, skillpkg.MarkPurge(skills, "acme/echo"))
	got, err := s.Sync(ctx, "acme/echo")
	require.NoError(t, err)
	assert.Equal(t, []Change{{ID: "acme/echo", Change: Unloaded, Previous: "1.0.0"}, {ID: "acme/echo", Change: Purged}}, got)
	keys, err := s.storage.Keys("acme/echo", "")
	require.NoError(t, err)
	assert.Empty(t, keys)
	pending, err := skillpkg.PendingPurges(skills)
	require.NoError(t, err)
	assert.Empty(t, pending)

	// Marked, then installed again before the robot noticed: it keeps its data.
	require.NoError(t, s.storage.Set("acme/echo", "k", []byte("v")))
	require.NoError(t, skillpkg.MarkPurge(skills, "acme/echo"))
	r.install(t, "acme/echo", "1.0.1", "echo this")
	got, err = s.Sync(ctx)
	require.NoError(t, err)
	assert.Equal(t, []Change{{ID: "acme/echo", Change: Loaded, Version: "1.0.1"}}, got)
	v, err := s.storage.Get("acme/echo", "k")
	require.NoError(t, err)
	assert.Equal(t, "v", string(v))
	require.NoError(t, s.Close(ctx))

	// A note left while no robot ran is dealt with at start.
	_, err = skillpkg.Uninstall(skills, "acme/echo")
	require.NoError(t, err)
	require.NoError(t, skillpkg.MarkPurge(skills, "acme/echo"))
	r2 := newRobot(t)
	r2.state = r.state
	s2 := open(t, r2)
	keys, err = s2.storage.Keys("acme/echo", "")
	require.NoError(t, err)
	assert.Empty(t, keys)
}
