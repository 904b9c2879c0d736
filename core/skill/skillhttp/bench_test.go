package skillhttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/skillhttp"
	"github.com/openjibo/jibod/jcp"
)

// BenchmarkCallOverHTTPS measures one skill request over HTTPS to a local
// service, both sides in the process: with a new connection each time (a
// TLS 1.3 handshake, the certificate checked) and over one connection kept
// alive. It is the cost of the TLS, certificate and HTTP code a hub and
// skills' fetches run (docs/size.md).
func BenchmarkCallOverHTTPS(b *testing.B) {
	h := skillhttp.NewHandler(handlerFunc(func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		a, err := json.Marshal(jcp.NewAction(jcp.Say("hello")))
		if err != nil {
			return nil, err
		}
		return protocol.NewSkillAction(req, req.Data.Skill, a, true), nil
	}), skillhttp.ServerOptions{})
	ts := httptest.NewTLSServer(h)
	b.Cleanup(ts.Close)
	for _, keepAlive := range []bool{false, true} {
		name := "new-connection"
		if keepAlive {
			name = "kept-alive"
		}
		b.Run(name, func(b *testing.B) {
			tr := ts.Client().Transport.(*http.Transport).Clone()
			tr.DisableKeepAlives = !keepAlive
			b.Cleanup(tr.CloseIdleConnections)
			c, err := skillhttp.NewClient(ts.URL+skillhttp.Path, skillhttp.ClientOptions{HTTP: &http.Client{Transport: tr}})
			require.NoError(b, err)
			req := request()
			for b.Loop() {
				resp, err := c.Handle(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				if resp.Type != protocol.TypeSkillAction {
					b.Fatalf("answer %s, want %s", resp.Type, protocol.TypeSkillAction)
				}
			}
		})
	}
}
