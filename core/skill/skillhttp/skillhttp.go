// Package skillhttp carries the Jibo skill protocol over HTTP, as Pegasus
// cloud skills were served (spec/jibo.md §2.1): the hub POSTs a skill
// request (LISTEN_LAUNCH, LISTEN_UPDATE, PROACTIVE_LAUNCH) as JSON to the
// skill's URL, conventionally ending in /v1/main, and the answer is the
// skill's response (SKILL_ACTION, SKILL_REDIRECT, ERROR) as JSON.
//
// NewHandler serves any core/skill Skill that way; Client calls such a
// service and has the shape of an invoke.Handler, so a hub sends HTTP
// skills the same requests through the same invoker as in-process ones.
//
// Both sides bound what they read (MaxBodySize), decode and validate with
// package protocol, and answer bad input with a clear error: the server
// with a 4xx status and a JSON body {"error": "...", "code": "..."}; the
// client with an error naming the skill URL, wrapping ErrNotFound for a
// 404 and invoke.ErrInvalidResponse for an answer that does not decode.
package skillhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/protocol"
)

// Path is where a skill service takes requests.
const Path = "/v1/main"

// Headers the hub forwards on skill calls (jibo.md §1.1; interfaces.js
// Headers).
const (
	HeaderTransID       = "x-jibo-transid"
	HeaderRobotID       = "x-jibo-robotid"
	HeaderLoggingConfig = "x-jibo-logging-config"
)

// MaxBodySize bounds a request or response body: one protocol message.
const MaxBodySize = protocol.MaxMessageSize

// DefaultTimeout bounds a client call when the caller's context has no
// earlier deadline: the hub's skill timeout (jibo.md §2.1).
const DefaultTimeout = 10 * time.Second

// maxErrorSnippet bounds how much of an error body a client error quotes.
const maxErrorSnippet = 256

// Handler answers one skill request; core/skill's Skill and graph.Skill
// have this method.
type Handler interface {
	Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error)
}

// checkedHandler is a Handler whose answers come checked (base.Skill, a
// graph skill, a local skill): the server sends them without validating
// again.
type checkedHandler interface {
	HandleChecked(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error)
}

// answer is h's valid answer to req, validated once.
func answer(ctx context.Context, h Handler, req *protocol.Request) (*protocol.Response, error) {
	if ch, ok := h.(checkedHandler); ok {
		c, err := ch.HandleChecked(ctx, req)
		if err == nil && c.Response() == nil {
			err = errors.New("no response")
		}
		return c.Response(), err
	}
	resp, err := h.Handle(ctx, req)
	if err == nil && resp == nil {
		err = errors.New("no response")
	}
	if err == nil {
		err = resp.Validate()
	}
	return resp, err
}

// Error codes of the server's JSON error bodies.
const (
	CodeMethod      = "METHOD_NOT_ALLOWED"
	CodeContentType = "UNSUPPORTED_MEDIA_TYPE"
	CodeTooLarge    = "TOO_LARGE"
	CodeBadRequest  = "BAD_REQUEST"
	CodeSkill       = "SKILL_FAILED"
)

// ServerOptions configure NewHandler.
type ServerOptions struct {
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Timeout bounds one Handle call; 0 means DefaultTimeout.
	Timeout time.Duration
}

// NewHandler serves h at Path: POST with a JSON skill request, answered
// with the JSON response. A handler error becomes the skill protocol's
// ERROR response (status 200, as BaseSkill answered failures); a request
// that is not a valid skill request gets 400, a body over MaxBodySize 413,
// another method 405, another content type 415. Other paths are 404.
func NewHandler(h Handler, opts ServerOptions) http.Handler {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	mux := http.NewServeMux()
	mux.HandleFunc(Path, func(w http.ResponseWriter, r *http.Request) {
		serve(w, r, h, log, opts.Timeout)
	})
	return mux
}

func serve(w http.ResponseWriter, r *http.Request, h Handler, log *slog.Logger, timeout time.Duration) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, CodeMethod, fmt.Sprintf("%s %s: only POST", r.Method, Path))
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType, CodeContentType,
				fmt.Sprintf("content type %q: want application/json", ct))
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodySize))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, CodeTooLarge,
				fmt.Sprintf("request body over %d bytes", MaxBodySize))
			return
		}
		writeError(w, http.StatusBadRequest, CodeBadRequest, fmt.Sprintf("reading request body: %v", err))
		return
	}
	req, err := protocol.DecodeRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, CodeBadRequest, err.Error())
		return
	}
	if req.TransID == "" {
		req.TransID = r.Header.Get(HeaderTransID)
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	resp, err := answer(ctx, h, req)
	if err != nil {
		log.Warn("skill request failed", "type", req.Type, "trans_id", req.TransID, "err", err)
		resp = protocol.NewError(req, err.Error())
	}
	out, err := protocol.EncodeJSON(resp)
	if err != nil {
		log.Warn("encoding skill response", "type", req.Type, "trans_id", req.TransID, "err", err)
		writeError(w, http.StatusInternalServerError, CodeSkill, fmt.Sprintf("encoding the response: %v", err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// errorBody is the JSON body of an error status.
type errorBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	b, _ := json.Marshal(errorBody{Error: msg, Code: code})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// ErrNotFound is wrapped by a call to a URL that answers 404: the skill
// is not served there (the hub's SKILL_NOT_FOUND).
var ErrNotFound = errors.New("skill service not found")

// Client calls one skill service. Its Handle method has the shape of an
// invoke.Handler. It is safe for concurrent use.
type Client struct {
	url  string
	http *http.Client
}

// ClientOptions configure NewClient.
type ClientOptions struct {
	// HTTP makes the calls; nil means a client of its own with
	// DefaultTimeout.
	HTTP *http.Client
}

// NewClient returns a client of the skill service at rawURL (http or
// https, the full URL of the endpoint, usually ending in /v1/main).
func NewClient(rawURL string, opts ClientOptions) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("skill service URL %q: %w", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("skill service URL %q: want http:// or https:// with a host", rawURL)
	}
	hc := opts.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	return &Client{url: u.String(), http: hc}, nil
}

// URL is the service's URL.
func (c *Client) URL() string { return c.url }

// Handle sends req and returns the service's decoded, validated response,
// forwarding the transaction and robot ids as x-jibo-transid and
// x-jibo-robotid. The call ends with ctx (or after DefaultTimeout when ctx
// has no deadline).
func (c *Client) Handle(ctx context.Context, req *protocol.Request) (*protocol.Response, error) {
	r, err := c.HandleChecked(ctx, req)
	return r.Response(), err
}

// HandleChecked is Handle returning the answer as decoding checked it:
// the robot's invoker takes it without validating again.
func (c *Client) HandleChecked(ctx context.Context, req *protocol.Request) (*protocol.CheckedResponse, error) {
	if req == nil {
		return nil, fmt.Errorf("calling skill at %s: nil request", c.url)
	}
	body, err := protocol.EncodeJSON(req)
	if err != nil {
		return nil, fmt.Errorf("calling skill at %s: encoding the request: %w", c.url, err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("calling skill at %s: %w", c.url, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	if req.TransID != "" {
		hr.Header.Set(HeaderTransID, req.TransID)
	}
	if req.Data != nil && req.Data.General.RobotID != "" {
		hr.Header.Set(HeaderRobotID, req.Data.General.RobotID)
	}
	res, err := c.http.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("calling skill at %s: %w", c.url, err)
	}
	defer res.Body.Close()
	// One byte over the limit tells an oversized answer from one that fits.
	data, err := io.ReadAll(io.LimitReader(res.Body, MaxBodySize+1))
	if err != nil {
		return nil, fmt.Errorf("calling skill at %s: reading the answer: %w", c.url, err)
	}
	switch {
	case res.StatusCode == http.StatusNotFound:
		return nil, fmt.Errorf("calling skill at %s: %w (HTTP 404)", c.url, ErrNotFound)
	case res.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("calling skill at %s: HTTP %d: %s", c.url, res.StatusCode, snippet(data))
	case len(data) > MaxBodySize:
		return nil, fmt.Errorf("calling skill at %s: %w: answer over %d bytes", c.url, invoke.ErrInvalidResponse, MaxBodySize)
	}
	resp, err := protocol.DecodeCheckedResponse(data)
	if err != nil {
		return nil, fmt.Errorf("calling skill at %s: %w: %w", c.url, invoke.ErrInvalidResponse, err)
	}
	return resp, nil
}

// snippet quotes the start of an error body.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > maxErrorSnippet {
		s = s[:maxErrorSnippet] + "…"
	}
	return fmt.Sprintf("%q", s)
}
