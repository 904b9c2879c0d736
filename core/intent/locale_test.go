package intent

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadLocaleOVOSSkill loads a skill's locale folder in the OVOS layout
// unchanged: a mixed-case language folder, resources in nested subfolders,
// CRLF line ends, BOMs, comments and a stray README.
func TestLoadLocaleOVOSSkill(t *testing.T) {
	loc, err := LoadLocale(os.DirFS("testdata/ovos-skill-lights"), "locale")
	require.NoError(t, err)
	assert.Equal(t, []string{"de-de", "en-us"}, loc.Languages(), "RES-01: tags normalise to lowercase")

	en := loc.Langs["en-us"]
	require.NotNil(t, en)
	on := en.Resource(RoleIntent, "turn_on")
	require.NotNil(t, on)
	assert.Equal(t, "locale/en-US/intents/turn_on.intent", on.Path)
	assert.Equal(t, []Line{
		{Number: 4, Col: 1, Text: "<turn> on [the] {device}"},
		{Number: 5, Col: 3, Text: "power up [the] {device}"},
		{Number: 6, Col: 1, Text: "light[s] on"},
	}, on.Lines, "RES-04: BOM, CRLF, comments and blanks handled")
	assert.Equal(t, []string{
		"light on", "lights on", "power up the {device}", "power up {device}",
		"switch on the {device}", "switch on {device}", "turn on the {device}", "turn on {device}",
	}, on.Samples, "RES-05: an .intent loads as the union of its lines' sample sets")
	assert.Equal(t, []string{"device"}, on.Slots)

	assert.Equal(t, map[string]string{"level": "number"}, en.Resource(RoleIntent, "set_brightness").SlotTypes)
	assert.Equal(t, []string{"level"}, en.Resource(RoleRequired, "set_brightness").Samples, "RES-08")
	assert.Equal(t, []string{"kitchen light", "lamp", "television", "tv"}, en.Resource(RoleEntity, "device").Samples)
	assert.Equal(t, "locale/en-US/dialog/nested/deep/turned_on.dialog", en.Resource(RoleDialog, "turned_on").Path,
		"RES-01: subfolder names mean nothing")
	assert.Equal(t, []string{"device"}, en.Resource(RoleDialog, "turned_on").Slots)
	assert.Equal(t, "You describe lights.\n# this line is part of the prompt\nDevice: {{device}}\n",
		en.Resource(RolePrompt, "describe").Text, "RES-07: a prompt is the whole file, comments included")
	assert.Equal(t, map[string][]string{"turn": {"turn", "switch"}}, en.Vocab())

	assert.Equal(t, []Warning{{File: "locale/en-US/README.md", Msg: "not a resource file (RES-05); ignored"}}, loc.Warnings)
	assert.Equal(t, []Finding{
		{Kind: FindingMissing, Lang: "de-de", Role: RoleIntent, Name: "set_brightness", Msg: "present in en-us, missing here (RES-03)"},
		{Kind: FindingMissing, Lang: "de-de", Role: RoleDialog, Name: "brightness_set", Msg: "present in en-us, missing here (RES-03)"},
		{Kind: FindingMissing, Lang: "de-de", Role: RoleRequired, Name: "set_brightness", Msg: "present in en-us, missing here (RES-03)"},
	}, loc.Findings, "RES-03: .blacklist and .prompt need no parity")
}

// TestLocaleTemplateIntents: what the loader builds registers with the
// engine and matches, including blacklists and entities from their files.
func TestLocaleTemplateIntents(t *testing.T) {
	loc, err := LoadLocale(os.DirFS("testdata/ovos-skill-lights"), "locale")
	require.NoError(t, err)
	defs := loc.TemplateIntents("", "lights.openjibo")
	var names []string
	for _, d := range defs {
		names = append(names, d.Lang+"/"+d.IntentName)
	}
	assert.Equal(t, []string{"de-de/turn_off", "de-de/turn_on", "en-us/set_brightness", "en-us/turn_off", "en-us/turn_on"}, names)

	def, ok := loc.Langs["en-us"].TemplateIntent("", "lights.openjibo", "turn_on")
	require.True(t, ok)
	assert.Equal(t, []string{"alarm"}, def.Blacklist, "RES-06: paired .blacklist suppresses the intent")
	assert.Equal(t, map[string][]string{"device": {"everything"}}, def.SlotBlacklist, "RES-06: slot-paired .blacklist")
	assert.Equal(t, map[string][]string{"device": {"kitchen light", "lamp", "(tv|television)"}}, def.Entities)
	_, ok = loc.Langs["en-us"].TemplateIntent("", "lights.openjibo", "nope")
	assert.False(t, ok)

	e := newTestEngine()
	for _, d := range defs {
		_, err := e.Register(d)
		require.NoError(t, err, d.IntentName)
	}
	tests := []struct {
		utterance, lang, intent string
		slots                   map[string]string
	}{
		{"Switch on the kitchen light.", "en-US", "turn_on", map[string]string{"device": "kitchen light"}},
		{"lights off", "en-us", "turn_off", map[string]string{}},
		{"dim the lamp to 40 percent", "en-us", "set_brightness", map[string]string{"device": "lamp", "level": "40"}},
		{"turn on everything", "en-us", "turn_on", map[string]string{}},
		{"schalte das licht ein", "de-de", "turn_on", map[string]string{"device": "licht"}},
	}
	for _, tc := range tests {
		t.Run(tc.utterance, func(t *testing.T) {
			r := e.Match(tc.utterance, tc.lang, "")
			require.NotNil(t, r)
			assert.Equal(t, tc.intent, r.IntentName)
			assert.Equal(t, tc.slots, r.Slots)
		})
	}
	assert.Nil(t, e.Match("turn on the alarm", "en-us", ""), "RES-06: turn_on.blacklist suppresses")
}

// TestLoadLocaleMalformed: every bad file is an error naming where, and
// nothing is returned half-loaded.
func TestLoadLocaleMalformed(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	tests := []struct {
		name  string
		files fstest.MapFS
		want  []string // substrings of the error
		kind  error    // nil: do not check
	}{
		{"RES-01 duplicate resource in nested folders", fstest.MapFS{
			"locale/en-us/a/x.intent": file("hello\n"),
			"locale/en-us/b/x.intent": file("hi\n"),
		}, []string{"locale/en-us/b/x.intent: duplicate resource x.intent in language en-us, also at locale/en-us/a/x.intent (RES-01)"}, nil},
		{"RES-01 duplicate across folders differing in case", fstest.MapFS{
			"locale/EN-US/x.voc": file("hello\n"),
			"locale/en-us/x.voc": file("hi\n"),
		}, []string{"locale/en-us/x.voc: duplicate resource x.voc in language en-us, also at locale/EN-US/x.voc"}, nil},
		{"base name with the dispatch separator", fstest.MapFS{
			"locale/en-us/turn:on.intent": file("hello\n"),
		}, []string{`locale/en-us/turn:on.intent: base name "turn:on" must not contain ':'`}, nil},
		{"base name with a template bracket", fstest.MapFS{
			"locale/en-us/what(time).intent": file("hello\n"),
		}, []string{`base name "what(time)" must not contain '('`}, nil},
		{"RES-01 entity base name is a slot name", fstest.MapFS{
			"locale/en-us/1st.entity": file("first\n"),
		}, []string{`locale/en-us/1st.entity: base name "1st" names a slot`}, nil},
		{"RES-01 language folder must be a tag", fstest.MapFS{
			"locale/english_us/x.intent": file("hello\n"),
		}, []string{`locale/english_us: language folder: language tag "english_us" is not a BCP-47 tag (RES-01)`}, nil},
		{"RES-04 file without templates", fstest.MapFS{
			"locale/en-us/x.intent": file("# only a comment\n"),
		}, []string{"locale/en-us/x.intent: file has no template lines (RES-04)"}, ErrNoTemplates},
		{"RES-04 invalid UTF-8", fstest.MapFS{
			"locale/en-us/x.voc": file("ok\nb\xffd\n"),
		}, []string{"locale/en-us/x.voc:2:2: line is not valid UTF-8 (RES-04)"}, ErrEncoding},
		{"control character in an .intent line", fstest.MapFS{
			"locale/en-us/x.intent": file("hello\nplay \u202egnos\n"),
		}, []string{"locale/en-us/x.intent:2:6: line contains control character U+202E (RLO)"}, ErrControl},
		{"control character in a .dialog line", fstest.MapFS{
			"locale/en-us/done.dialog": file("Done\a.\n"),
		}, []string{"locale/en-us/done.dialog:1:5: line contains control character U+0007 (BEL)"}, ErrControl},
		{"control character in a .voc line", fstest.MapFS{
			"locale/en-us/dev.voc": file("lamp\x1b[2J\n"),
		}, []string{"locale/en-us/dev.voc:1:5: line contains control character U+001B (ESC)"}, ErrControl},
		{"control character in a .blacklist line", fstest.MapFS{
			"locale/en-us/x.intent":    file("hello\n"),
			"locale/en-us/x.blacklist": file("hel\x00lo\n"),
		}, []string{"locale/en-us/x.blacklist:1:4: line contains control character U+0000 (NUL)"}, ErrControl},
		{"GRM-07 bad line names file, line and column", fstest.MapFS{
			"locale/en-us/x.intent": file("# c\n  turn (on|off\n"),
		}, []string{"locale/en-us/x.intent:2:8: '(' is never closed by ')'"}, ErrUnbalanced},
		{"GRM-07 undefined vocabulary", fstest.MapFS{
			"locale/en-us/x.intent": file("turn on <missing>\n"),
		}, []string{"locale/en-us/x.intent:1:9: vocabulary <missing> is not defined (GRM-07)"}, ErrUndefinedVocab},
		{"GRM-06 malformed .voc is reported at the .voc and at the reference", fstest.MapFS{
			"locale/en-us/x.intent": file("turn <dev>\n"),
			"locale/en-us/dev.voc":  file("lamp\n(tv\n"),
		}, []string{
			"locale/en-us/dev.voc:2:1: '(' is never closed by ')'",
			"locale/en-us/x.intent:1:6: vocabulary <dev> is malformed: locale/en-us/dev.voc:2:1:",
		}, ErrBadVocab},
		{"GRM-06 slot in a .voc", fstest.MapFS{
			"locale/en-us/dev.voc": file("the {x}\n"),
		}, []string{"locale/en-us/dev.voc:1:5: slot {x} in a .voc file"}, ErrBadName},
		{"GRM-04 slot in an .entity", fstest.MapFS{
			"locale/en-us/dev.entity": file("lamp\nthe {x}\n"),
		}, []string{"locale/en-us/dev.entity:2:5: slot {x} in a .entity file"}, ErrBadName},
		{".rx that does not compile", fstest.MapFS{
			"locale/en-us/where.rx": file("(?P<place>.*)\n(?<=at) (?P<x>.*)\n"),
		}, []string{"locale/en-us/where.rx:2:1: regular expression does not compile"}, ErrBadRegex},
		{".value without a pair", fstest.MapFS{
			"locale/en-us/tz.value": file("# c\nno pair here\n"),
		}, []string{`locale/en-us/tz.value: no "name,value" line`}, ErrNoTemplates},
		{"RES-08 required slot not declared", fstest.MapFS{
			"locale/en-us/x.intent":   file("set {level}\n"),
			"locale/en-us/x.required": file("level\n  device\n"),
		}, []string{`locale/en-us/x.required:2:3: required slot "device" is not declared by any template of locale/en-us/x.intent (RES-08)`}, ErrUndeclaredSlot},
		{"RES-08 required slot name invalid", fstest.MapFS{
			"locale/en-us/x.intent":   file("set {level}\n"),
			"locale/en-us/x.required": file("Level\n"),
		}, []string{`locale/en-us/x.required:1:1: required slot "Level" must match`}, ErrBadName},
		{"RES-08 required without intent", fstest.MapFS{
			"locale/en-us/x.required": file("level\n"),
		}, []string{"locale/en-us/x.required: no x.intent in language en-us to pair with (RES-08)"}, nil},
		{"RES-07 empty prompt", fstest.MapFS{
			"locale/en-us/p.prompt": file(" \n\t\n"),
		}, []string{"locale/en-us/p.prompt: prompt is empty (RES-07)"}, ErrNoTemplates},
		{"file over the size limit", fstest.MapFS{
			"locale/en-us/x.voc": file(strings.Repeat("a\n", MaxFileBytes/2+1)),
		}, []string{"locale/en-us/x.voc: file is larger than 1048576 bytes"}, ErrTooLarge},
		{"errors aggregate across lines and files", fstest.MapFS{
			"locale/en-us/a.intent": file("(a\nb)\nok\n"),
			"locale/de-de/b.intent": file("{x}\n"),
		}, []string{
			"locale/en-us/a.intent:1:1: '(' is never closed by ')'",
			"locale/en-us/a.intent:2:2: ')' without a matching '('",
			"locale/de-de/b.intent:1:1: template \"{x}\" has only slots and no words (GRM-07)",
		}, ErrSlotOnly},
		{"root missing", fstest.MapFS{}, []string{"reading locale folder"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loc, err := LoadLocale(tc.files, "locale")
			require.Error(t, err)
			assert.Nil(t, loc, "nothing half-loaded")
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			if tc.kind != nil {
				assert.ErrorIs(t, err, tc.kind)
			}
		})
	}
}

func TestLoadLocaleErrorsPerFileAreCapped(t *testing.T) {
	var b strings.Builder
	for range MaxErrorsPerFile + 5 {
		b.WriteString("(a\n")
	}
	_, err := LoadLocale(fstest.MapFS{"locale/en-us/x.intent": {Data: []byte(b.String())}}, "locale")
	require.Error(t, err)
	assert.Equal(t, MaxErrorsPerFile, strings.Count(err.Error(), "is never closed"))
	assert.Contains(t, err.Error(), "locale/en-us/x.intent: 5 more errors")
}

func TestLoadLocaleLimits(t *testing.T) {
	many := fstest.MapFS{}
	for i := range MaxLocaleFiles + 1 {
		many[fmt.Sprintf("locale/en-us/f%d.voc", i)] = &fstest.MapFile{Data: []byte("a\n")}
	}
	_, err := LoadLocale(many, "locale")
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("locale has more than %d files", MaxLocaleFiles))

	deep := "locale/en-us/" + strings.Repeat("d/", MaxLocaleDepth+1) + "x.voc"
	_, err = LoadLocale(fstest.MapFS{deep: {Data: []byte("a\n")}}, "locale")
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("folders nest more than %d deep", MaxLocaleDepth))

	_, err = LoadLocale(fstest.MapFS{}, "../locale")
	assert.ErrorContains(t, err, "invalid folder path")
}

// TestLoadLocaleAccepts covers what must load: differing .intent slot sets
// (GRM-16), dialog slot sets that agree however written, and warnings for
// oddities that are not errors.
func TestLoadLocaleAccepts(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	loc, err := LoadLocale(fstest.MapFS{
		"locale/en-us/play.intent":    file("play {song}\nplay {song} by {artist}\n"),
		"locale/en-us/say.dialog":     file("say [{x}]\nsay {x}\nSay {number:x}!\n"),
		"locale/en-us/ask.intent":     file("What's (up)\n"),
		"locale/en-us/song.entity":    file("yesterday\n"),
		"locale/en-us/notes.txt":      file("ignored\n"),
		"locale/en-us/volume.intent":  file("set volume to {number:level}\n"),
		"locale/stray.intent":         file("hello\n"),
		"locale/en-us/play.blacklist": file("stop\n"),
	}, "locale")
	require.NoError(t, err)
	en := loc.Langs["en-us"]
	assert.Equal(t, []string{"artist", "song"}, en.Resource(RoleIntent, "play").Slots, "GRM-16: .intent slot set is the union")
	assert.Equal(t, []string{"x"}, en.Resource(RoleDialog, "say").Slots)
	assert.Equal(t, []string{"What's up"}, en.Resource(RoleIntent, "ask").Samples, "the loader keeps text as written")
	assert.ElementsMatch(t, []Warning{
		{File: "locale/en-us/ask.intent", Line: 1, Col: 1, Msg: `text "What's" is not ASR-normalised (GRM-02); engines normalise it`},
		{File: "locale/en-us/ask.intent", Line: 1, Col: 8, Msg: `group "(up)" has a single branch; read as its content (GRM-03)`},
		{File: "locale/en-us/notes.txt", Msg: "not a resource file (RES-05); ignored"},
		{File: "locale/stray.intent", Msg: "file outside a language folder; ignored"},
	}, loc.Warnings)
	assert.Equal(t, []Finding{
		{Kind: FindingNoEntity, Lang: "en-us", Role: RoleIntent, Name: "play", Msg: "untyped slot {artist} has no artist.entity (RES-09)"},
	}, loc.Findings, "RES-09: typed slots need no .entity")
}

func TestLoadLocaleParity(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	loc, err := LoadLocale(fstest.MapFS{
		"locale/en-us/play.intent":    file("play {song}\n"),
		"locale/en-us/song.entity":    file("yesterday\n"),
		"locale/en-us/play.blacklist": file("stop\n"),
		"locale/en-us/ask.prompt":     file("Be brief.\n"),
		"locale/fr-fr/play.intent":    file("joue {chanson}\n"),
		"locale/fr-fr/song.entity":    file("hier\n"),
		"locale/fr-fr/hello.dialog":   file("Bonjour\n"),
		"locale/pt-br/song.entity":    file("ontem\n"),
	}, "locale")
	require.NoError(t, err)
	assert.Equal(t, []Finding{
		{Kind: FindingMissing, Lang: "pt-br", Role: RoleIntent, Name: "play", Msg: "present in en-us, fr-fr, missing here (RES-03)"},
		{Kind: FindingSlotMismatch, Lang: "fr-fr", Role: RoleIntent, Name: "play", Msg: "slots [chanson] here, [song] in en-us (RES-03)"},
		{Kind: FindingMissing, Lang: "en-us", Role: RoleDialog, Name: "hello", Msg: "present in fr-fr, missing here (RES-03)"},
		{Kind: FindingMissing, Lang: "pt-br", Role: RoleDialog, Name: "hello", Msg: "present in fr-fr, missing here (RES-03)"},
		{Kind: FindingNoEntity, Lang: "fr-fr", Role: RoleIntent, Name: "play", Msg: "untyped slot {chanson} has no chanson.entity (RES-09)"},
	}, loc.Findings)
	assert.Equal(t, "fr-fr: slot-mismatch play.intent: slots [chanson] here, [song] in en-us (RES-03)", loc.Findings[1].String())
}

func TestRenderPrompt(t *testing.T) {
	tests := []struct {
		name, prompt, want string
	}{
		{"RES-07 fills a well-formed placeholder", "Hi {{name}}!", "Hi Ada!"},
		{"RES-07 unfilled placeholder stays", "Hi {{other}}", "Hi {{other}}"},
		{"RES-07 single braces stay", "Hi {name}", "Hi {name}"},
		{"RES-07 JSON stays", `{"a": {"b": 1}}`, `{"a": {"b": 1}}`},
		{"RES-07 lone braces stay", "{{ {{", "{{ {{"},
		{"RES-07 bad names stay", "{{Name}} {{na me}}", "{{Name}} {{na me}}"},
		{"RES-07 triple braces keep the outer pair", "{{{name}}}", "{Ada}"},
		{"values are not rescanned", "{{loop}}", "{{name}}"},
	}
	values := map[string]string{"name": "Ada", "loop": "{{name}}"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, RenderPrompt(tc.prompt, values))
		})
	}
}

// TestLoadLocaleLayers covers RES-02: user override, then the skill's
// locale/, then core; whole file, first wins, wherever the file sits below
// its language folder and however the language folder is cased.
func TestLoadLocaleLayers(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	override := LocaleLayer{Name: "user", Root: "lights/locale", FS: fstest.MapFS{
		"lights/locale/en-us/turn_on.intent": file("light me up\n"),
		"lights/locale/en-us/README.txt":     file("notes\n"),
	}}
	skill := LocaleLayer{Name: "skills/lights", Root: "locale", FS: fstest.MapFS{
		"locale/en-US/intents/turn_on.intent":  file("turn on [the] {device}\nswitch on [the] {device}\n"),
		"locale/en-US/intents/turn_off.intent": file("turn off [the] {device}\n<yes> off\n"),
		"locale/en-US/device.entity":           file("lamp\n"),
		"locale/en-US/yes.voc":                 file("sure\n"),
	}}
	core := LocaleLayer{Name: "core", Root: ".", FS: fstest.MapFS{
		"en-us/yes.voc":      file("yes\nyeah\n"),
		"en-us/no.voc":       file("no\nnope\n"),
		"en-us/cancel.voc":   file("bad \xff utf-8\n"), // shadowed nowhere: read and must be valid
		"en-us/broken.voc":   file("fine\n"),
		"de-de/danke.dialog": file("Danke!\n"),
	}}
	core.FS.(fstest.MapFS)["en-us/cancel.voc"] = file("cancel\n")
	shadowedBad := LocaleLayer{Name: "old", Root: "locale", FS: fstest.MapFS{
		"locale/en-us/turn_on.intent": file("turn (on\n"),       // malformed, but shadowed: never read
		"locale/en-us/device.entity":  file("lamp\n\xff\xfe\n"), // invalid UTF-8, shadowed
	}}

	loc, err := LoadLocaleLayers(override, skill, core, shadowedBad)
	require.NoError(t, err)
	en := loc.Langs["en-us"]
	require.NotNil(t, en)
	on := en.Resource(RoleIntent, "turn_on")
	assert.Equal(t, "user/lights/locale/en-us/turn_on.intent", on.Path, "RES-02: the user override wins")
	assert.Equal(t, []string{"light me up"}, on.Samples, "RES-02: whole file, lines never merged")
	assert.Equal(t, "skills/lights/locale/en-US/intents/turn_off.intent", en.Resource(RoleIntent, "turn_off").Path)
	assert.Equal(t, "skills/lights/locale/en-US/yes.voc", en.Resource(RoleVocab, "yes").Path, "RES-02: the skill beats core")
	assert.Equal(t, []string{"sure off", "turn off the {device}", "turn off {device}"}, en.Resource(RoleIntent, "turn_off").Samples,
		"a reference resolves against the winning vocabulary")
	assert.Equal(t, "core/en-us/no.voc", en.Resource(RoleVocab, "no").Path, "RES-02: core fills in what the skill lacks")
	assert.Equal(t, "skills/lights/locale/en-US/device.entity", en.Resource(RoleEntity, "device").Path)
	assert.Equal(t, []string{"de-de", "en-us"}, loc.Languages(), "languages are the union of the layers'")

	assert.Contains(t, loc.Warnings, Warning{File: "skills/lights/locale/en-US/intents/turn_on.intent",
		Msg: "overridden by user/lights/locale/en-us/turn_on.intent (RES-02)"})
	assert.Contains(t, loc.Warnings, Warning{File: "core/en-us/yes.voc", Msg: "overridden by skills/lights/locale/en-US/yes.voc (RES-02)"})
	assert.Contains(t, loc.Warnings, Warning{File: "old/locale/en-us/turn_on.intent", Msg: "overridden by user/lights/locale/en-us/turn_on.intent (RES-02)"})
	assert.Contains(t, loc.Warnings, Warning{File: "user/lights/locale/en-us/README.txt", Msg: "not a resource file (RES-05); ignored"})
}

func TestLoadLocaleLayersMalformed(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	good := LocaleLayer{Name: "skill", Root: "locale", FS: fstest.MapFS{"locale/en-us/hi.intent": file("hello\n")}}
	tests := []struct {
		name   string
		layers []LocaleLayer
		want   []string
	}{
		{"no layers", nil, []string{"no locale folder given"}},
		{"no file system", []LocaleLayer{{Name: "x", Root: "locale"}}, []string{"locale folder x/locale: no file system"}},
		{"root missing names the layer", []LocaleLayer{good, {Name: "core", Root: "locale", FS: fstest.MapFS{}}},
			[]string{"reading locale folder core/locale"}},
		{"error in the winning file names its layer", []LocaleLayer{
			{Name: "user", Root: "o", FS: fstest.MapFS{"o/en-us/hi.intent": file("# c\nhello (there\n")}}, good,
		}, []string{"user/o/en-us/hi.intent:2:7: '(' is never closed by ')'"}},
		{"RES-01 duplicate within one layer is still an error", []LocaleLayer{good, {Name: "core", Root: ".", FS: fstest.MapFS{
			"en-us/a/x.voc": file("a\n"), "en-us/b/x.voc": file("b\n"),
		}}}, []string{"core/en-us/b/x.voc: duplicate resource x.voc in language en-us, also at core/en-us/a/x.voc (RES-01)"}},
		{"an overridden reference target is gone", []LocaleLayer{
			{Name: "user", Root: "o", FS: fstest.MapFS{"o/en-us/hi.intent": file("say <greeting>\n")}},
			good,
		}, []string{"user/o/en-us/hi.intent:1:5: vocabulary <greeting> is not defined (GRM-07)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			loc, err := LoadLocaleLayers(tc.layers...)
			require.Error(t, err)
			assert.Nil(t, loc, "nothing half-loaded")
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// TestLoadLocaleOVOSRoles: besides RES-05's roles the loader reads the
// resource types ovos-workshop reads (.rx, .value, .word, .list; a decision
// against RES-10, docs/ovos-locales.md); other files are skipped with a
// warning and change nothing.
func TestLoadLocaleOVOSRoles(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	loc, err := LoadLocale(fstest.MapFS{
		"locale/en-us/hi.intent":   file("hello\n"),
		"locale/en-us/hi.rx":       file("(?P<x>.*)\n"),
		"locale/en-us/tz.value":    file("# comment\nEast coast, US/Eastern\nbroken line\n"),
		"locale/en-us/yes.word":    file("yes\n"),
		"locale/en-us/noise.list":  file("um\nuh\n"),
		"locale/en-us/hi.json":     file("{}"),
		"locale/en-us/hi.INTENT":   file("upper case extension\n"),
		"locale/en-us/hi.qml":      file("Item {}\n"),
		"locale/en-us/hi.template": file("x\n"),
	}, "locale")
	require.NoError(t, err)
	en := loc.Langs["en-us"]
	assert.Equal(t, []string{"hello"}, en.Resource(RoleIntent, "hi").Samples)
	assert.Equal(t, []string{"(?P<x>.*)"}, en.Resource(RoleRegex, "hi").Samples)
	assert.Equal(t, map[string]string{"East coast": "US/Eastern"}, en.Resource(RoleValue, "tz").Values)
	assert.Equal(t, []string{"yes"}, en.Resource(RoleWord, "yes").Samples)
	assert.Equal(t, []string{"um", "uh"}, en.Resource(RoleList, "noise").Samples)
	assert.Contains(t, loc.Warnings, Warning{File: "locale/en-us/tz.value", Line: 3, Col: 1, Msg: `not one "name,value" pair; skipped`})
	for _, ext := range []string{"json", "INTENT", "qml", "template"} {
		assert.Contains(t, loc.Warnings, Warning{File: "locale/en-us/hi." + ext, Msg: "not a resource file (RES-05); ignored"})
	}
}

// LoadLocaleUnexpanded accepts and refuses what LoadLocale does, for the
// same reasons (GRM-07, GRM-08, GRM-12), and loads the same locale but for
// the sample sets of .intent files, which it does not enumerate.
func TestLoadLocaleUnexpanded(t *testing.T) {
	intentFile := func(text string) fstest.MapFS {
		return fstest.MapFS{
			"en-us/turn.voc":         {Data: []byte("turn\nswitch\n")},
			"en-us/device.entity":    {Data: []byte("lamp\ntv\n")},
			"en-us/done.dialog":      {Data: []byte("(Done|All right), {device} is on.\n")},
			"en-us/turn_on.required": {Data: []byte("device\n")},
			"en-us/turn_on.intent":   {Data: []byte("<turn> on [the] {device}\n" + text)},
		}
	}
	for _, tt := range []struct {
		name string
		line string
		want error
	}{
		{"valid", "power up {device} [please]\n", nil},
		{"GRM-07 empty sample", "[please]\n", ErrEmptySample},
		{"GRM-07 adjacent slots", "set {device} [to] {level}\n", ErrAdjacentSlots},
		{"GRM-07 repeated slot", "{device} or (the|a) {device}\n", ErrRepeatedSlot},
		{"GRM-07 slot only", "{device}\n", ErrSlotOnly},
		{"GRM-07 undefined vocabulary", "<power> {device}\n", ErrUndefinedVocab},
		{"GRM-12 too many samples", strings.Repeat("(a|b|c|d|e|f|g|h|i|j) ", 5) + "{device}\n", ErrTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := intentFile(tt.line)
			full, fullErr := LoadLocale(files, ".")
			lean, leanErr := LoadLocaleUnexpanded(files, ".")
			if tt.want != nil {
				require.ErrorIs(t, fullErr, tt.want)
				require.ErrorIs(t, leanErr, tt.want, "refused for the same reason")
				assert.Contains(t, leanErr.Error(), "en-us/turn_on.intent:2:", "naming the file and line")
				return
			}
			require.NoError(t, fullErr)
			require.NoError(t, leanErr)
			in := full.Langs["en-us"].Resource(RoleIntent, "turn_on")
			require.Len(t, in.Samples, 6)
			assert.Nil(t, lean.Langs["en-us"].Resource(RoleIntent, "turn_on").Samples, "no .intent sample set")
			in.Samples = nil
			for i := range full.Files {
				if full.Files[i].Role == RoleIntent {
					full.Files[i].Samples = 0
				}
			}
			assert.Equal(t, full, lean, "everything else alike")
			def, ok := lean.Langs["en-us"].TemplateIntent("", "s", "turn_on")
			require.True(t, ok)
			assert.Equal(t, []string{"<turn> on [the] {device}", "power up {device} [please]"}, def.Samples)
		})
	}
}
