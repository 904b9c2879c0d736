package timer

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Limits of a timer's length and of the text it is read from.
const (
	MinDuration = time.Second
	MaxDuration = 24 * time.Hour
	// MaxDurationText bounds the text ParseDuration reads, in bytes.
	MaxDurationText = 200
	// maxDurationWords bounds its words.
	maxDurationWords = 24
)

// Errors of ParseDuration, for errors.Is.
var (
	// ErrNoDuration: the text says no length of time the parser knows.
	ErrNoDuration = errors.New("not a length of time")
	// ErrOutOfRange: a length outside MinDuration..MaxDuration.
	ErrOutOfRange = errors.New("timer length out of range")
)

// units are the spoken time units.
var units = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
	"min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
}

var smallNumbers = map[string]float64{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
	"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}

var tens = map[string]float64{
	"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

// fillers are words around a length that say nothing about it: "for five
// minutes please", "about ten seconds", "make it an hour".
var fillers = map[string]bool{
	"for": true, "about": true, "around": true, "roughly": true, "just": true, "only": true, "please": true,
	"um": true, "uh": true, "er": true, "make": true, "it": true, "set": true, "the": true, "timer": true,
	"of": true, "exactly": true, "like": true, "maybe": true, "ok": true, "okay": true,
}

// ParseDuration reads a spoken length of time in English: "five minutes",
// "1 minute 30 seconds", "an hour and a half", "ninety seconds",
// "2 hours", "half an hour", "a quarter of an hour", "two and a half
// minutes", "one minute thirty" (a bare number after a unit counts in the
// next smaller unit). Words around it that carry no length ("for", "about",
// "please") are skipped; any other word is an error naming it. The result
// must lie in MinDuration..MaxDuration (ErrOutOfRange); text that holds no
// length is ErrNoDuration.
func ParseDuration(text string) (time.Duration, error) {
	if len(text) > MaxDurationText {
		return 0, fmt.Errorf("%w: text is %d bytes, limit %d", ErrNoDuration, len(text), MaxDurationText)
	}
	words := tokens(text)
	if len(words) > maxDurationWords {
		return 0, fmt.Errorf("%w: %d words, limit %d", ErrNoDuration, len(words), maxDurationWords)
	}
	p := &durationParser{words: words}
	total, err := p.parse()
	if err != nil {
		return 0, fmt.Errorf("%q: %w", text, err)
	}
	d := time.Duration(math.Round(total * float64(time.Second)))
	if d < MinDuration || d > MaxDuration {
		return 0, fmt.Errorf("%q is %s: %w (%s to %s)", text, d, ErrOutOfRange, MinDuration, MaxDuration)
	}
	return d, nil
}

// tokens lowercases text and splits it into words, keeping decimal
// numbers ("1.5") whole.
func tokens(text string) []string {
	fields := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return r != '.' && r != '\'' && !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := fields[:0]
	for _, f := range fields {
		if f = strings.Trim(f, ".'"); f != "" {
			out = append(out, f)
		}
	}
	return out
}

type durationParser struct {
	words []string
	i     int
}

func (p *durationParser) peek(k int) string {
	if p.i+k < len(p.words) {
		return p.words[p.i+k]
	}
	return ""
}

// parse sums the parts of the length, in seconds.
func (p *durationParser) parse() (float64, error) {
	var total float64
	parts := 0
	var last time.Duration // unit of the previous part
	for {
		p.skipFillers()
		if p.i >= len(p.words) {
			break
		}
		amount, unit, err := p.part()
		if errors.Is(err, errBareNumber) && last > time.Second {
			// "one minute thirty": the next smaller unit.
			unit = smaller(last)
			err = nil
		}
		if err != nil {
			return 0, err
		}
		total += amount * unit.Seconds()
		last = unit
		parts++
	}
	if parts == 0 {
		return 0, fmt.Errorf("%w: no number and unit", ErrNoDuration)
	}
	return total, nil
}

func (p *durationParser) skipFillers() {
	for p.i < len(p.words) && (fillers[p.peek(0)] || p.peek(0) == "and") {
		p.i++
	}
}

// restAreFillers reports whether only fillers are left.
func (p *durationParser) restAreFillers() bool {
	for _, w := range p.words[p.i:] {
		if !fillers[w] {
			return false
		}
	}
	return true
}

// errBareNumber marks a number not followed by a unit.
var errBareNumber = fmt.Errorf("%w: a number needs a unit (seconds, minutes or hours)", ErrNoDuration)

// part reads one "<amount> <unit>" and what may follow the unit ("and a
// half"); it returns the amount in units.
func (p *durationParser) part() (float64, time.Duration, error) {
	switch w := p.peek(0); {
	case w == "half":
		// "half an hour", "half a minute", "half hour"
		p.i++
		u, err := p.unit(true)
		return 0.5, u, err
	case w == "quarter" || w == "quarters":
		p.i++
		u, err := p.unit(true)
		return 0.25, u, err
	case (w == "a" || w == "an") && (p.peek(1) == "half" || p.peek(1) == "quarter"):
		// "a half hour", "a quarter of an hour"
		p.i++
		return p.part()
	}
	amount, err := p.number()
	if err != nil {
		return 0, 0, err
	}
	if p.peek(0) == "and" && p.peek(1) == "a" && p.peek(2) == "half" {
		// "two and a half minutes"
		p.i += 3
		amount += 0.5
	}
	if w := p.peek(0); w == "quarter" || w == "quarters" {
		// "three quarters of an hour"
		p.i++
		amount *= 0.25
		u, err := p.unit(true)
		return amount, u, err
	}
	if p.restAreFillers() {
		return amount, 0, errBareNumber
	}
	u, err := p.unit(false)
	if err != nil {
		return 0, 0, err
	}
	if p.peek(0) == "and" && p.peek(1) == "a" && p.peek(2) == "half" {
		// "an hour and a half"
		p.i += 3
		amount += 0.5
	}
	return amount, u, nil
}

// unit reads a unit; with article, "of", "a" and "an" may come first
// ("half of an hour").
func (p *durationParser) unit(article bool) (time.Duration, error) {
	for article && (p.peek(0) == "of" || p.peek(0) == "a" || p.peek(0) == "an") {
		p.i++
	}
	w := p.peek(0)
	u, ok := units[w]
	if !ok {
		if w == "" {
			return 0, fmt.Errorf("%w: a unit is missing at the end", ErrNoDuration)
		}
		return 0, fmt.Errorf("%w: %q is not a unit (seconds, minutes or hours)", ErrNoDuration, w)
	}
	p.i++
	return u, nil
}

// number reads a number in digits ("90", "1.5") or words ("ninety",
// "twenty five", "a hundred and twenty", "a", "a couple of").
func (p *durationParser) number() (float64, error) {
	w := p.peek(0)
	if w == "" {
		return 0, fmt.Errorf("%w: a number is missing at the end", ErrNoDuration)
	}
	if v, err := strconv.ParseFloat(w, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) && v >= 0 {
		p.i++
		return v, nil
	}
	if (w == "a" || w == "an") && p.peek(1) == "couple" {
		p.i += 2
		if p.peek(0) == "of" {
			p.i++
		}
		return 2, nil
	}
	// total holds the hundreds said, cur the number below a hundred being
	// read; a word that cannot extend them ends the number ("five five").
	var total, cur float64
	seen, hundreds := false, false
	fresh := func() bool { return cur == 0 && (!seen || hundreds) }
	for {
		w := p.peek(0)
		small, isSmall := smallNumbers[w]
		ten, isTen := tens[w]
		switch {
		case (w == "a" || w == "an") && !seen:
			// "a minute", "an hour", "a hundred seconds"
			p.i++
			if p.peek(0) != "hundred" {
				return 1, nil
			}
			cur, seen = 1, true
		case isSmall && (fresh() || cur >= 20 && int(cur)%10 == 0 && small >= 1 && small <= 9):
			cur += small
			seen = true
			p.i++
		case isTen && fresh():
			cur += ten
			seen = true
			p.i++
		case w == "hundred" && seen && !hundreds && cur >= 1 && cur <= 9:
			total, cur, hundreds = cur*100, 0, true
			p.i++
			if n := p.peek(1); p.peek(0) == "and" && (smallNumbers[n] > 0 || tens[n] > 0) {
				p.i++ // "a hundred and twenty"
			}
		case !seen:
			return 0, fmt.Errorf("%w: expected a number at %q", ErrNoDuration, w)
		default:
			return total + cur, nil
		}
	}
}

// smaller is the unit after u: hours → minutes → seconds.
func smaller(u time.Duration) time.Duration {
	if u >= time.Hour {
		return time.Minute
	}
	return time.Second
}

// numberWords are the spoken numbers below twenty and the tens.
var numberWords = [...]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}

var tensWords = [...]string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}

// NumberWords says 0..99 in words ("forty two"); other numbers in digits.
func NumberWords(n int) string {
	switch {
	case n < 0 || n > 99:
		return strconv.Itoa(n)
	case n < 20:
		return numberWords[n]
	case n%10 == 0:
		return tensWords[n/10]
	}
	return tensWords[n/10] + " " + numberWords[n%10]
}

// durationParts splits d, rounded to whole seconds, into hours, minutes
// and seconds.
func durationParts(d time.Duration) (h, m, s int) {
	total := int(d.Round(time.Second) / time.Second)
	return total / 3600, total % 3600 / 60, total % 60
}

// SpokenDuration says a length of time: "five minutes", "one hour and
// thirty minutes", "two hours, five minutes and ten seconds".
func SpokenDuration(d time.Duration) string {
	h, m, s := durationParts(d)
	var parts []string
	add := func(n int, unit string) {
		if n == 0 {
			return
		}
		if n != 1 {
			unit += "s"
		}
		parts = append(parts, NumberWords(n)+" "+unit)
	}
	add(h, "hour")
	add(m, "minute")
	add(s, "second")
	switch len(parts) {
	case 0:
		return "zero seconds"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// SpokenLength says a length of time as a timer's name, "five minute" as
// in "your five minute timer", when it is one unit; ok is false for a
// length of several units, which reads better as "your timer for …".
func SpokenLength(d time.Duration) (string, bool) {
	h, m, s := durationParts(d)
	switch {
	case m == 0 && s == 0 && h > 0:
		return NumberWords(h) + " hour", true
	case h == 0 && s == 0 && m > 0:
		return NumberWords(m) + " minute", true
	case h == 0 && m == 0 && s > 0:
		return NumberWords(s) + " second", true
	}
	return "", false
}
