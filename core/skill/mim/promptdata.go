package mim

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/skill/protocol"
)

// Person is someone prompts can talk about: a member of the robot's loop.
type Person struct {
	// ID is the looper id.
	ID string
	// FirstName, LastName and PhoneticName (how to say the name) and Gender
	// ("male", "female", …) describe the person.
	FirstName, LastName, PhoneticName, Gender string
	// Birthdate is the zero time when unknown.
	Birthdate time.Time
}

// SpokenName is how the robot says the person's name: the phonetic name
// when there is one, else the first name.
func (p Person) SpokenName() string {
	if p.PhoneticName != "" {
		return p.PhoneticName
	}
	return p.FirstName
}

// value is the person as expressions see it.
func (p Person) value() map[string]any {
	v := map[string]any{
		"id":           p.ID,
		"name":         p.SpokenName(),
		"firstName":    p.FirstName,
		"lastName":     p.LastName,
		"phoneticName": p.PhoneticName,
		"gender":       p.Gender,
	}
	if !p.Birthdate.IsZero() {
		v["birthdate"] = p.Birthdate.UnixMilli()
	}
	return v
}

// PromptData is what conditions and templates are evaluated against
// (spec/jibo.md §5.1). Expressions see it as these roots:
//
//	speaker    the speaker's spoken name (string), or null when unknown
//	referent   who or what the conversation is about: a loop member as
//	           {id, name, firstName, lastName, phoneticName, gender,
//	           birthdate?}, or the dialog referent as sent; null when none
//	loop       {owner: the owner's spoken name or null, list: every
//	           member's spoken name as one phrase ("Ann, Bob and Cy"),
//	           count: the number of members, members: [person…]}
//	dt         the local date and time: year, month (1–12), day, hour
//	           (0–23), minute, second, weekday ("Monday"), dayOfWeek
//	           (0 = Sunday, as JavaScript's getDay), monthName ("January"),
//	           dayOfYear, isWeekend, timeOfDay ("morning" 5–11,
//	           "afternoon" 12–16, "evening" 17–20, "night"), iso (RFC 3339);
//	           dt.now has the same members and isInRange('M/D', 'M/D')
//	location   {city, state, stateAbbr, country, countryCode, lat, lng}
//	jibo       {emotion (name, e.g. "PLEASED"), valence, confidence,
//	           isBirthday, age (whole years), ageMonths (whole months),
//	           ageDays (whole calendar days; 0 on the day it was born) —
//	           the ages null when the birthdate is unknown —, color}
//	skill      the skill's own data (Skill), {} when none
type PromptData struct {
	// Speaker is the current speaker; nil when nobody was identified.
	Speaker *Person
	// Referent is what the conversation refers to: a Person, or any
	// JSON-like value (maps, slices, strings, numbers, booleans); nil for
	// none.
	Referent any
	// Owner is the loop's owner; nil when unknown.
	Owner *Person
	// Members are the loop's members.
	Members []Person
	// Now is the local time; its location sets the time zone of dt.
	Now time.Time
	// Location is where the robot is.
	Location protocol.Location
	// Emotion is the robot's emotion.
	Emotion protocol.Emotion
	// JiboBirthdate is the robot's birthdate; the zero time when unknown.
	JiboBirthdate time.Time
	// JiboColor is the robot's colour ("BLACK", "WHITE"); "" when unknown.
	JiboColor string
	// Skill is the skill's own data: JSON-like values, read by templates
	// such as ${skill.weather.today.highTemp}. Values of type ESML are
	// inserted into prompts as markup; every other value as text.
	Skill map[string]any
}

// NewPromptData builds prompt data from a request's runtime context, the
// current time (converted to the offset of location.iso when that parses,
// so dt is the robot's local time) and the skill's own data (may be nil).
func NewPromptData(rt protocol.RuntimeContext, now time.Time, skill map[string]any) PromptData {
	d := PromptData{
		Now:       now,
		Location:  rt.Location,
		Emotion:   rt.Character.Emotion,
		JiboColor: rt.Loop.Jibo.Color,
		Skill:     skill,
	}
	if iso, err := time.Parse(time.RFC3339, rt.Location.ISO); err == nil {
		d.Now = now.In(iso.Location())
	}
	if rt.Loop.Jibo.Birthdate > 0 {
		d.JiboBirthdate = time.UnixMilli(rt.Loop.Jibo.Birthdate).In(d.Now.Location())
	}
	byID := map[string]int{}
	for _, u := range rt.Loop.Users {
		p := Person{ID: u.ID, FirstName: u.FirstName, LastName: u.LastName, PhoneticName: u.PhoneticName, Gender: u.Gender}
		if u.Birthdate > 0 {
			p.Birthdate = time.UnixMilli(u.Birthdate).In(d.Now.Location())
		}
		byID[u.ID] = len(d.Members)
		d.Members = append(d.Members, p)
	}
	if i, ok := byID[rt.Loop.Owner]; ok && rt.Loop.Owner != "" {
		d.Owner = &d.Members[i]
	}
	if s := rt.Perception.Speaker; s != nil {
		if i, ok := byID[*s]; ok {
			d.Speaker = &d.Members[i]
		}
	}
	if len(rt.Dialog.Referent) > 0 {
		var ref any
		if json.Unmarshal(rt.Dialog.Referent, &ref) == nil {
			d.Referent = ref
			// A referent naming a loop member is that member.
			if id, ok := ref.(string); ok {
				if i, ok := byID[id]; ok {
					d.Referent = d.Members[i]
				}
			}
		}
	}
	return d
}

// env builds what expressions see.
func (d *PromptData) env() *env {
	e := &env{
		Loop:     d.loopValue(),
		DT:       dateValue(d.Now, true),
		Location: d.locationValue(),
		Jibo:     d.jiboValue(),
	}
	if d.Speaker != nil {
		e.Speaker = d.Speaker.SpokenName()
	}
	switch r := d.Referent.(type) {
	case nil:
	case Person:
		e.Referent = r.value()
	case *Person:
		if r != nil {
			e.Referent = r.value()
		}
	default:
		e.Referent = r
	}
	if d.Skill != nil {
		e.Skill = d.Skill
	} else {
		e.Skill = map[string]any{}
	}
	return e
}

func (d *PromptData) loopValue() map[string]any {
	names := make([]string, 0, len(d.Members))
	members := make([]any, 0, len(d.Members))
	for _, m := range d.Members {
		names = append(names, m.SpokenName())
		members = append(members, m.value())
	}
	v := map[string]any{
		"owner":   nil,
		"list":    spokenList(names),
		"count":   len(d.Members),
		"members": members,
	}
	if d.Owner != nil {
		v["owner"] = d.Owner.SpokenName()
	}
	return v
}

func (d *PromptData) locationValue() map[string]any {
	l := d.Location
	return map[string]any{
		"city":        l.City,
		"state":       l.State,
		"stateAbbr":   l.StateAbbr,
		"country":     l.Country,
		"countryCode": l.CountryCode,
		"lat":         l.Lat,
		"lng":         l.Lng,
	}
}

func (d *PromptData) jiboValue() map[string]any {
	v := map[string]any{
		"emotion":    d.Emotion.Name,
		"valence":    d.Emotion.Valence,
		"confidence": d.Emotion.Confidence,
		"isBirthday": false,
		"age":        nil,
		"ageMonths":  nil,
		"ageDays":    nil,
		"color":      d.JiboColor,
	}
	if b := d.JiboBirthdate; !b.IsZero() {
		now := d.Now
		b = b.In(now.Location())
		v["isBirthday"] = b.Month() == now.Month() && b.Day() == now.Day()
		age := now.Year() - b.Year()
		if now.Month() < b.Month() || now.Month() == b.Month() && now.Day() < b.Day() {
			age--
		}
		v["age"] = max(age, 0)
		months := (now.Year()-b.Year())*12 + int(now.Month()-b.Month())
		if now.Day() < b.Day() {
			months--
		}
		v["ageMonths"] = max(months, 0)
		day := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
		v["ageDays"] = max(int(day(now).Sub(day(b)).Hours()/24), 0)
	}
	return v
}

// spokenList joins names as English says them: "Ann", "Ann and Bob",
// "Ann, Bob and Cy".
func spokenList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// dateValue is a time's parts as expressions see them; with withNow the
// value also has "now": the same parts plus isInRange.
func dateValue(t time.Time, withNow bool) map[string]any {
	h := t.Hour()
	tod := "night"
	switch {
	case h >= 5 && h < 12:
		tod = "morning"
	case h >= 12 && h < 17:
		tod = "afternoon"
	case h >= 17 && h < 21:
		tod = "evening"
	}
	v := map[string]any{
		"year":      t.Year(),
		"month":     int(t.Month()),
		"day":       t.Day(),
		"hour":      h,
		"minute":    t.Minute(),
		"second":    t.Second(),
		"weekday":   t.Weekday().String(),
		"dayOfWeek": int(t.Weekday()),
		"monthName": t.Month().String(),
		"dayOfYear": t.YearDay(),
		"isWeekend": t.Weekday() == time.Saturday || t.Weekday() == time.Sunday,
		"timeOfDay": tod,
		"iso":       t.Format(time.RFC3339),
	}
	if withNow {
		now := dateValue(t, false)
		now["isInRange"] = func(from, to string) (bool, error) { return IsInRange(t, from, to) }
		v["now"] = now
	}
	return v
}

// IsInRange reports whether t's month and day lie between from and to,
// both 'M/D' and inclusive. A range whose end comes before its start runs
// across new year: IsInRange(t, "11/1", "2/18") holds from November 1st to
// February 18th.
func IsInRange(t time.Time, from, to string) (bool, error) {
	fm, fd, err := parseMonthDay(from)
	if err != nil {
		return false, err
	}
	tm, td, err := parseMonthDay(to)
	if err != nil {
		return false, err
	}
	day := int(t.Month())*100 + t.Day()
	start, end := fm*100+fd, tm*100+td
	if start <= end {
		return day >= start && day <= end, nil
	}
	return day >= start || day <= end, nil
}

// daysIn is the most days each month can have (February in a leap year).
var daysIn = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// parseMonthDay reads 'M/D' (1 or 2 digits each).
func parseMonthDay(s string) (month, day int, err error) {
	ms, ds, ok := strings.Cut(s, "/")
	if ok {
		month, err = strconv.Atoi(ms)
		if err == nil {
			day, err = strconv.Atoi(ds)
		}
	}
	if !ok || err != nil || len(ms) > 2 || len(ds) > 2 {
		return 0, 0, fmt.Errorf("date %q is not 'M/D'", s)
	}
	if month < 1 || month > 12 {
		return 0, 0, fmt.Errorf("date %q: month %d is outside 1..12", s, month)
	}
	if day < 1 || day > daysIn[month] {
		return 0, 0, fmt.Errorf("date %q: day %d is outside 1..%d", s, day, daysIn[month])
	}
	return month, day, nil
}
