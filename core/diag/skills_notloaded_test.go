package diag

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/registry"
)

// An installed skill the robot left out at start (its module never
// finished starting, say) is listed with why, beside the skills that run.
func TestSkillsListsThoseNotLoaded(t *testing.T) {
	r := newRig(t)
	m, err := registry.ParseManifest([]byte(`{"id":"jibo/clock","version":"1.0.0","name":"Clock","description":"Tells the time.","permissions":["speech"],"safety_level":"low"}`))
	require.NoError(t, err)
	s := r.server(t, func(c *Config) {
		c.Env.Skills = fakeSkills{m}
		c.Env.NotLoaded = func() []SkillProblem {
			return []SkillProblem{{ID: "acme/slow", Dir: "/state/skills/acme.slow",
				Error: "loading skill acme/slow: starting the module: _initialize did not return within 5s, its start-up limit"}}
		}
	})
	out := script(t, s, "skills")
	assert.Contains(t, out, "jibo/clock")
	assert.Regexp(t, `acme/slow +not loaded: loading skill acme/slow: starting the module: _initialize did not return within 5s`, out)

	list := jsonLines(t, script(t, s, "skills --json"))[0]
	require.Len(t, list["not_loaded"], 1)
	assert.Equal(t, map[string]any{"id": "acme/slow", "dir": "/state/skills/acme.slow",
		"error": "loading skill acme/slow: starting the module: _initialize did not return within 5s, its start-up limit"},
		list["not_loaded"].([]any)[0])

	// None left out: an empty list, not null.
	s = r.server(t, func(c *Config) { c.Env.Skills = fakeSkills{m} })
	assert.Equal(t, []any{}, jsonLines(t, script(t, s, "skills --json"))[0]["not_loaded"])
}
