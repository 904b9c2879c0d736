package jcp

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openjibo/jibod/internal/textcheck"
)

// Limits of the ESML parser, on top of MaxESMLBytes.
const (
	// MaxESMLDepth bounds how deeply ESML tags nest.
	MaxESMLDepth = 32
	// MaxESMLTags bounds the tags in one ESML document.
	MaxESMLTags = 512
	// MaxPause bounds one <break>.
	MaxPause = 10 * time.Second
	// DefaultBreak is the pause of a <break/> that gives no size or time.
	DefaultBreak = 500 * time.Millisecond
)

// ESML is a parsed PLAY text (spec/jibo.md §3.5): what to say, and the tags
// that shape how, anchored to positions in the spoken text so that a later
// timeline can fire animations and sounds where they were written.
type ESML struct {
	// Text is the spoken text: tags removed, entities decoded, runs of
	// white space collapsed to one space, trimmed.
	Text string
	// Tags are the known ESML tags in document order (the optional <speak>
	// wrapper is not listed).
	Tags []Tag
	// Pauses are the <break> pauses in document order.
	Pauses []Pause
	// Unknown lists the names of unknown tags, each once, in order of first
	// appearance. Their content is spoken; the tags themselves are ignored.
	Unknown []string
}

// Tag is one ESML element.
type Tag struct {
	// Name is the tag name, e.g. "anim" or "break".
	Name string
	// Attrs are the attributes in source order, values entity-decoded.
	Attrs []Attr
	// Offset is the byte offset of the tag's '<' in the source.
	Offset int
	// Start and End are byte offsets into ESML.Text: where the tag opens and
	// where its content ends. An empty tag (<x/> or <x></x>) has End ==
	// Start, except <say-as spell='…'/>, whose letters it adds to the text.
	Start, End int
	// Empty is true for a self-closing tag (<x/>).
	Empty bool
	// auto marks a tag the auto-rules added (AutoRules), not the skill:
	// one the body cannot perform is dropped without a note.
	auto bool
}

// Attr returns the value of the attribute called name.
func (t Tag) Attr(name string) (string, bool) {
	for _, a := range t.Attrs {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// Attr is one attribute of a tag.
type Attr struct {
	Name, Value string
}

// Pause is a <break> in the speech.
type Pause struct {
	// At is the byte offset in ESML.Text where the pause falls.
	At int
	// Duration is how long to pause.
	Duration time.Duration
}

// Segment is a stretch of speech followed by a pause.
type Segment struct {
	// Text is the words to say; it may be empty when pauses follow each
	// other or the text starts with one.
	Text string
	// Pause is how long to wait after Text; 0 for the last segment.
	Pause time.Duration
}

// Segments splits the spoken text at its pauses: what a voice says, and how
// long to wait after each part.
func (e *ESML) Segments() []Segment {
	segs := make([]Segment, 0, len(e.Pauses)+1)
	prev := 0
	for _, p := range e.Pauses {
		segs = append(segs, Segment{Text: strings.TrimSpace(e.Text[prev:p.At]), Pause: p.Duration})
		prev = p.At
	}
	last := strings.TrimSpace(e.Text[prev:])
	if last != "" || len(segs) == 0 {
		segs = append(segs, Segment{Text: last})
	}
	return segs
}

// ESMLError reports malformed ESML at a byte offset in the source.
type ESMLError struct {
	// Offset is the byte offset of the problem in the source.
	Offset int
	// Reason says what is wrong.
	Reason string
}

// Error reports the offset and the reason.
func (e *ESMLError) Error() string {
	return fmt.Sprintf("offset %d: %s", e.Offset, e.Reason)
}

// knownESMLTag reports whether name is a tag of Jibo's ESML (§3.5).
func knownESMLTag(name string) bool {
	switch name {
	case "speak", "es", "anim", "ssa", "sfx", "audio",
		"break", "pitch", "duration", "say-as", "phoneme", "style":
		return true
	}
	return false
}

// ParseESML parses a PLAY's ESML. Plain text is valid ESML, and the <speak>
// wrapper is optional. Markup errors (an unclosed or mismatched tag, a
// malformed attribute, a bad <break> duration, a stray '<') are returned as
// *ESMLError with the byte offset. A '&' that does not start a known entity
// is kept as text, as plain-text senders write "Tom & Jerry".
func ParseESML(src string) (*ESML, error) {
	if len(src) > MaxESMLBytes {
		return nil, &ESMLError{Offset: MaxESMLBytes, Reason: fmt.Sprintf("ESML is %d bytes, limit %d", len(src), MaxESMLBytes)}
	}
	if !utf8.ValidString(src) {
		i := 0
		for i < len(src) {
			r, n := utf8.DecodeRuneInString(src[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		return nil, &ESMLError{Offset: i, Reason: "not valid UTF-8"}
	}
	// Spoken text: control characters (NUL, BEL, ESC, bidi overrides …)
	// would be spoken or shown differently from how they look.
	var te *textcheck.Error
	if err := textcheck.Text(src); errors.As(err, &te) {
		return nil, &ESMLError{Offset: te.Offset, Reason: te.Problem()}
	}
	p := esmlParser{src: src, doc: &ESML{}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	p.doc.Text = p.out.String()
	return p.doc, nil
}

type openTag struct {
	name   string
	offset int
	tag    int // index in doc.Tags, or -1 when not recorded
}

type esmlParser struct {
	src     string
	pos     int
	doc     *ESML
	out     strings.Builder
	space   bool // white space is pending before the next word
	stack   []openTag
	tags    int
	unknown map[string]bool
}

// fail is not inlined: it runs on error paths only, and inlining would copy
// its body into each of its many callers.
//
//go:noinline
func (p *esmlParser) fail(offset int, format string, args ...any) error {
	return &ESMLError{Offset: offset, Reason: fmt.Sprintf(format, args...)}
}

func (p *esmlParser) parse() error {
	for p.pos < len(p.src) {
		lt := strings.IndexByte(p.src[p.pos:], '<')
		if lt < 0 {
			if err := p.text(p.src[p.pos:], p.pos); err != nil {
				return err
			}
			break
		}
		if err := p.text(p.src[p.pos:p.pos+lt], p.pos); err != nil {
			return err
		}
		p.pos += lt
		if err := p.markup(); err != nil {
			return err
		}
	}
	if n := len(p.stack); n > 0 {
		open := p.stack[n-1]
		return p.fail(open.offset, "<%s> is never closed", open.name)
	}
	return nil
}

// text appends decoded character data, collapsing white space.
func (p *esmlParser) text(s string, offset int) error {
	for i := 0; i < len(s); {
		if s[i] == '&' {
			r, n, err := decodeEntity(s[i:])
			if err != nil {
				return p.fail(offset+i, "%v", err)
			}
			if n > 0 {
				p.rune(r)
				i += n
				continue
			}
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		p.rune(r)
		i += n
	}
	return nil
}

func (p *esmlParser) rune(r rune) {
	if unicode.IsSpace(r) {
		p.space = true
		return
	}
	if p.space && p.out.Len() > 0 {
		p.out.WriteByte(' ')
	}
	p.space = false
	p.out.WriteRune(r)
}

// decodeEntity decodes the entity reference at the start of s. It returns
// n == 0 when s does not start with one (a literal '&'), and an error for a
// numeric reference to a character that cannot appear in text.
func decodeEntity(s string) (r rune, n int, err error) {
	semi := strings.IndexByte(s, ';')
	if semi < 2 || semi > 12 {
		return 0, 0, nil
	}
	name := s[1:semi]
	switch name {
	case "amp":
		return '&', semi + 1, nil
	case "lt":
		return '<', semi + 1, nil
	case "gt":
		return '>', semi + 1, nil
	case "quot":
		return '"', semi + 1, nil
	case "apos":
		return '\'', semi + 1, nil
	}
	if name[0] != '#' {
		return 0, 0, nil
	}
	num, base := name[1:], 10
	if strings.HasPrefix(num, "x") || strings.HasPrefix(num, "X") {
		num, base = num[1:], 16
	}
	v, perr := strconv.ParseUint(num, base, 32)
	if perr != nil {
		return 0, 0, fmt.Errorf("bad character reference &%s;", name)
	}
	if v == 0 || v > unicode.MaxRune || (v >= 0xd800 && v <= 0xdfff) {
		return 0, 0, fmt.Errorf("character reference &%s; is not a valid character", name)
	}
	var te *textcheck.Error
	if err := textcheck.Text(string(rune(v))); errors.As(err, &te) {
		return 0, 0, fmt.Errorf("character reference &%s; is a %s", name, te.Problem())
	}
	return rune(v), semi + 1, nil
}

// markup handles the construct starting at p.pos, which is '<'.
func (p *esmlParser) markup() error {
	rest := p.src[p.pos:]
	switch {
	case strings.HasPrefix(rest, "<!--"):
		end := strings.Index(rest[4:], "-->")
		if end < 0 {
			return p.fail(p.pos, "comment is never closed")
		}
		p.pos += 4 + end + 3
		return nil
	case strings.HasPrefix(rest, "<?"):
		end := strings.Index(rest, "?>")
		if end < 0 {
			return p.fail(p.pos, "processing instruction is never closed")
		}
		p.pos += end + 2
		return nil
	case strings.HasPrefix(rest, "<!"):
		return p.fail(p.pos, "unsupported markup (CDATA or DOCTYPE)")
	case strings.HasPrefix(rest, "</"):
		return p.closeTag()
	}
	return p.openTag()
}

// name reads a tag or attribute name at p.pos.
func (p *esmlParser) name() string {
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		ok := c == '_' || c == ':' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') ||
			(p.pos > start && (c == '-' || c == '.' || ('0' <= c && c <= '9')))
		if !ok {
			break
		}
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *esmlParser) skipSpace() bool {
	start := p.pos
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
	return p.pos > start
}

func (p *esmlParser) closeTag() error {
	start := p.pos
	p.pos += 2
	name := p.name()
	if name == "" {
		return p.fail(start, "'</' must be followed by a tag name")
	}
	p.skipSpace()
	if p.pos >= len(p.src) || p.src[p.pos] != '>' {
		return p.fail(start, "</%s is never closed with '>'", name)
	}
	p.pos++
	n := len(p.stack)
	if n == 0 {
		return p.fail(start, "</%s> closes a tag that is not open", name)
	}
	open := p.stack[n-1]
	if open.name != name {
		return p.fail(start, "</%s> does not match <%s> at offset %d", name, open.name, open.offset)
	}
	p.stack = p.stack[:n-1]
	if open.tag >= 0 {
		p.doc.Tags[open.tag].End = p.out.Len()
	}
	return nil
}

func (p *esmlParser) openTag() error {
	start := p.pos
	p.pos++
	name := p.name()
	if name == "" {
		return p.fail(start, "'<' must start a tag (write &lt; for a literal '<')")
	}
	var attrs []Attr
	empty := false
	for {
		spaced := p.skipSpace()
		if p.pos >= len(p.src) {
			return p.fail(start, "<%s is never closed with '>'", name)
		}
		if c := p.src[p.pos]; c == '>' {
			p.pos++
			break
		} else if c == '/' {
			if p.pos+1 >= len(p.src) || p.src[p.pos+1] != '>' {
				return p.fail(p.pos, "in <%s>: '/' must be followed by '>'", name)
			}
			p.pos += 2
			empty = true
			break
		}
		if !spaced {
			return p.fail(p.pos, "in <%s>: expected white space before an attribute", name)
		}
		a, err := p.attr(name)
		if err != nil {
			return err
		}
		for _, prev := range attrs {
			if prev.Name == a.Name {
				return p.fail(start, "in <%s>: attribute %q is given twice", name, a.Name)
			}
		}
		attrs = append(attrs, a)
	}
	return p.element(name, attrs, start, empty)
}

func (p *esmlParser) attr(tag string) (Attr, error) {
	at := p.pos
	name := p.name()
	if name == "" {
		return Attr{}, p.fail(at, "in <%s>: expected an attribute name", tag)
	}
	p.skipSpace()
	if p.pos >= len(p.src) || p.src[p.pos] != '=' {
		return Attr{}, p.fail(at, "in <%s>: attribute %q has no value", tag, name)
	}
	p.pos++
	p.skipSpace()
	if p.pos >= len(p.src) || (p.src[p.pos] != '\'' && p.src[p.pos] != '"') {
		return Attr{}, p.fail(p.pos, "in <%s>: value of %q must be quoted", tag, name)
	}
	quote := p.src[p.pos]
	end := strings.IndexByte(p.src[p.pos+1:], quote)
	if end < 0 {
		return Attr{}, p.fail(p.pos, "in <%s>: value of %q is never closed", tag, name)
	}
	raw := p.src[p.pos+1 : p.pos+1+end]
	if i := strings.IndexByte(raw, '<'); i >= 0 {
		return Attr{}, p.fail(p.pos+1+i, "in <%s>: '<' in the value of %q", tag, name)
	}
	value, err := decodeAttr(raw)
	if err != nil {
		return Attr{}, p.fail(p.pos, "in <%s>: value of %q: %v", tag, name, err)
	}
	p.pos += end + 2
	return Attr{Name: name, Value: value}, nil
}

func decodeAttr(raw string) (string, error) {
	if !strings.Contains(raw, "&") {
		return raw, nil
	}
	var b strings.Builder
	for i := 0; i < len(raw); {
		if raw[i] == '&' {
			r, n, err := decodeEntity(raw[i:])
			if err != nil {
				return "", err
			}
			if n > 0 {
				b.WriteRune(r)
				i += n
				continue
			}
		}
		b.WriteByte(raw[i])
		i++
	}
	return b.String(), nil
}

// element records a start tag that has been read.
func (p *esmlParser) element(name string, attrs []Attr, offset int, empty bool) error {
	if p.tags++; p.tags > MaxESMLTags {
		return p.fail(offset, "more than %d tags", MaxESMLTags)
	}
	idx := -1
	switch {
	case name == "speak":
	case knownESMLTag(name):
		idx = len(p.doc.Tags)
		at := p.out.Len()
		p.doc.Tags = append(p.doc.Tags, Tag{Name: name, Attrs: attrs, Offset: offset, Start: at, End: at, Empty: empty})
		if name == "break" {
			d, err := breakDuration(p.doc.Tags[idx])
			if err != nil {
				return p.fail(offset, "in <break>: %v", err)
			}
			p.doc.Pauses = append(p.doc.Pauses, Pause{At: at, Duration: d})
			// A pause separates words as white space does.
			p.space = true
		}
		if name == "say-as" && empty {
			// <say-as spell='…'/> is spoken letter by letter.
			if v, ok := p.doc.Tags[idx].Attr("spell"); ok {
				p.space = true
				for _, r := range v {
					p.rune(r)
					p.space = true
				}
				p.doc.Tags[idx].End = p.out.Len()
			}
		}
	default:
		if p.unknown == nil {
			p.unknown = map[string]bool{}
		}
		if !p.unknown[name] {
			p.unknown[name] = true
			p.doc.Unknown = append(p.doc.Unknown, name)
		}
	}
	if empty {
		return nil
	}
	if len(p.stack) >= MaxESMLDepth {
		return p.fail(offset, "tags nested deeper than %d", MaxESMLDepth)
	}
	p.stack = append(p.stack, openTag{name: name, offset: offset, tag: idx})
	return nil
}

// breakDuration reads <break size='seconds'/> (Jibo's ESML) or
// <break time='500ms'/> / time='1.5s' (the SSML form some clouds send).
func breakDuration(t Tag) (time.Duration, error) {
	var secs float64
	if v, ok := t.Attr("size"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return 0, fmt.Errorf("size %q is not a number of seconds", v)
		}
		secs = f
	} else if v, ok := t.Attr("time"); ok {
		s := strings.TrimSpace(v)
		scale := 1.0
		switch {
		case strings.HasSuffix(s, "ms"):
			s, scale = s[:len(s)-2], 0.001
		case strings.HasSuffix(s, "s"):
			s = s[:len(s)-1]
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, fmt.Errorf("time %q is not a duration such as 500ms or 1.5s", v)
		}
		secs = f * scale
	} else {
		return DefaultBreak, nil
	}
	if math.IsNaN(secs) || secs < 0 || secs > MaxPause.Seconds() {
		return 0, fmt.Errorf("pause of %gs is outside 0..%gs", secs, MaxPause.Seconds())
	}
	return time.Duration(secs * float64(time.Second)), nil
}
