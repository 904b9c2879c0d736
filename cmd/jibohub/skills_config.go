package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/openjibo/jibod/cmd/jibohub/skills/fact"
	"github.com/openjibo/jibod/cmd/jibohub/skills/greeter"
	"github.com/openjibo/jibod/cmd/jibohub/skills/trivia"
	"github.com/openjibo/jibod/core/hub/server"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/internal/strictjson"
)

// builtinSkills are the skills jibohub ships, hosted in process. seed
// makes their choices deterministic (0: random).
func builtinSkills(seed uint64, log *slog.Logger) ([]server.Skill, error) {
	f, err := fact.New(fact.Options{Seed: seed, Logger: log})
	if err != nil {
		return nil, err
	}
	t, err := trivia.New(trivia.Options{Seed: seed, Logger: log})
	if err != nil {
		return nil, err
	}
	g, err := greeter.New(greeter.Options{Logger: log})
	if err != nil {
		return nil, err
	}
	return []server.Skill{f, t, g}, nil
}

// Limits of a --skills-config file.
const (
	maxSkillsConfigSize = 1 << 20
	maxHTTPSkills       = 64
)

// skillsConfig is the --skills-config file: the skills served over HTTP.
//
//	{"skills": [{
//	  "url": "http://127.0.0.1:9000/v1/main",   // required
//	  "manifest": {"id": "acme/weather", …},    // required: a registry manifest
//	  "config": {"id": "acme/weather", "intents": [{"name": "weather"}]},
//	                                             // optional hub manifest (§2.6); id as manifest.id
//	  "locale": "weather/locale",                // optional: <lang>/*.intent …, relative to this file
//	  "rules": "weather/rules"                   // optional: answer rules, one folder per rule
//	}]}
type skillsConfig struct {
	Skills []skillEntry `json:"skills"`
}

type skillEntry struct {
	URL      string          `json:"url"`
	Manifest json.RawMessage `json:"manifest"`
	Config   json.RawMessage `json:"config"`
	Locale   string          `json:"locale"`
	Rules    string          `json:"rules"`
}

// readSkillsConfig reads and checks a --skills-config file; errors name
// the file and the entry.
func readSkillsConfig(path string) ([]server.HTTPSkill, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("skills config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSkillsConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("skills config %s: %w", path, err)
	}
	if len(data) > maxSkillsConfigSize {
		return nil, fmt.Errorf("skills config %s: over %d bytes", path, maxSkillsConfigSize)
	}
	if err := strictjson.CheckMembers(data); err != nil {
		return nil, fmt.Errorf("skills config %s: %w", path, err)
	}
	var sc skillsConfig
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("skills config %s: %w", path, err)
	}
	if len(sc.Skills) > maxHTTPSkills {
		return nil, fmt.Errorf("skills config %s: %d skills, limit %d", path, len(sc.Skills), maxHTTPSkills)
	}
	dir := filepath.Dir(path)
	out := make([]server.HTTPSkill, 0, len(sc.Skills))
	for i, e := range sc.Skills {
		hs, err := e.skill(dir)
		if err != nil {
			return nil, fmt.Errorf("skills config %s: skills[%d]: %w", path, i, err)
		}
		out = append(out, hs)
	}
	return out, nil
}

func (e skillEntry) skill(dir string) (server.HTTPSkill, error) {
	var hs server.HTTPSkill
	if e.URL == "" {
		return hs, fmt.Errorf("url: required")
	}
	if len(e.Manifest) == 0 {
		return hs, fmt.Errorf("manifest: required")
	}
	m, err := registry.ParseManifest(e.Manifest)
	if err != nil {
		return hs, fmt.Errorf("manifest: %w", err)
	}
	hs.Manifest, hs.URL = m, e.URL
	if len(e.Config) > 0 {
		c, err := protocol.DecodeManifest(e.Config)
		if err != nil {
			return hs, fmt.Errorf("config: %w", err)
		}
		if c.ID != m.ID {
			return hs, fmt.Errorf("config.id %q: want the manifest's id %q", c.ID, m.ID)
		}
		hs.Config = *c
	}
	if e.Locale != "" {
		hs.Locale = os.DirFS(filepath.Join(dir, e.Locale))
	}
	if e.Rules != "" {
		hs.Rules = os.DirFS(filepath.Join(dir, e.Rules))
	}
	return hs, nil
}
