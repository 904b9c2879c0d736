package jcp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/jcp"
)

// ESML parsing per spec/jibo.md §3.5.
func TestParseESML(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		text    string
		tags    []jcp.Tag
		pauses  []jcp.Pause
		unknown []string
	}{
		{name: "plain text", in: "Hello world", text: "Hello world"},
		{name: "empty", in: "", text: ""},
		{name: "white space collapsed", in: "  Hello \n\t world  ", text: "Hello world"},
		{name: "speak wrapper", in: "<speak> Hi! </speak>", text: "Hi!"},
		{name: "entities", in: "Tom &amp; Jerry &lt;3 &#65;&#x42; &quot;q&quot; &apos;s &gt;", text: `Tom & Jerry <3 AB "q" 's >`},
		{name: "bare ampersand", in: "Tom & Jerry &nbsp; &;", text: "Tom & Jerry &nbsp; &;"},
		{name: "unicode", in: "Ça va? 🤖", text: "Ça va? 🤖"},
		{
			name: "bounded es",
			in:   `<es cat='happy' nonBlocking="true">Hi there</es> friend`,
			text: "Hi there friend",
			tags: []jcp.Tag{{Name: "es", Attrs: []jcp.Attr{{Name: "cat", Value: "happy"}, {Name: "nonBlocking", Value: "true"}}, Offset: 0, Start: 0, End: 8}},
		},
		{
			name: "empty anim",
			in:   "Look <anim name='x' />here",
			text: "Look here",
			tags: []jcp.Tag{{Name: "anim", Attrs: []jcp.Attr{{Name: "name", Value: "x"}}, Offset: 5, Start: 4, End: 4, Empty: true}},
		},
		{
			name:   "break size",
			in:     "One<break size='0.5'/>two",
			text:   "One two",
			tags:   []jcp.Tag{{Name: "break", Attrs: []jcp.Attr{{Name: "size", Value: "0.5"}}, Offset: 3, Start: 3, End: 3, Empty: true}},
			pauses: []jcp.Pause{{At: 3, Duration: 500 * time.Millisecond}},
		},
		{
			name: "break time and default",
			in:   "a<break time='250ms'/>b<break time=\"1.5s\"/>c<break/>d<break></break>",
			text: "a b c d",
			tags: []jcp.Tag{
				{Name: "break", Attrs: []jcp.Attr{{Name: "time", Value: "250ms"}}, Offset: 1, Start: 1, End: 1, Empty: true},
				{Name: "break", Attrs: []jcp.Attr{{Name: "time", Value: "1.5s"}}, Offset: 23, Start: 3, End: 3, Empty: true},
				{Name: "break", Offset: 44, Start: 5, End: 5, Empty: true},
				{Name: "break", Offset: 53, Start: 7, End: 7},
			},
			pauses: []jcp.Pause{{At: 1, Duration: 250 * time.Millisecond}, {At: 3, Duration: 1500 * time.Millisecond}, {At: 5, Duration: jcp.DefaultBreak}, {At: 7, Duration: jcp.DefaultBreak}},
		},
		{
			name:    "unknown tags",
			in:      "<foo>hi</foo> <foo/><bar x='1'/>",
			text:    "hi",
			unknown: []string{"foo", "bar"},
		},
		{name: "comment and declaration", in: `<?xml version="1.0"?><!-- a <b> comment -->Hi`, text: "Hi"},
		{
			name: "nested",
			in:   "<speak><style set='enthusiastic'><pitch add='2'>Wow</pitch> yes</style></speak>",
			text: "Wow yes",
			tags: []jcp.Tag{
				{Name: "style", Attrs: []jcp.Attr{{Name: "set", Value: "enthusiastic"}}, Offset: 7, Start: 0, End: 7},
				{Name: "pitch", Attrs: []jcp.Attr{{Name: "add", Value: "2"}}, Offset: 33, Start: 0, End: 3},
			},
		},
		{
			name: "attribute entities and spacing",
			in:   `<sfx name = 'a&amp;b' path="x'y"/>`,
			text: "",
			tags: []jcp.Tag{{Name: "sfx", Attrs: []jcp.Attr{{Name: "name", Value: "a&b"}, {Name: "path", Value: "x'y"}}, Offset: 0, Start: 0, End: 0, Empty: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := jcp.ParseESML(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.text, doc.Text)
			assert.Equal(t, tt.tags, doc.Tags)
			assert.Equal(t, tt.pauses, doc.Pauses)
			assert.Equal(t, tt.unknown, doc.Unknown)
		})
	}
}

func TestParseESMLErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		offset  int
		wantErr string
	}{
		{"unclosed", "<es>hi", 0, "<es> is never closed"},
		{"unclosed inner", "<speak>hi <es>x</speak>", 15, "</speak> does not match <es> at offset 10"},
		{"stray close", "hi</es>", 2, "</es> closes a tag that is not open"},
		{"crossed", "<es><anim>x</es></anim>", 11, "</es> does not match <anim> at offset 4"},
		{"lone less-than", "a < b", 2, "'<' must start a tag (write &lt; for a literal '<')"},
		{"unquoted value", "<es name=x/>", 9, `in <es>: value of "name" must be quoted`},
		{"no value", "<es name/>", 4, `in <es>: attribute "name" has no value`},
		{"duplicate attribute", "<es name='x' name='y'/>", 0, `in <es>: attribute "name" is given twice`},
		{"value never closed", "<es name='x/>", 9, `in <es>: value of "name" is never closed`},
		{"missing space", "<es name='x'cat='y'/>", 12, "in <es>: expected white space before an attribute"},
		{"bad attribute name", "<es ='x'/>", 4, "in <es>: expected an attribute name"},
		{"less-than in value", "<es name='<'/>", 10, `in <es>: '<' in the value of "name"`},
		{"tag never ends", "<es", 0, "<es is never closed with '>'"},
		{"bad slash", "<es /x>", 4, "in <es>: '/' must be followed by '>'"},
		{"close without name", "</>", 0, "'</' must be followed by a tag name"},
		{"close never ends", "<es></es", 4, "</es is never closed with '>'"},
		{"comment never ends", "<!-- x", 0, "comment is never closed"},
		{"declaration never ends", "<?xml", 0, "processing instruction is never closed"},
		{"CDATA", "<![CDATA[x]]>", 0, "unsupported markup (CDATA or DOCTYPE)"},
		{"break size not a number", "<break size='abc'/>", 0, `in <break>: size "abc" is not a number of seconds`},
		{"break too long", "<break size='11'/>", 0, "in <break>: pause of 11s is outside 0..10s"},
		{"break negative", "x<break size='-1'/>", 1, "in <break>: pause of -1s is outside 0..10s"},
		{"break bad time", "<break time='5min'/>", 0, `in <break>: time "5min" is not a duration such as 500ms or 1.5s`},
		{"null character", "a&#0;", 1, "character reference &#0; is not a valid character"},
		{"surrogate", "&#xD800;", 0, "character reference &#xD800; is not a valid character"},
		{"bad reference", "&#xZZ;", 0, "bad character reference &#xZZ;"},
		{"bad reference in value", "<es name='&#0;'/>", 9, `in <es>: value of "name": character reference &#0; is not a valid character`},
		{"invalid UTF-8", "ab\xffc", 2, "not valid UTF-8"},
		// Spoken text refuses control characters, written or referenced
		// (issue 22 item 10); newlines and tabs are text.
		{"BEL", "ring\a", 4, "control character U+0007 (BEL)"},
		{"ESC", "a\x1b[2Jb", 1, "control character U+001B (ESC)"},
		{"right-to-left override", "play \u202egnos", 5, "control character U+202E (RLO)"},
		{"isolate", "x\u2066y", 1, "control character U+2066 (LRI)"},
		{"BEL by reference", "ring&#7;", 4, "character reference &#7; is a control character U+0007 (BEL)"},
		{"override by reference", "a&#x202E;b", 1, "character reference &#x202E; is a control character U+202E (RLO)"},
		{"too long", strings.Repeat("a", jcp.MaxESMLBytes+1), jcp.MaxESMLBytes, "ESML is 8193 bytes, limit 8192"},
		{"too deep", strings.Repeat("<es>", jcp.MaxESMLDepth+1), 4 * jcp.MaxESMLDepth, "tags nested deeper than 32"},
		{"too many tags", strings.Repeat("<anim/>", jcp.MaxESMLTags+1), 7 * jcp.MaxESMLTags, "more than 512 tags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := jcp.ParseESML(tt.in)
			require.Error(t, err)
			assert.Nil(t, doc)
			var ee *jcp.ESMLError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, tt.offset, ee.Offset, err.Error())
			assert.Equal(t, tt.wantErr, ee.Reason)
		})
	}
}

func TestESMLSegments(t *testing.T) {
	tests := []struct {
		in   string
		want []jcp.Segment
	}{
		{"Hi", []jcp.Segment{{Text: "Hi"}}},
		{"", []jcp.Segment{{Text: ""}}},
		{"One<break size='0.5'/>two<break size='1'/>", []jcp.Segment{{Text: "One", Pause: 500 * time.Millisecond}, {Text: "two", Pause: time.Second}}},
		{"<break size='1'/>Hi <anim name='x'/>there", []jcp.Segment{{Text: "", Pause: time.Second}, {Text: "Hi there"}}},
		{"a<break size='0.1'/><break size='0.2'/>b", []jcp.Segment{{Text: "a", Pause: 100 * time.Millisecond}, {Text: "", Pause: 200 * time.Millisecond}, {Text: "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			doc, err := jcp.ParseESML(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, doc.Segments())
		})
	}
}

func TestTagAttr(t *testing.T) {
	doc, err := jcp.ParseESML("<anim name='wave' loop='2'/>")
	require.NoError(t, err)
	v, ok := doc.Tags[0].Attr("loop")
	assert.True(t, ok)
	assert.Equal(t, "2", v)
	_, ok = doc.Tags[0].Attr("cat")
	assert.False(t, ok)
}
