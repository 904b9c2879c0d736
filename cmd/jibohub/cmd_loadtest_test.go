package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/openjibo/jibod/core/hub/token"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tiny load against the in-process hub with the shipped skills: every
// CLIENT_NLU turn into openjibo/fact is accounted for, completed or failed
// for a reason. Twenty robots turning back to back saturate the machine by
// design; on a machine loaded with other work a turn can then take longer
// than the skill's 2 s timeout, which the hub rightly reports as
// TIMEOUT_SKILL: that is the only failure allowed here, never another.
func TestLoadtestInProcess(t *testing.T) {
	for _, enc := range []string{"cbor", "json"} {
		t.Run(enc, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runLoadtest(context.Background(), []string{"--robots", "20", "--turns", "20", "--duration", "0", "--encoding", enc, "--json"}, &out, &errOut)
			var rep struct {
				Connected  int            `json:"connected"`
				Turns      int            `json:"turns"`
				Errors     map[string]int `json:"errors"`
				Messages   int            `json:"messages"`
				LinksLost  int            `json:"linksLost"`
				Offered    string         `json:"offered"`
				Negotiated string         `json:"negotiated"`
			}
			require.NoError(t, json.Unmarshal(out.Bytes(), &rep), "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
			assert.Equal(t, enc, rep.Offered)
			assert.Equal(t, enc, rep.Negotiated)
			assert.Equal(t, 20, rep.Connected)
			assert.Zero(t, rep.LinksLost)
			timeouts := rep.Errors["hub ERROR TIMEOUT_SKILL"]
			for kind, n := range rep.Errors {
				assert.Equal(t, "hub ERROR TIMEOUT_SKILL", kind, "%d turns failed otherwise", n)
			}
			assert.Equal(t, 400, rep.Turns+timeouts, "every turn completed or timed out")
			assert.Positive(t, rep.Turns)
			assert.Equal(t, 1600, rep.Messages, "four messages a turn, a timed-out one's ERROR included")
			if timeouts == 0 {
				assert.Equal(t, 0, code, errOut.String())
			} else {
				assert.Equal(t, 1, code, "a failed turn fails the run")
			}
		})
	}
}

// One robot making more turns than the fact skill's calls_per_minute (600)
// allows in a minute: the in-process hub does not meter a load test.
func TestLoadtestNotRateLimited(t *testing.T) {
	var out, errOut bytes.Buffer
	code := runLoadtest(context.Background(), []string{"--robots", "1", "--turns", "700", "--duration", "0"}, &out, &errOut)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	assert.Contains(t, out.String(), "turns     700 in")
	assert.Contains(t, out.String(), "rate limit  no turn refused over calls_per_minute")
}

func TestLoadtestWithKeyJSONReport(t *testing.T) {
	key, err := token.GenerateKey()
	require.NoError(t, err)
	keyFile := filepath.Join(t.TempDir(), "hub.key")
	require.NoError(t, token.WriteKeyFile(keyFile, key))
	var out, errOut bytes.Buffer
	code := runLoadtest(context.Background(), []string{"--robots", "4", "--turns", "5", "--duration", "0", "--key", keyFile, "--json"}, &out, &errOut)
	require.Equal(t, 0, code, "stderr: %s", errOut.String())
	var rep struct {
		Connected  int            `json:"connected"`
		Turns      int            `json:"turns"`
		Errors     map[string]int `json:"errors"`
		Negotiated string         `json:"negotiated"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	assert.Equal(t, 4, rep.Connected)
	assert.Equal(t, 20, rep.Turns)
	assert.Empty(t, rep.Errors)
	assert.Equal(t, "cbor", rep.Negotiated)
}

func TestLoadtestUsage(t *testing.T) {
	tests := []struct {
		args    []string
		code    int
		wantErr string
	}{
		{[]string{"--encoding", "xml"}, 2, `--encoding: encoding "xml": want json or cbor`},
		{[]string{"--duration", "0"}, 2, "an unbounded load test never ends"},
		{[]string{"--robots", "0", "--turns", "1"}, 2, "robots 0"},
		{[]string{"--token", "x", "--key", "k"}, 2, "give --token or --key, not both"},
		{[]string{"extra"}, 2, `unexpected argument "extra"`},
		{[]string{"--url", "ws://127.0.0.1:1/v1/listen", "--robots", "2", "--turns", "1"}, 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.wantErr, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := runLoadtest(context.Background(), tt.args, &out, &errOut)
			assert.Equal(t, tt.code, code, "stdout %s stderr %s", out.String(), errOut.String())
			assert.Contains(t, errOut.String(), tt.wantErr)
		})
	}
}
