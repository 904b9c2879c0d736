package intent

import (
	"strconv"
	"strings"
)

// Typed slots (GRM-05): a {number:x} or {duration:x} slot, or one that
// slot_types types so, prefers a value its parser reads. The parsed value
// only ranks the parse; the slot still gets the words said (GRM-14). The
// parsers read ASR-normalised English: digits ("20.5", "1/2", "3rd",
// "1,000"), number words ("twenty five", "a hundred and one", "one and a
// half", "three quarters"), ordinals ("first", "twenty second"),
// percentages ("50 percent") and durations ("ten minutes", "1 hour 15
// minutes", "an hour and a half", "a quarter of an hour", "90 seconds").
// Other languages read digits only.

// numberWords are English cardinal words and their values.
var numberWords = map[string]float64{
	"zero": 0, "oh": 0, "nought": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
	"fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}

var tensWords = map[string]float64{
	"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

var scaleWords = map[string]float64{"hundred": 100, "thousand": 1e3, "million": 1e6, "billion": 1e9}

// ordinalWords are English ordinals below twenty and the tens.
var ordinalWords = map[string]float64{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
	"ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
	"fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
	"twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70,
	"eightieth": 80, "ninetieth": 90, "hundredth": 100,
}

// durationUnits are English time units in seconds.
var durationUnits = map[string]float64{
	"second": 1, "seconds": 1, "sec": 1, "secs": 1,
	"minute": 60, "minutes": 60, "min": 60, "mins": 60,
	"hour": 3600, "hours": 3600, "hr": 3600, "hrs": 3600,
	"day": 86400, "days": 86400, "week": 604800, "weeks": 604800,
}

// numSpan is a parsed number: words[from:end] read as value.
type numSpan struct {
	end   int
	value float64
}

// typedParser reads typed values out of one utterance's words.
type typedParser struct {
	words   []string
	english bool
}

// digits reads one word of digits: "20", "20.5", "1,000", "1/2", "3rd".
func digits(w string) (float64, bool) {
	if w == "" || w[0] < '0' || w[0] > '9' {
		return 0, false
	}
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if s, ok := strings.CutSuffix(w, suf); ok && s != "" && allDigits(s) {
			v, err := strconv.Atoi(s)
			return float64(v), err == nil
		}
	}
	if a, c, ok := strings.Cut(w, "/"); ok {
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(c, 64)
		if err1 != nil || err2 != nil || y == 0 {
			return 0, false
		}
		return x / y, true
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(w, ",", ""), 64)
	return v, err == nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// numbers returns every way a number can be read from words[p:], shortest
// first: "twenty five minutes" gives "twenty" and "twenty five".
func (tp *typedParser) numbers(p int) []numSpan {
	w := tp.words
	if p >= len(w) {
		return nil
	}
	var out []numSpan
	if v, ok := digits(w[p]); ok {
		out = append(out, numSpan{p + 1, v})
		out = tp.fraction(out, p+1, v)
		return out
	}
	if !tp.english {
		return nil
	}
	if v, ok := ordinalWords[w[p]]; ok {
		return append(out, numSpan{p + 1, v})
	}
	switch w[p] {
	case "half":
		return append(out, numSpan{p + 1, 0.5})
	case "a", "an":
		// "a hundred", "a half", "a quarter", "a couple"
		if p+1 < len(w) {
			switch w[p+1] {
			case "half":
				return append(out, numSpan{p + 2, 0.5})
			case "quarter":
				return append(out, numSpan{p + 2, 0.25})
			case "couple":
				return append(out, numSpan{p + 2, 2})
			case "dozen":
				return append(out, numSpan{p + 2, 12})
			}
			if _, ok := scaleWords[w[p+1]]; ok {
				out = append(out, tp.cardinal(p+1, 1)...)
			}
		}
		return out
	case "quarter":
		return append(out, numSpan{p + 1, 0.25})
	}
	for _, n := range tp.cardinal(p, 0) {
		out = append(out, n)
		out = tp.fraction(out, n.end, n.value)
	}
	return out
}

// fraction extends a whole number with "and a half" or a following
// "quarter(s)" ("three quarters").
func (tp *typedParser) fraction(out []numSpan, at int, v float64) []numSpan {
	w := tp.words
	if !tp.english || at >= len(w) {
		return out
	}
	if at+2 < len(w) && w[at] == "and" && (w[at+1] == "a" || w[at+1] == "an") {
		switch w[at+2] {
		case "half":
			out = append(out, numSpan{at + 3, v + 0.5})
		case "quarter":
			out = append(out, numSpan{at + 3, v + 0.25})
		}
	}
	switch w[at] {
	case "quarter", "quarters":
		out = append(out, numSpan{at + 1, v / 4})
	case "half", "halves":
		out = append(out, numSpan{at + 1, v / 2})
	}
	return out
}

// cardinal reads English cardinal words from p: "five", "twenty five",
// "one hundred and five", "two thousand twenty". lead is a value already
// read (1 for "a hundred"), or 0.
func (tp *typedParser) cardinal(p int, lead float64) []numSpan {
	w := tp.words
	var out []numSpan
	total, group := 0.0, lead
	have := lead > 0
	i := p
	lastSmall := "" // "unit", "teen", "tens" or "" for the kind of the last word
	for i < len(w) {
		word := w[i]
		if v, ok := numberWords[word]; ok && (lastSmall == "" || lastSmall == "tens" && v >= 1 && v <= 9) {
			group += v
			if v >= 10 {
				lastSmall = "teen"
			} else {
				lastSmall = "unit"
			}
			have = true
			i++
			out = append(out, numSpan{i, total + group})
			continue
		}
		if v, ok := tensWords[word]; ok && lastSmall == "" {
			group += v
			lastSmall = "tens"
			have = true
			i++
			out = append(out, numSpan{i, total + group})
			if i < len(w) {
				if o, ok := ordinalWords[w[i]]; ok && o < 10 {
					out = append(out, numSpan{i + 1, total + group + o})
				}
			}
			continue
		}
		if s, ok := scaleWords[word]; ok && have {
			if group == 0 {
				group = 1
			}
			if s == 100 {
				group *= 100
			} else {
				total += group * s
				group = 0
			}
			lastSmall = ""
			i++
			out = append(out, numSpan{i, total + group})
			if i+1 < len(w) && w[i] == "and" {
				if _, ok := numberWords[w[i+1]]; ok {
					i++ // "one hundred and five"
					continue
				}
				if _, ok := tensWords[w[i+1]]; ok {
					i++
					continue
				}
			}
			continue
		}
		if o, ok := ordinalWords[word]; ok && lastSmall == "" && have && o < 100 {
			out = append(out, numSpan{i + 1, total + group + o})
		}
		break
	}
	return out
}

// numberEnds returns the ends of every number reading from p, with
// "percent" or "per cent" after it also read as a number.
func (tp *typedParser) numberEnds(p int) posSet {
	var s posSet
	for _, n := range tp.numbers(p) {
		s.add(n.end)
		w := tp.words
		if n.end < len(w) && w[n.end] == "percent" {
			s.add(n.end + 1)
		}
		if n.end+1 < len(w) && w[n.end] == "per" && w[n.end+1] == "cent" {
			s.add(n.end + 2)
		}
	}
	return s
}

// durationEnds returns the ends of every duration reading from p: one or
// more "<number> <unit>" parts joined by nothing, "and" or commas, "an
// hour and a half", "half an hour", "a quarter of an hour".
func (tp *typedParser) durationEnds(p int) posSet {
	var s posSet
	if !tp.english {
		for _, n := range tp.numbers(p) {
			if n.end < len(tp.words) {
				s.add(n.end + 1) // a number and one word for its unit
			}
		}
		return s
	}
	tp.durationFrom(p, &s, 0)
	return s
}

func (tp *typedParser) durationFrom(p int, s *posSet, depth int) {
	if depth > 4 {
		return
	}
	w := tp.words
	for _, e := range tp.durationPart(p) {
		s.add(e)
		q := e
		if q < len(w) && w[q] == "and" {
			// "an hour and a half", "1 hour and 30 minutes"
			if q+2 < len(w) && (w[q+1] == "a" || w[q+1] == "an") && (w[q+2] == "half" || w[q+2] == "quarter") {
				s.add(q + 3)
			}
			q++
		}
		if q < len(w) {
			tp.durationFrom(q, s, depth+1)
		}
	}
}

// durationPart reads one "<number> <unit>" part, or "half an hour", "a
// quarter of an hour", "a minute".
func (tp *typedParser) durationPart(p int) []int {
	w := tp.words
	var ends []int
	unitAt := func(i int) bool {
		if i >= len(w) {
			return false
		}
		_, ok := durationUnits[w[i]]
		return ok
	}
	if p < len(w) && (w[p] == "a" || w[p] == "an") && unitAt(p+1) {
		ends = append(ends, p+2)
	}
	// "half an hour", "a quarter of an hour", "quarter of an hour"
	for _, n := range tp.numbers(p) {
		q := n.end
		if unitAt(q) {
			ends = append(ends, q+1)
		}
		if q+1 < len(w) && (w[q] == "a" || w[q] == "an") && unitAt(q+1) && n.value < 1 {
			ends = append(ends, q+2)
		}
		if q+2 < len(w) && w[q] == "of" && (w[q+1] == "a" || w[q+1] == "an") && unitAt(q+2) && n.value < 1 {
			ends = append(ends, q+3)
		}
	}
	return ends
}

// posSet is a set of utterance positions 0..127.
type posSet [2]uint64

func (s *posSet) add(i int) {
	if i >= 0 && i < 128 {
		s[i>>6] |= 1 << (i & 63)
	}
}

func (s posSet) has(i int) bool { return i >= 0 && i < 128 && s[i>>6]&(1<<(i&63)) != 0 }

func (s posSet) empty() bool { return s[0] == 0 && s[1] == 0 }

func (s *posSet) union(o posSet) { s[0] |= o[0]; s[1] |= o[1] }
