package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub"
	"github.com/openjibo/jibod/core/hub/wire"
	"github.com/openjibo/jibod/core/runtime/config"
)

// The hub options parse into the link's configuration; a wrong one is an
// error naming its flag, and the options that only make sense with a hub
// need one (a token file from the environment alone does not).
func TestHubConfigOf(t *testing.T) {
	ok := config.Hub{Encoding: "cbor", Link: string(hub.Persistent)}
	with := func(change func(*config.Hub)) config.Hub {
		h := ok
		change(&h)
		return h
	}
	tests := []struct {
		name, envToken string
		h              config.Hub
		want           string
	}{
		{"no hub", "", ok, ""},
		{"a hub", "", with(func(h *config.Hub) { h.URL, h.TokenFile, h.TriggerOnUp = "wss://hub.example/", "tok", "SURPRISE" }), ""},
		{"the environment's token without a hub", "env-tok", with(func(h *config.Hub) { h.TokenFile = "env-tok" }), ""},
		{"a token without a hub", "env-tok", with(func(h *config.Hub) { h.TokenFile = "tok" }), "--hub-token, --hub-ca and --hub-trigger-on-up need --hub"},
		{"a CA without a hub", "", with(func(h *config.Hub) { h.CAFile = "ca.pem" }), "--hub-token, --hub-ca and --hub-trigger-on-up need --hub"},
		{"encoding", "", with(func(h *config.Hub) { h.Encoding = "xml" }), "--hub-encoding: "},
		{"link", "", with(func(h *config.Hub) { h.Link = "sometimes" }), "--hub-link: "},
		{"trigger", "", with(func(h *config.Hub) { h.URL, h.TriggerOnUp = "ws://hub/", "HELLO" }), `--hub-trigger-on-up "HELLO": want NEW_ARRIVAL or SURPRISE`},
		{"url", "", with(func(h *config.Hub) { h.URL = "http://hub/" }), "--hub: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := HubConfigOf(tt.h, tt.envToken)
			if tt.want != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.h.URL, c.URL)
			assert.Equal(t, tt.h.TokenFile, c.TokenFile)
			assert.Equal(t, tt.h.TriggerOnUp, c.TriggerOnUp)
			assert.Equal(t, wire.CBOR, c.Encoding)
			assert.Equal(t, hub.Persistent, c.Link)
		})
	}
}
