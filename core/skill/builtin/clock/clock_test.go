package clock

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/builtin/internal/rig"
	"github.com/openjibo/jibod/core/skill/protocol"
)

func newRig(t *testing.T, now time.Time, zone *time.Location) *rig.Rig {
	clock := func() time.Time { return now }
	r := rig.New(t, rig.Options{Now: clock})
	s, err := New(Options{Now: clock, Zone: zone, Rand: func(int) int { return 0 }})
	require.NoError(t, err)
	r.Add(s)
	return r
}

// TestAnswers asks the robot the time and the date through the real host
// and intent service, as people ask them.
func TestAnswers(t *testing.T) {
	tue := time.Date(2022, 11, 22, 15, 5, 0, 0, time.UTC)
	tests := []struct {
		utterance string
		now       time.Time
		intent    string
		said      string
	}{
		{"what time is it", tue, IntentTime, "It's 3:05 PM."},
		{"What's the time right now?", tue, IntentTime, "It's 3:05 PM."},
		{"can you tell me what time it is", tue, IntentTime, "It's 3:05 PM."},
		{"do you know the time", tue, IntentTime, "It's 3:05 PM."},
		{"current time please", tue, IntentTime, "It's 3:05 PM."},
		{"what time is it", time.Date(2022, 11, 22, 12, 0, 0, 0, time.UTC), IntentTime, "It's noon."},
		{"what time is it", time.Date(2022, 11, 22, 0, 0, 0, 0, time.UTC), IntentTime, "It's midnight."},
		{"what time is it", time.Date(2022, 11, 22, 0, 7, 0, 0, time.UTC), IntentTime, "It's 12:07 AM."},
		{"what's the date", tue, IntentDate, "Today is Tuesday, November 22nd."},
		{"what day is it today", tue, IntentDate, "Today is Tuesday, November 22nd."},
		{"what's today's date", time.Date(2023, 1, 1, 9, 0, 0, 0, time.UTC), IntentDate, "Today is Sunday, January 1st."},
		{"what day of the week is it", time.Date(2023, 3, 3, 9, 0, 0, 0, time.UTC), IntentDate, "Today is Friday, March 3rd."},
		{"tell me the date", time.Date(2023, 3, 11, 9, 0, 0, 0, time.UTC), IntentDate, "Today is Saturday, March 11th."},
	}
	for _, tt := range tests {
		t.Run(tt.utterance+" at "+tt.now.Format(time.Kitchen), func(t *testing.T) {
			turn := newRig(t, tt.now, nil).Say(tt.utterance)
			require.NoError(t, turn.Err)
			assert.Equal(t, ID+":"+tt.intent, turn.Dispatched)
			assert.Equal(t, []string{tt.said}, turn.Said)
			assert.Empty(t, turn.Listening, "the clock asks nothing")
		})
	}
}

// TestTimeZone: the robot answers in its own time zone, whatever zone
// the clock's times carry.
func TestTimeZone(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	utc := time.Date(2022, 11, 23, 2, 30, 0, 0, time.UTC)
	r := newRig(t, utc, ny)
	assert.Equal(t, []string{"It's 9:30 PM."}, r.Say("what time is it").Said)
	assert.Equal(t, []string{"Today is Tuesday, November 22nd."}, r.Say("what's the date").Said,
		"still the 22nd in New York")
}

func TestSpokenDateOrdinals(t *testing.T) {
	tests := map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th",
		21: "21st", 22: "22nd", 23: "23rd", 24: "24th", 30: "30th", 31: "31st"}
	for day, want := range tests {
		got := SpokenDate(time.Date(2023, 1, day, 0, 0, 0, 0, time.UTC))
		assert.Contains(t, got, "January "+want, "day %d", day)
	}
}

// TestRefusals: what the clock cannot answer is an ERROR naming why.
func TestRefusals(t *testing.T) {
	s, err := New(Options{})
	require.NoError(t, err)
	general := protocol.GeneralData{AccountID: "a", RobotID: "r", Lang: "en-US"}
	launch := func(in, lang string) *protocol.Request {
		g := general
		g.Lang = lang
		return protocol.NewListenLaunch(protocol.Context{General: g, Skill: protocol.Skill(ID)},
			protocol.NLUFromSlots(in, nil, nil), protocol.ASRResult{Text: "x", Confidence: 1}, nil)
	}
	tests := []struct {
		name string
		req  *protocol.Request
		want string
	}{
		{"unknown intent", launch("dance", "en-US"), `no intent "dance"`},
		{"language it does not speak", launch(IntentTime, "pt-PT"), `does not speak "pt-PT"`},
		{"an update", protocol.NewListenUpdate(protocol.Context{General: general, Skill: protocol.Skill(ID)},
			protocol.NLUFromSlots(IntentTime, nil, nil), protocol.ASRResult{}), "LISTEN_LAUNCH only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := s.Handle(context.Background(), tt.req)
			require.NoError(t, err)
			require.Equal(t, protocol.TypeError, resp.Type)
			assert.Contains(t, resp.Error.Message, tt.want)
		})
	}
}

func TestManifest(t *testing.T) {
	s, err := New(Options{})
	require.NoError(t, err)
	m := rig.Manifest(t, s, ID)
	assert.Equal(t, "speech", string(m.Permissions[0]), "the clock only speaks")
	assert.Len(t, m.Permissions, 1)
}

// TestHowPeopleSayIt: indirect questions, polite and terse forms (issue
// 23).
func TestHowPeopleSayIt(t *testing.T) {
	tue := time.Date(2022, 11, 22, 15, 5, 0, 0, time.UTC)
	tests := []struct {
		utterance string
		intent    string
	}{
		{"time?", IntentTime},
		{"time", IntentTime},
		{"i wonder what time it is", IntentTime},
		{"do you happen to know what time it is", IntentTime},
		{"have you got the time", IntentTime},
		{"could you tell me the time please", IntentTime},
		{"any idea what time it is", IntentTime},
		{"jibo what time is it right now", IntentTime},
		{"date?", IntentDate},
		{"what month is it", IntentDate},
		{"which day of the week is it today", IntentDate},
		{"do you know what day it is", IntentDate},
		{"i wonder what the date is", IntentDate},
		{"is it tuesday today", IntentDate},
	}
	for _, tt := range tests {
		t.Run(tt.utterance, func(t *testing.T) {
			turn := newRig(t, tue, nil).Say(tt.utterance)
			require.NoError(t, turn.Err)
			assert.Equal(t, ID+":"+tt.intent, turn.Dispatched)
			if tt.intent == IntentTime {
				assert.Equal(t, []string{"It's 3:05 PM."}, turn.Said)
			} else {
				assert.Equal(t, []string{"Today is Tuesday, November 22nd."}, turn.Said)
			}
		})
	}
}
