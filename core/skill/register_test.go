package skill

import (
	"context"
	"io/fs"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/intent"
)

// countingFS counts the files opened in it.
type countingFS struct {
	fs.FS
	mu    sync.Mutex
	opens int
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opens++
	c.mu.Unlock()
	return c.FS.Open(name)
}

func (c *countingFS) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opens
}

// loadedSkill read its locale when it was built, as the built-in skills do.
type loadedSkill struct {
	patientSkill
	files  *countingFS
	mu     sync.Mutex
	loaded *intent.Locale
}

func (s *loadedSkill) Locale() fs.FS { return s.files }

func (s *loadedSkill) TakeLoadedLocale() *intent.Locale {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.loaded
	s.loaded = nil
	return l
}

// A skill that loaded its locale when it was built hands the tree to its
// first registration, which reads no file again; a later registration
// (after an intent service restart, say) reads the files.
func TestRegisterTakesTheLoadedLocale(t *testing.T) {
	files := &countingFS{FS: fstest.MapFS{
		"en-us/time.intent": {Data: []byte("what time is it\n")},
		"en-us/date.intent": {Data: []byte("what (day|date) is it\n")},
	}}
	loaded, err := intent.LoadLocale(files, ".")
	require.NoError(t, err)
	s := &loadedSkill{patientSkill: patientSkill{fakeSkill{id: "t.s"}}, files: files, loaded: loaded}
	r := newHostRig(t, s)
	eng := intent.NewTemplateEngine(intent.EngineOptions{})
	svc := intent.NewService(r.bus, eng, nil)
	require.NoError(t, svc.Start())
	t.Cleanup(svc.Close)

	read := files.count()
	require.NoError(t, r.host.Register(context.Background()))
	assert.Equal(t, read, files.count(), "the first registration reads no file")
	m := eng.Match("what date is it", "en-us", intent.DefaultSession)
	require.NotNil(t, m, "the taken tree's intents are registered")
	assert.Equal(t, "t.s/date", m.SkillID+"/"+m.IntentName)

	require.NoError(t, r.host.Register(context.Background()))
	assert.Greater(t, files.count(), read, "a second registration reads the files")
	m = eng.Match("what time is it", "en-us", intent.DefaultSession)
	require.NotNil(t, m)
	assert.Equal(t, "t.s/time", m.SkillID+"/"+m.IntentName)
}
