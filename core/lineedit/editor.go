// Package lineedit is a line editor for any terminal: the diagnostics
// shell's and the robot's text console. It turns the bytes a terminal
// sends into lines, echoing as it goes, and works on a dumb terminal at
// 115200 baud: it echoes, edits with backspace only (\b), keeps a history
// the arrow keys browse when the terminal sends them, completes words with
// Tab, bounds line length, and ignores binary garbage. It needs no terminal
// capabilities beyond a backspace that moves the cursor left and a
// carriage return.
package lineedit

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line and history limits.
const (
	// MaxLineBytes bounds one typed line. A longer line is refused whole at
	// Enter, never cut into a different command.
	MaxLineBytes = 1024
	// MaxHistory is how many lines the history keeps.
	MaxHistory = 100
	// maxSeq bounds the parameter bytes of one escape sequence; a longer
	// one is garbage.
	maxSeq = 16
	// garbageHint is how many ignored bytes on one line make the editor
	// suggest checking the line settings, once per session.
	garbageHint = 8
	// maxListed bounds the completions listed at once.
	maxListed = 64
)

// KeyCtrlC is the byte a terminal sends for Ctrl-C: the editor abandons
// the line; a program may also watch for it while no line is edited.
const KeyCtrlC = 0x03

// Control bytes the editor acts on. Everything else below 0x20 is ignored.
const (
	keyCtrlA = 0x01
	keyCtrlC = KeyCtrlC
	keyCtrlD = 0x04
	keyCtrlE = 0x05
	keyBS    = 0x08
	keyTab   = 0x09
	keyLF    = 0x0a
	keyCtrlL = 0x0c
	keyCR    = 0x0d
	keyCtrlU = 0x15
	keyCtrlW = 0x17
	keyEsc   = 0x1b
	keyDEL   = 0x7f
)

// Result is what one byte fed to the editor produced.
type Result int

// The results of Feed.
const (
	More      Result = iota // keep feeding
	Line                    // Enter: take the line with Text
	Interrupt               // Ctrl-C: the line was abandoned
	EOF                     // Ctrl-D on an empty line
)

type escState int

const (
	escNone escState = iota
	escStart
	escCSI // ESC [
	escSS3 // ESC O
)

// garbageHintText is shown once per session when a line collects
// unexpected bytes, the usual sign of a wrong baud rate.
const garbageHintText = "(ignoring unexpected bytes: if this is a serial line, check the terminal is set to the robot's baud rate, 8N1, no flow control)"

// Editor turns the bytes a terminal sends into lines, echoing as it goes.
// The screen model is the simplest there is: the cursor only ever moves
// left with \b and right by printing (and to the start of the line with
// \r, to make room for output that is not the editor's), so it works on
// any terminal that honours backspace; nothing depends on terminal
// capabilities. It is not safe for concurrent use: feed it, and write
// around it, from one goroutine or under one lock.
type Editor struct {
	w    func(string) // echo to the terminal; nil echoes nothing
	hist []string

	// complete returns the candidates for word, the last word of a line
	// whose earlier words are head.
	complete func(head []string, word string) []string

	prompt string
	secret bool
	line   []rune
	pos    int
	size   int // UTF-8 bytes in line
	over   bool
	junk   int // ignored bytes on this line
	hinted bool
	hpos   int    // history index while browsing; len(hist) is the draft
	draft  []rune // the line being typed when browsing started

	esc     escState
	seq     []byte
	utf     []byte
	utfNeed int
	afterCR bool
}

// New returns an editor that echoes through echo (nil: no echo, for
// scripts) and completes words with complete (nil: no completion).
// complete returns the candidates for word, the last word of a line whose
// earlier words are head.
func New(echo func(string), complete func(head []string, word string) []string) *Editor {
	return &Editor{w: echo, complete: complete}
}

func (e *Editor) out(s string) {
	if e.w != nil && s != "" {
		e.w(s)
	}
}

func (e *Editor) ding() { e.out("\a") }

// Begin starts a new line: it shows prompt and clears the line state.
// A secret line echoes '*' for each character and is never kept in history.
func (e *Editor) Begin(prompt string, secret bool) {
	e.prompt, e.secret = prompt, secret
	e.line, e.pos, e.size, e.over, e.junk = e.line[:0], 0, 0, false, 0
	e.hpos, e.draft = len(e.hist), nil
	e.out(prompt)
}

// Text returns the line typed so far.
func (e *Editor) Text() string { return string(e.line) }

// TooLong reports whether the line went over MaxLineBytes.
func (e *Editor) TooLong() bool { return e.over }

// Feed takes one byte from the terminal.
func (e *Editor) Feed(b byte) Result {
	if e.afterCR {
		e.afterCR = false
		if b == keyLF || b == 0 { // CR LF and CR NUL are one Enter
			return More
		}
	}
	switch e.esc {
	case escStart:
		switch b {
		case '[':
			e.esc, e.seq = escCSI, e.seq[:0]
			return More
		case 'O':
			e.esc = escSS3
			return More
		case keyEsc:
			return More
		}
		// A stray ESC, or Alt with a key: drop the ESC, take the key.
		e.esc = escNone
	case escCSI:
		switch {
		case b >= 0x40 && b <= 0x7e:
			e.esc = escNone
			e.csi(b)
			return More
		case b >= 0x20 && b <= 0x3f && len(e.seq) < maxSeq:
			e.seq = append(e.seq, b)
			return More
		}
		e.esc = escNone
		e.garbage()
		return More
	case escSS3:
		e.esc = escNone
		e.ss3(b)
		return More
	}
	if e.utfNeed > 0 {
		if b >= 0x80 && b <= 0xbf {
			e.utf = append(e.utf, b)
			if len(e.utf) < e.utfNeed {
				return More
			}
			r, _ := utf8.DecodeRune(e.utf)
			e.utf, e.utfNeed = e.utf[:0], 0
			if r == utf8.RuneError || !unicode.IsPrint(r) {
				e.garbage()
				return More
			}
			e.insert(r)
			return More
		}
		// The sequence broke off: drop it and take b afresh.
		e.utf, e.utfNeed = e.utf[:0], 0
		e.garbage()
	}
	switch {
	case b == keyCR:
		e.afterCR = true
		return e.enter()
	case b == keyLF:
		return e.enter()
	case b == keyCtrlC:
		e.out("^C\n")
		e.line, e.pos, e.size, e.over = e.line[:0], 0, 0, false
		return Interrupt
	case b == keyCtrlD:
		if len(e.line) == 0 && !e.over {
			return EOF
		}
		e.ding()
	case b == keyBS || b == keyDEL:
		e.backspace()
	case b == keyTab:
		e.tab()
	case b == keyCtrlA:
		e.home()
	case b == keyCtrlE:
		e.end()
	case b == keyCtrlU:
		e.setLine(nil)
		e.over = false
	case b == keyCtrlW:
		e.killWord()
	case b == keyCtrlL:
		e.redraw()
	case b == keyEsc:
		e.esc = escStart
	case b < 0x20:
		e.garbage()
	case b < 0x80:
		e.insert(rune(b))
	case b >= 0xc2 && b <= 0xdf:
		e.utf, e.utfNeed = append(e.utf[:0], b), 2
	case b >= 0xe0 && b <= 0xef:
		e.utf, e.utfNeed = append(e.utf[:0], b), 3
	case b >= 0xf0 && b <= 0xf4:
		e.utf, e.utfNeed = append(e.utf[:0], b), 4
	default:
		e.garbage()
	}
	return More
}

// enter ends the line; the caller takes it with Text and TooLong.
func (e *Editor) enter() Result {
	e.out("\n")
	if s := string(e.line); s != "" && !e.secret && !e.over && strings.TrimSpace(s) != "" &&
		(len(e.hist) == 0 || e.hist[len(e.hist)-1] != s) {
		if len(e.hist) == MaxHistory {
			e.hist = slices.Delete(e.hist, 0, 1)
		}
		e.hist = append(e.hist, s)
	}
	return Line
}

// garbage counts an ignored byte and, once per session, says what too many
// of them usually mean.
func (e *Editor) garbage() {
	e.junk++
	if e.junk == garbageHint && !e.hinted && e.w != nil {
		e.hinted = true
		e.out("\n" + garbageHintText + "\n")
		e.redrawLine()
	}
}

// shown is how rune r appears on the screen.
func (e *Editor) shown(r rune) string {
	if e.secret {
		return "*"
	}
	return string(r)
}

func (e *Editor) shownRunes(rs []rune) string {
	if e.secret {
		return strings.Repeat("*", len(rs))
	}
	return string(rs)
}

func back(n int) string { return strings.Repeat("\b", n) }

func (e *Editor) insert(r rune) {
	n := utf8.RuneLen(r)
	if e.over || e.size+n > MaxLineBytes {
		if !e.over {
			e.over = true
			e.ding()
		}
		return
	}
	e.line = slices.Insert(e.line, e.pos, r)
	e.size += n
	e.pos++
	tail := e.line[e.pos:]
	e.out(e.shown(r) + e.shownRunes(tail) + back(len(tail)))
}

func (e *Editor) backspace() {
	if e.pos == 0 {
		e.ding()
		return
	}
	e.size -= utf8.RuneLen(e.line[e.pos-1])
	e.line = slices.Delete(e.line, e.pos-1, e.pos)
	e.pos--
	tail := e.line[e.pos:]
	e.out("\b" + e.shownRunes(tail) + " " + back(len(tail)+1))
}

func (e *Editor) deleteUnder() {
	if e.pos == len(e.line) {
		e.ding()
		return
	}
	e.size -= utf8.RuneLen(e.line[e.pos])
	e.line = slices.Delete(e.line, e.pos, e.pos+1)
	tail := e.line[e.pos:]
	e.out(e.shownRunes(tail) + " " + back(len(tail)+1))
}

func (e *Editor) left() {
	if e.pos == 0 {
		return
	}
	e.pos--
	e.out("\b")
}

func (e *Editor) right() {
	if e.pos == len(e.line) {
		return
	}
	e.out(e.shown(e.line[e.pos]))
	e.pos++
}

func (e *Editor) home() {
	e.out(back(e.pos))
	e.pos = 0
}

func (e *Editor) end() {
	e.out(e.shownRunes(e.line[e.pos:]))
	e.pos = len(e.line)
}

// setLine replaces the whole line with rs, cursor at its end.
func (e *Editor) setLine(rs []rune) {
	old := len(e.line)
	s := e.shownRunes(rs)
	pad := max(old-len(rs), 0)
	e.out(back(e.pos) + s + strings.Repeat(" ", pad) + back(pad))
	e.line = append(e.line[:0], rs...)
	e.pos = len(e.line)
	e.size = len(string(e.line))
}

func (e *Editor) killWord() {
	i := e.pos
	for i > 0 && e.line[i-1] == ' ' {
		i--
	}
	for i > 0 && e.line[i-1] != ' ' {
		i--
	}
	if i == e.pos {
		e.ding()
		return
	}
	for range e.pos - i {
		e.backspace()
	}
}

// Hide takes the prompt and the line off the screen, leaving the cursor at
// the start of an empty screen line, so that output that is not the
// editor's can be written there; Show puts them back. A line longer than
// the terminal is wide wraps, and only its last screen line is cleared.
func (e *Editor) Hide() {
	n := utf8.RuneCountInString(e.prompt) + len(e.line)
	e.out("\r" + strings.Repeat(" ", n) + "\r")
}

// Show draws the prompt and the line again after Hide, the cursor where it
// was.
func (e *Editor) Show() { e.redrawLine() }

// History returns the lines kept, oldest first.
func (e *Editor) History() []string { return slices.Clone(e.hist) }

// redraw starts a fresh screen line with the prompt and the line.
func (e *Editor) redraw() {
	e.out("\n")
	e.redrawLine()
}

func (e *Editor) redrawLine() {
	e.out(e.prompt + e.shownRunes(e.line) + back(len(e.line)-e.pos))
}

func (e *Editor) historyUp() {
	if e.secret || e.hpos == 0 {
		e.ding()
		return
	}
	if e.hpos == len(e.hist) {
		e.draft = append([]rune(nil), e.line...)
	}
	e.hpos--
	e.setLine([]rune(e.hist[e.hpos]))
	e.over = false
}

func (e *Editor) historyDown() {
	if e.secret || e.hpos >= len(e.hist) {
		e.ding()
		return
	}
	e.hpos++
	if e.hpos == len(e.hist) {
		e.setLine(e.draft)
	} else {
		e.setLine([]rune(e.hist[e.hpos]))
	}
}

// csi acts on ESC [ params final: the arrow, Home, End and Delete keys as
// VT100 and xterm send them. Others (function keys, bracketed paste
// markers, focus reports) are ignored.
func (e *Editor) csi(final byte) {
	if final != '~' {
		e.cursorKey(final)
		return
	}
	switch string(e.seq) {
	case "1", "7":
		e.home()
	case "4", "8":
		e.end()
	case "3":
		e.deleteUnder()
	}
}

// ss3 acts on ESC O final, the arrows in application cursor mode.
func (e *Editor) ss3(final byte) { e.cursorKey(final) }

// cursorKey acts on the final byte both cursor-key forms share: the
// arrows, Home and End.
func (e *Editor) cursorKey(final byte) {
	switch final {
	case 'A':
		e.historyUp()
	case 'B':
		e.historyDown()
	case 'C':
		e.right()
	case 'D':
		e.left()
	case 'H':
		e.home()
	case 'F':
		e.end()
	}
}

// tab completes the word before the cursor: a single candidate is filled
// in, several are narrowed to their common prefix or listed.
func (e *Editor) tab() {
	if e.secret || e.complete == nil || e.w == nil {
		// Without a screen to complete on (scripts), a tab is a space.
		if !e.secret && e.w == nil {
			e.insert(' ')
		}
		return
	}
	if e.pos != len(e.line) || e.over {
		e.ding()
		return
	}
	s := string(e.line)
	cut := strings.LastIndexByte(s, ' ') + 1
	head, word := strings.Fields(s[:cut]), s[cut:]
	var cands []string
	for _, c := range e.complete(head, word) {
		if strings.HasPrefix(c, word) {
			cands = append(cands, c)
		}
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	switch len(cands) {
	case 0:
		e.ding()
		return
	case 1:
		for _, r := range cands[0][len(word):] + " " {
			e.insert(r)
		}
		return
	}
	common := cands[0]
	for _, c := range cands[1:] {
		for !strings.HasPrefix(c, common) {
			common = common[:len(common)-1]
		}
	}
	if len(common) > len(word) {
		for _, r := range common[len(word):] {
			e.insert(r)
		}
		return
	}
	e.out("\n" + listColumns(cands) + "\n")
	e.redrawLine()
}

// listColumns lays candidates out on lines of at most 72 columns.
func listColumns(cands []string) string {
	var b strings.Builder
	more := 0
	if len(cands) > maxListed {
		more = len(cands) - maxListed
		cands = cands[:maxListed]
	}
	col := 0
	for _, c := range cands {
		if col > 0 && col+2+len(c) > 72 {
			b.WriteString("\n")
			col = 0
		}
		if col > 0 {
			b.WriteString("  ")
			col += 2
		}
		b.WriteString(c)
		col += len(c)
	}
	if more > 0 {
		b.WriteString("\n... and " + strconv.Itoa(more) + " more")
	}
	return b.String()
}
