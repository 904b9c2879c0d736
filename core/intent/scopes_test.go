package intent

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// regKeys are the definitions both engines get in this test, in the order
// they are registered: no order at all.
var regKeys = []registrationKey{
	{"kiosk", "timer", "set", "en-us"},
	{"phone", "clock", "time", "en-us"},
	{DefaultSession, "timer", "set", "fr-fr"},
	{"kiosk", "clock", "time", "en-us"},
	{DefaultSession, "clock", "time", "en-us"},
	{DefaultSession, "timer", "cancel", "en-us"},
	{DefaultSession, "timer", "set", "en-us"},
	{"alpha", "timer", "set", "en-us"},
}

// Both engines list their registrations, every scope or one session's
// pool ("default" ∪ its own: REG-12, REG-14), sorted by session with
// "default" first, skill, intent and language.
func TestRegistrationsOrderInBothEngines(t *testing.T) {
	te, ke := newTestEngine(), newKeywordEngine()
	for _, k := range regKeys {
		mustRegister(t, te, TemplateIntent{SessionID: k.session, SkillID: k.skill, IntentName: k.intent, Lang: k.lang,
			Samples: []string{"what time is it"}})
		mustRegisterKeyword(t, ke, KeywordIntent{SessionID: k.session, SkillID: k.skill, IntentName: k.intent, Lang: k.lang,
			Required: []KeywordVocab{voc("time", "time")}})
	}
	d := DefaultSession
	all := []registrationKey{
		{d, "clock", "time", "en-us"}, {d, "timer", "cancel", "en-us"}, {d, "timer", "set", "en-us"}, {d, "timer", "set", "fr-fr"},
		{"alpha", "timer", "set", "en-us"},
		{"kiosk", "clock", "time", "en-us"}, {"kiosk", "timer", "set", "en-us"},
		{"phone", "clock", "time", "en-us"},
	}
	kiosk := []registrationKey{
		{d, "clock", "time", "en-us"}, {d, "timer", "cancel", "en-us"}, {d, "timer", "set", "en-us"}, {d, "timer", "set", "fr-fr"},
		{"kiosk", "clock", "time", "en-us"}, {"kiosk", "timer", "set", "en-us"},
	}
	for _, tc := range []struct {
		session string
		want    []registrationKey
	}{{"", all}, {"kiosk", kiosk}, {d, all[:4]}} {
		var tk, kk []registrationKey
		for _, r := range te.Registrations(tc.session) {
			tk = append(tk, registrationKey{r.SessionID, r.SkillID, r.IntentName, r.Lang})
			assert.True(t, r.Enabled)
			assert.Equal(t, r.SkillID, r.Definition.SkillID, "the definition is the registration's")
		}
		for _, r := range ke.Registrations(tc.session) {
			kk = append(kk, registrationKey{r.SessionID, r.SkillID, r.IntentName, r.Lang})
			assert.Equal(t, r.IntentName, r.Definition.IntentName, "the definition is the registration's")
		}
		assert.Equal(t, tc.want, tk, "template engine, session %q", tc.session)
		assert.Equal(t, tc.want, kk, "keyword engine, session %q", tc.session)
	}
}
