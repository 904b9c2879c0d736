package skillcheck

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/intent"
)

const fixture = "testdata/ovos-fixture"

// example is one line of a skill's examples.jsonl.
type example struct {
	Text   string   `json:"text"`
	Intent *string  `json:"intent"`
	Also   []string `json:"also"`
}

func readExamples(t *testing.T, path string) []example {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []example
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e example
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), "%s: %s", path, sc.Text())
		out = append(out, e)
	}
	return out
}

// TestCheckFixture: every kind of file OVOS skills ship, named as they
// name them, loads; the two broken files and the vocabulary with a slot are
// refused with their reasons, and the rest of the skill loads and registers.
func TestCheckFixture(t *testing.T) {
	rep, err := Check(context.Background(), fixture, nil)
	require.NoError(t, err)
	assert.Equal(t, "test.ovos-fixture", rep.SkillID, "the id comes from manifest.json")
	status := map[string]intent.FileStatus{}
	reasons := map[string][]string{}
	for _, f := range rep.Files {
		rel, err := filepath.Rel(filepath.Join(fixture, "locale"), f.Path)
		require.NoError(t, err)
		status[filepath.ToSlash(rel)] = f.Status
		reasons[filepath.ToSlash(rel)] = f.Reasons
	}
	for _, loaded := range []string{
		"en-us/intents/what.time.is.it.intent", "en-us/intents/Greetings.intent", "en-us/volume.mute.intent",
		"en-us/intents/remind.in.intent", "en-us/intents/Greetings.blacklist",
		"en-us/vocab/HelloWorldKeyword.voc", "en-us/vocab/no.thanks.voc", "en-us/vocab/louder.voc",
		"en-us/location.entity", "en-us/offset.entity", "en-us/location.rx", "en-us/timezone.value",
		"en-us/yes.word", "en-us/noise.list", "en-us/dialog/clear-sky.dialog", "en-us/dialog/time.current.dialog",
	} {
		assert.Equal(t, intent.FileLoaded, status[loaded], "%s: %v", loaded, reasons[loaded])
	}
	assert.Equal(t, intent.FileIgnored, status["en-us/skill.json"])
	for file, why := range map[string]string{
		"en-us/intents/broken.intent": "'(' is never closed",
		"en-us/dialog/broken.dialog":  "broken.dialog:1:7: '{' does not start a slot",
		"en-us/vocab/bad-slot.voc":    "slot {thing} in a .voc file",
	} {
		assert.Equal(t, intent.FileRefused, status[file], file)
		require.NotEmpty(t, reasons[file], file)
		assert.Contains(t, reasons[file][0], why, file)
	}
	assert.False(t, rep.OK())

	registered := map[string]bool{}
	for _, in := range rep.Intents {
		registered[in.Name+"/"+in.Method] = in.Registered
	}
	assert.Equal(t, map[string]bool{
		"what.time.is.it/template": true, "Greetings/template": true, "volume.mute/template": true, "remind.in/template": true,
		"HelloWorldIntent/keyword": true, "ThankYouIntent/keyword": true, "ChangeVolume/keyword": true,
	}, registered)

	var out bytes.Buffer
	require.NoError(t, rep.WriteText(&out))
	assert.Contains(t, out.String(), "refused    "+filepath.Join(fixture, "locale", "en-us", "intents", "broken.intent"))
	assert.Contains(t, out.String(), "files: 20 loaded, 3 refused, 1 ignored; intents: 7 of 7 registered")
}

// TestFixtureDialogs: dialogs read as output render: a line that is only a
// slot, two slots side by side, lines naming different slots, literal
// parentheses.
func TestFixtureDialogs(t *testing.T) {
	f, err := Load(fixture)
	require.NoError(t, err)
	en := f.Locale.Langs["en-us"]
	assert.Equal(t, []string{"Clear skies (finally)!", "It is {condition} {temp_unit} out", "{condition}"},
		en.Resource(intent.RoleDialog, "clear-sky").Samples)
	assert.Equal(t, []string{"condition", "temp_unit"}, en.Resource(intent.RoleDialog, "clear-sky").Slots)
	assert.Equal(t, []string{"{time}", "It's {time} in {location}"}, en.Resource(intent.RoleDialog, "time.current").Samples)
	assert.Equal(t, []string{"#", "##"}, en.Resource(intent.RoleEntity, "offset").Samples, "Padatious digit patterns; the '#' line with words is a comment")
	assert.Equal(t, map[string]string{"East coast": "US/Eastern", "West coast": "US/Pacific"}, en.Resource(intent.RoleValue, "timezone").Values)
	assert.Equal(t, []string{"hello world", "hi world"}, en.Resource(intent.RoleVocab, "HelloWorldKeyword").Samples, "a top-level '|' is a choice")
}

// matchExamples registers folders on one stack, as the robot holds every
// skill at once, and matches each skill's examples; it returns per skill
// how many of its scored examples matched the right intent of the right
// skill, and the misses.
func matchExamples(t *testing.T, folders []*Folder, examples [][]example) (right, scored []int, misses []string) {
	t.Helper()
	st, err := NewStack(nil)
	require.NoError(t, err)
	defer st.Close()
	for _, f := range folders {
		intents, err := st.Register(context.Background(), f)
		require.NoError(t, err)
		for _, in := range intents {
			assert.True(t, in.Registered, "%s:%s (%s): %s", f.SkillID, in.Name, in.Lang, in.Why)
		}
	}
	right, scored = make([]int, len(folders)), make([]int, len(folders))
	for i, f := range folders {
		for _, e := range examples[i] {
			if e.Intent == nil {
				continue // answered through common_query, not an intent
			}
			scored[i]++
			m := st.Match(context.Background(), e.Text, "en-US")
			switch {
			case m != nil && m.SkillID == f.SkillID && m.IntentName == *e.Intent:
				right[i]++
			case m == nil:
				misses = append(misses, fmt.Sprintf("%s: %q: no match (want %s)", f.SkillID, e.Text, *e.Intent))
			default:
				misses = append(misses, fmt.Sprintf("%s: %q: %s:%s (want %s)", f.SkillID, e.Text, m.SkillID, m.IntentName, *e.Intent))
			}
		}
	}
	return right, scored, misses
}

// TestFixtureExamples: the fixture's own examples match, template and
// keyword intents alike (OVOS-INTENT-4 registration).
func TestFixtureExamples(t *testing.T) {
	f, err := Load(fixture)
	require.NoError(t, err)
	right, scored, misses := matchExamples(t, []*Folder{f}, [][]example{readExamples(t, filepath.Join(fixture, "examples.jsonl"))})
	assert.Empty(t, misses)
	assert.Equal(t, scored, right)
}

// ovosSkillsDir is where the real OVOS skills' locale folders sit: the
// shared eval folder next to the repository (OVOS_SKILLS_DIR overrides).
func ovosSkillsDir(t *testing.T) string {
	dir := os.Getenv("OVOS_SKILLS_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "..", "shared", "eval", "ovos-skills")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("no real OVOS skills at %s (set OVOS_SKILLS_DIR)", dir)
	}
	return dir
}

// TestRealOVOSSkills: three real OVOS skills' locale folders, unchanged,
// load whole, and at least 90% of their own examples match the right
// intent. Their keyword intents are declared in their Python code
// (IntentBuilder(name).require(voc)); examples.jsonl names them and the
// .voc each requires ("also"), which stand in for that code here.
func TestRealOVOSSkills(t *testing.T) {
	dir := ovosSkillsDir(t)
	var folders []*Folder
	var examples [][]example
	for _, name := range []string{"ovos-skill-date-time", "ovos-skill-hello-world", "ovos-skill-volume"} {
		f, err := Load(filepath.Join(dir, name))
		require.NoError(t, err)
		for _, file := range f.Locale.Files {
			assert.NotEqual(t, intent.FileRefused, file.Status, "%s: %v", file.Path, file.Reasons)
		}
		ex := readExamples(t, filepath.Join(dir, name, "examples.jsonl"))
		for _, e := range ex {
			if e.Intent != nil && len(e.Also) > 0 {
				f.Keywords = append(f.Keywords, intent.KeywordDecl{Name: *e.Intent, Require: e.Also})
			}
		}
		folders = append(folders, f)
		examples = append(examples, ex)
	}
	right, scored, misses := matchExamples(t, folders, examples)
	total, ok := 0, 0
	for i, f := range folders {
		t.Logf("%s: %d of %d examples match the right intent", f.SkillID, right[i], scored[i])
		total += scored[i]
		ok += right[i]
	}
	for _, m := range misses {
		t.Log("miss: " + m)
	}
	t.Logf("all: %d of %d (%.1f%%)", ok, total, 100*float64(ok)/float64(total))
	assert.GreaterOrEqual(t, float64(ok), 0.9*float64(total), "at least 90%% of the skills' own examples")
}
