package people

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Limits on the loop and its members.
const (
	// MaxMembers bounds the loop: a household, not a directory.
	MaxMembers = 32
	// MaxNameBytes bounds each of a member's names.
	MaxNameBytes = 64
	// MaxGenderBytes bounds a member's gender.
	MaxGenderBytes = 32
	// MaxIDBytes bounds an id.
	MaxIDBytes = 64
	// DateLayout is how birthdates are written: on the command line and
	// in the file.
	DateLayout = "2006-01-02"
	// minBirthYear is the earliest birth year taken: older is a typo.
	minBirthYear = 1900
)

// Errors a change may be refused with, wrapped with what was wrong.
var (
	// ErrInvalid is a member or a file breaking a rule.
	ErrInvalid = errors.New("invalid")
	// ErrFull is an addition to a loop of MaxMembers.
	ErrFull = errors.New("the loop is full")
	// ErrNotFound is a reference naming nobody.
	ErrNotFound = errors.New("not in the loop")
	// ErrAmbiguous is a name more than one member has.
	ErrAmbiguous = errors.New("ambiguous")
	// ErrOwner is a change that would leave the loop without its owner.
	ErrOwner = errors.New("the owner cannot be removed")
)

// Member is one person of the loop as the file keeps them.
type Member struct {
	// ID is the member's looper id, made when they are added and kept.
	ID string `json:"id"`
	// FirstName is required; LastName and PhoneticName (how to say the
	// first name, e.g. "Shivawn" for Siobhan) are optional. Names are
	// letters, spaces, apostrophes and hyphens, at most MaxNameBytes each.
	FirstName    string `json:"firstName"`
	LastName     string `json:"lastName,omitempty"`
	PhoneticName string `json:"phoneticName,omitempty"`
	// Gender is free text, stored lower-case: jibo.md names no values,
	// and the MIM conditions it quotes compare lower-case ones
	// (referent.gender=="male").
	Gender string `json:"gender,omitempty"`
	// Birthdate is YYYY-MM-DD, or "" when not given.
	Birthdate string `json:"birthdate,omitempty"`
}

// Name is the member's full name: first and last.
func (m Member) Name() string {
	return strings.TrimSpace(m.FirstName + " " + m.LastName)
}

// Called reports whether name names m: its first name, or its first and
// last names, compared as spoken words (case, apostrophes and hyphens
// aside), as the robot compares a name it hears.
func Called(m Member, name string) bool {
	said := strings.Join(words(name), " ")
	if said == "" {
		return false
	}
	return said == strings.Join(words(m.FirstName), " ") || said == strings.Join(words(m.Name()), " ")
}

// words splits a name into lower-case words, apostrophes dropped, as
// ASR-normalised text writes them ("O'Brien" → "obrien").
func words(s string) []string {
	s = strings.Map(func(r rune) rune {
		if isApostrophe(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
	})
}

func isApostrophe(r rune) bool { return r == '\'' || r == '\u2019' || r == '\u02bc' }

// clean checks m and returns it normalised: names single-spaced, gender
// lower-case. now bounds the birthdate.
func (m Member) clean(now time.Time) (Member, error) {
	var err error
	if m.FirstName, err = cleanName("first name", m.FirstName, true); err != nil {
		return m, err
	}
	if m.LastName, err = cleanName("last name", m.LastName, false); err != nil {
		return m, err
	}
	if m.PhoneticName, err = cleanName("phonetic name", m.PhoneticName, false); err != nil {
		return m, err
	}
	if m.Gender, err = cleanGender(m.Gender); err != nil {
		return m, err
	}
	if m.Birthdate, err = cleanDate("birthdate", m.Birthdate, now); err != nil {
		return m, err
	}
	return m, nil
}

// cleanName single-spaces a name and checks it.
func cleanName(what, s string, required bool) (string, error) {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		if required {
			return "", fmt.Errorf("%w: a %s is required", ErrInvalid, what)
		}
		return "", nil
	}
	if len(s) > MaxNameBytes {
		return "", fmt.Errorf("%w: %s %q is %d bytes, more than %d", ErrInvalid, what, s, len(s), MaxNameBytes)
	}
	letters := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r):
			letters = true
		case unicode.IsMark(r), r == ' ', r == '-', isApostrophe(r):
		default:
			return "", fmt.Errorf("%w: %s %q: %q is not allowed (only letters, spaces, apostrophes and hyphens)", ErrInvalid, what, s, r)
		}
	}
	if !letters {
		return "", fmt.Errorf("%w: %s %q has no letter", ErrInvalid, what, s)
	}
	return s, nil
}

// cleanGender lower-cases and single-spaces a gender and checks it.
func cleanGender(s string) (string, error) {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	if len(s) > MaxGenderBytes {
		return "", fmt.Errorf("%w: gender %q is %d bytes, more than %d", ErrInvalid, s, len(s), MaxGenderBytes)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return "", fmt.Errorf("%w: gender %q: %q is not printable", ErrInvalid, s, r)
		}
	}
	return s, nil
}

// cleanDate checks a YYYY-MM-DD date: a real day, from 1900 to now.
func cleanDate(what, s string, now time.Time) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", nil
	}
	d, err := time.Parse(DateLayout, s)
	if err != nil {
		return "", fmt.Errorf("%w: %s %q: want a date as YYYY-MM-DD", ErrInvalid, what, s)
	}
	today := now.Format(DateLayout)
	if d.Year() < minBirthYear || s > today { // the same layout sorts as dates do
		return "", fmt.Errorf("%w: %s %s: want a day from %d to today (%s)", ErrInvalid, what, s, minBirthYear, today)
	}
	return s, nil
}

// checkID checks an id: 1 to MaxIDBytes letters, digits, '.', '_' or '-'.
func checkID(what, id string) error {
	if id == "" || len(id) > MaxIDBytes {
		return fmt.Errorf("%w: %s %q: want 1 to %d bytes", ErrInvalid, what, id, MaxIDBytes)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("%w: %s %q: %q is not allowed (letters, digits, '.', '_', '-')", ErrInvalid, what, id, r)
		}
	}
	return nil
}

// newID makes an id: prefix and 12 random hex digits, none of taken.
// 48 random bits keep a new member from ever taking the id a removed one
// left in a skill's saved session.
func newID(prefix string, taken ...string) string {
	for {
		var b [6]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
		id := prefix + hex.EncodeToString(b[:])
		if !slices.Contains(taken, id) {
			return id
		}
	}
}

// dateMillis is a YYYY-MM-DD date as LooperInfo's epoch milliseconds:
// noon of that day in loc, so the day stays the same wherever within
// ±12 h of loc it is read (PromptData reads it in the robot's zone); 0
// for "".
func dateMillis(s string, loc *time.Location) int64 {
	d, err := time.Parse(DateLayout, s)
	if err != nil {
		return 0
	}
	return time.Date(d.Year(), d.Month(), d.Day(), 12, 0, 0, 0, loc).UnixMilli()
}
