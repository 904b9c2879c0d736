package mim

import (
	"bytes"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/protocol"
)

// testSlimmer returns a Slimmer with a seeded random source, numbered
// behaviour ids and a log kept in the returned buffer.
func testSlimmer(seed uint64) (*Slimmer, *bytes.Buffer) {
	var log bytes.Buffer
	n := 0
	return &Slimmer{
		Rand:   rand.New(rand.NewPCG(seed, 1)),
		NewID:  func() string { n++; return fmt.Sprintf("id%d", n) },
		Logger: slog.New(slog.NewTextHandler(&log, nil)),
	}, &log
}

// loadMIM loads a MIM from testdata/mims.
func loadMIM(t testing.TB, name string) *MIM {
	t.Helper()
	m, err := Load(testdata, "mims/"+name+".mim")
	require.NoError(t, err)
	return m
}

// parseMIM parses a MIM given as JSON.
func parseMIM(t testing.TB, src string) *MIM {
	t.Helper()
	m, err := Parse([]byte(src), "T.mim")
	require.NoError(t, err)
	return m
}

// runtime is the robot's state in the tests: Ann (the owner) and Bob in
// the loop, Bob speaking, in Boston at 9:30 on 2024-12-24 local time.
func testRuntime() protocol.RuntimeContext {
	bob := "u-bob"
	return protocol.RuntimeContext{
		Character: protocol.Character{Emotion: protocol.Emotion{Name: "PLEASED", Valence: 0.4, Confidence: 0.2}},
		Location: protocol.Location{City: "Boston", State: "Massachusetts", StateAbbr: "MA", Country: "United States",
			CountryCode: "US", Lat: 42.36, Lng: -71.06, ISO: "2024-12-24T09:30:00-05:00"},
		Loop: protocol.Loop{
			Users: []protocol.LooperInfo{
				{FirstName: "Ann", LastName: "Lee", Gender: "female", ID: "u-ann", Birthdate: time.Date(1990, 3, 4, 12, 0, 0, 0, time.UTC).UnixMilli()},
				{FirstName: "Bob", LastName: "Ray", PhoneticName: "Bawb", Gender: "male", ID: "u-bob"},
			},
			Jibo:  protocol.JiboInfo{Color: "WHITE", Birthdate: time.Date(2017, 12, 24, 17, 0, 0, 0, time.UTC).UnixMilli()},
			Owner: "u-ann",
		},
		Perception: protocol.Perception{Speaker: &bob},
	}
}

// testNow is 2024-12-24 14:30 UTC, 9:30 in Boston.
var testNow = time.Date(2024, 12, 24, 14, 30, 0, 0, time.UTC)
