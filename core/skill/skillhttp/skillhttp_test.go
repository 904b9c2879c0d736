package skillhttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/skillhttp"
	"github.com/openjibo/jibod/jcp"
)

type handlerFunc func(ctx context.Context, req *protocol.Request) (*protocol.Response, error)

func (f handlerFunc) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	return f(ctx, req)
}

func request() *protocol.Request {
	c := protocol.Context{General: protocol.GeneralData{AccountID: "a", RobotID: "Blue-Cat", Lang: "en-US", Release: "1.9.2"},
		Skill: protocol.Skill("test.hello")}
	return protocol.NewListenLaunch(c, protocol.NLUFromSlots("hello", nil, nil), protocol.ASRResult{Text: "hi", Confidence: 1},
		nil, protocol.WithTransID("tid-1"))
}

func TestRoundTrip(t *testing.T) {
	var headers http.Header
	h := skillhttp.NewHandler(handlerFunc(func(_ context.Context, req *protocol.Request) (*protocol.Response, error) {
		a, _ := json.Marshal(jcp.NewAction(jcp.Say("hello")))
		return protocol.NewSkillAction(req, req.Data.Skill, a, true), nil
	}), skillhttp.ServerOptions{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		headers = r.Header.Clone()
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	c, err := skillhttp.NewClient(ts.URL+skillhttp.Path, skillhttp.ClientOptions{})
	require.NoError(t, err)
	resp, err := c.Handle(context.Background(), request())
	require.NoError(t, err)
	assert.Equal(t, protocol.TypeSkillAction, resp.Type)
	assert.Equal(t, "tid-1", resp.TransID)
	assert.Equal(t, "tid-1", headers.Get(skillhttp.HeaderTransID))
	assert.Equal(t, "Blue-Cat", headers.Get(skillhttp.HeaderRobotID))
}

func TestHandlerErrorIsSkillError(t *testing.T) {
	h := skillhttp.NewHandler(handlerFunc(func(context.Context, *protocol.Request) (*protocol.Response, error) {
		return nil, errors.New("no can do")
	}), skillhttp.ServerOptions{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	c, err := skillhttp.NewClient(ts.URL+skillhttp.Path, skillhttp.ClientOptions{})
	require.NoError(t, err)
	resp, err := c.Handle(context.Background(), request())
	require.NoError(t, err)
	require.Equal(t, protocol.TypeError, resp.Type)
	assert.Equal(t, "no can do", resp.Error.Message)
}

func TestServerRefusesBadInput(t *testing.T) {
	h := skillhttp.NewHandler(handlerFunc(func(context.Context, *protocol.Request) (*protocol.Response, error) {
		t.Fatal("handler called for bad input")
		return nil, nil
	}), skillhttp.ServerOptions{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	for _, tc := range []struct {
		name, method, ctype, body string
		status                    int
		code                      string
	}{
		{"GET", http.MethodGet, "", "", http.StatusMethodNotAllowed, skillhttp.CodeMethod},
		{"text", http.MethodPost, "text/plain", "{}", http.StatusUnsupportedMediaType, skillhttp.CodeContentType},
		{"malformed", http.MethodPost, "application/json", `{"type":`, http.StatusBadRequest, skillhttp.CodeBadRequest},
		{"not a request", http.MethodPost, "application/json", `{"type":"SKILL_ACTION","msgID":"m","ts":1,"data":null}`, http.StatusBadRequest, skillhttp.CodeBadRequest},
		{"too large", http.MethodPost, "application/json", strings.Repeat(" ", skillhttp.MaxBodySize+1), http.StatusRequestEntityTooLarge, skillhttp.CodeTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, ts.URL+skillhttp.Path, strings.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, tc.status, resp.StatusCode)
			assert.Contains(t, string(body), `"code":"`+tc.code+`"`)
		})
	}
}

func TestClientRefusesBadAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   error
		text   string
	}{
		{"404", http.StatusNotFound, "", skillhttp.ErrNotFound, "404"},
		{"500", http.StatusInternalServerError, "oops", nil, "HTTP 500"},
		{"malformed", http.StatusOK, `{"type":`, invoke.ErrInvalidResponse, "invalid response"},
		{"oversized", http.StatusOK, strings.Repeat(" ", skillhttp.MaxBodySize+10), invoke.ErrInvalidResponse, "over"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer ts.Close()
			c, err := skillhttp.NewClient(ts.URL+skillhttp.Path, skillhttp.ClientOptions{})
			require.NoError(t, err)
			_, err = c.Handle(context.Background(), request())
			require.Error(t, err)
			if tc.want != nil {
				assert.ErrorIs(t, err, tc.want)
			}
			assert.Contains(t, err.Error(), tc.text)
		})
	}
	_, err := skillhttp.NewClient("ftp://x/v1/main", skillhttp.ClientOptions{})
	assert.Error(t, err)
}
