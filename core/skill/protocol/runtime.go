package protocol

import "encoding/json"

// GeneralData identifies the robot and its account (jibo.md §2.2 general).
type GeneralData struct {
	// AccountID is the owner's account id.
	AccountID string
	// RobotID is the robot's friendly name, "Word-Word-Word-Word".
	RobotID string
	// Lang is the turn language, e.g. "en-US".
	Lang string
	// Release is the full-stack release, e.g. "1.9.2"; hubs assume 1.8.0
	// when it is missing, so robots always send it.
	Release string
	// RemoteAddress is the robot's address as the hub saw it; empty means
	// absent.
	RemoteAddress string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseGeneralData(raw json.RawMessage) (GeneralData, error) {
	var g GeneralData
	o, err := readObject(raw)
	if err != nil {
		return g, err
	}
	field(o, "accountID", &g.AccountID, parseString)
	field(o, "robotID", &g.RobotID, parseString)
	field(o, "lang", &g.Lang, parseString)
	field(o, "release", &g.Release, parseString)
	optField(o, "remoteAddress", &g.RemoteAddress, parseString)
	g.Extra, err = o.done()
	return g, err
}

// UnmarshalJSON decodes general data, keeping unknown members in Extra.
func (g *GeneralData) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, g, parseGeneralData)
}

// MarshalJSON encodes general data, re-emitting Extra.
func (g GeneralData) MarshalJSON() ([]byte, error) { return g.appendJSON(nil) }

func (g GeneralData) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, g.Extra)
	w.str("accountID", g.AccountID)
	w.str("robotID", g.RobotID)
	w.str("lang", g.Lang)
	w.str("release", g.Release)
	w.optStr("remoteAddress", g.RemoteAddress)
	return w.close()
}

// RuntimeContext is what the robot knows about itself and its
// surroundings for a turn (jibo.md §2.2 runtime).
type RuntimeContext struct {
	// Character is the robot's emotion and motivation.
	Character Character
	// Location is where the robot is.
	Location Location
	// Loop is the robot's household.
	Loop Loop
	// Perception is who the robot hears and sees.
	Perception Perception
	// Dialog is conversational state.
	Dialog Dialog
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseRuntimeContext(raw json.RawMessage) (RuntimeContext, error) {
	var r RuntimeContext
	o, err := readObject(raw)
	if err != nil {
		return r, err
	}
	field(o, "character", &r.Character, parseCharacter)
	field(o, "location", &r.Location, parseLocation)
	field(o, "loop", &r.Loop, parseLoop)
	field(o, "perception", &r.Perception, parsePerception)
	field(o, "dialog", &r.Dialog, parseDialog)
	r.Extra, err = o.done()
	return r, err
}

// UnmarshalJSON decodes a runtime context, keeping unknown members in Extra.
func (r *RuntimeContext) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, r, parseRuntimeContext)
}

// MarshalJSON encodes a runtime context, re-emitting Extra.
func (r RuntimeContext) MarshalJSON() ([]byte, error) { return r.appendJSON(nil) }

func (r RuntimeContext) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, r.Extra)
	w.obj("character", r.Character)
	w.obj("location", r.Location)
	w.obj("loop", r.Loop)
	w.obj("perception", r.Perception)
	w.obj("dialog", r.Dialog)
	return w.close()
}

// Character is the robot's emotional state and motivation.
type Character struct {
	// Emotion is the current emotion.
	Emotion Emotion
	// Motivation is the current drive.
	Motivation Motivation
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseCharacter(raw json.RawMessage) (Character, error) {
	var c Character
	o, err := readObject(raw)
	if err != nil {
		return c, err
	}
	field(o, "emotion", &c.Emotion, parseEmotion)
	field(o, "motivation", &c.Motivation, parseMotivation)
	c.Extra, err = o.done()
	return c, err
}

// UnmarshalJSON decodes a character, keeping unknown members in Extra.
func (c *Character) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, c, parseCharacter)
}

// MarshalJSON encodes a character, re-emitting Extra.
func (c Character) MarshalJSON() ([]byte, error) { return c.appendJSON(nil) }

func (c Character) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, c.Extra)
	w.obj("emotion", c.Emotion)
	w.obj("motivation", c.Motivation)
	return w.close()
}

// Emotion is the robot's current emotion.
type Emotion struct {
	// Name is the emotion's label, e.g. "PLEASED".
	Name string
	// Valence is how positive the emotion is.
	Valence float64
	// Confidence is how sure the robot is of itself.
	Confidence float64
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseEmotion(raw json.RawMessage) (Emotion, error) {
	var e Emotion
	o, err := readObject(raw)
	if err != nil {
		return e, err
	}
	field(o, "name", &e.Name, parseString)
	field(o, "valence", &e.Valence, parseFloat)
	field(o, "confidence", &e.Confidence, parseFloat)
	e.Extra, err = o.done()
	return e, err
}

// UnmarshalJSON decodes an emotion, keeping unknown members in Extra.
func (e *Emotion) UnmarshalJSON(data []byte) error { return unmarshalWith(data, e, parseEmotion) }

// MarshalJSON encodes an emotion, re-emitting Extra.
func (e Emotion) MarshalJSON() ([]byte, error) { return e.appendJSON(nil) }

func (e Emotion) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, e.Extra)
	w.str("name", e.Name)
	w.float("valence", e.Valence)
	w.float("confidence", e.Confidence)
	return w.close()
}

// Motivation is the robot's drive to be social and playful.
type Motivation struct {
	// Social is the drive to engage with people.
	Social float64
	// Playful is the drive to play.
	Playful float64
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseMotivation(raw json.RawMessage) (Motivation, error) {
	var m Motivation
	o, err := readObject(raw)
	if err != nil {
		return m, err
	}
	field(o, "social", &m.Social, parseFloat)
	field(o, "playful", &m.Playful, parseFloat)
	m.Extra, err = o.done()
	return m, err
}

// UnmarshalJSON decodes a motivation, keeping unknown members in Extra.
func (m *Motivation) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, m, parseMotivation)
}

// MarshalJSON encodes a motivation, re-emitting Extra.
func (m Motivation) MarshalJSON() ([]byte, error) { return m.appendJSON(nil) }

func (m Motivation) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, m.Extra)
	w.float("social", m.Social)
	w.float("playful", m.Playful)
	return w.close()
}

// Location is where the robot is and its local time.
type Location struct {
	// City, State, StateAbbr, Country and CountryCode name the place.
	City        string
	State       string
	StateAbbr   string
	Country     string
	CountryCode string
	// Lat and Lng are degrees.
	Lat float64
	Lng float64
	// ISO is the local time in ISO-8601 with offset.
	ISO string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseLocation(raw json.RawMessage) (Location, error) {
	var l Location
	o, err := readObject(raw)
	if err != nil {
		return l, err
	}
	field(o, "city", &l.City, parseString)
	field(o, "state", &l.State, parseString)
	field(o, "stateAbbr", &l.StateAbbr, parseString)
	field(o, "country", &l.Country, parseString)
	field(o, "countryCode", &l.CountryCode, parseString)
	field(o, "lat", &l.Lat, parseFloat)
	field(o, "lng", &l.Lng, parseFloat)
	field(o, "iso", &l.ISO, parseString)
	l.Extra, err = o.done()
	return l, err
}

// UnmarshalJSON decodes a location, keeping unknown members in Extra.
func (l *Location) UnmarshalJSON(data []byte) error { return unmarshalWith(data, l, parseLocation) }

// MarshalJSON encodes a location, re-emitting Extra.
func (l Location) MarshalJSON() ([]byte, error) { return l.appendJSON(nil) }

func (l Location) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, l.Extra)
	w.str("city", l.City)
	w.str("state", l.State)
	w.str("stateAbbr", l.StateAbbr)
	w.str("country", l.Country)
	w.str("countryCode", l.CountryCode)
	w.float("lat", l.Lat)
	w.float("lng", l.Lng)
	w.str("iso", l.ISO)
	return w.close()
}

// Loop is the robot's household: its members, itself and its owner.
type Loop struct {
	// Users are the loop's members.
	Users []LooperInfo
	// Jibo is the robot itself.
	Jibo JiboInfo
	// Owner is the owner's looper id.
	Owner string
	// LoopID is the loop's id (wire name "loopId").
	LoopID string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseLoop(raw json.RawMessage) (Loop, error) {
	var l Loop
	o, err := readObject(raw)
	if err != nil {
		return l, err
	}
	field(o, "users", &l.Users, arrayOf(parseLooperInfo))
	field(o, "jibo", &l.Jibo, parseJiboInfo)
	field(o, "owner", &l.Owner, parseString)
	field(o, "loopId", &l.LoopID, parseString)
	l.Extra, err = o.done()
	return l, err
}

// UnmarshalJSON decodes a loop, keeping unknown members in Extra.
func (l *Loop) UnmarshalJSON(data []byte) error { return unmarshalWith(data, l, parseLoop) }

// MarshalJSON encodes a loop, re-emitting Extra; nil Users encode as [].
func (l Loop) MarshalJSON() ([]byte, error) { return l.appendJSON(nil) }

func (l Loop) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, l.Extra)
	list(&w, "users", l.Users)
	w.obj("jibo", l.Jibo)
	w.str("owner", l.Owner)
	w.str("loopId", l.LoopID)
	return w.close()
}

// LooperInfo is one member of the loop.
type LooperInfo struct {
	// FirstName, LastName, PhoneticName (how to say it) and Gender
	// describe the member.
	FirstName    string
	LastName     string
	PhoneticName string
	Gender       string
	// Birthdate is in milliseconds since the Unix epoch.
	Birthdate int64
	// ID is the member's looper id.
	ID string
	// AccountID is the member's account (wire name "accountId").
	AccountID string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseLooperInfo(raw json.RawMessage) (LooperInfo, error) {
	var u LooperInfo
	o, err := readObject(raw)
	if err != nil {
		return u, err
	}
	field(o, "firstName", &u.FirstName, parseString)
	field(o, "lastName", &u.LastName, parseString)
	field(o, "phoneticName", &u.PhoneticName, parseString)
	field(o, "gender", &u.Gender, parseString)
	field(o, "birthdate", &u.Birthdate, parseInt64)
	field(o, "id", &u.ID, parseString)
	field(o, "accountId", &u.AccountID, parseString)
	u.Extra, err = o.done()
	return u, err
}

// UnmarshalJSON decodes a looper, keeping unknown members in Extra.
func (u *LooperInfo) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, u, parseLooperInfo)
}

// MarshalJSON encodes a looper, re-emitting Extra.
func (u LooperInfo) MarshalJSON() ([]byte, error) { return u.appendJSON(nil) }

func (u LooperInfo) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, u.Extra)
	w.str("firstName", u.FirstName)
	w.str("lastName", u.LastName)
	w.str("phoneticName", u.PhoneticName)
	w.str("gender", u.Gender)
	w.int("birthdate", u.Birthdate)
	w.str("id", u.ID)
	w.str("accountId", u.AccountID)
	return w.close()
}

// JiboInfo describes the robot itself.
type JiboInfo struct {
	// Color is "BLACK" or "WHITE".
	Color string
	// Birthdate is in milliseconds since the Unix epoch.
	Birthdate int64
	// ID is the robot's id.
	ID string
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseJiboInfo(raw json.RawMessage) (JiboInfo, error) {
	var j JiboInfo
	o, err := readObject(raw)
	if err != nil {
		return j, err
	}
	field(o, "color", &j.Color, parseString)
	field(o, "birthdate", &j.Birthdate, parseInt64)
	field(o, "id", &j.ID, parseString)
	j.Extra, err = o.done()
	return j, err
}

// UnmarshalJSON decodes robot info, keeping unknown members in Extra.
func (j *JiboInfo) UnmarshalJSON(data []byte) error { return unmarshalWith(data, j, parseJiboInfo) }

// MarshalJSON encodes robot info, re-emitting Extra.
func (j JiboInfo) MarshalJSON() ([]byte, error) { return j.appendJSON(nil) }

func (j JiboInfo) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, j.Extra)
	w.str("color", j.Color)
	w.int("birthdate", j.Birthdate)
	w.str("id", j.ID)
	return w.close()
}

// Perception is who the robot hears and sees.
type Perception struct {
	// Speaker is the looper id of the current speaker; nil encodes as null
	// (nobody identified).
	Speaker *string
	// PeoplePresent are the people perceived; nil encodes as [].
	PeoplePresent []Person
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parsePerception(raw json.RawMessage) (Perception, error) {
	var p Perception
	o, err := readObject(raw)
	if err != nil {
		return p, err
	}
	field(o, "speaker", &p.Speaker, parseNullString)
	field(o, "peoplePresent", &p.PeoplePresent, arrayOf(parsePerson))
	p.Extra, err = o.done()
	return p, err
}

// UnmarshalJSON decodes a perception, keeping unknown members in Extra.
func (p *Perception) UnmarshalJSON(data []byte) error {
	return unmarshalWith(data, p, parsePerception)
}

// MarshalJSON encodes a perception, re-emitting Extra; nil PeoplePresent
// encodes as [].
func (p Perception) MarshalJSON() ([]byte, error) { return p.appendJSON(nil) }

func (p Perception) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, p.Extra)
	w.nullStr("speaker", p.Speaker)
	list(&w, "peoplePresent", p.PeoplePresent)
	return w.close()
}

// Person is someone the robot perceives. Robots also send members such as
// entityId; they are kept in Extra.
type Person struct {
	// ID is a looper id or a label such as "NOT_TRAINED".
	ID string
	// Type is PERSON, VOICE, UNKNOWN, an id label, or "fused" on real robots.
	Type string
	// Confidence is in [0, 1].
	Confidence float64
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parsePerson(raw json.RawMessage) (Person, error) {
	var p Person
	o, err := readObject(raw)
	if err != nil {
		return p, err
	}
	field(o, "id", &p.ID, parseString)
	field(o, "type", &p.Type, parseString)
	field(o, "confidence", &p.Confidence, parseFloat)
	p.Extra, err = o.done()
	return p, err
}

// UnmarshalJSON decodes a person, keeping unknown members in Extra.
func (p *Person) UnmarshalJSON(data []byte) error { return unmarshalWith(data, p, parsePerson) }

// MarshalJSON encodes a person, re-emitting Extra.
func (p Person) MarshalJSON() ([]byte, error) { return p.appendJSON(nil) }

func (p Person) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, p.Extra)
	w.str("id", p.ID)
	w.str("type", p.Type)
	w.float("confidence", p.Confidence)
	return w.close()
}

// Dialog is conversational state.
type Dialog struct {
	// Referent is who or what the conversation refers to, verbatim; nil
	// means absent.
	Referent json.RawMessage
	// Extra holds members this package does not model, verbatim.
	Extra map[string]json.RawMessage
}

func parseDialog(raw json.RawMessage) (Dialog, error) {
	var d Dialog
	o, err := readObject(raw)
	if err != nil {
		return d, err
	}
	field(o, "referent", &d.Referent, parseRaw)
	d.Extra, err = o.done()
	return d, err
}

// UnmarshalJSON decodes a dialog, keeping unknown members in Extra.
func (d *Dialog) UnmarshalJSON(data []byte) error { return unmarshalWith(data, d, parseDialog) }

// MarshalJSON encodes a dialog, re-emitting Extra.
func (d Dialog) MarshalJSON() ([]byte, error) { return d.appendJSON(nil) }

func (d Dialog) appendJSON(b []byte) ([]byte, error) {
	w := openObject(b, d.Extra)
	w.optRaw("referent", d.Referent)
	return w.close()
}
