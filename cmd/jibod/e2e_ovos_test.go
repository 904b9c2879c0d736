package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/wasm/wasmtest"
)

// `jibod skills check` on a folder of every file type OVOS skills ship,
// named as they name them: per file what loaded and what was refused and
// why, per intent whether it registered, exit status 1 for the refusals.
func TestSkillsCheckOVOSFolder(t *testing.T) {
	dir := filepath.Join("..", "..", "core", "skill", "skillcheck", "testdata", "ovos-fixture")
	stdout, stderr, code := runJibod(t, "", "skills", "check", dir)
	assert.Equal(t, 1, code, "three files are refused")
	assert.Contains(t, stderr, "some files or intents were refused")
	en := filepath.Join(dir, "locale", "en-us")
	for _, want := range []string{
		"skill test.ovos-fixture (" + dir + ")",
		"loaded     " + filepath.Join(en, "intents", "what.time.is.it.intent") + ": 3 lines, 4 samples",
		"loaded     " + filepath.Join(en, "vocab", "HelloWorldKeyword.voc") + ": 1 lines, 2 samples",
		"loaded     " + filepath.Join(en, "dialog", "clear-sky.dialog") + ": 3 lines, 3 phrases",
		"loaded     " + filepath.Join(en, "offset.entity") + ": 2 lines, 2 samples",
		"loaded     " + filepath.Join(en, "location.rx"),
		"loaded     " + filepath.Join(en, "timezone.value") + ": 2 values",
		"refused    " + filepath.Join(en, "intents", "broken.intent"),
		filepath.Join(en, "intents", "broken.intent") + ":1:6: '(' is never closed by ')'",
		"ignored    " + filepath.Join(en, "skill.json"),
		"intent registered test.ovos-fixture:HelloWorldIntent (keyword, en-us)",
		"intent registered test.ovos-fixture:what.time.is.it (template, en-us)",
		"files: 20 loaded, 3 refused, 1 ignored; intents: 7 of 7 registered",
	} {
		assert.Contains(t, stdout, want)
	}
}

// A Wasm skill package laid out as an OVOS skill's locale (intents/,
// vocab/, dialog/ folders, dotted and capitalised names, a keyword intent
// declared in the manifest, a broken file among them) installs, the broken
// file reported and left out, and its examples are understood: the
// template intent from a dotted file and the keyword intent alike.
func TestOVOSStylePackageInstallsAndIsUnderstood(t *testing.T) {
	pkg := filepath.Join(t.TempDir(), "ovos-memo")
	require.NoError(t, wasmtest.CopyDir(memoPackage(t), pkg))
	en := filepath.Join(pkg, "locale", "en-us")
	require.NoError(t, os.RemoveAll(en))
	files := map[string]string{
		"intents/remember.intent":          "remember that {memo}\nremember {memo}\n",
		"intents/recall.intent":            "what did i ask you to remember\nwhat did i tell you to remember\n",
		"intents/broken.intent":            "turn (on|off the lights\n",
		"vocab/ForgetKeyword.voc":          "forget|drop\n",
		"vocab/memo.words.voc":             "memo\nnote\n",
		"dialog/remembered.dialog":         "I'll remember that {memo}.\n",
		"dialog/forgotten.dialog":          "OK, I've forgotten it (really).\n",
		"dialog/nothing.dialog":            "You haven't asked me to remember anything.\n",
		"dialog/what.dialog":               "What should I remember?\n",
		"dialog/recalled_today.dialog":     "{memo}\nyou asked me to remember: {memo}.\n",
		"dialog/recalled_yesterday.dialog": "yesterday you asked me to remember: {memo}.\n",
		"dialog/recalled_on.dialog":        "on {day} you asked me to remember: {memo}.\n",
		"dialog/too_long.dialog":           "That's too long for me to remember.\n",
		"dialog/full.dialog":               "My memory is full.\n",
		"where.rx":                         `\b(at|in) (?P<Location>.*)` + "\n",
		"skill.json":                       `{"examples": ["forget my memo"]}` + "\n",
	}
	for name, text := range files {
		p := filepath.Join(en, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	manifest := `{"id": "community/memo", "version": "1.0.0", "name": "Memo",
  "description": "Remembers one thing for you.", "permissions": ["speech", "storage"],
  "timeout": "2s", "limits": {"memory_mib": 32}, "safety_level": "low", "side_effect_tags": ["storage.memo"],
  "keyword_intents": [{"name": "forget", "require": ["ForgetKeyword"], "one_of": [["memo.words"]]}]}`
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "manifest.json"), []byte(manifest), 0o644))

	state := t.TempDir()
	stdout, stderr, code := runJibod(t, "", "skills", "install", "--state", state, pkg)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "installed community/memo 1.0.0")
	assert.Contains(t, stderr, "broken.intent", "the refused file is reported")

	r := startJibod(t, state)
	r.say(t, "remember that the keys are under the mat")
	r.hear(t, "I'll remember that the keys are under the mat.", 30*time.Second)
	r.say(t, "please forget my memo")
	r.hear(t, "OK, I've forgotten it (really).", 20*time.Second)
	require.NoError(t, r.in.Close())
	require.NoError(t, r.cmd.Wait())
}
