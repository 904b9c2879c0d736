package jcp_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openjibo/jibod/jcp"
)

// FuzzParseAction checks that any input is either rejected or parses into
// an action whose canonical JSON parses back to the same canonical JSON.
func FuzzParseAction(f *testing.F) {
	f.Add([]byte(env(say("a", "Hello <break size='0.5'/> world"))))
	f.Add([]byte(`{"config":{"jcp":{"type":"SLIM","config":{"play":{"esml":"<speak>hi</speak>"}}}}}`))
	f.Add([]byte(env(`{"id":"p","type":"PARALLEL","succeedOnFirst":true,"children":[` + say("a", "x") +
		`,{"id":"e","type":"IMPACT_EMOTION","valence":"LOW_POS"},{"id":"s","type":"SET_PRESENT_PERSON","looperId":"l","source":"FACE","confidence":3}]}`)))
	f.Add([]byte(env(`{"id":"s","type":"SLIM","config":{"listen":{"contexts":["a"]},"display":{"view":{"type":"TEXT","text":"hi"},"layer":1}},"options":{"displayMode":"START_ON_LISTEN"}}`)))
	f.Add([]byte(env(`{"id":"q","type":"SEQUENCE","children":[{"id":"l","type":"LOOKAT","target":{"position":{"x":1,"y":-0.5,"z":0.3}},"options":{"type":"FLUSH_BASE","dofs":"BASE"}},` +
		`{"id":"e","type":"LOOKAT","target":{"entityId":"face-1","track":true}},` +
		`{"id":"a","type":"PLAY_ANIMATION","animation":{"data":{"name":"x","tracks":{"topSection_r":[[0,0],[1,0.5]]}}},"options":{"speed":2,"loops":-1}},` +
		`{"id":"c","type":"PLAY_ANIMATION","animation":{"categories":["happy"]}}]}`)))
	f.Add([]byte(`{"type":"JCP"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := jcp.ParseAction(data)
		if err != nil {
			if a != nil {
				t.Fatalf("error %v with a non-nil action", err)
			}
			return
		}
		out, err := json.Marshal(a)
		if err != nil {
			t.Fatalf("marshal parsed action: %v", err)
		}
		back, err := jcp.ParseAction(out)
		if err != nil {
			t.Fatalf("canonical JSON %s does not parse: %v", out, err)
		}
		again, err := json.Marshal(back)
		if err != nil {
			t.Fatalf("marshal reparsed action: %v", err)
		}
		if string(again) != string(out) {
			t.Fatalf("canonical JSON is not stable:\n%s\n%s", out, again)
		}
	})
}

// FuzzParseESML checks that the ESML parser never panics, and that what it
// accepts is self-consistent: valid UTF-8 text with offsets inside it.
func FuzzParseESML(f *testing.F) {
	for _, s := range []string{
		"Hello world",
		"<speak><es cat='happy'>Hi &amp; bye</es><break size='0.5'/>there</speak>",
		"<anim name=\"x\" nonBlocking='true'/>text<!-- c --><?pi?>",
		"a &#x41; &#66; &lt;&gt; & b",
		"<es><anim>x</es></anim>",
		"<break time='250ms'/>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		doc, err := jcp.ParseESML(src)
		if err != nil {
			return
		}
		if !utf8.ValidString(doc.Text) {
			t.Fatalf("text %q is not valid UTF-8", doc.Text)
		}
		if doc.Text != strings.TrimSpace(doc.Text) || strings.Contains(doc.Text, "  ") {
			t.Fatalf("text %q is not collapsed", doc.Text)
		}
		for _, tag := range doc.Tags {
			if tag.Start < 0 || tag.Start > tag.End || tag.End > len(doc.Text) || tag.Offset >= len(src) {
				t.Fatalf("tag %+v out of range for text %q", tag, doc.Text)
			}
		}
		for _, p := range doc.Pauses {
			if p.At < 0 || p.At > len(doc.Text) || p.Duration < 0 || p.Duration > jcp.MaxPause {
				t.Fatalf("pause %+v out of range", p)
			}
		}
		doc.Segments()
	})
}
