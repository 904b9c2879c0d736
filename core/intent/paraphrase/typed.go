package paraphrase

import (
	"strconv"
)

// English typed values: how numbers and lengths of time are said, to fill
// typed slots in training text and to find typed slot values in an
// utterance when no aligner is wired.

var smallNumberWords = [...]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"}

var tensWords = [...]string{"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"}

// numberWord says 0..99 in words ("forty two").
func numberWord(n int) string {
	switch {
	case n < 0 || n > 99:
		return strconv.Itoa(n)
	case n < 20:
		return smallNumberWords[n]
	case n%10 == 0:
		return tensWords[n/10]
	}
	return tensWords[n/10] + " " + smallNumberWords[n%10]
}

var numberValue = func() map[string]int {
	m := map[string]int{}
	for i, w := range smallNumberWords {
		m[w] = i
	}
	for i, w := range tensWords {
		if w != "" {
			m[w] = i * 10
		}
	}
	return m
}()

// readNumber reads a number at words[i:] in digits ("90", "1.5") or
// words ("ninety", "twenty five", "a hundred"); it returns how many words
// it took, 0 when there is none.
func readNumber(words []string, i int) int {
	if i >= len(words) {
		return 0
	}
	w := words[i]
	if _, err := strconv.ParseFloat(w, 64); err == nil {
		return 1
	}
	n := 0
	if w == "a" || w == "an" {
		if i+1 < len(words) && words[i+1] == "hundred" {
			return 2
		}
		if i+1 < len(words) && words[i+1] == "couple" {
			if i+2 < len(words) && words[i+2] == "of" {
				return 3
			}
			return 2
		}
		return 1 // "a minute"
	}
	v, ok := numberValue[w]
	if !ok {
		return 0
	}
	n = 1
	if v >= 20 && v%10 == 0 && i+1 < len(words) {
		if u, ok := numberValue[words[i+1]]; ok && u >= 1 && u <= 9 {
			n = 2
		}
	}
	if i+n < len(words) && words[i+n] == "hundred" {
		n++
	}
	return n
}

var durationUnits = map[string]bool{
	"s": true, "sec": true, "secs": true, "second": true, "seconds": true,
	"min": true, "mins": true, "minute": true, "minutes": true,
	"h": true, "hr": true, "hrs": true, "hour": true, "hours": true,
}

// readDuration reads a length of time at words[i:] ("five minutes", "an
// hour and a half", "half an hour", "a quarter of an hour", "1 minute 30
// seconds", "two and a half minutes"); it returns how many words it took,
// 0 when there is none.
func readDuration(words []string, i int) int {
	j, parts := i, 0
	for {
		k := readDurationPart(words, j)
		if k == 0 {
			break
		}
		j += k
		parts++
		// "an hour and 15 minutes", "1 minute 30 seconds"
		if j < len(words) && words[j] == "and" && readDurationPart(words, j+1) > 0 {
			j++
		}
	}
	if parts == 0 {
		return 0
	}
	return j - i
}

func readDurationPart(words []string, i int) int {
	at := func(k int) string {
		if i+k < len(words) {
			return words[i+k]
		}
		return ""
	}
	j := 0
	switch {
	case at(0) == "half" || at(0) == "quarter":
		j = 1
	case (at(0) == "a" || at(0) == "an") && (at(1) == "half" || at(1) == "quarter"):
		j = 2
	default:
		n := readNumber(words, i)
		if n == 0 {
			return 0
		}
		j = n
		if at(j) == "and" && at(j+1) == "a" && at(j+2) == "half" {
			j += 3
		}
		if at(j) == "quarter" || at(j) == "quarters" {
			j++
		}
	}
	for at(j) == "of" || at(j) == "a" || at(j) == "an" {
		j++
	}
	if !durationUnits[at(j)] {
		return 0
	}
	j++
	if at(j) == "and" && at(j+1) == "a" && at(j+2) == "half" {
		j += 3
	}
	return j
}

// englishDurations are spoken lengths of time in the forms people use.
func englishDurations() []string {
	var out []string
	units := []string{"second", "minute", "hour"}
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 40, 45, 50, 90} {
		for _, u := range units {
			if u == "hour" && n > 12 {
				continue
			}
			plural := u + "s"
			if n == 1 {
				plural = u
			}
			out = append(out, numberWord(n)+" "+plural, strconv.Itoa(n)+" "+plural)
			if n <= 10 {
				out = append(out, numberWord(n)+" "+u) // "a five minute timer"
			}
		}
	}
	out = append(out,
		"a minute", "an hour", "a second", "half an hour", "half a minute", "a half hour", "half hour",
		"a quarter of an hour", "quarter of an hour", "three quarters of an hour", "an hour and a half",
		"a minute and a half", "one and a half minutes", "two and a half minutes", "one and a half hours",
		"1 minute 30 seconds", "one minute thirty seconds", "an hour and 15 minutes", "two hours and thirty minutes",
		"a couple of minutes", "a couple minutes", "ninety seconds", "a hundred seconds", "five and a half minutes",
		"1 hour 30 minutes", "ten minutes and thirty seconds", "twenty five minutes", "thirty five minutes")
	return out
}

// englishNumbers are 0..100 in digits and words.
func englishNumbers() []string {
	var out []string
	for n := 0; n <= 100; n++ {
		out = append(out, strconv.Itoa(n))
		if n < 100 {
			out = append(out, numberWord(n))
		}
	}
	return append(out, "a hundred", "one hundred")
}
