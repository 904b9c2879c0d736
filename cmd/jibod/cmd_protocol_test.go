package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/protocol"
)

const protocolExamples = "../../examples/protocol"

// exampleFiles lists every example under examples/protocol except the
// invalid ones.
func exampleFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(protocolExamples, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "invalid" {
			return filepath.SkipDir
		}
		if ext := filepath.Ext(path); !d.IsDir() && (ext == ".json" || ext == ".mim") {
			files = append(files, path)
		}
		return nil
	})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 39)
	return files
}

// tree decodes JSON into a comparable value in which every number is its
// exact rational value, so 1, 1.0 and 1e0 compare equal: the documented
// normalisation (modelled floats are re-encoded in shortest form).
func jsonTree(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v), "%s", data)
	return normaliseNumbers(t, v)
}

func normaliseNumbers(t *testing.T, v any) any {
	switch x := v.(type) {
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		require.True(t, ok, "number %s", x)
		return "number:" + r.RatString()
	case map[string]any:
		for k, e := range x {
			x[k] = normaliseNumbers(t, e)
		}
	case []any:
		for i, e := range x {
			x[i] = normaliseNumbers(t, e)
		}
	}
	return v
}

// lost lists the members of in that out lacks or holds differently: the
// canonical form may add members (required ones a sender left out, ids the
// executor fills in) but never drop or change one.
func lost(in, out any, path string) []string {
	switch x := in.(type) {
	case map[string]any:
		o, ok := out.(map[string]any)
		if !ok {
			return []string{path + ": object became " + fmt.Sprintf("%T", out)}
		}
		var missing []string
		for k, v := range x {
			p := joinPath(path, k)
			ov, ok := o[k]
			if !ok {
				missing = append(missing, p+": lost")
				continue
			}
			missing = append(missing, lost(v, ov, p)...)
		}
		return missing
	case []any:
		o, ok := out.([]any)
		if !ok || len(o) != len(x) {
			return []string{path + ": array changed length or kind"}
		}
		var missing []string
		for i := range x {
			missing = append(missing, lost(x[i], o[i], fmt.Sprintf("%s[%d]", path, i))...)
		}
		return missing
	}
	if in != out {
		return []string{fmt.Sprintf("%s: %v became %v", path, in, out)}
	}
	return nil
}

// Every example checks, is recognised as what its folder says, and prints
// canonical JSON that keeps every member (the unknown ones each example
// carries included), checks again to the very same JSON, and survives
// JSON→CBOR→JSON.
func TestProtocolCheckExamples(t *testing.T) {
	wantLabel := map[string]string{
		"skill":        "skill ",
		"robot-to-hub": "robot-to-hub ",
		"hub-to-robot": "hub-to-robot ",
		"jcp":          "JCP ",
		"manifest":     "skill manifest",
		"mim":          "MIM ",
	}
	for _, file := range exampleFiles(t) {
		rel, err := filepath.Rel(protocolExamples, file)
		require.NoError(t, err)
		t.Run(rel, func(t *testing.T) {
			in, err := os.ReadFile(file)
			require.NoError(t, err)
			res, err := checkFile(file, "")
			require.NoError(t, err)
			dir := filepath.Dir(rel)
			if rel == filepath.Join("hub-to-robot", "skill_action.json") {
				// The hub forwards a skill's SKILL_ACTION as is; only --as
				// tells the two apart.
				assert.Equal(t, "skill response SKILL_ACTION", res.label)
			} else {
				assert.True(t, strings.HasPrefix(res.label, wantLabel[dir]), "label %q for %s", res.label, dir)
			}

			assert.Empty(t, lost(jsonTree(t, in), jsonTree(t, res.canonical), ""), "canonical JSON keeps every member:\n%s", res.canonical)

			again, err := checkData(res.canonical, filepath.Base(file), "")
			require.NoError(t, err, "canonical JSON checks")
			assert.Equal(t, string(res.canonical), string(again.canonical), "canonical JSON is a fixed point")
			assert.Equal(t, res.warnings, again.warnings, "the kept members are reported again, nothing else")

			c, err := protocol.EncodeCBOR(json.RawMessage(res.canonical))
			require.NoError(t, err)
			back, err := protocol.DecodeCBOR(c)
			require.NoError(t, err)
			assert.Equal(t, jsonTree(t, res.canonical), jsonTree(t, back), "JSON→CBOR→JSON keeps every value")
			fromCBOR, err := checkData(back, filepath.Base(file), "")
			require.NoError(t, err, "the CBOR round trip still checks")
			assert.Equal(t, jsonTree(t, res.canonical), jsonTree(t, fromCBOR.canonical))
		})
	}
}

// Every example carries at least one member the protocol does not model,
// so the examples prove it is kept: the decoder leaves it in an Extra map
// (or, for JCP, the check reports it as not read by the executor).
func TestProtocolExamplesCarryUnknownMembers(t *testing.T) {
	for _, file := range exampleFiles(t) {
		res, err := checkFile(file, "")
		require.NoError(t, err)
		if res.decoded == nil {
			assert.NotEmpty(t, res.warnings, "%s has no member the executor leaves unread", file)
			continue
		}
		assert.NotEmpty(t, extraMembers(reflect.ValueOf(res.decoded), ""), "%s has no member the decoder leaves to Extra", file)
	}
}

// extraMembers lists the members held in the Extra maps of a decoded
// value, by the Go path that leads to them.
func extraMembers(v reflect.Value, path string) []string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return extraMembers(v.Elem(), path)
	case reflect.Struct:
		var found []string
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Name == "Extra" {
				for _, k := range v.Field(i).MapKeys() {
					found = append(found, path+"."+k.String())
				}
				continue
			}
			found = append(found, extraMembers(v.Field(i), path+"."+f.Name)...)
		}
		return found
	case reflect.Slice:
		var found []string
		for i := range v.Len() {
			found = append(found, extraMembers(v.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return found
	case reflect.Map:
		var found []string
		for _, k := range v.MapKeys() {
			found = append(found, extraMembers(v.MapIndex(k), path+"."+fmt.Sprint(k))...)
		}
		return found
	}
	return nil
}

func TestProtocolCheckInvalidExamples(t *testing.T) {
	dir := filepath.Join(protocolExamples, "invalid")
	f, err := os.Open(filepath.Join(dir, "expected.txt"))
	require.NoError(t, err)
	defer f.Close()
	expected := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, _, ok := strings.Cut(sc.Text(), ": error: ")
		require.True(t, ok, "expected.txt line %q", sc.Text())
		expected[name] = sc.Text()
	}
	require.NoError(t, sc.Err())

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	checkedFiles := 0
	for _, e := range entries {
		if e.Name() == "expected.txt" {
			continue
		}
		checkedFiles++
		t.Run(e.Name(), func(t *testing.T) {
			want, ok := expected[e.Name()]
			require.True(t, ok, "expected.txt has a line for %s", e.Name())
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"protocol", "check", filepath.Join(dir, e.Name())}, nil, &stdout, &stderr)
			assert.Equal(t, 1, code)
			assert.Empty(t, stdout.String())
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			require.Len(t, lines, 2, stderr.String())
			assert.Equal(t, dir+string(filepath.Separator)+want, lines[0], "the error expected.txt gives, under the path as given")
			assert.Equal(t, "jibod protocol: 1 of 1 files invalid", lines[1])
		})
	}
	assert.Equal(t, len(expected), checkedFiles, "every line of expected.txt has its file")
}

func TestProtocolCheckCommand(t *testing.T) {
	valid := filepath.Join(protocolExamples, "skill", "listen_launch.json")
	hubAction := filepath.Join(protocolExamples, "hub-to-robot", "skill_action.json")
	invalid := filepath.Join(protocolExamples, "invalid", "trigger_unknown_source.json")
	jcpFile := filepath.Join(protocolExamples, "jcp", "lookat.json")
	big := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte(" "), maxCheckBytes+1), 0o644))
	missing := filepath.Join(t.TempDir(), "missing.json")

	tests := []struct {
		name      string
		args      []string
		code      int
		stdout    []string // lines, in order
		stderrHas []string
		jsonLines int
	}{
		{name: "valid", args: []string{valid}, code: 0,
			stdout: []string{valid + ": skill request LISTEN_LAUNCH ok"}, jsonLines: 1},
		{name: "quiet", args: []string{"--quiet", valid, jcpFile}, code: 0,
			stdout:    []string{valid + ": skill request LISTEN_LAUNCH ok", jcpFile + ": JCP action LOOKAT ok"},
			stderrHas: []string{jcpFile + ": warning: config.jcp.label: not read by the JCP executor; kept"}},
		{name: "every file is checked, exit 1", args: []string{"--quiet", invalid, valid}, code: 1,
			stdout: []string{valid + ": skill request LISTEN_LAUNCH ok"},
			stderrHas: []string{invalid + `: error: data.triggerSource: "BORED" is not one of "NEW_ARRIVAL", "SURPRISE"`,
				"jibod protocol: 1 of 2 files invalid"}},
		{name: "as hub-to-robot", args: []string{"--quiet", "--as", "hub-to-robot", hubAction}, code: 0,
			stdout: []string{hubAction + ": hub-to-robot SKILL_ACTION ok"}},
		{name: "as the wrong kind", args: []string{"--quiet", "--as", "manifest", valid}, code: 1,
			stderrHas: []string{valid + ": error: id: required"}},
		{name: "missing file", args: []string{missing}, code: 1,
			stderrHas: []string{missing + ": error: cannot read: open " + missing + ": no such file or directory"}},
		{name: "directory", args: []string{protocolExamples}, code: 1,
			stderrHas: []string{protocolExamples + ": error: cannot read: read " + protocolExamples + ": is a directory"}},
		{name: "too big", args: []string{big}, code: 1,
			stderrHas: []string{big + ": error: file is over 1048576 bytes"}},
		{name: "no files", args: nil, code: 2, stderrHas: []string{"jibod protocol: want at least one file"}},
		{name: "unknown kind for --as", args: []string{"--as", "letter", valid}, code: 2,
			stderrHas: []string{`jibod protocol: --as "letter": want one of skill-request, skill-response, robot-to-hub, hub-to-robot, jcp-action, jcp-behaviour, manifest, mim`}},
		{name: "bad flag", args: []string{"--loud", valid}, code: 2, stderrHas: []string{"flag provided but not defined: -loud"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"protocol", "check"}, tt.args...)
			code := run(context.Background(), args, nil, &stdout, &stderr)
			assert.Equal(t, tt.code, code, stderr.String())
			var okLines []string
			jsonLines := 0
			for line := range strings.Lines(stdout.String()) {
				line = strings.TrimSuffix(line, "\n")
				if strings.HasPrefix(line, "{") {
					jsonLines++
					assert.True(t, json.Valid([]byte(line)), line)
					continue
				}
				okLines = append(okLines, line)
			}
			assert.Equal(t, tt.stdout, okLines)
			assert.Equal(t, tt.jsonLines, jsonLines)
			for _, want := range tt.stderrHas {
				assert.Contains(t, stderr.String(), want)
			}
		})
	}
}

func TestProtocolSubcommandUsage(t *testing.T) {
	for _, args := range [][]string{{"protocol"}, {"protocol", "lint"}} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, run(context.Background(), args, nil, &stdout, &stderr), args)
		assert.Contains(t, stderr.String(), "jibod protocol check [--quiet] [--as KIND] FILE...")
	}
}

// What a document is comes from its members, as the usage text says.
func TestRecognise(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want checkKind
		err  string
	}{
		{name: "MIM by mim_type", doc: `{"mim_type":"question"}`, want: kindMIM},
		{name: "MIM by prompts", doc: `{"prompts":[]}`, want: kindMIM},
		{name: "skill request", doc: `{"type":"PROACTIVE_LAUNCH"}`, want: kindSkillRequest},
		{name: "skill action", doc: `{"type":"SKILL_ACTION","data":{"skill":{}}}`, want: kindSkillResponse},
		{name: "skill redirect", doc: `{"type":"SKILL_REDIRECT","data":{"skillID":"x"}}`, want: kindSkillResponse},
		{name: "hub redirect", doc: `{"type":"SKILL_REDIRECT","data":{"match":{}}}`, want: kindHubToRobot},
		{name: "skill error", doc: `{"type":"ERROR","data":{"message":"m","skill":{}}}`, want: kindSkillResponse},
		{name: "hub error", doc: `{"type":"ERROR","data":{"message":"m","code":"GENERAL"}}`, want: kindHubToRobot},
		{name: "hub error without code", doc: `{"type":"ERROR","data":{"message":"m"}}`, want: kindHubToRobot},
		{name: "robot listen", doc: `{"type":"LISTEN","data":{"lang":"en-US"}}`, want: kindRobotToHub},
		{name: "listen result", doc: `{"type":"LISTEN","data":{"nlu":{}}}`, want: kindHubToRobot},
		{name: "listen result with match only", doc: `{"type":"LISTEN","data":{"match":null}}`, want: kindHubToRobot},
		{name: "context", doc: `{"type":"CONTEXT"}`, want: kindRobotToHub},
		{name: "client NLU", doc: `{"type":"CLIENT_NLU"}`, want: kindRobotToHub},
		{name: "EOS", doc: `{"type":"EOS"}`, want: kindHubToRobot},
		{name: "proactive", doc: `{"type":"PROACTIVE"}`, want: kindHubToRobot},
		{name: "JCP action", doc: `{"type":"JCP"}`, want: kindJCPAction},
		{name: "JCP action without type", doc: `{"config":{"jcp":{}}}`, want: kindJCPAction},
		{name: "bare SLIM", doc: `{"type":"SLIM"}`, want: kindJCPBehaviour},
		{name: "bare LOOKAT", doc: `{"type":"LOOKAT"}`, want: kindJCPBehaviour},
		{name: "bare PLAY, refused by the JCP parser", doc: `{"type":"PLAY"}`, want: kindJCPBehaviour},
		{name: "manifest", doc: `{"id":"x","intents":[]}`, want: kindManifest},
		{name: "type not a string", doc: `{"type":5}`, err: "type: want string"},
		{name: "unknown type", doc: `{"type":"HELLO"}`, err: `type: unknown type "HELLO": want a skill or hub message type, "JCP", or a JCP behaviour type`},
		{name: "nothing to go by", doc: `{"id":"x"}`, err: "not a Jibo message (no type), JCP action (no type or config.jcp), skill manifest (no intents) or MIM (no mim_type or prompts)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var top map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(tt.doc), &top))
			got, err := recognise(top)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Errors name where the problem is: a line and column for bad JSON, the
// member path for a bad member, relative to the file for a bare behaviour.
func TestProtocolCheckErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{name: "syntax on line 2", doc: "{\n  \"type\": ,\n}", want: "line 2, column 11: invalid character ',' looking for beginning of value"},
		{name: "truncated", doc: `{"type":"SOS"`, want: "line 1, column 13: unexpected end of JSON input"},
		{name: "not an object", doc: `[1,2]`, want: "want a JSON object"},
		{name: "type twice", doc: `{"type":"SOS","msgID":"m","type":"EOS"}`, want: `type: member given twice ("type")`},
		{name: "not UTF-8", doc: "{\"type\":\"CLIENT_ASR\",\"msgID\":\"m\",\"data\":{\"text\":\"caf\xe9\"}}", want: `data.text: invalid UTF-8 (byte "\xe9")`},
		{name: "null", doc: `null`, want: "want a JSON object"},
		{name: "bare behaviour member", doc: `{"type":"SLIM","id":"s","config":{"listen":{"contexts":[]}}}`, want: "config.listen.contexts: must not be empty"},
		{name: "bare behaviour type", doc: `{"type":"PLAY","id":"p","esml":"hi"}`, want: "type: PLAY is only allowed inside a SLIM's config"},
		{name: "action inside a hub-forwarded SKILL_ACTION", doc: `{"type":"SKILL_ACTION","msgID":"m","data":{"skill":{"id":"s"},
			"action":{"type":"JCP","config":{"jcp":{"type":"SEQUENCE","id":"q","children":[]}}}}}`, want: "data.action.config.jcp.children: must not be empty"},
		{name: "action not an object", doc: `{"type":"SKILL_ACTION","msgID":"m","data":{"skill":{"id":"s"},"action":[]}}`, want: "data.action: want object or null"},
		{name: "over the protocol limits", doc: `{"type":"COMMAND","msgID":"m","data":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`,
			want: "message exceeds protocol limit: nesting deeper than 64 levels at byte 100"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := checkData([]byte(tt.doc), "doc.json", "")
			require.EqualError(t, err, tt.want)
			assert.Nil(t, res)
		})
	}
}

// A JCP action's canonical form is the executor's (ids filled in, version
// written), with what the executor ignores kept in place and reported.
func TestProtocolCheckKeepsUnreadJCPMembers(t *testing.T) {
	doc := `{"config":{"jcp":{"type":"SLIM","config":{"play":{"esml":"Hi","tone":"warm"}},"x":[1,{"y":2}]}},"z":true}`
	res, err := checkData([]byte(doc), "a.json", "")
	require.NoError(t, err)
	assert.Equal(t, "JCP action SLIM", res.label)
	assert.Equal(t, []string{
		"config.jcp.config.play.tone: not read by the JCP executor; kept",
		"config.jcp.x: not read by the JCP executor; kept",
		"z: not read by the JCP executor; kept",
	}, res.warnings)
	var got struct {
		Type   string
		Config struct {
			Version string
			JCP     struct {
				ID     string
				Config struct{ Play map[string]any }
				X      []any
			}
		}
		Z bool
	}
	require.NoError(t, json.Unmarshal(res.canonical, &got))
	assert.Equal(t, "JCP", got.Type)
	assert.Equal(t, "2.0", got.Config.Version)
	assert.Len(t, got.Config.JCP.ID, 32, "a fresh id, as the executor gives it")
	assert.Equal(t, "warm", got.Config.JCP.Config.Play["tone"])
	assert.Len(t, got.Config.JCP.X, 2)
	assert.True(t, got.Z)
	assert.True(t, strings.HasPrefix(string(res.canonical), `{"type":"JCP","config":{"version":"2.0","jcp":{"id":"`), "executor's member order first: %s", res.canonical)
}

// The comparison the example test relies on sees a dropped or changed
// member, and only numbers' spelling is forgiven.
func TestLostSeesDrops(t *testing.T) {
	tests := []struct {
		in, out string
		want    []string
	}{
		{in: `{"a":1,"b":{"c":[1,2]}}`, out: `{"a":1.0,"b":{"c":[1e0,2]},"added":true}`},
		{in: `{"a":1,"b":{"c":[1,2]}}`, out: `{"a":1,"b":{"c":[1]}}`, want: []string{"b.c: array changed length or kind"}},
		{in: `{"a":1,"b":{"x":null}}`, out: `{"a":1,"b":{}}`, want: []string{"b.x: lost"}},
		{in: `{"a":"1"}`, out: `{"a":1}`, want: []string{"a: 1 became number:1"}},
		{in: `{"a":0.1}`, out: `{"a":0.10000000000000001}`, want: []string{"a: number:1/10 became number:10000000000000001/100000000000000000"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, lost(jsonTree(t, []byte(tt.in)), jsonTree(t, []byte(tt.out)), ""), tt.in)
	}
}
