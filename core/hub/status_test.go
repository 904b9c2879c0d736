package hub

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/hub/wire"
)

// TestCheckStatus: one connection says whether the link is up, with which
// encoding, and which skills the hub serves (sorted by id); a hub that
// cannot be reached is down, with why.
func TestCheckStatus(t *testing.T) {
	h := newFakeHub(t, func(t *testing.T, c *wire.Conn) {})
	catalog := `{"skills":[
		{"id":"b/two","version":"2.0.0","config":{"id":"b/two","intents":[{"name":"y"},{"name":"z"}]},"locale":{"en":{"y.intent":"y","z.intent":"z"}}},
		{"id":"a/one","version":"1.0.0","config":{"id":"a/one","intents":[{"name":"x"}]},"locale":{"en":{"x.intent":"x"}}}]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == wire.CatalogPath {
			_, _ = io.WriteString(w, catalog)
			return
		}
		h.serveHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := NewClient(Config{URL: "ws" + strings.TrimPrefix(srv.URL, "http"), Encoding: wire.JSON, Link: PerTurn,
		ConnectTimeout: testConnectTimeout, ReplyTimeout: testReplyTimeout, Logger: quiet})
	require.NoError(t, err)
	defer c.Close(context.Background())

	st := CheckStatus(context.Background(), c)
	assert.Equal(t, Status{URL: c.URL(), Link: "up", Encoding: "json", Skills: []StatusSkill{
		{ID: "a/one", Version: "1.0.0", Intents: []string{"x"}},
		{ID: "b/two", Version: "2.0.0", Intents: []string{"y", "z"}},
	}}, st)
	var text bytes.Buffer
	st.WriteText(&text)
	assert.Equal(t, "hub:  "+c.URL()+"\nlink: up (json)\nskill a/one 1.0.0: [x]\nskill b/two 2.0.0: [y z]\n", text.String())

	srv.Close()
	st = CheckStatus(context.Background(), c)
	assert.Equal(t, "down", st.Link)
	assert.NotEmpty(t, st.Error)
	assert.Empty(t, st.Encoding)
	assert.Equal(t, []StatusSkill{}, st.Skills)
	text.Reset()
	st.WriteText(&text)
	assert.Equal(t, "hub:  "+c.URL()+"\nlink: down\n", text.String())

	text.Reset()
	err = st.Write(&text, true)
	assert.EqualError(t, err, "hub "+c.URL()+": "+st.Error, "a link down is an error")
	assert.True(t, strings.HasPrefix(text.String(), `{"url":"`+c.URL()+`","link":"down","error":`), text.String())
	assert.True(t, strings.HasSuffix(text.String(), `,"skills":[]}`+"\n"), text.String())
}
